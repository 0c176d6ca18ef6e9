"""Creating a vcluster (testing/vcluster/vcluster.py `up`): the shape of its fabric, the host
namespaces and the shaped bridges (a dragonfly: routers) between them, the rsh agent, the
fabric dump, and toporrd on the head node. Everything made is recorded in state.json first (vcluster_state.py), so a
failed or killed creation is removed by `down`.
"""

import argparse
import io
import itertools
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

from vcluster_state import (DAEMON_IP, HEAD_IP, NS_PREFIX, STATE_ROOT, SUBNET, TOPORRD_PORT, State,
                            VclusterError, down_state, kill_all, list_netns, log, namespace_argv,
                            sh)

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
MAX_HOSTS = 16
NAME_MAX = 8  # interface and namespace names stay short; `tvc-NAME-node16` fits in 20 chars

# InfiniBand rates the fabric dump expresses an emulated rate with, as a fraction of the
# host link's (4x QDR): one uplink of a power-of-two fraction, or k parallel host-rate links.
IB_FRACTIONS = {1: ("4x", "QDR"), 2: ("4x", "DDR"), 4: ("4x", "SDR"), 8: ("1x", "DDR"),
                16: ("1x", "SDR")}
PROFILES = ("tapered", "full", "tree3", "damaged", "uneven", "dragonfly")
# A leaf uplink's default rate is (hosts on the leaf x host rate) / TAPER[profile].
TAPER = {"tapered": 4, "damaged": 4, "uneven": 4, "full": 1, "tree3": 2}
POD_TAPER = 2  # tree3: a pod uplink's default rate is the sum of its leaves' uplinks / 2
DAMAGE = 4     # a damaged uplink runs at 1/DAMAGE of its healthy rate
GLOBAL_TAPER = 2  # dragonfly: a global link's default rate is a host link's / 2
DEFAULT_HOSTS = {"tree3": 16, "damaged": 12, "dragonfly": 16}  # others: 8
DEFAULT_LEAF_HOSTS = {"uneven": "5,3,1"}
DEFAULT_DAMAGED = {"damaged": "leaf3"}
# Dragonfly addresses: group g's router is .254 in the group's /24 (198.18.g.0/24, g from 1);
# the head's /24 (198.18.0.0/24, HEAD_IP and DAEMON_IP) has router 1 at HEAD_GATEWAY; the
# router of group i holds 198.19.i.j on its global link to group j (a /32 with the peer's
# 198.19.j.i), so that each router's addresses are its own block.
HEAD_GATEWAY = "198.18.0.254"


# ---- the shape -----------------------------------------------------------------------------


def ib_links(mbit, host_mbit, what, count=None):
    """(parallel links, (width, speed) of each) expressing an emulated rate in the fabric
    dump: k host-rate links for a whole multiple k of the host rate, else one link of a
    power-of-two fraction of it; with count, that many links sharing the rate equally."""
    ratio = mbit / host_mbit
    if count is None:
        if ratio >= 1 and abs(ratio - round(ratio)) < 1e-9:
            return int(round(ratio)), IB_FRACTIONS[1]
        count = 1
    for div, rate in IB_FRACTIONS.items():
        if abs(ratio / count * div - 1) < 1e-9:
            return count, rate
    raise VclusterError(
        f"{what} {mbit:g} Mbit/s is neither a whole multiple of the host link "
        f"({host_mbit:g} Mbit/s) nor 1/2, 1/4, 1/8 or 1/16 of it"
        + (f" per link over {count} links" if count > 1 else "")
        + ": the fabric dump (InfiniBand widths and speeds) cannot express it")


def leaf_index(text, leaves):
    """0-based index of a leaf named `leafN` or `N` (1-based)."""
    num = text[4:] if text.startswith("leaf") else text
    if not num.isdigit() or not 1 <= int(num) <= leaves:
        raise VclusterError(f"--damaged-uplink must name a leaf leaf1..leaf{leaves}, "
                            f"got '{text}'")
    return int(num) - 1


class Shape:
    """Hosts, leaves, pods and rates of one cluster (all rates in Mbit/s).

    Two levels (profiles tapered, full, damaged, uneven): leaves under one spine. Three
    levels (tree3): leaves under pod switches (leaves_per_pod consecutive leaves each) under
    one core. Host i is on leaf host_leaf[i]; leaves hold leaf_hosts[l] hosts each (equal
    unless --leaf-hosts says otherwise). leaf_uplink_mbit[l] is leaf l's rate towards its
    pod or the spine (the damaged leaf's at 1/DAMAGE of healthy), pod_uplink_mbit[p] pod p's
    towards the core; ib_leaf[l] and ib_pod[p] express them as (links, (width, speed)).

    Dragonfly (profile dragonfly): the leaves are the groups, one router each (levels 1, no
    top, no pods, no leaf uplinks); global_links lists every pair (i, j), i < j, of groups,
    each joined by one link of global_mbit, expressed in the dump as ib_global (one link)."""

    def __init__(self, profile="tapered", hosts=None, hosts_per_leaf=4, host_mbit=400,
                 uplink_mbit=None, head_mbit=0, leaf_hosts=None, leaves_per_pod=None,
                 pod_uplink_mbit=None, damaged_uplink=None, global_mbit=None, host_names=None):
        if profile not in PROFILES:
            raise VclusterError(f"unknown --profile '{profile}' ({', '.join(PROFILES)})")
        if host_mbit <= 0:
            raise VclusterError("--host-mbit must be positive")
        self.profile = profile
        self.dragonfly = profile == "dragonfly"
        if self.dragonfly:
            given = [o for o, v in (("--leaf-hosts", leaf_hosts), ("--uplink-mbit", uplink_mbit),
                                    ("--leaves-per-pod", leaves_per_pod),
                                    ("--pod-uplink-mbit", pod_uplink_mbit),
                                    ("--damaged-uplink", damaged_uplink)) if v is not None]
            if given:
                raise VclusterError(
                    f"{', '.join(given)} "
                    + ("is not an option" if len(given) == 1 else "are not options")
                    + " of profile dragonfly (its groups are --hosts / --hosts-per-leaf groups "
                    "of equal size, joined by global links of --global-mbit)")
        elif global_mbit is not None:
            raise VclusterError("--global-mbit is an option of profile dragonfly")
        self.levels = 3 if profile == "tree3" else 1 if self.dragonfly else 2
        self.top = {3: "core", 2: "spine", 1: None}[self.levels]
        leaf_hosts = leaf_hosts if leaf_hosts is not None else DEFAULT_LEAF_HOSTS.get(profile)
        damaged_uplink = (damaged_uplink if damaged_uplink is not None
                          else DEFAULT_DAMAGED.get(profile))
        if leaf_hosts is not None:
            try:
                counts = [int(t) for t in str(leaf_hosts).split(",")]
            except ValueError:
                counts = []
            if not counts or min(counts) < 1:
                raise VclusterError(f"--leaf-hosts must be host counts per leaf like 5,3,1, "
                                    f"got '{leaf_hosts}'")
            if hosts is not None and hosts != sum(counts):
                raise VclusterError(f"--hosts ({hosts}) differs from the sum of --leaf-hosts "
                                    f"({sum(counts)})")
            hosts = sum(counts)
        else:
            hosts = hosts if hosts is not None else DEFAULT_HOSTS.get(profile, 8)
            if not 2 <= hosts <= MAX_HOSTS:
                raise VclusterError(f"--hosts must be 2..{MAX_HOSTS}, got {hosts}")
            if not 1 <= hosts_per_leaf <= hosts:
                raise VclusterError(f"--hosts-per-leaf must be 1..{hosts}, got {hosts_per_leaf}")
            if hosts % hosts_per_leaf:
                raise VclusterError(f"--hosts ({hosts}) must be a multiple of --hosts-per-leaf "
                                    f"({hosts_per_leaf}): every leaf holds the same number "
                                    "(--leaf-hosts gives leaves of different sizes)")
            counts = [hosts_per_leaf] * (hosts // hosts_per_leaf)
        if not 2 <= hosts <= MAX_HOSTS:
            raise VclusterError(f"--hosts must be 2..{MAX_HOSTS}, got {hosts}")
        self.hosts = [f"node{i + 1:02d}" for i in range(hosts)]
        if host_names:
            names = host_names.split(",")
            if profile == "dragonfly":
                raise VclusterError("--host-names: not with profile dragonfly (its dump names "
                                    "the hosts of each group itself)")
            if len(names) != hosts:
                raise VclusterError(f"--host-names gives {len(names)} names for {hosts} hosts")
            for n in names:
                if not re.fullmatch(r"[a-z][a-z0-9-]{0,30}", n) or n in ("head", "toporrd"):
                    raise VclusterError(f"--host-names: '{n}' is not a host name here (a "
                                        "lower-case letter, then up to 30 of a-z 0-9 '-'; "
                                        "not head or toporrd)")
            if len(set(names)) != len(names):
                raise VclusterError("--host-names: a name given twice")
            self.hosts = names
        self.leaf_hosts = counts
        self.leaves = len(counts)
        self.host_leaf = [l for l, n in enumerate(counts) for _ in range(n)]
        self.uneven = len(set(counts)) > 1
        self.hosts_per_leaf = None if self.uneven else counts[0]
        self.host_mbit = host_mbit
        self.head_mbit = head_mbit
        if self.dragonfly:
            self._init_dragonfly(global_mbit)
            return

        if self.levels == 3:
            self.leaves_per_pod = leaves_per_pod if leaves_per_pod is not None else 2
            if self.leaves_per_pod < 1:
                raise VclusterError("--leaves-per-pod must be at least 1")
            self.pods = -(-self.leaves // self.leaves_per_pod)
            if self.pods < 2:
                raise VclusterError(f"profile tree3 needs at least two pods: {self.leaves} "
                                    f"leaves in pods of {self.leaves_per_pod}")
            self.leaf_pod = [l // self.leaves_per_pod for l in range(self.leaves)]
        else:
            if leaves_per_pod is not None or pod_uplink_mbit is not None:
                raise VclusterError("--leaves-per-pod and --pod-uplink-mbit are options of "
                                    "profile tree3")
            self.leaves_per_pod, self.pods, self.leaf_pod = None, 0, [None] * self.leaves

        # Leaf uplinks: a given rate for every leaf, else the profile's taper of the leaf's
        # hosts; tapered leaves of different sizes default to one host link's rate each
        # (a leaf of n hosts is n:1), since n/4 of a host link is not expressible in general.
        if uplink_mbit is not None:
            healthy = [float(uplink_mbit)] * self.leaves
        elif self.uneven and TAPER[profile] == 4:
            healthy = [float(host_mbit)] * self.leaves
        else:
            healthy = [n * host_mbit / TAPER[profile] for n in counts]
        if min(healthy) <= 0:
            raise VclusterError("--uplink-mbit must be positive")
        self.damaged = None if damaged_uplink is None else leaf_index(damaged_uplink,
                                                                      self.leaves)
        self.healthy_uplink_mbit = healthy
        self.leaf_uplink_mbit = list(healthy)
        self.ib_leaf = [ib_links(r, host_mbit, "leaf uplink") for r in healthy]
        if self.damaged is not None:
            d = self.damaged
            self.leaf_uplink_mbit[d] = healthy[d] / DAMAGE
            # As many links as a healthy uplink of that rate, each 1/DAMAGE as fast.
            self.ib_leaf[d] = ib_links(self.leaf_uplink_mbit[d], host_mbit,
                                       f"the damaged uplink of leaf{d + 1}",
                                       count=self.ib_leaf[d][0])
        if self.levels == 3:
            if pod_uplink_mbit is not None:
                self.pod_uplink_mbit = [float(pod_uplink_mbit)] * self.pods
            else:
                self.pod_uplink_mbit = [
                    sum(healthy[l] for l in self.pod_leaves(p)) / POD_TAPER
                    for p in range(self.pods)]
            if min(self.pod_uplink_mbit) <= 0:
                raise VclusterError("--pod-uplink-mbit must be positive")
            self.ib_pod = [ib_links(r, host_mbit, "pod uplink") for r in self.pod_uplink_mbit]
        else:
            self.pod_uplink_mbit, self.ib_pod = [], []

    def _init_dragonfly(self, global_mbit):
        if self.leaves < 2:
            raise VclusterError(f"profile dragonfly needs at least two groups: {len(self.hosts)} "
                                f"hosts in groups of {self.hosts_per_leaf} (--hosts-per-leaf)")
        self.global_mbit = (float(global_mbit) if global_mbit is not None
                            else self.host_mbit / GLOBAL_TAPER)
        if self.global_mbit <= 0:
            raise VclusterError("--global-mbit must be positive")
        if self.global_mbit > self.host_mbit:
            raise VclusterError(f"--global-mbit ({self.global_mbit:g}) must be at most the host "
                                f"link's rate ({self.host_mbit:g}): one cable joins two groups")
        self.ib_global = ib_links(self.global_mbit, self.host_mbit, "global link", count=1)
        self.global_links = list(itertools.combinations(range(self.leaves), 2))
        self.leaves_per_pod, self.pods, self.leaf_pod = None, 0, [None] * self.leaves
        self.damaged = None
        self.healthy_uplink_mbit, self.leaf_uplink_mbit, self.ib_leaf = [], [], []
        self.pod_uplink_mbit, self.ib_pod = [], []

    def router_ip(self, g):
        """Group g's router on the group's bridge (0-based g): its hosts' default route."""
        return f"198.18.{g + 1}.254"

    def global_ip(self, i, j):
        """Group i's router's address on its global link to group j (0-based)."""
        return f"198.19.{i + 1}.{j + 1}"

    def pod_leaves(self, p):
        return [l for l in range(self.leaves) if self.leaf_pod[l] == p]

    def leaf_of(self, i):
        return self.host_leaf[i]

    def host_ip(self, i):
        return f"198.18.{self.leaf_of(i) + 1}.{i + 1}"

    def leaf_taper(self, l):
        return self.leaf_hosts[l] * self.host_mbit / self.leaf_uplink_mbit[l]

    def pod_taper(self, p):
        return sum(self.healthy_uplink_mbit[l] for l in self.pod_leaves(p)) / \
            self.pod_uplink_mbit[p]

    def describe(self):
        def rates(values, tapers):
            if len(set(values)) == 1 and len(set(tapers)) == 1:
                return f"{values[0]:g} Mbit/s ({tapers[0]:g}:1)"
            return ", ".join(f"{v:g} ({t:g}:1)" for v, t in zip(values, tapers)) + " Mbit/s"

        if self.dragonfly:
            return (f"{len(self.hosts)} hosts in {self.leaves} groups of {self.hosts_per_leaf}, "
                    f"one router each, the groups all-to-all by {len(self.global_links)} global "
                    f"links (dragonfly), host links {self.host_mbit:g} Mbit/s, global links "
                    f"{self.global_mbit:g} Mbit/s ({self.host_mbit / self.global_mbit:g}:1), "
                    f"profile {self.profile}")
        healthy = [l for l in range(self.leaves) if l != self.damaged]
        leaves = (f"{self.leaves} leaves of {self.hosts_per_leaf}" if not self.uneven else
                  f"{self.leaves} leaves of {','.join(map(str, self.leaf_hosts))} hosts")
        text = f"{len(self.hosts)} hosts on {leaves}"
        if self.levels == 3:
            text += (f" in {self.pods} pods of {self.leaves_per_pod} leaves under one core "
                     "(3 levels)")
        text += (f", host links {self.host_mbit:g} Mbit/s, leaf uplinks "
                 + rates([self.leaf_uplink_mbit[l] for l in healthy],
                         [self.leaf_taper(l) for l in healthy]))
        if self.levels == 3:
            text += ", pod uplinks " + rates(
                self.pod_uplink_mbit, [self.pod_taper(p) for p in range(self.pods)])
        if self.damaged is not None:
            d = self.damaged
            text += (f", leaf{d + 1}'s uplink damaged: {self.leaf_uplink_mbit[d]:g} Mbit/s "
                     f"(1/{DAMAGE} of {self.healthy_uplink_mbit[d]:g})")
        return text + f", profile {self.profile}"

    def layout(self):
        """The cluster's shape for state.json (`vcluster status`, the rsh agent, tests)."""
        ib = lambda links: f"{links[0]} x {links[1][0]} {links[1][1]}"
        pod = lambda p: None if p is None else f"pod{p + 1}"
        if self.dragonfly:
            # A group is its hosts' leaf: consumers of `leaf` see the groups.
            return {
                "profile": self.profile, "levels": self.levels, "top": None,
                "host_mbit": self.host_mbit, "global_mbit": self.global_mbit,
                "hosts": [{"name": h, "ip": self.host_ip(i),
                           "leaf": f"group{self.leaf_of(i) + 1}",
                           "group": f"group{self.leaf_of(i) + 1}", "pod": None}
                          for i, h in enumerate(self.hosts)],
                "groups": [{"name": f"group{g + 1}", "hosts": self.leaf_hosts[g],
                            "router": f"router{g + 1}", "subnet": f"198.18.{g + 1}.0/24",
                            "gateway": self.router_ip(g)} for g in range(self.leaves)],
                "global_links": [{"groups": [f"group{i + 1}", f"group{j + 1}"],
                                  "mbit": self.global_mbit, "ib": ib(self.ib_global)}
                                 for i, j in self.global_links],
                "leaves": [], "pods": [],
            }
        return {
            "profile": self.profile, "levels": self.levels, "top": self.top,
            "host_mbit": self.host_mbit,
            "hosts": [{"name": h, "ip": self.host_ip(i), "leaf": f"leaf{self.leaf_of(i) + 1}",
                       "pod": pod(self.leaf_pod[self.leaf_of(i)])}
                      for i, h in enumerate(self.hosts)],
            "leaves": [{"name": f"leaf{l + 1}", "hosts": self.leaf_hosts[l],
                        "pod": pod(self.leaf_pod[l]), "uplink_mbit": self.leaf_uplink_mbit[l],
                        "damaged": l == self.damaged, "ib": ib(self.ib_leaf[l])}
                       for l in range(self.leaves)],
            "pods": [{"name": f"pod{p + 1}", "leaves": [f"leaf{l + 1}" for l in
                                                         self.pod_leaves(p)],
                      "uplink_mbit": self.pod_uplink_mbit[p], "ib": ib(self.ib_pod[p])}
                     for p in range(self.pods)],
        }


def tbf(dev, mbit, netns):
    """Shapes dev's egress to mbit. The bucket holds 1 ms at the rate but at least 64 KiB (a
    GSO segment); the queue holds 100 ms, so that TCP is paced, not dropped."""
    rate_bytes = mbit * 1e6 / 8
    burst = max(65536, int(rate_bytes / 1000))
    limit = max(262144, int(rate_bytes / 10))
    sh("tc", "qdisc", "replace", "dev", dev, "root", "tbf", "rate", f"{mbit:g}mbit", "burst",
       burst, "limit", limit, netns=netns)


# ---- up ------------------------------------------------------------------------------------


def preflight(name, root=None):
    if root:
        for need in ("bin/sh", "usr/bin/nsenter", "proc", "sys", "dev", "etc/hosts"):
            if not os.path.exists(os.path.join(root, need)):
                raise VclusterError(f"--root {root}: no /{need} there (a Debian root, e.g. "
                                    "testing/stacks/stack_root.sh ensure trixie)")
    if os.geteuid() != 0:
        raise VclusterError("must run as root (it creates namespaces, veth pairs, bridges and "
                            "tc shapers)")
    for tool in ("ip", "tc", "nsenter", "unshare", "mount", "ping"):
        if shutil.which(tool) is None:
            raise VclusterError(f"'{tool}' not found (install iproute2, util-linux, "
                                "iputils-ping)")
    for ns in ("net", "uts", "ipc", "mnt"):
        if not os.path.exists(f"/proc/self/ns/{ns}"):
            raise VclusterError(f"this kernel has no {ns} namespaces (/proc/self/ns/{ns})")
    if not name.isalnum() or not name.islower() or len(name) > NAME_MAX:
        raise VclusterError(f"--name must be 1..{NAME_MAX} lower-case letters or digits, "
                            f"got '{name}'")
    taken = [n for n in list_netns() if n.startswith(f"{NS_PREFIX}{name}-")]
    if taken or os.path.exists(os.path.join(STATE_ROOT, name)):
        raise VclusterError(
            f"cluster '{name}' exists already ({', '.join(taken[:3]) or STATE_ROOT + '/' + name});"
            f" remove it with 'vcluster down --name {name}' or choose another --name")
    # tc tbf and veth: try them in a scratch namespace, so a missing module is named here.
    probe = f"{NS_PREFIX}{name}-probe"
    try:
        sh("ip", "netns", "add", probe)
    except VclusterError as e:
        raise VclusterError(f"cannot create a network namespace: {e}")
    try:
        sh("ip", "link", "add", "p0", "type", "veth", "peer", "name", "p1", netns=probe)
        try:
            sh("tc", "qdisc", "add", "dev", "p0", "root", "tbf", "rate", "1mbit", "burst", "32kb",
               "limit", "64kb", netns=probe)
        except VclusterError as e:
            raise VclusterError(f"tc tbf is not available (sch_tbf module?): {e}")
        sh("ip", "link", "add", "b0", "type", "bridge", netns=probe)
    finally:
        sh("ip", "netns", "del", probe, check=False)


def make_host(state, host, hosts_file):
    """The namespace set of one host: net (named `tvc-NAME-HOST`), UTS with its host name, IPC,
    and a mount namespace in which /etc/hosts is the cluster's and /dev/shm a tmpfs of its own
    (POSIX shared memory is not covered by the IPC namespace: MPI libraries name their
    segments per job, not per host, and would collide across hosts), and /sys/fs/cgroup the
    machine's. A holder process (`sleep`) keeps the UTS, IPC and mount namespaces alive;
    nsenter enters them through its pid.
    With a root (`up --root DIR`) the holder mounts /proc, /sys, /dev (with that /dev/shm),
    the cluster's /etc/hosts and its state directory (at the same path) into DIR, in its own
    mount namespace, and runs chrooted there: whatever enters the host (nsenter --root) runs
    on DIR's files."""
    ns = state.ns(host)
    state.creating("netns", ns)
    sh("ip", "netns", "add", ns)
    for key in ("net.ipv6.conf.all.disable_ipv6", "net.ipv6.conf.default.disable_ipv6"):
        sh("sysctl", "-qw", f"{key}=1", netns=ns)
    sh("ip", "link", "set", "lo", "up", netns=ns)
    ready = os.path.join(state.dir, f".{host}.ready")
    q = shlex.quote
    script = (f"hostname {q(host)} && mount --bind {q(hosts_file)} /etc/hosts "
              f"&& mount -t tmpfs -o mode=1777 {q(ns)}-shm /dev/shm")
    # ip netns exec mounts a /sys of the host's network namespace, without the machine's
    # control groups (Slurm's node daemon needs them): a mount namespace around it keeps
    # them at a place of the state directory, from where they go back to /sys/fs/cgroup.
    outer = ""
    if os.path.ismount("/sys/fs/cgroup"):
        keep = os.path.join(state.dir, f".cgroup-{host}")
        os.makedirs(keep, exist_ok=True)
        outer = f"mount --rbind /sys/fs/cgroup {q(keep)} && exec "
        script += f" && mount --rbind {q(keep)} /sys/fs/cgroup && umount -l {q(keep)}"
    hold = "sleep infinity"
    root = state.data.get("root")
    if root:
        r = root.rstrip("/")
        script += (f" && mount -t proc proc {q(r + '/proc')} && mount --rbind /sys {q(r + '/sys')}"
                   f" && mount --rbind /dev {q(r + '/dev')}"
                   f" && mount --bind {q(hosts_file)} {q(r + '/etc/hosts')}"
                   f" && mkdir -p {q(r + state.dir)} && mount --bind {q(state.dir)} "
                   f"{q(r + state.dir)}")
        hold = f"chroot {q(r)} sleep infinity"
    inner = (f"ip netns exec {q(ns)} unshare --uts --ipc --mount --propagation private sh -c "
             f"{q(f'{script} && touch {q(ready)} && exec {hold}')}")
    # unshare, sh, ip netns exec and unshare exec without forking: the pid is the holder's.
    holder = subprocess.Popen(
        ["unshare", "--mount", "--propagation", "private", "sh", "-c", outer + inner],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        start_new_session=True)
    state.data["pids"][f"holder-{host}"] = holder.pid
    state.save()
    deadline = time.monotonic() + 10
    while not os.path.exists(ready):
        if holder.poll() is not None:
            raise VclusterError(f"{host}: namespaces not created: "
                                f"{holder.stderr.read().decode().strip()}")
        if time.monotonic() > deadline:
            raise VclusterError(f"{host}: namespaces not ready after 10 s")
        time.sleep(0.01)
    os.unlink(ready)
    holder.stderr.close()


def up(args):
    name = args.name
    preflight(name, getattr(args, "root", None))
    shape = Shape(profile=args.profile, hosts=args.hosts, hosts_per_leaf=args.hosts_per_leaf,
                  host_mbit=args.host_mbit, uplink_mbit=args.uplink_mbit,
                  head_mbit=args.head_mbit, leaf_hosts=args.leaf_hosts,
                  leaves_per_pod=args.leaves_per_pod, pod_uplink_mbit=args.pod_uplink_mbit,
                  damaged_uplink=args.damaged_uplink, global_mbit=args.global_mbit,
                  host_names=getattr(args, "host_names", None))
    os.makedirs(STATE_ROOT, exist_ok=True)
    state = State(name)
    os.makedirs(state.dir)
    state.data.update({"shape": vars(args).copy(), "layout": shape.layout(),
                       "hosts": shape.hosts, "state_dir": state.dir, "created": time.time(),
                       "describe": shape.describe()})
    state.data["shape"].pop("func", None)
    state.data["shape"].pop("command", None)
    if getattr(args, "root", None):
        state.data["root"] = os.path.realpath(args.root)
    state.save()
    try:
        build(state, shape, args)
    except BaseException:
        log("creation failed: removing what was made")
        down_state(state)
        raise
    return state


def build(state, shape, args):
    d = state.dir
    hosts_file = os.path.join(d, "hosts")
    with open(hosts_file, "w") as f:
        f.write("127.0.0.1\tlocalhost\n")
        f.write(f"{HEAD_IP}\thead\n")
        f.write(f"{DAEMON_IP}\ttoporrd\n")
        for i, h in enumerate(shape.hosts):
            f.write(f"{shape.host_ip(i)}\t{h}\n")
    if shape.dragonfly:
        build_routers(state, shape, hosts_file)
    else:
        build_bridges(state, shape, hosts_file)
    write_agent(state)
    build_mpich_shim(state)
    if not os.environ.get("VC_NOWAIT"): wait_reachable(state, shape)
    if not args.no_fabric:
        write_fabric(state, shape)
    if args.toporrd:
        start_toporrd(state, args.toporrd, args.toporrctl, getattr(args, "cost_model", None))
    state.data["ready"] = True
    state.save()


def fabric_namespace(state, name, forward=False):
    """A namespace of the fabric (`tvc-NAME-name`, recorded in state first): no IPv6,
    loopback up, and IPv4 forwarding on if forward (a router)."""
    ns = state.ns(name)
    state.creating("netns", ns)
    sh("ip", "netns", "add", ns)
    for key in ("net.ipv6.conf.all.disable_ipv6", "net.ipv6.conf.default.disable_ipv6"):
        sh("sysctl", "-qw", f"{key}=1", netns=ns)
    if forward:
        sh("sysctl", "-qw", "net.ipv4.ip_forward=1", netns=ns)
    sh("ip", "link", "set", "lo", "up", netns=ns)
    return ns


def bridge(br, netns):
    sh("ip", "link", "add", br, "type", "bridge", "stp_state", "0", "forward_delay", "0",
       netns=netns)
    sh("ip", "link", "set", br, "up", netns=netns)


def attach(state, host, hosts_file, fab, br, port, addrs, mbit):
    """Host's namespace set (make_host) with eth0 cabled by a veth pair to the fabric
    namespace fab: its end `port` on bridge br (None: no bridge, the caller addresses it).
    eth0 gets addrs (CIDR); both directions are shaped to mbit (0: not shaped)."""
    make_host(state, host, hosts_file)
    ns = state.ns(host)
    sh("ip", "link", "add", port, "type", "veth", "peer", "name", "eth0", "netns", ns,
       netns=fab)
    sh("ip", "link", "set", port, *(("master", br) if br else ()), "up", netns=fab)
    for addr in addrs:
        sh("ip", "addr", "add", addr, "dev", "eth0", netns=ns)
    sh("ip", "link", "set", "eth0", "up", netns=ns)
    if mbit:
        tbf(port, mbit, fab)       # switch -> host
        tbf("eth0", mbit, ns)      # host -> switch


def build_bridges(state, shape, hosts_file):
    """A tree fabric in one namespace `fab`, the head on the top bridge, every address in
    one /16."""
    fab = fabric_namespace(state, "fab")

    # Bridges in a tree (leaves under pods under the core, or leaves under the spine): no
    # loops, so plain learning bridges forward every packet along the one path the fabric
    # dump routes. Every inter-bridge link is a veth pair shaped both ways: XNup on the lower
    # bridge, XNdn on the upper one.
    def uplink(lower, upper, up_dev, dn_dev, mbit):
        sh("ip", "link", "add", up_dev, "type", "veth", "peer", "name", dn_dev, netns=fab)
        sh("ip", "link", "set", up_dev, "master", lower, "up", netns=fab)
        sh("ip", "link", "set", dn_dev, "master", upper, "up", netns=fab)
        tbf(up_dev, mbit, fab)
        tbf(dn_dev, mbit, fab)

    bridge(shape.top, fab)
    for p in range(shape.pods):
        bridge(f"pod{p + 1}", fab)
        uplink(f"pod{p + 1}", shape.top, f"p{p + 1}up", f"p{p + 1}dn", shape.pod_uplink_mbit[p])
    for l in range(shape.leaves):
        pod = shape.leaf_pod[l]
        bridge(f"leaf{l + 1}", fab)
        uplink(f"leaf{l + 1}", shape.top if pod is None else f"pod{pod + 1}", f"l{l + 1}up",
               f"l{l + 1}dn", shape.leaf_uplink_mbit[l])
    attach(state, "head", hosts_file, fab, shape.top, "head",
           [f"{HEAD_IP}/16", f"{DAEMON_IP}/16"], shape.head_mbit)
    for i, h in enumerate(shape.hosts):
        attach(state, h, hosts_file, fab, f"leaf{shape.leaf_of(i) + 1}", f"h{i + 1:02d}",
               [f"{shape.host_ip(i)}/16"], shape.host_mbit)


def build_routers(state, shape, hosts_file):
    """A dragonfly, routed at L3. Its groups are joined all-to-all, so the fabric has loops,
    along which learning bridges cannot forward (they flood around the loop, or STP cuts
    it). So each group's switch is a router namespace `routerG` (IPv4 forwarding on) whose
    bridge `hosts` joins the group's hosts in the group's /24, the router at .254, the hosts'
    default route; each global link is a veth pair between two routers (`gJ` in router I
    and `gI` in router J), shaped both ways like a tree's uplinks. Each router has one
    static route per other group, over the direct global link: the only minimal path, which
    is also what OpenSM's min-hop routing makes of the dump's cabling, so that the daemon's
    routes are the emulated ones.

    The head is no host of any group (the dump holds the hosts' fabric only, as a fat
    tree's head on the spine bridge is in no leaf): it hangs off router 1 in a /24 of its
    own, 198.18.0.0/24, so that HEAD_IP and DAEMON_IP, and every host's 198.18.GROUP.INDEX,
    are the addresses of every other profile (client.conf, tests cutting a host off the
    daemon). The other routers reach it through their global link to router 1; only control
    traffic (launchers, toporrd) takes that path."""
    routers = [fabric_namespace(state, f"router{g + 1}", forward=True)
               for g in range(shape.leaves)]
    for g, ns in enumerate(routers):
        bridge("hosts", ns)
        sh("ip", "addr", "add", f"{shape.router_ip(g)}/24", "dev", "hosts", netns=ns)
    for i, j in shape.global_links:
        a, b = f"g{j + 1}", f"g{i + 1}"  # in router i towards j, in router j towards i
        sh("ip", "link", "add", a, "type", "veth", "peer", "name", b, "netns", routers[j],
           netns=routers[i])
        for ns, dev, mine, peer in ((routers[i], a, (i, j), (j, i)),
                                    (routers[j], b, (j, i), (i, j))):
            sh("ip", "addr", "add", shape.global_ip(*mine), "peer", shape.global_ip(*peer),
               "dev", dev, netns=ns)
            sh("ip", "link", "set", dev, "up", netns=ns)
            tbf(dev, shape.global_mbit, ns)
    for g, ns in enumerate(routers):
        for o in range(shape.leaves):
            if o != g:
                sh("ip", "route", "add", f"198.18.{o + 1}.0/24", "via", shape.global_ip(o, g),
                   "dev", f"g{o + 1}", netns=ns)
        if g:
            sh("ip", "route", "add", "198.18.0.0/24", "via", shape.global_ip(0, g), "dev", "g1",
               netns=ns)
    attach(state, "head", hosts_file, routers[0], None, "head",
           [f"{HEAD_IP}/24", f"{DAEMON_IP}/24"], shape.head_mbit)
    sh("ip", "addr", "add", f"{HEAD_GATEWAY}/24", "dev", "head", netns=routers[0])
    sh("ip", "route", "add", "default", "via", HEAD_GATEWAY, netns=state.ns("head"))
    for i, h in enumerate(shape.hosts):
        g = shape.leaf_of(i)
        attach(state, h, hosts_file, routers[g], "hosts", f"h{i + 1:02d}",
               [f"{shape.host_ip(i)}/24"], shape.host_mbit)
        sh("ip", "route", "add", "default", "via", shape.router_ip(g), netns=state.ns(h))


def wait_reachable(state, shape, timeout=10.0):
    """Every host answers the head on the fabric (bridges learn, links come up)."""
    deadline = time.monotonic() + timeout
    pending = list(range(len(shape.hosts)))
    while pending and time.monotonic() < deadline:
        pending = [i for i in pending
                   if sh("ping", "-c1", "-W1", shape.host_ip(i), check=False,
                         netns=state.ns("head")).returncode != 0]
    if pending:
        raise VclusterError("hosts not reachable from the head node after "
                            f"{timeout:g} s: {', '.join(shape.hosts[i] for i in pending)}")


def write_agent(state):
    """The rsh agent MPI launchers call as `AGENT [options] HOST COMMAND...`: it runs COMMAND
    with /bin/sh inside HOST's namespaces (HOST: a host name of this cluster or its address),
    keeping the caller's environment and working directory, as ssh to a shared file system."""
    names = {HEAD_IP: "head", "head": "head"}
    for h in state.data["layout"]["hosts"]:
        names[h["ip"]] = h["name"]
        names[h["name"]] = h["name"]
    cases = "\n".join(f"  {a}) pid={state.data['pids']['holder-' + h]} ;;"
                      for a, h in names.items())
    agent = f"""#!/bin/sh
# rsh agent of vcluster '{state.name}' (written by testing/vcluster/vcluster.py):
#   rsh [-x|-q|-n|-o OPT|...] HOST COMMAND...
while [ $# -gt 0 ]; do
  case $1 in
    -o|-p|-l|-i) shift 2 ;;
    -*) shift ;;
    *) break ;;
  esac
done
[ $# -ge 2 ] || {{ echo "vcluster rsh: usage: rsh HOST COMMAND..." >&2; exit 255; }}
host=${{1%%.*}}
shift
case $host in
{cases}
  *) echo "vcluster rsh: '$host' is not a host of cluster {state.name}" >&2; exit 255 ;;
esac
exec nsenter -t "$pid" --net --uts --ipc --mount --root --wd="$PWD" /bin/sh -c "$*"
"""
    path = os.path.join(state.dir, "rsh")
    with open(path, "w") as f:
        f.write(agent)
    os.chmod(path, 0o755)


def build_mpich_shim(state):
    """mpich_ucx_close.so (see mpich_ucx_close.c) for MPICH jobs, when the hosts' MPICH runs
    over UCX (compiled on the head node: with a root, by the root's compiler for its UCX)."""
    root = state.data.get("root") or ""
    if not (os.path.exists(root + "/usr/bin/mpicc.mpich") and
            os.path.exists(root + "/usr/include/ucp/api/ucp.h")):
        return
    out = os.path.join(state.dir, "mpich_ucx_close.so")
    src = os.path.join(state.dir, "mpich_ucx_close.c")
    shutil.copyfile(os.path.join(HERE, "mpich_ucx_close.c"), src)
    sh(*namespace_argv(state, "head"), "cc", "-shared", "-fPIC", "-O2", "-o", out, src)
    state.data["mpich_shim"] = out
    state.save()


def fabric_net(shape):
    """The ibsim net file text of exactly the emulated fabric, in collectors/sim/gen_fattree.py's
    conventions (its Net and Node, GUIDs and names): switches leaf01.. with their hosts on
    ports 1..n and their uplinks after them, then the hosts node01.. (one 4x QDR HCA port
    each), then pod01.. and core01 (three levels) or spine01 (two). Each emulated uplink is
    ib_leaf/ib_pod parallel links of one width and speed, so that every rate keeps its ratio
    to the host link's; a damaged uplink has its healthy siblings' link count at 1/DAMAGE
    of their rate. A dragonfly: dragonfly_net."""
    sys.path.insert(0, os.path.join(REPO, "collectors/sim"))
    import gen_fattree as gf  # the project's own net file writer, beside run_ibsim.sh

    if shape.dragonfly:
        return dragonfly_net(shape)
    net = gf.Net()

    def switch(level, code, i, ports):
        name = f"{level}{i + 1:02d}"
        guid = gf.SWITCH_GUID_BASE | (code << 20) | (i + 1)
        return net.add(gf.Node("Switch", name, f"MF0;{name}:MQM8700/U1", guid, 0xCF08, ports))

    def cables(lower, upper, links):
        count, (width, speed) = links
        for _ in range(count):
            net.connect(lower, lower.take_port(), upper, upper.take_port(), width, speed)

    leaves = [switch("leaf", 1, l, shape.leaf_hosts[l] + shape.ib_leaf[l][0])
              for l in range(shape.leaves)]
    first = [sum(shape.leaf_hosts[:l]) for l in range(shape.leaves)]
    for i, h in enumerate(shape.hosts):
        hca = net.add(gf.Node("Hca", h, f"{h} mlx5_0", gf.HCA_GUID_BASE + ((i + 1) << 4),
                              0x101B, 1))
        l = shape.leaf_of(i)
        net.connect(hca, 1, leaves[l], i - first[l] + 1, *IB_FRACTIONS[1])
    if shape.levels == 3:
        pods = [switch("pod", 2, p, 0) for p in range(shape.pods)]
        core = switch("core", 3, 0, 0)
        for l, leaf in enumerate(leaves):
            cables(leaf, pods[shape.leaf_pod[l]], shape.ib_leaf[l])
        for p, pod in enumerate(pods):
            cables(pod, core, shape.ib_pod[p])
    else:
        spine = switch("spine", 2, 0, 0)
        for l, leaf in enumerate(leaves):
            cables(leaf, spine, shape.ib_leaf[l])
    header = ["ibsim net file of a vcluster, written by testing/vcluster/vcluster_build.py",
              shape.describe()]
    for l in range(shape.leaves):
        count, (width, speed) = shape.ib_leaf[l]
        header.append(f"leaf{l + 1:02d}: {shape.leaf_hosts[l]} hosts 4x QDR, uplink "
                      f"{count} x {width} {speed}" + (" (damaged)" if l == shape.damaged
                                                       else ""))
    for p in range(shape.pods):
        count, (width, speed) = shape.ib_pod[p]
        header.append(f"pod{p + 1:02d}: uplink {count} x {width} {speed}")
    out = io.StringIO()
    net.write(out, header)
    return out.getvalue()


def dragonfly_net(shape):
    """The ibsim net file text of a dragonfly, written by collectors/sim/gen_direct.py's
    dragonfly (its names, GUIDs and port order): one switch per group, df<G>_1 (digits as
    gen_direct pads them), with the group's hosts node01.. on ports 1..n (one 4x QDR HCA port
    each, GUIDs as fabric_net's) and one port per other group after them, every pair of
    groups joined by one cable of ib_global's width and speed (the global rate's fraction of
    the host link's)."""
    import gen_direct  # beside gen_fattree.py, on the path fabric_net set

    width, speed = shape.ib_global[1]
    net = gen_direct.Net()
    gen_direct.build_dragonfly(net, argparse.Namespace(
        groups=shape.leaves, switches_per_group=1, global_per_switch=shape.leaves - 1,
        hosts_per_switch=shape.hosts_per_leaf, host_width="4x", host_speed="QDR",
        link_width=width, link_speed=speed, host_prefix="node", host_digits=2))
    header = ["ibsim net file of a vcluster, written by testing/vcluster/vcluster_build.py "
              "with collectors/sim/gen_direct.py's dragonfly", shape.describe(),
              f"{shape.leaves} groups of {shape.hosts_per_leaf} hosts 4x QDR, one switch each; "
              f"{len(shape.global_links)} global links {width} {speed}"]
    out = io.StringIO()
    net.write(out, header)
    return out.getvalue()


def write_fabric(state, shape):
    """An ibsim net file of exactly the emulated fabric (fabric_net), routed by the real
    OpenSM and read back with the real ibnetdiscover and dump_fts (collectors/sim/
    run_ibsim.sh). run_ibsim's pid is in state.json while it runs: down stops it, and it
    stops ibsim and opensm."""
    out = os.path.join(state.dir, "fabric")
    os.makedirs(out, exist_ok=True)
    net = os.path.join(out, "vcluster.net")
    with open(net, "w") as f:
        f.write(fabric_net(shape))
    with open(os.path.join(out, "run_ibsim.log"), "w") as logf:
        proc = subprocess.Popen(["bash", os.path.join(REPO, "collectors/sim/run_ibsim.sh"), net,
                                 out, "--timeout", "120"], stdin=subprocess.DEVNULL,
                                stdout=logf, stderr=subprocess.STDOUT)
        state.data["pids"]["fabric"] = proc.pid
        state.save()
        try:
            rc = proc.wait(timeout=300)
        except subprocess.TimeoutExpired:
            kill_all([proc.pid])
            rc = None
    state.data["pids"].pop("fabric", None)
    state.save()
    if rc != 0:
        with open(os.path.join(out, "run_ibsim.log")) as f:
            tail = f.read().strip()[-800:]
        raise VclusterError(f"the fabric dump failed: {tail}")
    log(f"fabric dump: {out}/ibnetdiscover.txt, {out}/dump_fts.txt")


def start_toporrd(state, toporrd, toporrctl, cost_model=None):
    """toporrd on the head node as a site runs it: its SQLite file and Unix socket in the state
    directory, TCP on the head's fabric address over TLS (certificates made by openssl for
    the daemon's address) and open to the cluster's network only. The hosts find it through
    the site client configuration STATE/client.conf (address and CA), which jobs name in
    TOPORR_CONFIG. The fabric dump and its forwarding tables are ingested (an unchanged input
    makes no new snapshot, so a restart on the same database keeps snapshot 1). With
    `cost_model` (a file of cost_model lines, as `toporrctl calibrate --output` writes) the
    daemon serves costs from that model."""
    d = state.dir
    stop_toporrd(state)
    sock = os.path.join(d, "toporrd.sock")
    conf = os.path.join(d, "toporrd.conf")
    sys.path.insert(0, os.path.join(REPO, "testing/tls"))
    from test_certs import make_test_certificates  # only here: `up --no-fabric` runs without
    # Made once per cluster: a restarted daemon keeps the CA its running jobs trust.
    certs = make_test_certificates(d, sans=[f"IP:{DAEMON_IP}", "DNS:toporrd"], reuse=True)
    with open(conf, "w") as f:
        f.write(f"tls_cert_path = {certs.server_cert}\ntls_key_path = {certs.server_key}\n"
                f"listen_allowed_networks = {SUBNET}\n")
        if cost_model:
            with open(cost_model) as m:
                f.write("".join(l for l in m if l.startswith("cost_model")))
    client_conf = os.path.join(d, "client.conf")
    with open(client_conf, "w") as f:
        f.write(f"# toporr's site configuration for the cluster's hosts\n"
                f"address = {DAEMON_IP}:{TOPORRD_PORT}\ntls_ca = {certs.ca}\n")
    with open(os.path.join(d, "toporrd.log"), "a") as logf:
        argv = namespace_argv(state, "head") + [
            os.path.abspath(toporrd), "--config", conf, "--db", os.path.join(d, "toporr.db"),
            "--socket", sock, "--listen", f"{DAEMON_IP}:{TOPORRD_PORT}"]
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=logf, stderr=logf,
                                start_new_session=True)
    state.data["pids"]["toporrd"] = proc.pid
    state.data["daemon_bins"] = {"toporrd": os.path.abspath(toporrd),
                                 "toporrctl": os.path.abspath(toporrctl)}
    state.data["toporrd"] = {"socket": sock, "address": f"{DAEMON_IP}:{TOPORRD_PORT}",
                             "bin": os.path.abspath(toporrd), "conf": conf, "ca": certs.ca,
                             "cost_model": os.path.abspath(cost_model) if cost_model else None,
                             "client_conf": client_conf}
    state.save()
    # On the head node, as the daemon: with a root, toporrctl is the root's.
    ctl = namespace_argv(state, "head") + [os.path.abspath(toporrctl), "--socket", sock]
    deadline = time.monotonic() + 20
    while sh(*ctl, "health", check=False).returncode != 0:
        if proc.poll() is not None or time.monotonic() > deadline:
            raise VclusterError(f"toporrd did not become healthy; see {d}/toporrd.log")
        time.sleep(0.05)
    fab = os.path.join(d, "fabric")
    if os.path.exists(os.path.join(fab, "ibnetdiscover.txt")):
        sh(*ctl, "ingest", "--format", "ibnetdiscover", os.path.join(fab, "ibnetdiscover.txt"))
        sh(*ctl, "ingest", "--format", "lft", os.path.join(fab, "dump_fts.txt"))
    log(f"toporrd on head {DAEMON_IP}:{TOPORRD_PORT} over TLS (socket {sock}, pid {proc.pid}); "
        f"jobs: TOPORR_CONFIG={client_conf}")


def stop_toporrd(state):
    """Stops the head's toporrd (SIGTERM, then SIGKILL after 5 s) if one runs."""
    pid = state.data["pids"].pop("toporrd", None)
    if pid is not None:
        kill_all([pid])
        state.save()

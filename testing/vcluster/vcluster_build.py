"""Creating a vcluster (testing/vcluster/vcluster.py `up`): the shape of its fabric, the host
namespaces and the shaped bridges between them, the rsh agent, the fabric dump, and toporrd
on the head node. Everything made is recorded in state.json first (vcluster_state.py), so a
failed or killed creation is removed by `down`.
"""

import os
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


# ---- the shape -----------------------------------------------------------------------------


class Shape:
    """Hosts, leaves and rates of one cluster (all rates in Mbit/s)."""

    def __init__(self, hosts, hosts_per_leaf, host_mbit, uplink_mbit, head_mbit, profile):
        if not 2 <= hosts <= MAX_HOSTS:
            raise VclusterError(f"--hosts must be 2..{MAX_HOSTS}, got {hosts}")
        if not 1 <= hosts_per_leaf <= hosts:
            raise VclusterError(f"--hosts-per-leaf must be 1..{hosts}, got {hosts_per_leaf}")
        if hosts % hosts_per_leaf:
            raise VclusterError(f"--hosts ({hosts}) must be a multiple of --hosts-per-leaf "
                                f"({hosts_per_leaf}): every leaf holds the same number")
        if host_mbit <= 0:
            raise VclusterError("--host-mbit must be positive")
        self.hosts = [f"node{i + 1:02d}" for i in range(hosts)]
        self.hosts_per_leaf = hosts_per_leaf
        self.leaves = hosts // hosts_per_leaf
        self.host_mbit = host_mbit
        self.profile = profile
        if uplink_mbit is None:
            taper = 4 if profile == "tapered" else 1
            uplink_mbit = hosts_per_leaf * host_mbit / taper
        self.uplink_mbit = uplink_mbit
        self.head_mbit = head_mbit
        self.ib_uplinks, self.ib_uplink_rate = self.ib_uplink()

    def ib_uplink(self):
        """(links per leaf, (width, speed) of each) expressing the uplink rate in the dump."""
        ratio = self.uplink_mbit / self.host_mbit
        if ratio >= 1 and abs(ratio - round(ratio)) < 1e-9:
            return int(round(ratio)), IB_FRACTIONS[1]
        for div, rate in IB_FRACTIONS.items():
            if abs(ratio * div - 1) < 1e-9:
                return 1, rate
        raise VclusterError(
            f"leaf uplink {self.uplink_mbit:g} Mbit/s is neither a whole multiple of the host "
            f"link ({self.host_mbit:g} Mbit/s) nor 1/2, 1/4, 1/8 or 1/16 of it: the fabric dump "
            "(InfiniBand widths and speeds) cannot express it")

    def leaf_of(self, i):
        return i // self.hosts_per_leaf

    def host_ip(self, i):
        return f"198.18.{self.leaf_of(i) + 1}.{i + 1}"

    def taper(self):
        return self.hosts_per_leaf * self.host_mbit / self.uplink_mbit

    def describe(self):
        return (f"{len(self.hosts)} hosts on {self.leaves} leaves of {self.hosts_per_leaf}, "
                f"host links {self.host_mbit:g} Mbit/s, leaf uplinks {self.uplink_mbit:g} Mbit/s "
                f"({self.taper():g}:1), profile {self.profile}")


def tbf(dev, mbit, netns):
    """Shapes dev's egress to mbit. The bucket holds 1 ms at the rate but at least 64 KiB (a
    GSO segment); the queue holds 100 ms, so that TCP is paced, not dropped."""
    rate_bytes = mbit * 1e6 / 8
    burst = max(65536, int(rate_bytes / 1000))
    limit = max(262144, int(rate_bytes / 10))
    sh("tc", "qdisc", "replace", "dev", dev, "root", "tbf", "rate", f"{mbit:g}mbit", "burst",
       burst, "limit", limit, netns=netns)


# ---- up ------------------------------------------------------------------------------------


def preflight(name):
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
    segments per job, not per host, and would collide across hosts). A holder process (`sleep`)
    keeps the UTS, IPC and mount namespaces alive; nsenter enters them through its pid."""
    ns = state.ns(host)
    state.creating("netns", ns)
    sh("ip", "netns", "add", ns)
    for key in ("net.ipv6.conf.all.disable_ipv6", "net.ipv6.conf.default.disable_ipv6"):
        sh("sysctl", "-qw", f"{key}=1", netns=ns)
    sh("ip", "link", "set", "lo", "up", netns=ns)
    ready = os.path.join(state.dir, f".{host}.ready")
    # ip netns exec and unshare exec without forking: the pid is the holder's.
    holder = subprocess.Popen(
        ["ip", "netns", "exec", ns, "unshare", "--uts", "--ipc", "--mount", "--propagation",
         "private", "sh", "-c",
         f"hostname {shlex.quote(host)} && mount --bind {shlex.quote(hosts_file)} /etc/hosts "
         f"&& mount -t tmpfs -o mode=1777 {shlex.quote(ns)}-shm /dev/shm "
         f"&& touch {shlex.quote(ready)} && exec sleep infinity"],
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
    preflight(name)
    shape = Shape(args.hosts, args.hosts_per_leaf, args.host_mbit, args.uplink_mbit,
                  args.head_mbit, args.profile)
    os.makedirs(STATE_ROOT, exist_ok=True)
    state = State(name)
    os.makedirs(state.dir)
    state.data.update({"shape": vars(args).copy(), "hosts": shape.hosts, "state_dir": state.dir,
                       "created": time.time(), "describe": shape.describe()})
    state.data["shape"].pop("func", None)
    state.data["shape"].pop("command", None)
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
    fab = state.ns("fab")
    state.creating("netns", fab)
    sh("ip", "netns", "add", fab)
    for key in ("net.ipv6.conf.all.disable_ipv6", "net.ipv6.conf.default.disable_ipv6"):
        sh("sysctl", "-qw", f"{key}=1", netns=fab)
    sh("ip", "link", "set", "lo", "up", netns=fab)

    def bridge(br):
        sh("ip", "link", "add", br, "type", "bridge", "stp_state", "0", "forward_delay", "0",
           netns=fab)
        sh("ip", "link", "set", br, "up", netns=fab)

    bridge("spine")
    for l in range(shape.leaves):
        leaf = f"leaf{l + 1}"
        bridge(leaf)
        # The leaf uplink: leafN-up on the leaf bridge, leafN-dn on the spine, shaped both ways.
        up_dev, dn_dev = f"l{l + 1}up", f"l{l + 1}dn"
        sh("ip", "link", "add", up_dev, "type", "veth", "peer", "name", dn_dev, netns=fab)
        sh("ip", "link", "set", up_dev, "master", leaf, "up", netns=fab)
        sh("ip", "link", "set", dn_dev, "master", "spine", "up", netns=fab)
        tbf(up_dev, shape.uplink_mbit, fab)
        tbf(dn_dev, shape.uplink_mbit, fab)

    def attach(host, ip, br, port, mbit):
        make_host(state, host, hosts_file)
        ns = state.ns(host)
        sh("ip", "link", "add", port, "type", "veth", "peer", "name", "eth0", "netns", ns,
           netns=fab)
        sh("ip", "link", "set", port, "master", br, "up", netns=fab)
        sh("ip", "addr", "add", f"{ip}/16", "dev", "eth0", netns=ns)
        sh("ip", "link", "set", "eth0", "up", netns=ns)
        if mbit:
            tbf(port, mbit, fab)       # leaf -> host
            tbf("eth0", mbit, ns)      # host -> leaf

    attach("head", HEAD_IP, "spine", "head", shape.head_mbit)
    sh("ip", "addr", "add", f"{DAEMON_IP}/16", "dev", "eth0", netns=state.ns("head"))
    for i, h in enumerate(shape.hosts):
        attach(h, shape.host_ip(i), f"leaf{shape.leaf_of(i) + 1}", f"h{i + 1:02d}",
               shape.host_mbit)
    write_agent(state)
    build_mpich_shim(state)
    if not os.environ.get("VC_NOWAIT"): wait_reachable(state, shape)
    if not args.no_fabric:
        write_fabric(state, shape)
    if args.toporrd:
        start_toporrd(state, args.toporrd, args.toporrctl)
    state.data["ready"] = True
    state.save()


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
    shape = state.data["shape"]
    names = {HEAD_IP: "head", "head": "head"}
    for i, h in enumerate(state.data["hosts"]):
        names[f"198.18.{i // shape['hosts_per_leaf'] + 1}.{i + 1}"] = h
        names[h] = h
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
exec nsenter -t "$pid" --net --uts --ipc --mount --wd="$PWD" /bin/sh -c "$*"
"""
    path = os.path.join(state.dir, "rsh")
    with open(path, "w") as f:
        f.write(agent)
    os.chmod(path, 0o755)


def build_mpich_shim(state):
    """mpich_ucx_close.so (see mpich_ucx_close.c) for MPICH jobs, when MPICH's UCX is here."""
    if not (shutil.which("mpicc.mpich") and os.path.exists("/usr/include/ucp/api/ucp.h")):
        return
    out = os.path.join(state.dir, "mpich_ucx_close.so")
    sh("cc", "-shared", "-fPIC", "-O2", "-o", out, os.path.join(HERE, "mpich_ucx_close.c"))
    state.data["mpich_shim"] = out
    state.save()


def write_fabric(state, shape):
    """An ibsim net file of exactly the emulated fabric (host names, leaves, uplinks as
    InfiniBand links whose rates keep the emulated ratios), routed by the real OpenSM and read
    back with the real ibnetdiscover and dump_fts (collectors/sim/run_ibsim.sh)."""
    out = os.path.join(state.dir, "fabric")
    os.makedirs(out, exist_ok=True)
    net = os.path.join(out, "vcluster.net")
    width, speed = shape.ib_uplink_rate
    sh(sys.executable, os.path.join(REPO, "collectors/sim/gen_fattree.py"), "--hosts",
       len(shape.hosts), "--hosts-per-leaf", shape.hosts_per_leaf, "--leaf-uplinks",
       shape.ib_uplinks, "--host-speeds", "QDR", "--host-widths", "4x", "--uplink-speed", speed,
       "--uplink-width", width, "--host-prefix", "node", "--host-digits", 2, "--out", net)
    p = sh("bash", os.path.join(REPO, "collectors/sim/run_ibsim.sh"), net, out, "--timeout",
           120, check=False, timeout=300)
    if p.returncode != 0:
        raise VclusterError(f"the fabric dump failed: {p.stderr.strip()[-800:]}")
    log(f"fabric dump: {out}/ibnetdiscover.txt, {out}/dump_fts.txt")


def start_toporrd(state, toporrd, toporrctl):
    """toporrd on the head node as a site runs it: its SQLite file and Unix socket in the state
    directory, TCP on the head's fabric address over TLS (certificates made by openssl for
    the daemon's address) and open to the cluster's network only. The hosts find it through
    the site client configuration STATE/client.conf (address and CA), which jobs name in
    TOPORR_CONFIG. The fabric dump and its forwarding tables are ingested (an unchanged input
    makes no new snapshot, so a restart on the same database keeps snapshot 1)."""
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
                             "client_conf": client_conf}
    state.save()
    ctl = [os.path.abspath(toporrctl), "--socket", sock]
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

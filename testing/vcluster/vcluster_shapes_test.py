#!/usr/bin/env python3
"""The virtual cluster's fabric shapes (testing/vcluster/vcluster.py --profile tree3, damaged,
uneven, dragonfly and --damaged-uplink), with real parts only: namespaces, bridges, routers and
tbf shapers, ibsim + OpenSM + ibnetdiscover + dump_fts, toporrd on the head node and toporrctl,
Open MPI and MPICH.

Usage: vcluster_shapes_test.py [unittest args]. Run by Bazel (cwd = the runfiles tree), as
root; outside Bazel, VCLUSTER_TEST_TOPORRD and VCLUSTER_TEST_TOPORRCTL name the binaries.
One cluster at a time, each removed when its test ends (also when it fails). For each shape:
  - `up` makes it and hosts on different leaves and pods reach each other (ping);
  - `status` describes it;
  - the ibnetdiscover dump it wrote has exactly the emulated shape: switches per level
    (levels found from the cabling: leaves hold hosts, pods are one switch hop above them,
    the core two), which hosts on which leaf, which leaves under which pod, the damaged
    uplink's links slower than its siblings', the uneven host counts;
  - toporrd ingested it: `toporrctl cost` orders same leaf < same pod < across the core, and
    across the damaged uplink gives 1/4 of a healthy uplink's bottleneck;
  - a 4 MiB TCP transfer across a damaged uplink takes longer than one across healthy
    uplinks, in proportion to the shaped rates (the shaping is real, on 2 and 3 levels);
  - the dragonfly: hosts of every pair of groups reach each other through exactly two routers
    (the direct global link); its dump has one switch per group holding the group's hosts and
    one link between every pair of group switches at the global rate; toporrd's costs put a
    pair of groups behind the same group, with the global link's bottleneck and the direct
    route; a 4 MiB transfer across a global link takes host-rate/global-rate times one inside
    a group; Open MPI (TCP BTL) and MPICH jobs across three groups' subnets;
  - `down` leaves no namespace, no `tvc-` link in the machine's namespace and no process;
  - an `up` SIGKILLed while its fabric dump runs (ibsim up), then `cleanup`: the same;
  - SIGTERM, SIGHUP or SIGINT to the tool's process alone during the fabric dump: the tool
    removes everything itself (no ibsim or opensm left, no namespace, no state).
Where namespaces cannot be created the run prints one line "SKIPPED: <why>" and exits 0.
"""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import unittest

ROOT = os.getcwd()
os.environ["PATH"] = os.environ.get("PATH", "/usr/bin:/bin") + ":/usr/local/sbin:/usr/sbin:/sbin"
VC = os.path.join(ROOT, "testing/vcluster/vcluster.py")
sys.path.insert(0, os.path.dirname(VC))
import vcluster_testing as vt  # noqa: E402
from vcluster_testing import netns_of  # noqa: E402
TOPORRD = os.environ.get("VCLUSTER_TEST_TOPORRD", os.path.join(ROOT, "daemon/toporrd"))
TOPORRCTL = os.environ.get("VCLUSTER_TEST_TOPORRCTL",
                           os.path.join(ROOT, "client/ctl/toporrctl"))
STATE_ROOT = os.environ.get("VCLUSTER_STATE_ROOT", "/run/toporr-vcluster")
TAG = f"{os.getpid() % 1000000:06d}"  # cluster names: one letter per test + TAG
LANE_GBPS = {"SDR": 2.5, "DDR": 5.0, "QDR": 10.0, "FDR": 14.0625, "EDR": 25.0, "HDR": 50.0}


def vc(*args, check=True, timeout=300):
    return vt.vc(*args, check=check, timeout=timeout)


def clusters_on_machine():
    names = set(os.listdir(STATE_ROOT)) if os.path.isdir(STATE_ROOT) else set()
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    names.update(l.split()[0][4:].split("-")[0] for l in out.splitlines()
                 if l.startswith("tvc-"))
    return names


def processes_of(name):
    """Processes whose command line names the cluster's namespaces or state directory."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if f"tvc-{name}-" in cmd or f"{STATE_ROOT}/{name}/" in cmd:
            found.append(f"{entry}: {cmd.strip()}")
    return found


def alive(pid):
    """pid runs (a zombie has ended; its new parent reaps it when it will)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def skip_reason():
    why = vt.namespaces_skip_reason(f"c{TAG}")
    if why:
        return why
    for tool in ("/usr/bin/ibsim", "/usr/sbin/opensm", "/usr/sbin/ibnetdiscover"):
        if not os.path.exists(tool):
            return f"{tool} missing (ibsim-utils, opensm, infiniband-diags)"
    return None


def link_gbps(rate):
    """Data rate of an ibnetdiscover link rate like 4xQDR (lanes x signalling rate)."""
    m = re.fullmatch(r"(\d+)x([A-Z]+)", rate)
    return int(m.group(1)) * LANE_GBPS[m.group(2)]


def read_switches(path):
    """The switches of an ibnetdiscover dump: {name: [(remote kind S|H, remote name, rate)]}
    per cabled port, names taken from the node descriptions (switch `MF0;NAME:...`, host
    `NAME mlx5_0`)."""
    switches, current = {}, None
    head = re.compile(r'^Switch\s+\d+\s+"S-[0-9a-f]+"\s+#\s+"MF0;([^:"]+):')
    port = re.compile(r'^\[\d+\]\s+"([SH])-[0-9a-f]+"\[\d+\]\S*\s+#\s+"([^"]*)".*\s(\d+x[A-Z]+)$')
    with open(path) as f:
        for line in f:
            line = line.rstrip()
            m = head.match(line)
            if m:
                current = switches.setdefault(m.group(1), [])
                continue
            if not line:
                current = None
            elif current is not None and line.startswith("["):
                m = port.match(line)
                assert m, f"{path}: unexpected port line {line!r}"
                kind, desc, rate = m.groups()
                name = desc.split(";")[1].split(":")[0] if kind == "S" else desc.split()[0]
                current.append((kind, name, rate))
    return switches


def switch_levels(switches):
    """Level of each switch from the cabling: 1 for a switch with hosts, n + 1 for one whose
    closest switch with hosts is n switch hops away."""
    level = {s: 1 for s, ports in switches.items() if any(k == "H" for k, _, _ in ports)}
    frontier = list(level)
    while frontier:
        nxt = []
        for s in frontier:
            for kind, peer, _ in switches[s]:
                if kind == "S" and peer not in level:
                    level[peer] = level[s] + 1
                    nxt.append(peer)
        frontier = nxt
    return level


class Cluster:
    """One cluster of this test, removed by close() whatever happened."""

    def __init__(self, test, letter, *up_args, daemon=True):
        self.name = f"{letter}{TAG}"
        self.test = test
        args = ["up", "--name", self.name] + list(up_args)
        if daemon:
            args += ["--toporrd", TOPORRD, "--toporrctl", TOPORRCTL]
        start = time.monotonic()
        try:
            vc(*args)
            self.state = json.loads(vc("status", "--name", self.name, "--json").stdout)
        except BaseException:
            self.close()
            raise
        print(f"\n{self.name}: up in {time.monotonic() - start:.1f} s: "
              f"{self.state['describe']}", file=sys.stderr)
        self.dir = self.state["state_dir"]
        self.ips = {h["name"]: h["ip"] for h in self.state["layout"]["hosts"]}

    def close(self):
        """Removes the cluster; self.pids: the processes its state.json listed."""
        try:
            with open(os.path.join(STATE_ROOT, self.name, "state.json")) as f:
                self.pids = list(json.load(f)["pids"].values())
        except (OSError, ValueError):
            self.pids = []
        vc("down", "--name", self.name, check=False)

    def exec(self, host, *cmd, timeout=60):
        return subprocess.run([sys.executable, VC, "exec", "--name", self.name, host, "--"]
                              + list(cmd), capture_output=True, text=True, timeout=timeout)

    def ping(self, src, dst):
        p = self.exec(src, "ping", "-c1", "-W2", dst)
        self.test.assertEqual(p.returncode, 0, f"{src} -> {dst}: {p.stdout}{p.stderr}")
        return p.stdout

    def ping_ttl(self, src, dst):
        """The TTL dst's echo reply arrives with at src: 64 less one per router on the way."""
        out = self.ping(src, dst)
        m = re.search(r"ttl=(\d+)", out)
        self.test.assertTrue(m, out)
        return int(m.group(1))

    def cost(self, a, b):
        p = subprocess.run([TOPORRCTL, "--socket", self.state["toporrd"]["socket"], "--json",
                            "cost", a, b], capture_output=True, text=True, timeout=30)
        self.test.assertEqual(p.returncode, 0, p.stderr)
        return json.loads(p.stdout)

    def path_switches(self, a, b):
        """Names of the switches toporrd routes a -> b through (forwarding tables)."""
        p = subprocess.run([TOPORRCTL, "--socket", self.state["toporrd"]["socket"], "--json",
                            "path", a, b], capture_output=True, text=True, timeout=30)
        self.test.assertEqual(p.returncode, 0, p.stderr)
        path = json.loads(p.stdout)
        self.test.assertEqual(path["route_kind"], "FORWARDING_TABLES", p.stdout)
        return [m.group(1) for m in (re.match(r"MF0;([^:]+):", h["description"])
                                     for h in path["path"]) if m]

    def mpirun(self, mpi, hosts, program):
        """program on one rank per host, started on the head node through the cluster's rsh
        agent (vcluster mpirun); its stdout lines."""
        args = (["--host", ",".join(hosts), "-np", str(len(hosts))] if mpi == "openmpi"
                else ["-hosts", ",".join(hosts), "-n", str(len(hosts))])
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        p = subprocess.run([sys.executable, VC, "mpirun", "--name", self.name, mpi] + args
                           + [program], capture_output=True, text=True, timeout=120, env=env,
                           cwd=os.path.dirname(program))
        self.test.assertEqual(p.returncode, 0, f"{mpi}: {p.stdout}{p.stderr}")
        return p.stdout.splitlines()

    def hosts(self):
        p = subprocess.run([TOPORRCTL, "--socket", self.state["toporrd"]["socket"], "--json",
                            "hosts"], capture_output=True, text=True, timeout=30)
        self.test.assertEqual(p.returncode, 0, p.stderr)
        return [h["name"] for h in json.loads(p.stdout)["hosts"]]

    def switches(self):
        return read_switches(os.path.join(self.dir, "fabric/ibnetdiscover.txt"))

    def transfer_seconds(self, src, dst, mib=4):
        """Seconds to move mib MiB over one TCP connection from src to dst (to the receiver's
        acknowledgement of the last byte)."""
        server = ("import socket\ns=socket.socket()\n"
                  "s.setsockopt(socket.SOL_SOCKET,socket.SO_REUSEADDR,1)\n"
                  "s.bind(('0.0.0.0',5002));s.listen(1)\nc,_=s.accept();n=0\n"
                  f"while n<{mib}<<20:\n b=c.recv(1<<20)\n if not b:break\n n+=len(b)\n"
                  "c.sendall(b'k')\n")
        client = ("import socket,sys,time\nfor i in range(100):\n try:\n"
                  "  c=socket.create_connection((sys.argv[1],5002),5);break\n"
                  " except OSError:time.sleep(0.05)\n"
                  f"t=time.time();c.sendall(b'x'*({mib}<<20));c.recv(1);print(time.time()-t)\n")
        srv = subprocess.Popen([sys.executable, VC, "exec", "--name", self.name, dst, "--",
                                sys.executable, "-c", server])
        try:
            p = self.exec(src, sys.executable, "-c", client, self.ips[dst], timeout=30)
            self.test.assertEqual(p.returncode, 0, p.stderr)
            srv.wait(timeout=10)
        finally:
            if srv.poll() is None:
                srv.kill()
                srv.wait()
        return float(p.stdout)


# One rank per host: a ring exchange of 1 MiB (across the groups' global links when the ranks
# are in different groups) and an allreduce of the results; each rank prints
# "RANK <rank> <host> OK|BAD".
MPI_RING = r"""
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char** argv) {
  int rank, size, len, ok, all = 0, n = 1 << 20;
  char host[MPI_MAX_PROCESSOR_NAME];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Get_processor_name(host, &len);
  char* out = malloc(n);
  char* in = malloc(n);
  memset(out, rank + 1, n);
  int from = (rank + size - 1) % size;
  MPI_Sendrecv(out, n, MPI_CHAR, (rank + 1) % size, 0, in, n, MPI_CHAR, from, 0,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  ok = in[0] == from + 1 && in[n - 1] == from + 1;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  printf("RANK %d %s %s\n", rank, host, all == size ? "OK" : "BAD");
  MPI_Finalize();
  return 0;
}
"""


def wait_for_fabric_dump(proc, fabric):
    """Waits (at most 60 s) until `up` (proc) has its ibsim running in the state directory's
    `fabric`: hosts, bridges and shapers made, the dump under way; or until proc ended."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with open(os.path.join(fabric, "ibsim.log")) as f:
                if "Network simulator ready" in f.read():
                    return
        except OSError:
            pass
        time.sleep(0.01)


class VclusterShapesTest(unittest.TestCase):
    def assert_gone(self, name, pids=()):
        self.assertEqual(netns_of(name), [])
        links = subprocess.run(["ip", "-o", "link", "show"], capture_output=True,
                               text=True).stdout
        self.assertNotIn("tvc-", links)
        self.assertEqual(processes_of(name), [])
        self.assertEqual([p for p in pids if alive(p)], [])
        self.assertFalse(os.path.exists(os.path.join(STATE_ROOT, name)))

    def test_options_are_checked(self):
        name = f"o{TAG}"
        for args, message in (
                (["--profile", "tree3", "--hosts", "8"], "at least two pods"),
                (["--damaged-uplink", "leaf3"], "--damaged-uplink must name a leaf leaf1..leaf2"),
                (["--leaf-hosts", "5,x"], "--leaf-hosts must be host counts"),
                (["--leaf-hosts", "5,3", "--hosts", "9"], "differs from the sum"),
                (["--pod-uplink-mbit", "400"], "options of profile tree3"),
                (["--profile", "tree3", "--pod-uplink-mbit", "300"], "cannot express it"),
                (["--profile", "dragonfly", "--hosts", "4"], "at least two groups"),
                (["--profile", "dragonfly", "--global-mbit", "300"], "cannot express it"),
                (["--profile", "dragonfly", "--global-mbit", "800"], "at most the host link"),
                (["--profile", "dragonfly", "--damaged-uplink", "leaf1"],
                 "is not an option of profile dragonfly"),
                (["--global-mbit", "200"], "an option of profile dragonfly")):
            with self.subTest(args=args):
                p = vc("up", "--name", name, "--no-fabric", *args, check=False)
                self.assertEqual(p.returncode, 1, p.stderr)
                self.assertIn(message, p.stderr)
        self.assert_gone(name)

    def test_tree3(self):
        c = Cluster(self, "a", "--profile", "tree3")
        try:
            status = vc("status", "--name", c.name).stdout
            self.assertIn("in 2 pods of 2 leaves under one core (3 levels)", status)
            self.assertIn("leaf uplinks 800 Mbit/s (2:1), pod uplinks 800 Mbit/s (2:1)", status)
            self.assertIn("pod2  leaves leaf3,leaf4, uplink to core 800 Mbit/s", status)
            self.assertRegex(status, r"node09  198\.18\.3\.9  leaf3  pod2")
            c.ping("node01", "node05")   # other leaf, same pod
            c.ping("node01", "node16")   # other pod
            c.ping("node12", "node04")
            sw = c.switches()
            levels = switch_levels(sw)
            self.assertEqual(sorted(levels.items()), [
                ("core01", 3), ("leaf01", 1), ("leaf02", 1), ("leaf03", 1), ("leaf04", 1),
                ("pod01", 2), ("pod02", 2)])
            for l in range(4):
                self.assertEqual(sorted(n for k, n, _ in sw[f"leaf{l + 1:02d}"] if k == "H"),
                                 [f"node{4 * l + h + 1:02d}" for h in range(4)])
                # 800 Mbit/s = two host links: two 4x QDR cables to the leaf's pod.
                self.assertEqual([(n, r) for k, n, r in sw[f"leaf{l + 1:02d}"] if k == "S"],
                                 [(f"pod{l // 2 + 1:02d}", "4xQDR")] * 2)
            for p in range(2):
                self.assertEqual(sorted(n for _, n, _ in sw[f"pod{p + 1:02d}"]),
                                 ["core01"] * 2 + [f"leaf{2 * p + 1:02d}"] * 2
                                 + [f"leaf{2 * p + 2:02d}"] * 2)
            self.assertEqual(c.hosts(), [f"node{i:02d}" for i in range(1, 17)])
            leaf, pod, core = (c.cost("node01", h) for h in ("node02", "node05", "node09"))
            self.assertEqual([leaf["hops"], pod["hops"], core["hops"]], [1, 3, 5])
            self.assertLess(leaf["latency_ns"], pod["latency_ns"])
            self.assertLess(pod["latency_ns"], core["latency_ns"])
            self.assertEqual(c.cost("node16", "node03")["hops"], 5)
        finally:
            c.close()
        self.assert_gone(c.name, c.pids)

    def test_damaged(self):
        c = Cluster(self, "b", "--profile", "damaged")
        try:
            status = vc("status", "--name", c.name).stdout
            self.assertIn("leaf3's uplink damaged: 100 Mbit/s (1/4 of 400)", status)
            self.assertRegex(status, r"leaf3  4 hosts, uplink to spine 100 Mbit/s "
                                     r"\(dump: 1 x 4x SDR\)  DAMAGED")
            c.ping("node01", "node09")
            c.ping("node12", "node05")
            sw = c.switches()
            self.assertEqual(sorted(switch_levels(sw).items()), [
                ("leaf01", 1), ("leaf02", 1), ("leaf03", 1), ("spine01", 2)])
            up = {l: [r for k, _, r in sw[l] if k == "S"] for l in ("leaf01", "leaf02", "leaf03")}
            self.assertEqual(up, {"leaf01": ["4xQDR"], "leaf02": ["4xQDR"], "leaf03": ["4xSDR"]})
            self.assertEqual(link_gbps(up["leaf03"][0]) * 4, link_gbps(up["leaf01"][0]))
            healthy, damaged = c.cost("node01", "node05"), c.cost("node01", "node09")
            self.assertEqual(healthy["hops"], damaged["hops"])  # a leaf-sorted order's view
            self.assertAlmostEqual(damaged["bottleneck_gbps"] * 4, healthy["bottleneck_gbps"])
            self.assertLess(c.cost("node05", "node12")["bottleneck_gbps"],
                            c.cost("node05", "node04")["bottleneck_gbps"])
            # Measured: 4 MiB across leaf3's 100 Mbit/s uplink (~0.34 s) against across two
            # healthy 400 Mbit/s uplinks (~0.08 s; the host links are 400 Mbit/s too).
            fast = c.transfer_seconds("node01", "node05")
            slow = c.transfer_seconds("node01", "node09")
            print(f"\n4 MiB: across healthy uplinks {fast:.3f} s, across the damaged one "
                  f"{slow:.3f} s", file=sys.stderr)
            self.assertGreater(slow, 2 * fast)
            self.assertGreater(slow, 0.8 * 4 * 8 * 2**20 / 100e6)
        finally:
            c.close()
        self.assert_gone(c.name, c.pids)

    def test_damaged_uplink_on_tree3(self):
        c = Cluster(self, "d", "--profile", "tree3", "--damaged-uplink", "leaf2")
        try:
            sw = c.switches()
            rates = {l: [r for k, n, r in sw[l] if k == "S"] for l in sw if l.startswith("leaf")}
            # Two cables each (800 Mbit/s healthy); leaf02's at a quarter: 4x SDR.
            self.assertEqual(rates, {"leaf01": ["4xQDR"] * 2, "leaf02": ["4xSDR"] * 2,
                                     "leaf03": ["4xQDR"] * 2, "leaf04": ["4xQDR"] * 2})
            c.ping("node05", "node13")
            same_pod_damaged = c.cost("node01", "node05")
            same_pod_healthy = c.cost("node09", "node13")
            self.assertEqual(same_pod_damaged["hops"], same_pod_healthy["hops"])
            self.assertAlmostEqual(same_pod_damaged["bottleneck_gbps"] * 4,
                                   same_pod_healthy["bottleneck_gbps"])
            self.assertLess(c.cost("node06", "node16")["bottleneck_gbps"],
                            c.cost("node02", "node16")["bottleneck_gbps"])
            # Measured through the three bridge levels: 4 MiB into leaf2 over its 200 Mbit/s
            # uplink (~0.17 s) against across the core to pod2 (~0.08 s, the 400 Mbit/s host
            # links the narrowest on that path).
            fast = c.transfer_seconds("node01", "node09")
            slow = c.transfer_seconds("node01", "node05")
            print(f"\n4 MiB: across the core {fast:.3f} s, into the damaged leaf {slow:.3f} s",
                  file=sys.stderr)
            self.assertGreater(slow, 1.5 * fast)
        finally:
            c.close()
        self.assert_gone(c.name, c.pids)

    def test_uneven(self):
        c = Cluster(self, "e", "--profile", "uneven")
        try:
            status = vc("status", "--name", c.name).stdout
            self.assertIn("9 hosts on 3 leaves of 5,3,1 hosts", status)
            for host, ip, leaf in (("node05", "198.18.1.5", "leaf1"),
                                   ("node06", "198.18.2.6", "leaf2"),
                                   ("node09", "198.18.3.9", "leaf3")):
                self.assertRegex(status, rf"{host}  {re.escape(ip)}  {leaf}\n")
            c.ping("node09", "node01")
            c.ping("node06", "node05")
            sw = c.switches()
            self.assertEqual(sorted(switch_levels(sw).items()), [
                ("leaf01", 1), ("leaf02", 1), ("leaf03", 1), ("spine01", 2)])
            on_leaf = {l: sorted(n for k, n, _ in sw[l] if k == "H")
                       for l in ("leaf01", "leaf02", "leaf03")}
            self.assertEqual(on_leaf, {"leaf01": [f"node0{i}" for i in range(1, 6)],
                                       "leaf02": ["node06", "node07", "node08"],
                                       "leaf03": ["node09"]})
            for l in on_leaf:  # one host link's rate each
                self.assertEqual([(n, r) for k, n, r in sw[l] if k == "S"],
                                 [("spine01", "4xQDR")])
            self.assertEqual(c.hosts(), [f"node0{i}" for i in range(1, 10)])
            self.assertEqual(c.cost("node01", "node05")["hops"], 1)
            self.assertEqual(c.cost("node06", "node08")["hops"], 1)
            for a, b in (("node09", "node01"), ("node09", "node07"), ("node05", "node06")):
                self.assertEqual(c.cost(a, b)["hops"], 3)
        finally:
            c.close()
        self.assert_gone(c.name, c.pids)

    def test_dragonfly(self):
        c = Cluster(self, "f", "--profile", "dragonfly")
        try:
            status = vc("status", "--name", c.name).stdout
            self.assertIn("16 hosts in 4 groups of 4, one router each, the groups all-to-all by "
                          "6 global links (dragonfly), host links 400 Mbit/s, global links 200 "
                          "Mbit/s (2:1)", status)
            self.assertIn("group3  4 hosts in 198.18.3.0/24, router3 at 198.18.3.254", status)
            self.assertIn("global  group2 - group4 200 Mbit/s (dump: 1 x 4x DDR)", status)
            self.assertRegex(status, r"node09  198\.18\.3\.9  group3\n")
            self.assertEqual(len(c.state["layout"]["global_links"]), 6)
            self.assertEqual(len(netns_of(c.name)), 21)  # 16 hosts, head, 4 routers
            # Minimal routing: every pair of groups over its direct global link, two routers
            # on the way (a detour through a third group would be three).
            firsts = ["node01", "node05", "node09", "node13"]
            for a in firsts:
                for b in firsts:
                    if a != b:
                        self.assertEqual(c.ping_ttl(a, b), 62, f"{a} -> {b}")
            self.assertEqual(c.ping_ttl("node14", "node16"), 64)  # the group's bridge alone

            sw = c.switches()
            groups = [f"df{g}_1" for g in range(1, 5)]
            self.assertEqual(sorted(switch_levels(sw).items()), [(g, 1) for g in groups])
            for g, name in enumerate(groups):
                self.assertEqual(sorted((n, r) for k, n, r in sw[name] if k == "H"),
                                 [(f"node{4 * g + h + 1:02d}", "4xQDR") for h in range(4)])
                # One link to every other group's switch, at half a host link's rate.
                self.assertEqual(sorted((n, r) for k, n, r in sw[name] if k == "S"),
                                 [(o, "4xDDR") for o in groups if o != name])
            self.assertEqual(link_gbps("4xDDR") * 2, link_gbps("4xQDR"))

            self.assertEqual(c.hosts(), [f"node{i:02d}" for i in range(1, 17)])
            same = c.cost("node01", "node02")
            for a in firsts:
                for b in firsts:
                    if a != b:
                        other = c.cost(a, b)
                        self.assertLess(same["hops"], other["hops"])
                        self.assertLess(same["latency_ns"], other["latency_ns"])
                        # The global link's bottleneck: half the host links'.
                        self.assertAlmostEqual(other["bottleneck_gbps"] * 2,
                                               same["bottleneck_gbps"])
                        self.assertEqual(c.path_switches(a, b),
                                         [f"df{firsts.index(a) + 1}_1",
                                          f"df{firsts.index(b) + 1}_1"])

            # 4 MiB inside a group (400 Mbit/s host links) against across a 200 Mbit/s global
            # link: twice as long, as the rates say; the faster of two runs each.
            fast = min(c.transfer_seconds("node01", "node02") for _ in range(2))
            slow = min(c.transfer_seconds("node01", "node05") for _ in range(2))
            print(f"\n4 MiB: inside a group {fast:.3f} s, across a global link {slow:.3f} s",
                  file=sys.stderr)
            self.assertGreater(slow, 0.7 * 2 * fast)
            self.assertLess(slow, 1.5 * 2 * fast)
            self.assertGreater(slow, 0.8 * 4 * 8 * 2**20 / 200e6)

            # Both MPI libraries over TCP across the groups' subnets: ranks on three groups.
            with tempfile.TemporaryDirectory(prefix="vcluster_shapes_test.") as tmp:
                src = os.path.join(tmp, "ring.c")
                with open(src, "w") as f:
                    f.write(MPI_RING)
                hosts = ["node01", "node06", "node11"]
                for mpi in ("openmpi", "mpich"):
                    with self.subTest(mpi=mpi):
                        prog = os.path.join(tmp, f"ring_{mpi}")
                        subprocess.run([f"mpicc.{mpi}", "-O1", "-o", prog, src], check=True)
                        ranks = sorted(l for l in c.mpirun(mpi, hosts, prog)
                                       if l.startswith("RANK "))
                        self.assertEqual(ranks, [f"RANK {r} {h} OK" for r, h in enumerate(hosts)])
        finally:
            c.close()
        self.assert_gone(c.name, c.pids)

    def test_killed_up_then_cleanup(self):
        name = f"k{TAG}"
        fabric = os.path.join(STATE_ROOT, name, "fabric")
        proc = subprocess.Popen([sys.executable, VC, "up", "--name", name, "--profile", "tree3",
                                 "--toporrd", TOPORRD, "--toporrctl", TOPORRCTL],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        pids = []
        try:
            # Killed once ibsim is up: hosts, bridges and shapers made, the dump running.
            wait_for_fabric_dump(proc, fabric)
            proc.kill()
            proc.wait()
            with open(os.path.join(STATE_ROOT, name, "state.json")) as f:
                state = json.load(f)
            pids = list(state["pids"].values())
            self.assertNotIn("ready", state, "the creation finished before it was killed")
            self.assertIn("fabric", state["pids"])
            self.assertEqual(len(netns_of(name)), 18)  # 16 hosts, head, fabric
            self.assertTrue(processes_of(name), "the fabric dump is not running")
        finally:
            others = clusters_on_machine() - {name}
            if others:
                # cleanup would remove other people's clusters too: remove ours only.
                print(f"\nother clusters on the machine ({', '.join(sorted(others))}): "
                      f"'down' instead of 'cleanup'", file=sys.stderr)
                vc("down", "--name", name, check=False)
            else:
                p = vc("cleanup", check=False)
                self.assertIn(f"removed cluster '{name}'", p.stderr)
        self.assert_gone(name, pids)


class SignalDuringDumpTest(unittest.TestCase):
    def test_signals_to_the_tool_alone_leave_nothing(self):
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            with self.subTest(signal=sig.name):
                name = f"g{TAG}"
                fabric = os.path.join(STATE_ROOT, name, "fabric")
                # SIGINT at its default even when this test was started with it ignored.
                proc = subprocess.Popen(
                    [sys.executable, VC, "up", "--name", name, "--hosts", "4",
                     "--hosts-per-leaf", "2"], stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
                try:
                    wait_for_fabric_dump(proc, fabric)
                    self.assertIsNone(proc.poll(), "up ended before its fabric dump ran")
                    self.assertTrue(processes_of(name), "the fabric dump is not running")
                    proc.send_signal(sig)  # the tool's process alone, not its group
                    self.assertNotEqual(proc.wait(timeout=60), 0)
                finally:
                    if proc.poll() is None:
                        proc.kill()
                        proc.wait()
                    leftover = processes_of(name)
                    vc("down", "--name", name, check=False)
                self.assertEqual(leftover, [], "left running after the tool's own cleanup")
                VclusterShapesTest.assert_gone(self, name)


def on_signal(signum, _frame):
    raise KeyboardInterrupt(f"signal {signum}")  # runs the tests' finally blocks


if __name__ == "__main__":
    why = skip_reason()
    if why:
        print(f"SKIPPED: {why}")
        sys.exit(0)
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)
    unittest.main(verbosity=2)

#!/usr/bin/env python3
"""toporr-probe under SimGrid SMPI on platforms generated from known fabrics.

Run by Bazel (cwd = the runfiles tree); needs libsimgrid-dev (smpicxx, smpirun) and the ibsim
tools. The probe is compiled with smpicxx (bench/smpi/build_probe_smpi.sh) and every fabric
comes from the bench/smpi pipeline: gen_fattree.py -> ibsim + OpenSM (ftree) -> ibnetdiscover +
dump_fts -> fabric_to_platform.py (routes = the LFTs). Checked:
  - 2-level fat tree, 64 hosts on 4 leaves: the host levels are host / leaf / top and the leaf
    level is the leaf switches of ibnetdiscover (adjusted Rand index 1.0);
  - 3-level fat tree, 64 hosts, 8 per leaf, 2 leaves per pod: leaf and pod levels exact (ARI
    1.0 each; pods = leaves sharing aggregation switches in ibnetdiscover);
  - 8 hosts (2 leaves) of 2 sockets x 8 cores, one rank per core (probe_platform.py): rank
    levels socket, host, leaf exact, and the level named "host" is the processor-name hosts;
  - ingest --format plogp into a real toporrd: hosts, cost (route_kind MEASURED, 1 switch hop
    inside a measured leaf, 3 across), path, a plan from the daemon's costs; the same file again
    makes no new snapshot; a second measurement with one host on another leaf diffs as that
    one host moved; a broken file is refused with file:line;
  - one leaf-spine cable at 1/4 rate (both directions): `toporrctl validate` against the
    ibnetdiscover snapshot puts first a pair whose simulated route crosses that cable, and the
    pairs that cross it are the top disagreements; the healthy fabric's top ratio is far lower;
    offline with the LFTs (--lfts) the two most suspect links are that cable's directions.
Generated files are cached in $TOPORR_SMPI_CACHE (default /tmp/toporr-smpi/probe).
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
TOPORRD = os.path.join(ROOT, "daemon/toporrd")
TOPORRCTL = os.path.join(ROOT, "client/ctl/toporrctl")
CACHE = os.environ.get("TOPORR_SMPI_CACHE", "/tmp/toporr-smpi") + "/probe"
SMPI_CFG = ["--cfg=smpi/simulate-computation:no", "--cfg=smpi/bw-factor:0:1",
            "--cfg=smpi/lat-factor:0:1", "--cfg=network/crosstraffic:0", "-no-privatize"]


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        raise RuntimeError("%s failed (%d):\n%s\n%s" % (cmd, p.returncode, p.stdout, p.stderr))
    return p


def ari(x, y):
    """Adjusted Rand index (Hubert & Arabie), written here independently of the C++ one."""
    from collections import Counter
    n = len(x)
    comb = lambda k: k * (k - 1) / 2
    index = sum(comb(c) for c in Counter(zip(x, y)).values())
    a = sum(comb(c) for c in Counter(x).values())
    b = sum(comb(c) for c in Counter(y).values())
    expected = a * b / comb(n)
    top = (a + b) / 2
    return 1.0 if top == expected else (index - expected) / (top - expected)


def parse_ibnetdiscover(path):
    """host -> leaf switch description; switch description -> set of neighbour switches,
    and "<switch>:port" -> {port: (peer switch, peer port)}."""
    header = re.compile(r'^(Switch|Ca)\s+\d+\s+"([SH]-[0-9a-f]+)"\s+#\s+"([^"]*)"')
    port = re.compile(r'^\[(\d+)\]\S*\s+"([SH]-[0-9a-f]+)"\[(\d+)\]')
    with open(path) as f:
        lines = f.read().splitlines()
    names = {}
    for line in lines:
        m = header.match(line)
        if m:
            names[m.group(2)] = (m.group(1), m.group(3))
    host_leaf, neighbours, me = {}, {}, None
    for line in lines:
        m = header.match(line)
        if m:
            me = m.group(2)
            continue
        pm = port.match(line)
        if not pm or me is None:
            continue
        peer = pm.group(2)
        kind, desc = names[me]
        if kind == "Ca":
            host_leaf[desc.split()[0]] = names[peer][1]
        elif names[peer][0] == "Switch":
            neighbours.setdefault(desc, set()).add(names[peer][1])
            neighbours.setdefault(desc + ":port", {})[int(pm.group(1))] = (
                names[peer][1], int(pm.group(3)))
    return host_leaf, neighbours


def short(desc):
    """'MF0;leaf01:MQM8700/U1' -> 'leaf01' (fabric_to_platform.py's link names)."""
    m = re.match(r'^(?:MF0;)?([^:]+)', desc)
    return m.group(1)


class Fabric:
    def __init__(self, name, gen_args):
        self.name = name
        self.net = os.path.join(CACHE, name + ".net")
        self.dumps = os.path.join(CACHE, name)
        self.platform = os.path.join(CACHE, name + ".xml")
        self.hosts = os.path.join(CACHE, name + ".hosts")
        self.ibnet = os.path.join(self.dumps, "ibnetdiscover.txt")
        if not os.path.exists(os.path.join(self.dumps, "dump_fts.txt")):
            run([sys.executable, "collectors/sim/gen_fattree.py", "--out", self.net] + gen_args)
            run(["bash", "collectors/sim/run_ibsim.sh", self.net, self.dumps,
                 "--routing-engine", "ftree"])
        run([sys.executable, "bench/smpi/fabric_to_platform.py", "--ibnetdiscover", self.ibnet,
             "--lfts", os.path.join(self.dumps, "dump_fts.txt"), "--cores", "1",
             "--out", self.platform, "--hosts-out", self.hosts])
        self.host_leaf, self.neighbours = parse_ibnetdiscover(self.ibnet)


def probe(platform, hostfile, out, extra=()):
    with open(hostfile) as f:
        np = len([l for l in f if l.strip()])
    p = run(["smpirun", "-np", str(np), "-platform", platform, "-hostfile", hostfile] + SMPI_CFG
            + [PROBE, "--out", out, "--repetitions", "3", "--quiet"] + list(extra))
    with open(out) as f:
        return json.load(f), p.stderr


class SmpiProbeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        global PROBE
        os.makedirs(CACHE, exist_ok=True)
        PROBE = run(["bash", "bench/smpi/build_probe_smpi.sh", os.path.join(CACHE, "build"),
                     ROOT]).stdout.strip()
        cls.ft64 = Fabric("ft2l-64h-16pl", ["--hosts", "64", "--hosts-per-leaf", "16",
                                           "--spines", "4"])
        cls.tmp = tempfile.mkdtemp(prefix="smpi_probe_test.")
        cls.p64, cls.p64_log = probe(cls.ft64.platform, cls.ft64.hosts,
                                     os.path.join(cls.tmp, "p64.json"))
        cls.sock = os.path.join(cls.tmp, "toporrd.sock")
        cls.daemon = subprocess.Popen(
            [TOPORRD, "--config=", "--db", os.path.join(cls.tmp, "toporr.db"), "--socket",
             cls.sock], stderr=open(os.path.join(cls.tmp, "toporrd.log"), "w"))
        for _ in range(200):
            if subprocess.run([TOPORRCTL, "--socket", cls.sock, "health"],
                              capture_output=True).returncode == 0:
                break
            time.sleep(0.05)

    @classmethod
    def tearDownClass(cls):
        cls.daemon.terminate()
        cls.daemon.wait()

    def ctl(self, *args, ok=True):
        p = subprocess.run([TOPORRCTL, "--socket", self.sock] + list(args), capture_output=True,
                           text=True)
        if ok and p.returncode != 0:
            raise RuntimeError("toporrctl %s: %s" % (" ".join(args), p.stderr))
        return p

    def test_two_level_leaves_exact(self):
        p = self.p64
        names = [l["name"] for l in p["host_levels"]]
        self.assertEqual(names, ["host", "leaf", "top"])
        truth = [self.ft64.host_leaf[h] for h in p["hosts"]]
        self.assertEqual(len(set(truth)), 4)
        self.assertEqual(ari(p["host_levels"][1]["groups"], truth), 1.0)
        self.assertEqual(p["rank_levels"][0]["name"], "host")  # one rank per host
        self.assertEqual(len(p["pairs"]), 64 * 63 // 2)
        self.assertEqual(p["schedule"]["rounds"], 63)  # O(N) rounds, not N^2 / 2 serial

    def test_three_level_leaves_and_pods_exact(self):
        ft = Fabric("ft3l-64h-8pl-2lpp", ["--hosts", "64", "--levels", "3",
                                          "--hosts-per-leaf", "8", "--leaves-per-pod", "2"])
        p, _ = probe(ft.platform, ft.hosts, os.path.join(self.tmp, "p3l.json"))
        self.assertEqual([l["name"] for l in p["host_levels"]], ["host", "leaf", "pod", "top"])
        leaf = [ft.host_leaf[h] for h in p["hosts"]]
        # Pods: leaves that share an aggregation switch.
        leaves = sorted(set(leaf))
        pod_of = {l: i for i, l in enumerate(leaves)}
        for a in leaves:
            for b in leaves:
                if ft.neighbours[a] & ft.neighbours[b]:
                    old, new = pod_of[b], pod_of[a]
                    for k, v in pod_of.items():
                        if v == old:
                            pod_of[k] = new
        pod = [pod_of[l] for l in leaf]
        self.assertEqual(len(set(leaf)), 8)
        self.assertEqual(len(set(pod)), 4)
        self.assertEqual(ari(p["host_levels"][1]["groups"], leaf), 1.0)
        self.assertEqual(ari(p["host_levels"][2]["groups"], pod), 1.0)

    def test_sockets_hosts_and_leaves_of_cores_exact(self):
        ft = Fabric("ft2l-8h-4pl", ["--hosts", "8", "--hosts-per-leaf", "4", "--spines", "2"])
        platform = os.path.join(CACHE, "ft2l-8h-4pl-2s8c.xml")
        hosts = os.path.join(CACHE, "ft2l-8h-4pl-2s8c.hosts")
        run([sys.executable, "bench/smpi/probe_platform.py", "--platform", ft.platform,
             "--out", platform, "--hosts-out", hosts, "--sockets", "2",
             "--cores-per-socket", "8"])
        p, _ = probe(platform, hosts, os.path.join(self.tmp, "pcores.json"))
        names = [l["name"] for l in p["rank_levels"]]
        self.assertEqual(names, ["rank", "socket", "host", "leaf", "top"])
        with open(hosts) as f:
            cores = [l.strip() for l in f if l.strip()]
        self.assertEqual(len(cores), 128)
        socket = [c.split(".")[0] + "/" + str(int(c.split(".c")[1]) // 8) for c in cores]
        host = [c.split(".")[0] for c in cores]
        leaf = [ft.host_leaf[h] for h in host]
        self.assertEqual(ari(p["rank_levels"][1]["groups"], socket), 1.0)
        self.assertEqual(ari(p["rank_levels"][2]["groups"], host), 1.0)
        self.assertEqual(ari(p["rank_levels"][3]["groups"], leaf), 1.0)
        self.assertEqual([r["host"] for r in p["ranks"]], host)

    def test_ingest_measured_snapshot(self):
        path = os.path.join(self.tmp, "p64.json")
        first = json.loads(self.ctl("--json", "ingest", "--format", "plogp", path).stdout)
        self.assertTrue(first["created"], first)
        again = json.loads(self.ctl("--json", "ingest", "--format", "plogp", path).stdout)
        self.assertFalse(again["created"])
        hosts = json.loads(self.ctl("--json", "hosts").stdout)
        self.assertEqual(len(hosts["hosts"]), 64)
        same = json.loads(self.ctl("--json", "cost", "node00001", "node00002").stdout)
        other = json.loads(self.ctl("--json", "cost", "node00001", "node00064").stdout)
        self.assertEqual(same["route_kind"], "MEASURED")
        self.assertEqual((same["hops"], other["hops"]), (1, 3))
        self.assertIn("measured", self.ctl("cost", "node00001", "node00064").stdout)
        self.ctl("path", "node00001", "node00064")
        hostfile = os.path.join(self.tmp, "hostfile")
        with open(hostfile, "w") as f:
            f.write("".join("node%05d slots=1\n" % (1 + (i * 16) % 64 + i // 4)
                            for i in range(16)))
        plan = json.loads(self.ctl("--json", "plan", "--hostfile", hostfile, "--collective",
                                   "bcast", "--size", "1048576", "--map-by", "node").stdout)
        self.assertIn("toporrd snapshot", json.dumps(plan))
        # A second measurement in which node00020 sits with node00001's leaf: a new snapshot
        # whose diff names that host as moved.
        with open(path) as f:
            moved = json.load(f)
        groups = moved["host_levels"][1]["groups"]
        groups[moved["hosts"].index("node00020")] = groups[moved["hosts"].index("node00001")]
        moved_path = os.path.join(self.tmp, "moved.json")
        with open(moved_path, "w") as f:
            json.dump(moved, f)
        second = json.loads(self.ctl("--json", "ingest", "--format", "plogp", moved_path).stdout)
        self.assertTrue(second["created"])
        diff = json.loads(self.ctl("--json", "diff", str(first["snapshot"]["id"]),
                                   str(second["snapshot"]["id"])).stdout)
        self.assertEqual(diff["hosts_moved"], 1, diff["report"])
        self.assertIn("node00020", diff["report"])
        self.ctl("ingest", "--format", "plogp", path)  # back to the measurement
        with open(path) as f:
            lines = f.read().splitlines()
        lines[3] = '  "sizes": [65536,0],'
        bad = os.path.join(self.tmp, "bad.json")
        with open(bad, "w") as f:
            f.write("\n".join(lines))
        refused = self.ctl("ingest", "--format", "plogp", bad, ok=False)
        self.assertNotEqual(refused.returncode, 0)
        self.assertIn("bad.json:4:", refused.stderr)

    def test_degraded_cable_is_the_top_disagreement(self):
        # leaf01's first uplink, both directions, at 1/4 rate.
        ports = self.ft64.neighbours["MF0;leaf01:MQM8700/U1:port"]
        up = min(port for port in ports)
        spine, spine_port = ports[up]
        degraded = {"leaf01:%d" % up, "%s:%d" % (short(spine), spine_port)}
        platform = os.path.join(CACHE, "ft2l-64h-16pl-degraded.xml")
        args = [sys.executable, "bench/smpi/probe_platform.py", "--platform",
                self.ft64.platform, "--out", platform, "--factor", "4"]
        for link in sorted(degraded):
            args += ["--degrade", link]
        run(args)
        pd, _ = probe(platform, self.ft64.hosts, os.path.join(self.tmp, "p64d.json"))
        # Routes of the simulated platform: which host pairs cross the degraded cable.
        crossing = set()
        with open(platform) as f:
            for src, dst, body in re.findall(r'<route src="([^"]+)" dst="([^"]+)"[^>]*>(.*?)'
                                             r'</route>', f.read()):
                if set(re.findall(r'link_ctn id="([^"]+)"', body)) & degraded:
                    crossing.add(tuple(sorted((src, dst))))
        self.assertTrue(crossing)
        self.ctl("ingest", "--format", "ibnetdiscover", self.ft64.ibnet)
        out = json.loads(self.ctl("--json", "validate", "--top", "5",
                                  os.path.join(self.tmp, "p64d.json")).stdout)
        top = out["disagreements"]
        self.assertIn(tuple(sorted((top[0]["host_a"], top[0]["host_b"]))), crossing, top[0])
        for d in top:
            self.assertIn(tuple(sorted((d["host_a"], d["host_b"]))), crossing, d)
        self.assertGreater(top[0]["ratio"], 2.0)
        healthy = json.loads(self.ctl("--json", "validate", "--top", "1",
                                      os.path.join(self.tmp, "p64.json")).stdout)
        self.assertLess(healthy["disagreements"][0]["ratio"], top[0]["ratio"] / 1.5)
        self.assertGreater(healthy["spearman"], 0.5)
        # The same offline, with the fabric's routes: still the crossing pairs first.
        offline = json.loads(self.ctl("--json", "validate", "--fabric", self.ft64.ibnet,
                                      os.path.join(self.tmp, "p64d.json")).stdout)
        d = offline["disagreements"][0]
        self.assertIn(tuple(sorted((d["host_a"], d["host_b"]))), crossing)
        # With the subnet manager's routes (the LFTs), the most suspect links are the cable.
        lfts = json.loads(self.ctl("--json", "validate", "--fabric", self.ft64.ibnet, "--lfts",
                                   os.path.join(self.ft64.dumps, "dump_fts.txt"),
                                   os.path.join(self.tmp, "p64d.json")).stdout)
        suspects = [s["link"] for s in lfts["suspect_links"][:2]]
        want = ['"MF0;leaf01:MQM8700/U1"[%d]' % up, '"%s"[%d]' % (spine, spine_port)]
        for s in suspects:
            self.assertTrue(all(w in s for w in want), suspects)
        print("\nvalidate (degraded %s): top %s %s ratio %.2f; healthy top ratio %.2f, "
              "spearman %.3f" % (sorted(degraded), top[0]["host_a"], top[0]["host_b"],
                                 top[0]["ratio"], healthy["disagreements"][0]["ratio"],
                                 healthy["spearman"]), file=sys.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)

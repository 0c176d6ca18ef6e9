#!/usr/bin/env python3
"""toporr-probe under real mpirun (Open MPI and MPICH) on this machine, into a real toporrd.

Usage: probe_mpi_test.py [unittest args]. Run by Bazel (cwd = the runfiles tree). One machine
is one host; checked:
  - 2 ranks on 2 cores (bound), each MPI: the progress line, a probe.json that parses, one
    measured pair with positive times, the host level named "host"; the intra-host levels are
    compared with hwloc (lstopo): on a machine whose ranks share one package and one L3 (this
    2-core one) no level may appear between "rank" and "host" -- a 2-core machine cannot show
    sockets, and the test says so rather than pretend; the probe's own hwloc check (per-rank
    "hwloc" locations and "hwloc_check" in probe.json, the verdict on its last stderr line)
    must agree with lstopo's shape: "nothing_to_detect" on this machine;
  - the same under a synthetic 2-package hwloc topology (HWLOC_XMLFILE): "mismatch", the
    packages not measured;
  - 4 ranks on two "hosts" (--host-names: rank r on p1/p2 alternately) ingest into toporrd as a
    MEASURED snapshot (hosts p1 and p2, cost route_kind MEASURED);
  - noisy pairs are measured again (--noisy 0 --remeasure 2);
  - --time-budget stops early and says so; the file is still valid and ingests (each test
    ingests its own host set: --allow-shrink);
  - bad options exit 2.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import unittest

ROOT = os.getcwd()
TOPORRD = os.path.join(ROOT, "daemon/toporrd")
TOPORRCTL = os.path.join(ROOT, "client/ctl/toporrctl")
PROBE = {"openmpi": os.path.join(ROOT, "probe/toporr-probe"),
         "mpich": os.path.join(ROOT, "probe/toporr-probe-mpich")}
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")


def mpirun(mpi, np, args, bind=True, timeout=120):
    if mpi == "openmpi":
        cmd = ["mpirun.openmpi", "--oversubscribe", "-np", str(np)]
        cmd += ["--bind-to", "core"] if bind else ["--bind-to", "none"]
    else:
        cmd = ["mpirun.mpich", "-np", str(np)] + (["-bind-to", "core"] if bind else [])
    return subprocess.run(cmd + [PROBE[mpi]] + args, capture_output=True, text=True, env=ENV,
                          timeout=timeout)


def hwloc_shape():
    """(packages, L3 caches, cores) of this machine as lstopo sees it."""
    xml = subprocess.run(["lstopo-no-graphics", "--of", "xml"], capture_output=True,
                         text=True).stdout
    count = lambda kind: len(re.findall(r'type="%s"' % kind, xml))
    l3 = len(re.findall(r'type="L3Cache"', xml)) or len(re.findall(r'cache_depth="3"', xml))
    return count("Package"), l3, count("Core")


class ProbeMpiTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="probe_mpi_test.")
        cls.sock = os.path.join(cls.tmp, "toporrd.sock")
        cls.daemon = subprocess.Popen(
            [TOPORRD, "--config=", "--db", os.path.join(cls.tmp, "toporr.db"), "--socket",
             cls.sock], stderr=open(os.path.join(cls.tmp, "toporrd.log"), "w"))
        for _ in range(200):
            if subprocess.run([TOPORRCTL, "--socket", cls.sock, "health"],
                              capture_output=True).returncode == 0:
                return
            time.sleep(0.05)
        raise RuntimeError("toporrd did not become healthy")

    @classmethod
    def tearDownClass(cls):
        cls.daemon.terminate()
        cls.daemon.wait()

    def ctl(self, *args):
        p = subprocess.run([TOPORRCTL, "--socket", self.sock] + list(args), capture_output=True,
                           text=True)
        self.assertEqual(p.returncode, 0, "toporrctl %s: %s" % (" ".join(args), p.stderr))
        return p.stdout

    def two_ranks(self, mpi):
        out = os.path.join(self.tmp, "two-%s.json" % mpi)
        p = mpirun(mpi, 2, ["--out", out, "--repetitions", "7"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("toporr-probe: round 1/1", p.stderr)
        self.assertIn("rank levels:", p.stderr)
        with open(out) as f:
            probe = json.load(f)
        self.assertEqual(len(probe["ranks"]), 2)
        self.assertEqual(len(probe["hosts"]), 1)
        self.assertEqual(len(probe["pairs"]), 1)
        pair = probe["pairs"][0]
        self.assertTrue(all(t > 0 for t in pair["rtt_ns"]), pair)
        self.assertLess(pair["rtt_ns"][0], pair["rtt_ns"][-1])  # 64 KiB takes longer than 0
        names = [l["name"] for l in probe["rank_levels"]]
        self.assertEqual(names[-1], "host")
        packages, l3, cores = hwloc_shape()
        print("\n%s: hwloc %d package(s), %d L3, %d cores; rank levels %s; rtt %s ns"
              % (mpi, packages, l3, cores, names, pair["rtt_ns"]), file=sys.stderr)
        if packages <= 1 and l3 <= 1:
            # Both cores share the package and the L3: nothing lies between core and host.
            self.assertEqual(names, ["rank", "host"])
        # The probe's own hwloc check (libtoporr's node topology, in the binary) agrees with
        # lstopo: each rank located on a core of this machine, its own core when bound.
        located = [r["hwloc"] for r in probe["ranks"]]
        for loc in located:
            self.assertTrue(0 <= loc["core"] < cores, loc)
            self.assertTrue(0 <= loc["package"] < max(packages, 1), loc)
        if cores >= 2:
            self.assertNotEqual(located[0]["core"], located[1]["core"])
        check = probe["hwloc_check"]
        self.assertIn("hwloc: %s (" % check["verdict"], p.stderr)
        self.assertEqual([c["hwloc"] for c in check["comparisons"]], ["package", "l3"])
        print("%s: probe's hwloc check: %s (%s)" % (mpi, check["verdict"], check["detail"]),
              file=sys.stderr)
        if packages <= 1 and l3 <= 1:
            # One package and one L3 per host cannot tell: the probe must say so, not claim a match.
            self.assertEqual(check["verdict"], "nothing_to_detect", check)
            self.assertIn("one package and one L3 per host", check["detail"])
            for c in check["comparisons"]:
                self.assertEqual((c["groups"], c["measured"], c["ari"]), (1, "host", 1))
        else:
            self.assertIn(check["verdict"], ("match", "mismatch", "nothing_to_detect"), check)
            same = located[0]["package"] == located[1]["package"]
            self.assertEqual(check["comparisons"][0]["groups"], 1 if same else 2)
        return out

    def test_openmpi_two_ranks(self):
        self.two_ranks("openmpi")

    def test_mpich_two_ranks(self):
        self.two_ranks("mpich")

    def test_hwloc_check_on_a_two_package_topology(self):
        # The probe's hwloc code reads a synthetic 2-package topology (HWLOC_XMLFILE, taken as
        # this machine's) while the ranks still run on the real machine, bound to PUs 0 and
        # 1, which the XML puts in different packages. Two ranks can only show "rank" and
        # "host", so the probe must report the packages as not measured.
        xml = os.path.join(self.tmp, "2pack.xml")
        with open(xml, "w") as f:
            subprocess.run(["lstopo-no-graphics", "-i", "pack:2 l3:1 core:1 pu:1", "--of", "xml"],
                           stdout=f, check=True)
        wrapper = os.path.join(self.tmp, "hwloc-2pack.sh")
        with open(wrapper, "w") as f:
            f.write('#!/bin/sh\nHWLOC_XMLFILE=%s HWLOC_THISSYSTEM=1 exec "$@"\n' % xml)
        os.chmod(wrapper, 0o755)
        out = os.path.join(self.tmp, "2pack.json")
        cmd = ["mpirun.openmpi", "--oversubscribe", "-np", "2", "--bind-to", "core", wrapper,
               PROBE["openmpi"], "--out", out, "--repetitions", "5"]
        p = subprocess.run(cmd, capture_output=True, text=True, env=ENV, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(out) as f:
            probe = json.load(f)
        self.assertEqual(sorted(r["hwloc"]["package"] for r in probe["ranks"]), [0, 1])
        check = probe["hwloc_check"]
        self.assertEqual(check["verdict"], "mismatch", check)
        self.assertIn("hwloc packages (2 groups) not measured", check["detail"])
        self.assertEqual(check["comparisons"][0],
                         {"hwloc": "package", "groups": 2, "measured": "host", "ari": 0})
        self.assertIn("hwloc: mismatch (", p.stderr)

    def test_two_hosts_ingest_as_measured_snapshot(self):
        out = os.path.join(self.tmp, "hosts.json")
        p = mpirun("openmpi", 4, ["--out", out, "--repetitions", "5", "--host-names", "p1,p2"],
                   bind=False)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(out) as f:
            probe = json.load(f)
        self.assertEqual(probe["hosts"], ["p1", "p2"])
        self.assertEqual(len(probe["pairs"]), 6)
        self.assertEqual(probe["host_levels"][0]["name"], "host")
        self.assertIn("verdict", probe["hwloc_check"])  # unbound ranks: located where they run
        ingest = json.loads(
            self.ctl("--json", "ingest", "--allow-shrink", "--format", "plogp", out))
        self.assertTrue(ingest["created"])
        hosts = json.loads(self.ctl("--json", "hosts"))
        self.assertEqual([h["name"] for h in hosts["hosts"]], ["p1", "p2"])
        cost = json.loads(self.ctl("--json", "cost", "p1", "p2"))
        self.assertEqual(cost["route_kind"], "MEASURED")
        self.assertGreaterEqual(cost["hops"], 1)

    def test_time_budget(self):
        out = os.path.join(self.tmp, "budget.json")
        p = mpirun("openmpi", 4, ["--out", out, "--time-budget", "0.000001", "--remeasure", "0",
                                  "--host-names", "b1,b2"], bind=False)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("time budget of", p.stderr)
        with open(out) as f:
            probe = json.load(f)
        self.assertLess(probe["schedule"]["rounds"], 3)
        self.assertLess(len(probe["pairs"]), 6)
        self.ctl("ingest", "--allow-shrink", "--format", "plogp", out)

    def test_noisy_pairs_measured_again(self):
        # --noisy 0: every pair whose samples differ at all is noisy and measured again.
        out = os.path.join(self.tmp, "noisy.json")
        p = mpirun("openmpi", 2, ["--out", out, "--repetitions", "5", "--noisy", "0",
                                  "--remeasure", "2"])
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(out) as f:
            pair = json.load(f)["pairs"][0]
        if pair["remeasured"] == 0:  # all five round trips took the same time: not noisy
            self.assertEqual(pair["spread"], 0)
        else:
            self.assertIn("noisy pairs again", p.stderr)
            self.assertLessEqual(pair["remeasured"], 2)

    def test_bad_options(self):
        p = mpirun("openmpi", 1, ["--sizes", "5,1"])
        self.assertEqual(p.returncode, 2)
        self.assertIn("bad --sizes", p.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)

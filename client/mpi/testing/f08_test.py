#!/usr/bin/env python3
"""`use mpi_f08` programs under LD_PRELOAD=libtoporr_pmpi.so, and the toporr_f08 module.

Usage: f08_test.py openmpi|mpich [unittest args]; run by Bazel from the runfiles tree.
Shares mpi_test.py's job and daemon plumbing (only the tests below run). f08_check.f90 is
built with the MPI library's mpif90 over client/toporr_f.f90 and client/toporr_f08.f90.
Checked:
  - with the preload, each large MPI_Allreduce / MPI_Bcast / MPI_Reduce / MPI_Allgather of
    the program (MPI_IN_PLACE and an absent ierror included), its MPI_Iallreduce and
    MPI_Ibcast (mpi_f08) and MPI_IALLREDUCE (`use mpi`), and each reorder = .true.
    MPI_Cart_create, MPI_Graph_create, MPI_Dist_graph_create(_adjacent) of mpi_f08, and the
    old bindings' MPI_DIST_GRAPH_CREATE(_ADJACENT), is one decision in TOPORR_REPORT, made
    with the daemon's costs; the topology decisions' orders are those of the communicators
    the program got; every result is right;
  - without the preload the same program is right and none of its MPI calls is decided:
    the only decision is toporr_comm_reorder_f08's;
  - toporr_comm_reorder_f08 reorders (the order the daemon's costs give, the same as
    toporr_comm_reorder_f's).
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mpi_test  # noqa: E402  (takes the MPI argument off sys.argv)
from mpi_test import LIBDIR, MPI, MPIF90, round_robin  # noqa: E402

# MPICH's busy-polling ranks crawl on a small machine: fewer of them. Two ranks a host,
# consecutive ranks on different hosts: identity orders are poor.
NP = 8 if MPI == "openmpi" else 4
HOSTS = round_robin(NP, NP // 2)
CHECKS = ["f08-allreduce", "f08-bcast", "f08-reduce", "f08-allgather", "f08-nonblocking",
          "f08-cart", "f08-graph", "f08-dist-adjacent", "f08-dist", "f77-dist-adjacent",
          "f77-dist", "f77-iallreduce", "f08-reorder"]
# The program's large collective calls, as TOPORR_REPORT names them (f08_check.f90): each a
# decision of its own.
CALLS = {"allreduce": 4, "bcast": 2, "reduce": 2, "allgather": 2}
# Its reorder = .true. constructors: the program's ORDER line of each, in call order.
CONSTRUCTORS = [("cart_create", "f08-cart"), ("graph_create", "f08-graph"),
                ("dist_graph_create_adjacent", "f08-dist-adjacent"),
                ("dist_graph_create", "f08-dist"),
                ("dist_graph_create_adjacent", None), ("dist_graph_create", None)]


class F08Test(mpi_test.MpiTest):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix=f"toporr-f08-{MPI}-")
        cls.build("check")
        cls.f08 = os.path.join(cls.tmp, "f08_check")
        subprocess.run([MPIF90, "-Wall", "-J", cls.tmp, "client/toporr_f.f90",
                        "client/toporr_f08.f90", "client/mpi/testing/f08_check.f90",
                        "-L", LIBDIR, "-ltoporr", f"-Wl,-rpath,{LIBDIR}", "-o", cls.f08],
                       check=True)
        cls.serve_demo_fabric()

    @classmethod
    def tearDownClass(cls):
        cls.stop_daemon()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def check_results(self, job):
        for name in CHECKS:
            with self.subTest(check=name):
                self.assertEqual(job.checks.get(name), ["ok"], job.stdout + job.stderr)

    def test_f08_calls_are_decided_by_toporr(self):
        job = self.run_job(NP, [], HOSTS, program=self.f08, preload=True)
        self.check_results(job)
        self.assertEqual(job.warnings(), [], job.stderr)
        self.assertTrue(all(r["source"] == "daemon" for r in job.report), job.report)
        # The reorder call's decision comes last; every other one is an intercepted call.
        calls = job.report[:-1]
        for collective, count in CALLS.items():
            with self.subTest(collective=collective):
                decided = [r for r in calls if r["collective"] == collective]
                self.assertEqual(len(decided), count, job.report)
        # The blocking ones, then MPI_Iallreduce (mpi_f08) and MPI_IALLREDUCE (`use mpi`).
        self.assertEqual([r["bytes"] for r in calls if r["collective"] == "allreduce"],
                         [8 * 20000, 8 * 40000, 8 * 20000, 4 * 20000])
        self.assertEqual([r["root"] for r in calls if r["collective"] == "bcast"], [NP - 1, 0])
        self.assertEqual([r["root"] for r in calls if r["collective"] == "reduce"], [NP - 1, 0])
        self.assertEqual([r["bytes"] for r in calls if r["collective"] == "allgather"],
                         [4 * 20000, 4 * 40000])
        topology = [r for r in calls if r["collective"] not in CALLS]
        self.assertEqual([r["collective"] for r in topology], [c for c, _ in CONSTRUCTORS])
        for r, (_, name) in zip(topology, CONSTRUCTORS):
            if name is not None:
                with self.subTest(constructor=name):
                    self.assertEqual(job.orders[name][0]["order"], r["new_order"])

    def test_without_the_preload_nothing_is_decided_but_the_reorder(self):
        job = self.run_job(NP, [], HOSTS, program=self.f08)
        self.check_results(job)
        self.assertEqual([r["collective"] for r in job.report], ["allreduce"], job.report)
        for name, _ in [("f08-cart", 0), ("f08-graph", 0), ("f08-dist-adjacent", 0)]:
            self.assertEqual(job.orders[name][0]["order"], list(range(NP)))

    def test_toporr_f08_reorders_as_toporr_f(self):
        spec = "allreduce:auto:1048576:0"
        c = self.run_job(NP, [spec], HOSTS).orders[spec][0]["order"]
        self.assertNotEqual(c, list(range(NP)))
        job = self.run_job(NP, [], HOSTS, program=self.f08)
        self.assertEqual(job.checks["f08-reorder"], ["ok"], job.stdout + job.stderr)
        self.assertEqual(job.orders["f08-reorder"][0]["order"], c)
        self.assertEqual(job.report[-1]["new_order"], c)
        self.assertEqual(job.report[-1]["source"], "daemon")


def load_tests(loader, tests, pattern):
    """This file's tests only (not mpi_test.MpiTest's, whose plumbing it shares)."""
    names = sorted(n for n in F08Test.__dict__ if n.startswith("test_"))
    return unittest.TestSuite(F08Test(n) for n in names)


if __name__ == "__main__":
    unittest.main(verbosity=2)

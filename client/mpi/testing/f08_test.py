#!/usr/bin/env python3
"""`use mpi_f08` programs under LD_PRELOAD=libtoporr_pmpi.so, and the toporr_f08 module.

Usage: f08_test.py openmpi|mpich [unittest args]; run by Bazel from the runfiles tree.
Shares mpi_test.py's job and daemon plumbing (only the tests below run). f08_check.f90 is
built with the MPI library's mpif90 over client/toporr_f.f90 and client/toporr_f08.f90.
Checked:
  - with the preload, each large MPI_Allreduce / MPI_Bcast / MPI_Reduce / MPI_Allgather of
    the program (MPI_IN_PLACE and an absent ierror included), its MPI_Iallreduce and
    MPI_Ibcast (mpi_f08) and MPI_IALLREDUCE (`use mpi`), its persistent MPI_Allreduce_init
    and MPI_Bcast_init (mpi_f08) and MPI_ALLREDUCE_INIT, MPI_BCAST_INIT and MPI_REDUCE_INIT
    (`use mpi`; Open MPI 4.1: MPIX_*_init), each request started twice, and each reorder =
    .true. MPI_Cart_create, MPI_Graph_create, MPI_Dist_graph_create(_adjacent) of mpi_f08,
    and the old bindings' MPI_DIST_GRAPH_CREATE(_ADJACENT), is one decision in
    TOPORR_REPORT, made with the daemon's costs; the topology decisions' orders are those of
    the communicators the program got; every result is right;
  - the program says SKIPPED for its persistent collectives only where the MPI library's
    mpi.h says it has none (persistent_form), and nowhere else;
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
from mpi_test import LIBDIR, MPI, MPICC, MPIF90, round_robin  # noqa: E402

# MPICH's busy-polling ranks crawl on a small machine: fewer of them. Two ranks a host,
# consecutive ranks on different hosts: identity orders are poor.
NP = 8 if MPI == "openmpi" else 4
HOSTS = round_robin(NP, NP // 2)


def persistent_form():
    """How the MPI library names its persistent collectives, decided from its mpi.h as
    persistent_abi.h decides for libtoporr: "MPI" (MPI-4's MPI_*_init, and Open MPI 5's),
    "MPIX" (Open MPI 4.1's pcollreq extension: MPIX_*_init, in Fortran from the modules
    mpi_ext and mpi_f08_ext) or None (none: the only case f08_check.f90 may say SKIPPED)."""
    src = "#include <mpi.h>\n#ifdef OPEN_MPI\n#include <mpi-ext.h>\n#endif\n"
    out = subprocess.run([MPICC, "-E", "-dM", "-x", "c", "-"], input=src, capture_output=True,
                         text=True, check=True).stdout
    macros = {}
    for line in out.splitlines():
        f = line.split(None, 2)
        if len(f) == 3 and f[0] == "#define":
            macros[f[1]] = f[2].strip()

    def number(name):
        try:
            return int(macros.get(name, "0"))
        except ValueError:
            return 0
    open_mpi = "OPEN_MPI" in macros
    if number("MPI_VERSION") >= 4 or (open_mpi and number("OMPI_MAJOR_VERSION") >= 5):
        return "MPI"
    if open_mpi and number("OMPI_HAVE_MPI_EXT_PCOLLREQ") == 1:
        return "MPIX"
    return None


PERSISTENT = persistent_form()
PERSISTENT_CHECKS = ["f08-persistent", "f77-persistent"]
CHECKS = ["f08-allreduce", "f08-bcast", "f08-reduce", "f08-allgather", "f08-nonblocking",
          "f08-cart", "f08-graph", "f08-dist-adjacent", "f08-dist", "f77-dist-adjacent",
          "f77-dist", "f77-iallreduce", "f08-reorder"]
if PERSISTENT:
    CHECKS += PERSISTENT_CHECKS
# The program's large collective calls, as TOPORR_REPORT names them (f08_check.f90): each a
# decision of its own. With persistent collectives, 2 more allreduces, 2 bcasts and a reduce
# (each init one decision, whatever its starts).
CALLS = {"allreduce": 4, "bcast": 2, "reduce": 2, "allgather": 2}
if PERSISTENT:
    CALLS.update(allreduce=6, bcast=4, reduce=3)
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
        defines = [f"-DPERSISTENT_{PERSISTENT}"] if PERSISTENT else []
        subprocess.run([MPIF90, "-Wall", "-cpp"] + defines +
                       ["-J", cls.tmp, "client/toporr_f.f90", "client/toporr_f08.f90",
                        "client/mpi/testing/f08_check.f90", "-L", LIBDIR, "-ltoporr",
                        f"-Wl,-rpath,{LIBDIR}", "-o", cls.f08],
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
        skipped = [l for l in job.stdout.splitlines() if l.startswith("SKIPPED:")]
        if PERSISTENT:
            self.assertEqual(skipped, [], job.stdout)
        else:  # an MPI library without persistent collectives: both said so, none checked
            self.assertEqual(len(skipped), len(PERSISTENT_CHECKS), job.stdout)
            for name in PERSISTENT_CHECKS:
                self.assertNotIn(name, job.checks, job.stdout)

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
        # The blocking ones, then MPI_Iallreduce (mpi_f08), the persistent MPI_Allreduce_init
        # (mpi_f08), MPI_IALLREDUCE and the persistent MPI_ALLREDUCE_INIT (`use mpi`).
        allreduce = [8 * 20000, 8 * 40000, 8 * 20000, 4 * 20000]
        bcast, reduce = [NP - 1, 0], [NP - 1, 0]
        if PERSISTENT:
            allreduce = [8 * 20000, 8 * 40000, 8 * 20000, 8 * 40000, 4 * 20000, 4 * 160000]
            bcast += [NP - 1, 1]  # MPI_Bcast_init, MPI_BCAST_INIT
            reduce += [1]  # MPI_REDUCE_INIT
        self.assertEqual([r["bytes"] for r in calls if r["collective"] == "allreduce"],
                         allreduce)
        self.assertEqual([r["root"] for r in calls if r["collective"] == "bcast"], bcast)
        self.assertEqual([r["root"] for r in calls if r["collective"] == "reduce"], reduce)
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

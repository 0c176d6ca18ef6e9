#!/usr/bin/env python3
"""Nonblocking and persistent collectives through the PMPI layer, in real MPI jobs (mpirun)
against a real toporrd, ranks placed on fabric hosts with TOPORR_HOSTMAP.

Usage: nonblocking_test.py openmpi|mpich [unittest args]; run by Bazel from the runfiles tree.
Shares mpi_test.py's job and daemon plumbing (only the tests below run). Checked, with
nonblocking_check.c under LD_PRELOAD=libtoporr_pmpi.so and TOPORR_MIN_BYTES=1 (every call
taken over):
  - MPI_Iallreduce / MPI_Ireduce / MPI_Ibcast / MPI_Iallgather and their persistent forms
    equal the MPI library's blocking results over the correctness table's datatypes x ops x
    counts x roots x in place, with the run-time check off and on; TOPORR_REPORT has a
    decision from the daemon for each of the four collectives, and a reordered one for each
    (two processes per host, hosts alternating between leaves);
  - 16 MPI_Iallreduce in flight at once with point-to-point requests, completed by one
    MPI_Waitall over the mix, by MPI_Waitany and by MPI_Testall polling; persistent requests
    through MPI_Startall, MPI_Request_get_status, MPI_Test, MPI_Request_free;
  - after the decision and its run-time check, a start is local (no rank waits for rank 0,
    which starts 0.4 s late) and the request completes under MPI_Test while the ranks compute;
  - TOPORR_DISABLE=1: no decision, the same results.
"""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mpi_test  # noqa: E402  (takes the MPI argument off sys.argv)
from mpi_test import MPI  # noqa: E402

# Two processes per host, hosts alternating between two leaves: every collective's decided
# order differs from the launch order.
HOSTS = ["node01", "node05", "node01", "node05", "node02", "node06", "node02", "node06"]
# MPICH's ranks busy-poll: on a small machine a job of 4 is what the table can afford.
NP = 8 if MPI == "openmpi" else 4
ALL = {"TOPORR_MIN_BYTES": "1"}


class NonblockingTest(mpi_test.MpiTest):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix=f"toporr-nonblocking-{MPI}-")
        cls.build("nonblocking")
        cls.serve_demo_fabric()

    def job(self, args, env=None, np=NP):
        job = self.run_job(np, args, HOSTS[:np], program=self.nonblocking, preload=True,
                           env=dict(ALL, **(env or {})), timeout=600)
        self.assertEqual(job.checks[args[0]], ["ok"], job.stdout + job.stderr)
        self.assertNotIn("PERSISTENT none", job.stdout)  # both libraries have them
        self.assertEqual(job.warnings(), [], job.stderr)
        return job

    def assert_table(self, job):
        """Every case of the table right: 480, fewer on MPICH 4.0 (the program says SKIPPED
        for the persistent cases its bugs rule out)."""
        cases, failures = next(map(int, l.split()[1:3]) for l in job.stdout.splitlines()
                               if l.startswith("COLL"))
        self.assertEqual(failures, 0, job.stdout)
        self.assertEqual(cases, 370 if "SKIPPED:" in job.stdout else 480, job.stdout)

    def test_results_equal_the_mpi_librarys_over_the_table(self):
        for verify in ["0", "1"]:
            with self.subTest(verify=verify):
                job = self.job(["table", "quick"], {"TOPORR_VERIFY": verify})
                self.assert_table(job)
                self.assertTrue(job.report and all(r["source"] == "daemon" for r in job.report))
                identity = list(range(NP))
                for coll in ["allreduce", "reduce", "bcast", "allgather"]:
                    mine = [r for r in job.report if r["collective"] == coll]
                    self.assertTrue(mine, coll)
                    # The library's own algorithm on toporr's order: never toporr's menu.
                    self.assertNotIn("mpi_library", {r["chosen_algorithm"] for r in mine})
                    if NP == 8:  # 4 ranks on 2 hosts: not every collective reorders
                        self.assertTrue(any(r["new_order"] != identity for r in mine), coll)
                self.assertTrue(any(r["new_order"] != identity for r in job.report))
                if verify == "1":  # the run-time check ran on nonblocking calls too
                    self.assertTrue(job.verified, job.stdout)

    def test_disabled_makes_no_decision_and_the_same_results(self):
        job = self.job(["table", "quick"], {"TOPORR_DISABLE": "1"})
        self.assert_table(job)
        self.assertEqual(job.report, [])

    def test_many_requests_in_flight_mixed_with_the_librarys(self):
        job = self.job(["inflight", "16", "20000"])
        self.assertTrue(any(r["collective"] == "allreduce" and r["new_order"] != list(range(NP))
                            for r in job.report), job.report)

    def test_a_decided_start_is_local_and_overlaps(self):
        job = self.job(["overlap", "262144", "10"])
        start = float(next(l.split()[1] for l in job.stdout.splitlines()
                           if l.startswith("START")))
        tests = int(next(l.split()[1] for l in job.stdout.splitlines()
                         if l.startswith("OVERLAP")))
        # Rank 0 starts 0.4 s late: a start that synchronised would wait for it.
        self.assertLess(start, 0.2, job.stdout)
        self.assertGreaterEqual(tests, 1)
        self.assertTrue(any(r["new_order"] != list(range(NP)) for r in job.report), job.report)


def load_tests(loader, tests, pattern):
    """This file's tests only (not mpi_test.MpiTest's, whose plumbing it shares)."""
    names = sorted(n for n in NonblockingTest.__dict__ if n.startswith("test_"))
    return unittest.TestSuite(NonblockingTest(n) for n in names)


if __name__ == "__main__":
    unittest.main(verbosity=2)

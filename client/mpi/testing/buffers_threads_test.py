#!/usr/bin/env python3
"""The PMPI layer with GPU buffers, threads, non-blocking and persistent collectives, and bound
ranks, in real MPI jobs (mpirun) against a real toporrd, ranks placed on fabric hosts with
TOPORR_HOSTMAP.

Usage: buffers_threads_test.py openmpi|mpich [unittest args]; run by Bazel from the runfiles
tree. Shares mpi_test.py's job and daemon plumbing (only the tests below run). Checked:
  - GPU buffers (no GPU here: a stand-in CUDA driver, client/testing/fake_gpu_driver.c with
    soname libcuda.so.1, which device_check.c loads and tells which buffers are device or
    managed memory): large allreduce / bcast / reduce / allgather calls on device or managed
    memory, or on device memory at one rank only, go to the MPI library (no decision in
    TOPORR_REPORT), with a correct result, while host-memory calls of the same job are still
    taken over; the driver loaded late (after a first large collective), on every rank or on
    some ranks only; the same program without the driver has every call taken over;
  - MPI_THREAD_MULTIPLE: 2 and 4 threads, each on its own communicator, run large
    allreduce (in place too) and bcast loops at the same time; results right, toporr decides
    (daemon costs) and runs its own collectives, nothing deadlocks (ranks end themselves after
    100 s, the job after the run_job timeout); with no daemon, every thread falls back and
    the job prints one warning;
  - MPI_Iallreduce, MPI_Ibcast and persistent allreduce / bcast (MPI_*_init, Open MPI's
    MPIX_*_init) are decided (apart from the blocking call's decision) with right results,
    and from 4 threads at once, each on its own communicator (nonblocking_test.py has the
    rest: the correctness table, requests in flight, overlap);
  - ranks bound to cores (hwloc shown a two-package XML through HWLOC_XMLFILE) are planned
    on their host's hwloc topology and distances: orders and predictions equal `toporrctl
    plan --node-topology` of the same XML, and ranks sharing a core sit side by side.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mpi_test  # noqa: E402  (takes the MPI argument off sys.argv)
from mpi_test import MPI, MPICC, round_robin  # noqa: E402

FAKE_CUDA = os.path.join(mpi_test.ROOT, "client/testing/fake_cuda.so")
NODE_XML = os.path.join(mpi_test.ROOT, "collectors/testdata/hwloc/2pack-2numa-2l3-2core-slit.xml")
COUNT = 16384  # ints: 64 KiB, TOPORR_MIN_BYTES' default
BLOCK = 4 * COUNT


class BuffersThreadsTest(mpi_test.MpiTest):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix=f"toporr-buffers-{MPI}-")
        link = ["-I", mpi_test.ROOT, "-L", mpi_test.LIBDIR, "-ltoporr",
                f"-Wl,-rpath,{mpi_test.LIBDIR}"]
        programs = {"threads": ["-lpthread"], "device": ["-ldl"],
                    "toporr": ["-Wno-stringop-overread"] + link}
        for name, flags in programs.items():
            setattr(cls, name, os.path.join(cls.tmp, name + "_check"))
            subprocess.run([MPICC, "-O1", "-o", getattr(cls, name),
                            f"client/mpi/testing/{name}_check.c"] + flags, check=True)
        cls.serve_demo_fabric()

    @classmethod
    def tearDownClass(cls):
        cls.stop_daemon()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    # ---- GPU buffers ----

    def device_job(self, np, who):
        job = self.run_job(np, [FAKE_CUDA, str(COUNT), who], round_robin(np, 4),
                           program=self.device, preload=True)
        self.assertEqual(job.checks["device"], ["ok"], job.stdout + job.stderr)
        self.assertEqual(job.warnings(), [], job.stderr)
        self.assertTrue(all(r["source"] == "daemon" for r in job.report), job.report)
        queries = [int(l.split()[1]) for l in job.stdout.splitlines() if l.startswith("QUERIES")]
        return {(r["collective"], r["bytes"] // BLOCK) for r in job.report}, queries[0]

    def test_device_buffers_go_to_the_mpi_library(self):
        np = 4 if MPI == "openmpi" else 3
        host = {("allreduce", 1), ("allreduce", 2), ("bcast", 4), ("reduce", 2),
                ("allgather", 2)}
        device = {("allreduce", 4), ("allreduce", 8), ("allreduce", 16), ("bcast", 1),
                  ("bcast", 2), ("reduce", 1), ("allgather", 1)}
        # Without a driver every call of device_check.c is taken over ...
        taken, queries = self.device_job(np, "none")
        self.assertEqual(taken, host | device)
        self.assertEqual(queries, 0)
        # ... with one loaded late on every rank, only the host-memory ones: the calls on
        # device or managed memory (at one rank only, too) leave no decision, results right.
        taken, queries = self.device_job(np, "all")
        self.assertEqual(taken, host)
        self.assertGreater(queries, 0)
        # ... and with the driver on the odd ranks only: rank 0 has none and asks nothing, so
        # the bcast whose device buffer is at rank 0 only is on host memory there.
        taken, queries = self.device_job(np, "odd")
        self.assertEqual(taken, host - {("allreduce", 1)} | {("bcast", 2)})
        self.assertEqual(queries, 0)

    # ---- threads ----

    def test_threads_on_their_own_communicators(self):
        np = 4 if MPI == "openmpi" else 3
        rounds = 6 if MPI == "openmpi" else 3  # MPICH's ranks busy-poll: slow when oversubscribed
        for threads in [2, 4]:
            for env in [{}, {"TOPORR_ALGORITHM": "multilevel"}]:
                with self.subTest(threads=threads, env=env):
                    job = self.run_job(np, ["threads", str(threads), str(rounds), str(2 * COUNT)],
                                       round_robin(np, 4), program=self.threads, preload=True,
                                       env=env)
                    self.assertIn("LEVEL 3", job.stdout)  # MPI_THREAD_MULTIPLE provided
                    self.assertEqual(job.checks["threads"], ["ok"], job.stdout + job.stderr)
                    self.assertEqual(job.warnings(), [], job.stderr)
                    # Every thread's communicator got its decisions from the daemon.
                    allreduce = [r for r in job.report if r["collective"] == "allreduce"]
                    self.assertEqual(len(allreduce), threads, job.report)
                    self.assertTrue(all(r["source"] == "daemon" for r in job.report))
                    if env:
                        self.assertTrue(all(r["chosen_algorithm"] == "multilevel"
                                            for r in job.report), job.report)
        # No daemon: every thread's decisions fall back at once; one warning in all.
        job = self.run_job(np, ["threads", "4", "2", str(2 * COUNT)], round_robin(np, 4),
                           program=self.threads, preload=True,
                           socket=os.path.join(self.tmp, "absent.sock"))
        self.assertEqual(job.checks["threads"], ["ok"], job.stdout + job.stderr)
        self.assertEqual(len(job.warnings()), 1, job.stderr)
        self.assertTrue(job.report and all(r["source"] == "fallback" for r in job.report))

    # ---- non-blocking and persistent collectives ----

    def test_nonblocking_and_persistent_collectives_are_decided(self):
        np = 4 if MPI == "openmpi" else 3
        job = self.run_job(np, ["nonblocking", str(2 * COUNT)], round_robin(np, 4),
                           program=self.threads, preload=True)
        self.assertEqual(job.checks["nonblocking"], ["ok"], job.stdout + job.stderr)
        self.assertNotIn("PERSISTENT none", job.stdout)  # both libraries have them
        # The nonblocking allreduce decides once (the persistent one of the same size class
        # reuses it) and the blocking one apart; a bcast decision per root.
        allreduce = [r for r in job.report if r["collective"] == "allreduce"]
        self.assertEqual([r["bytes"] for r in allreduce], [2 * BLOCK, 2 * BLOCK], job.report)
        roots = sorted(r["root"] for r in job.report if r["collective"] == "bcast")
        self.assertEqual(roots, sorted({0, 1, 2, np - 1}), job.report)

    def test_nonblocking_collectives_from_threads_on_their_own_communicators(self):
        np = 4 if MPI == "openmpi" else 3
        rounds = 6 if MPI == "openmpi" else 3
        job = self.run_job(np, ["ithreads", "4", str(rounds), str(2 * COUNT)],
                           round_robin(np, 4), program=self.threads, preload=True)
        self.assertIn("LEVEL 3", job.stdout)
        self.assertEqual(job.checks["ithreads"], ["ok"], job.stdout + job.stderr)
        self.assertEqual(job.warnings(), [], job.stderr)
        allreduce = [r for r in job.report if r["collective"] == "allreduce"]
        self.assertEqual(len(allreduce), 4, job.report)  # one per thread's communicator
        self.assertTrue(all(r["source"] == "daemon" for r in job.report), job.report)


    # ---- bound ranks ----

    def test_bound_ranks_plan_with_their_hosts_hwloc_topology(self):
        # hwloc shows the test machine as two packages of one core each, with a SLIT
        # (10 local, 21 remote); rank r is bound to core r % 2. The job's orders and
        # predictions are `toporrctl plan --node-topology` of that XML for the same ranks.
        rank_env = {"HWLOC_XMLFILE": NODE_XML, "HWLOC_THISSYSTEM": "1"}
        one_host = ["node01"] * 4
        two_hosts = ["node01"] * 4 + ["node05"] * 4
        for hosts, specs in [(one_host, ["allreduce:auto:1048576:0"]),
                             (two_hosts, ["allreduce:auto:1048576:0", "bcast:binomial:1048576:0"])]:
            job = self.run_job(len(hosts), specs, hosts, program=self.toporr, bind=True,
                               rank_env=rank_env)
            self.assertEqual(job.warnings(), [], job.stderr)
            for spec, rep in zip(specs, job.report):
                with self.subTest(ranks=len(hosts), spec=spec):
                    self.assertEqual(job.checks[spec], ["ok"])
                    # One host asks no cost source: its order is the host's own.
                    self.assertEqual(rep["source"], "local" if hosts == one_host else "daemon")
                    coll, alg, size, root = spec.split(":")
                    args = ["--json", "plan"] + self.plan_job_args(hosts) + [
                        "--collective", coll, "--size", size, "--root", root,
                        "--node-topology", NODE_XML]
                    if alg != "auto":
                        args += ["--algorithm", alg]
                    plan = json.loads(self.ctl(*args))
                    self.assertEqual(rep["new_order"], plan["new_order"])
                    for ours, theirs in [("before", "predicted_before_ns"),
                                         ("after", "predicted_after_ns")]:
                        self.assertAlmostEqual(plan[ours]["time_ns"], rep[theirs],
                                               delta=1e-6 * rep[theirs])
                    if hosts == one_host:  # the ranks of one core (package) side by side
                        order = rep["new_order"]
                        self.assertEqual([order[0] % 2 == order[1] % 2,
                                          order[2] % 2 == order[3] % 2], [True, True], order)


def load_tests(loader, tests, pattern):
    """This file's tests only (not mpi_test.MpiTest's, whose plumbing it shares)."""
    names = sorted(n for n in BuffersThreadsTest.__dict__ if n.startswith("test_"))
    return unittest.TestSuite(BuffersThreadsTest(n) for n in names)


if __name__ == "__main__":
    unittest.main(verbosity=2)

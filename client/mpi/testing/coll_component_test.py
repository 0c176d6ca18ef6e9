#!/usr/bin/env python3
"""toporr inside Open MPI: the coll component mca_coll_toporr.so
(client/mpi/openmpi_component), found through OMPI_MCA_mca_base_component_path, in real MPI
jobs (mpirun, no LD_PRELOAD) against a real toporrd, ranks placed on fabric hosts with
TOPORR_HOSTMAP.

Usage: coll_component_test.py openmpi [unittest args]; run by Bazel from the runfiles tree.
Shares mpi_test.py's job and daemon plumbing (only the tests below run). Checked:
  - ompi_info lists the component and its parameters (priority 40, min_bytes and toporr's
    settings); a TOPORR_* variable is a parameter's default, an OMPI_MCA_* one wins over it;
  - unchanged programs (stencil.c, fortran_coll.f90) print the same with the component as
    without, and toporr decides their large allreduce / bcast / reduce / allgather from the
    daemon's costs: one TOPORR_REPORT line each, the same decisions as the PMPI layer's
    (LD_PRELOAD=libtoporr_pmpi.so) for the same job;
  - with no daemon: the identity order, the same output, one warning;
  - a PMPI profiling tool linked into the program (pmpi_count.c) counts exactly the
    application's MPI_Allreduce calls while toporr decides (toporr's own steps call PMPI_*);
  - `coll ^toporr` (OMPI_MCA_coll) and coll_toporr_disable / coll_toporr_min_bytes leave no
    report line; coll_toporr_report moves the report.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mpi_test  # noqa: E402  (takes the MPI argument off sys.argv)
from mpi_test import MPI, MPICC, MPIF90, round_robin  # noqa: E402

COMPONENT = os.path.join(mpi_test.ROOT, "client/mpi/openmpi_component/mca_coll_toporr.so")
SYSTEM_COMPONENTS = "/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3"
# What a decision is, as two ways of running toporr for the same job must agree on it.
DECISION = ["collective", "bytes", "root", "algorithm", "chosen_algorithm", "new_order",
            "source", "size", "hosts"]


class CollComponentTest(mpi_test.MpiTest):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix=f"toporr-coll-{MPI}-")
        # Open MPI loads every mca_*.so of the path's directories: one holding only ours.
        cls.components = os.path.join(cls.tmp, "components")
        os.mkdir(cls.components)
        os.symlink(os.path.realpath(COMPONENT),
                   os.path.join(cls.components, "mca_coll_toporr.so"))
        cls.component_env = {
            "OMPI_MCA_mca_base_component_path": f"{cls.components}:{SYSTEM_COMPONENTS}"}
        cls.stencil = os.path.join(cls.tmp, "stencil")
        subprocess.run([MPICC, "-O1", "-o", cls.stencil, "client/mpi/testing/stencil.c"],
                       check=True)
        cls.counted = os.path.join(cls.tmp, "stencil_counted")
        subprocess.run([MPICC, "-O1", "-o", cls.counted, "client/mpi/testing/stencil.c",
                        "client/mpi/testing/pmpi_count.c"], check=True)
        cls.fcoll = os.path.join(cls.tmp, "fortran_coll")
        subprocess.run([MPIF90, "-w", "-o", cls.fcoll, "client/mpi/testing/fortran_coll.f90"],
                       check=True)
        cls.serve_demo_fabric()

    @classmethod
    def tearDownClass(cls):
        cls.stop_daemon()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def component_job(self, np, hosts, program, env=None, **kwargs):
        return self.run_job(np, [], hosts, program=program,
                            env={**self.component_env, **(env or {})}, **kwargs)

    def ompi_info(self, env):
        p = subprocess.run(["ompi_info", "--param", "coll", "toporr", "--level", "9",
                            "--parsable"], env={**os.environ, **self.component_env, **env},
                           capture_output=True, text=True, timeout=60, check=True)
        return p.stdout

    def decisions(self, job):
        return [{k: r.get(k) for k in DECISION} for r in job.report]

    def test_ompi_info_lists_the_component_and_its_parameters(self):
        out = self.ompi_info({})
        self.assertIn("mca:coll:toporr:version:", out)
        for name, value in [("priority", "40"), ("min_bytes", "65536"), ("disable", "false"),
                            ("verify", "true"), ("report", ""), ("deadline_ms", "2000"),
                            ("address", ""), ("socket", "/run/toporr/toporrd.sock"),
                            ("costs", ""), ("hostmap", ""), ("algorithm", "")]:
            with self.subTest(name=name):
                self.assertIn(f"mca:coll:toporr:param:coll_toporr_{name}:value:{value}\n", out)
        # TOPORR_* is a parameter's default; an Open MPI parameter wins over it.
        out = self.ompi_info({"TOPORR_DEADLINE_MS": "700", "TOPORR_MIN_BYTES": "4096"})
        self.assertIn("coll_toporr_deadline_ms:value:700\n", out)
        self.assertIn("coll_toporr_min_bytes:value:4096\n", out)
        out = self.ompi_info({"TOPORR_DEADLINE_MS": "700", "OMPI_MCA_coll_toporr_deadline_ms": "900"})
        self.assertIn("coll_toporr_deadline_ms:value:900\n", out)
        self.assertIn("coll_toporr_deadline_ms:source:environment", out)
        # Without the component's directory on the path, Open MPI has no such component.
        plain = subprocess.run(["ompi_info", "--param", "coll", "all", "--level", "9",
                                "--parsable"], capture_output=True, text=True, timeout=60)
        self.assertNotIn("coll_toporr_priority", plain.stdout)

    def test_unchanged_programs_give_the_same_results_and_decisions(self):
        np = 16
        hosts = round_robin(np, 4)
        plain = self.run_job(np, [], hosts, program=self.stencil)
        job = self.component_job(np, hosts, self.stencil)
        self.assertEqual(job.stdout, plain.stdout)
        self.assertEqual(job.warnings(), [], job.stderr)
        self.assertEqual({r["collective"] for r in job.report}, {"allreduce", "bcast", "reduce"})
        self.assertTrue(all(r["source"] == "daemon" and r["bytes"] >= 65536
                            for r in job.report), job.report)
        self.check_library_candidate(job.report, np)
        # Fortran: the library's bindings reach the component as C calls do.
        np = 8
        hosts = round_robin(np, 4)
        plain = self.run_job(np, [], hosts, program=self.fcoll)
        job = self.component_job(np, hosts, self.fcoll)
        self.assertEqual(sorted(job.stdout.splitlines()), sorted(plain.stdout.splitlines()))
        self.assertEqual({r["collective"] for r in job.report},
                         {"allreduce", "bcast", "reduce", "allgather"})
        # The PMPI layer's decisions for the same job are the component's.
        pmpi = self.run_job(np, [], hosts, program=self.fcoll, preload=True)
        self.assertEqual(self.decisions(job), self.decisions(pmpi))
        self.assertTrue(any(r["new_order"] != list(range(np)) for r in job.report), job.report)

    def test_without_a_daemon_identity_and_one_warning(self):
        np = 8
        hosts = round_robin(np, 4)
        plain = self.run_job(np, [], hosts, program=self.stencil)
        job = self.component_job(np, hosts, self.stencil,
                                 socket=os.path.join(self.tmp, "absent.sock"))
        self.assertEqual(job.stdout, plain.stdout)
        self.assertEqual(len(job.warnings()), 1, job.stderr)
        self.assertTrue(job.report)
        for r in job.report:
            self.assertEqual(r["source"], "fallback", r)
            self.assertEqual(r["new_order"], list(range(np)), r)

    def test_a_pmpi_tool_still_sees_the_applications_calls(self):
        # The tool counts every MPI_Allreduce of the application with the component as
        # without, and only those: libtoporr's own steps call PMPI_*, which a tool's
        # definitions do not interpose.
        np = 8
        hosts = round_robin(np, 4)

        def count(job):
            lines = [l for l in job.stdout.splitlines() if l.startswith("PMPI_COUNT")]
            self.assertEqual(len(lines), 1, job.stdout)
            return int(lines[0].split()[2])

        plain = self.run_job(np, [], hosts, program=self.counted)
        job = self.component_job(np, hosts, self.counted)
        self.assertGreater(count(plain), 0)
        self.assertEqual(count(job), count(plain))
        self.assertIn("allreduce", {r["collective"] for r in job.report})
        strip = lambda j: [l for l in j.stdout.splitlines() if not l.startswith("PMPI_COUNT")]
        self.assertEqual(strip(job), strip(plain))
        excluded = self.component_job(np, hosts, self.counted, env={"OMPI_MCA_coll": "^toporr"})
        self.assertEqual(excluded.stdout, plain.stdout)

    def test_excluded_disabled_or_above_every_call_no_report(self):
        np = 4
        hosts = round_robin(np, 4)
        plain = self.run_job(np, [], hosts, program=self.stencil)
        for env in [{"OMPI_MCA_coll": "^toporr"}, {"OMPI_MCA_coll_toporr_disable": "1"},
                    {"OMPI_MCA_coll_toporr_min_bytes": str(1 << 40)}]:
            with self.subTest(env=env):
                job = self.component_job(np, hosts, self.stencil, env=env)
                self.assertEqual(job.stdout, plain.stdout)
                self.assertEqual(job.report, [])
                self.assertEqual(job.warnings(), [], job.stderr)
        # coll_toporr_report wins over TOPORR_REPORT.
        moved = os.path.join(self.tmp, "moved.jsonl")
        job = self.component_job(np, hosts, self.stencil,
                                 env={"OMPI_MCA_coll_toporr_report": moved})
        self.assertEqual(job.report, [])
        with open(moved) as f:
            self.assertIn('"event":"decision"', f.read().replace(" ", ""))
        os.unlink(moved)


def load_tests(loader, tests, pattern):
    """This file's tests only (not mpi_test.MpiTest's, whose plumbing it shares)."""
    names = sorted(n for n in CollComponentTest.__dict__ if n.startswith("test_"))
    return unittest.TestSuite(CollComponentTest(n) for n in names)


if __name__ == "__main__":
    unittest.main(verbosity=2)

#!/usr/bin/env python3
"""libtoporr built against an MPI from its compiler wrapper alone, as a site builds it.

Usage: site_build_test.py openmpi|mpich [unittest args]. Run by Bazel (cwd = the runfiles
tree). deploy/site-mpi/build-libtoporr.sh builds the library with mpicc.openmpi or
mpicc.mpich (nothing else names the MPI) from //client/mpi:site_kit into a temporary
prefix. Checked:
  - the install: both libraries, toporr.pc / toporr-pmpi.pc, headers, modulefile; a C
    program using the C API built with `pkg-config --cflags --libs toporr` runs under the
    MPI's mpirun and reorders from a cost file (TOPORR_COSTS, exported by a real toporrd);
  - the modulefile: `module load` (Lmod, or Environment Modules where installed instead: the
    two Debian packages conflict) sets the paths, and a program then builds with
    `mpicc prog.c -ltoporr` and runs;
  - link-time PMPI: client/mpi/testing/stencil.c, unchanged, linked with
    `pkg-config --libs toporr-pmpi` (-ltoporr_pmpi before the MPI library) reorders
    without LD_PRELOAD (TOPORR_REPORT) and prints what the plain program prints;
  - ABI mismatch: this build preloaded into the other MPI's job (and linked into the other
    MPI's program) exits with exactly one "MPI ABI mismatch" line per process, no crash;
  - the script's errors: a missing wrapper, a compiler that is no MPI wrapper.
A check that cannot run here says SKIPPED and why.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

from scratch_toporrd import scratch_toporrd

MPI = sys.argv.pop(1) if len(sys.argv) > 1 else "openmpi"
OTHER = "mpich" if MPI == "openmpi" else "openmpi"
ROOT = os.getcwd()
BUILD = os.path.join(ROOT, "deploy/site-mpi/build-libtoporr.sh")
KIT = os.path.join(ROOT, "client/mpi/site_kit")
TOPORRD = os.path.join(ROOT, "daemon/toporrd")
TOPORRCTL = os.path.join(ROOT, "client/ctl/toporrctl")
FABRIC = os.path.join(ROOT, "deploy/demo/fattree-2l-16h.ibnet")
STENCIL = os.path.join(ROOT, "client/mpi/testing/stencil.c")
# Four hosts on four leaves of the demo fabric, rank r on HOSTS[r % 4]: consecutive ranks on
# other leaves, a poor order for a ring.
HOSTS = ["node01", "node05", "node09", "node13"]
RANKS = 8
MISMATCH = "toporr: error: MPI ABI mismatch:"
CRASH_SIGNS = ["Segmentation fault", "signal 11", "SIGSEGV", "core dumped", "backtrace"]
ROOT_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}


def mpicc(mpi):
    return f"mpicc.{mpi}"


def mpirun(mpi, np, env):
    """mpirun of `mpi` with `np` ranks and `env` set for the ranks."""
    if mpi == "openmpi":
        cmd = ["mpirun.openmpi", "--oversubscribe", "--bind-to", "none", "-np", str(np)]
        for k, v in env.items():
            cmd += ["-x", f"{k}={v}"]
    else:
        cmd = ["mpirun.mpich", "-np", str(np)]
        for k, v in env.items():
            cmd += ["-genv", k, v]
    return cmd


def run(cmd, env=None, timeout=120):
    full_env = dict(os.environ)
    full_env.update(ROOT_ENV)
    full_env.update(env or {})
    return subprocess.run(cmd, env=full_env, capture_output=True, text=True, timeout=timeout)


def sh(script, env=None, timeout=60):
    """bash -c SCRIPT (set -euo pipefail)."""
    return run(["bash", "-c", "set -euo pipefail\n" + script], env=env, timeout=timeout)


class SiteBuildTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix=f"toporr-site-{MPI}-")
        cls.prefix = os.path.join(cls.tmp, "prefix")
        start = time.monotonic()
        p = run([BUILD, "--mpicc", mpicc(MPI), "--prefix", cls.prefix, "--kit", KIT,
                 "--jobs", "2"], timeout=600)
        cls.build_seconds = time.monotonic() - start
        cls.build_log = p.stderr
        if p.returncode != 0:
            shutil.rmtree(cls.tmp)
            raise RuntimeError(f"build-libtoporr.sh failed:\n{p.stderr}")
        print(f"build-libtoporr.sh --mpicc {mpicc(MPI)}: {cls.build_seconds:.0f} s",
              file=sys.stderr)
        cls.pkgconfig = os.path.join(cls.prefix, "lib/pkgconfig")
        cls.costs = os.path.join(cls.tmp, "costs.bin")
        cls.export_costs()
        cls.hostmap = os.path.join(cls.tmp, "hostmap")
        with open(cls.hostmap, "w") as f:
            f.write("".join(HOSTS[r % len(HOSTS)] + "\n" for r in range(RANKS)))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    @classmethod
    def export_costs(cls):
        """The demo fabric's cost file for the job's hosts, from a real toporrd."""
        with scratch_toporrd(TOPORRD, TOPORRCTL, cls.tmp, "export") as ctl:
            ctl("ingest", "--format", "ibnetdiscover", FABRIC)
            ctl("export", "--format", "costs", "--output", cls.costs, "--hosts", ",".join(HOSTS))

    def toporr_env(self, report):
        return {"TOPORR_COSTS": self.costs, "TOPORR_HOSTMAP": self.hostmap,
                "TOPORR_REPORT": report, "TOPORR_SOCKET": "/nonexistent/toporrd.sock"}

    def pkg_config(self, *args):
        p = run(["pkg-config"] + list(args), env={"PKG_CONFIG_PATH": self.pkgconfig})
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout.split()

    def compile(self, wrapper, source, output, flags):
        p = run([wrapper, "-O1", "-o", output, source] + flags)
        self.assertEqual(p.returncode, 0, f"{wrapper} {source} {flags}:\n{p.stderr}")
        return output

    def reorder_program(self):
        """A C program on the C API: reorders MPI_COMM_WORLD for a 1 MiB allreduce and prints
        the decision's source and the new order on rank 0."""
        source = os.path.join(self.tmp, "reorder.c")
        with open(source, "w") as f:
            f.write("""#include <mpi.h>
#include <stdio.h>
#include "client/toporr.h"
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm comm;
  toporr_decision d;
  int rc = toporr_comm_reorder(NULL, MPI_COMM_WORLD, TOPORR_ALLREDUCE, TOPORR_ALG_RING,
                               1 << 20, 0, &comm, &d);
  int rank, world, sum = 0, one = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_rank(MPI_COMM_WORLD, &world);
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comm);
  if (world == 0) printf("REORDER rc=%d source=%s reordered=%d sum=%d %s\\n", rc, d.source,
                         d.reordered, sum, toporr_version());
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return 0;
}
""")
        return source

    # ---- install and pkg-config ----

    def test_installed_files(self):
        for f in ["lib/libtoporr.so", "lib/libtoporr_pmpi.so", "lib/pkgconfig/toporr.pc",
                  "lib/pkgconfig/toporr-pmpi.pc", "include/toporr/client/toporr.h",
                  "include/toporr/client/toporr.hpp", "share/toporr/toporr_f.f90",
                  "share/toporr/build-info.txt"]:
            self.assertTrue(os.path.isfile(os.path.join(self.prefix, f)), f)
        family = "MPICH ABI family" if MPI == "mpich" else "Open MPI 4.x ABI"
        self.assertIn(family, " ".join(self.pkg_config("--variable=mpi", "toporr")))
        # Only the C API and the MPI entry points are exported, as from Bazel's build.
        for lib, want in [("libtoporr.so", "toporr_comm_reorder"),
                          ("libtoporr_pmpi.so", "MPI_Allreduce")]:
            syms = run(["nm", "-D", "--defined-only",
                        os.path.join(self.prefix, "lib", lib)]).stdout.split()
            self.assertIn(want, syms)
            self.assertFalse([s for s in syms if s.startswith("_ZN6toporr")], lib)

    def test_pkg_config_program_runs_under_mpirun(self):
        flags = self.pkg_config("--cflags", "--libs", "toporr")
        self.assertIn(f"-I{self.prefix}/include/toporr", flags)
        exe = self.compile(mpicc(MPI), self.reorder_program(),
                           os.path.join(self.tmp, "reorder"), flags)
        ldd = run(["ldd", exe]).stdout
        self.assertIn(os.path.join(self.prefix, "lib/libtoporr.so"), ldd)
        report = os.path.join(self.tmp, "reorder.jsonl")
        p = run(mpirun(MPI, RANKS, self.toporr_env(report)) + [exe])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(f"REORDER rc=0 source=file reordered=1 sum={RANKS}", p.stdout)
        with open(report) as f:
            rows = [d for d in map(json.loads, filter(str.strip, f)) if d.get("event") == "decision"]
        self.assertEqual([r["source"] for r in rows], ["file"])

    # ---- modulefile ----

    def module_check(self, init):
        """`module load` through shell init file `init`: the variables it sets, then a C API
        program built with `mpicc prog.c -ltoporr` alone (CPATH, LIBRARY_PATH) and run
        (LD_LIBRARY_PATH) in the same shell."""
        exe = os.path.join(self.tmp, "reorder-module")
        p = sh(f"""
source {init}
module use {self.prefix}/modulefiles
module load toporr
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
echo "PKG_CONFIG_PATH=$PKG_CONFIG_PATH"
echo "TOPORR_PMPI_LIBRARY=$TOPORR_PMPI_LIBRARY"
pkg-config --modversion toporr
{mpicc(MPI)} -o {exe} {self.reorder_program()} -ltoporr
TOPORR_COSTS={self.costs} TOPORR_HOSTMAP={self.hostmap} TOPORR_SOCKET=/nonexistent {exe}
""")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        lib = os.path.join(self.prefix, "lib")
        self.assertIn(f"LD_LIBRARY_PATH={lib}", p.stdout)
        self.assertIn(f"PKG_CONFIG_PATH={lib}/pkgconfig", p.stdout)
        self.assertIn(f"TOPORR_PMPI_LIBRARY={lib}/libtoporr_pmpi.so", p.stdout)
        version = self.pkg_config("--modversion", "toporr")[0]
        # One process: nothing to order, no cost source asked.
        self.assertIn(f"REORDER rc=0 source=local reordered=0 sum=1 {version}", p.stdout)

    def parse_with_tclsh(self):
        """The modulefile evaluated by Tcl itself, the module commands stubbed."""
        if shutil.which("tclsh") is None:
            return "tclsh is not installed either"
        version = self.pkg_config("--modversion", "toporr")[0]
        modulefile = os.path.join(self.prefix, "modulefiles/toporr", f"{version}-{self.family()}")
        p = subprocess.run(["tclsh"], input=(
            "proc module-whatis args {}; proc conflict args {}; proc setenv args {};"
            "proc prepend-path args {}; proc puts args {}; "
            f"source {{{modulefile}}}; ModulesHelp\n"), capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        return "the modulefile was only parsed with tclsh"

    # Debian's environment-modules and lmod conflict: deploy/install-deps.sh installs Lmod
    # (what most sites run); the Environment Modules check runs where that package is.
    def test_modulefile_environment_modules(self):
        init = "/usr/share/modules/init/bash"
        if not os.path.exists(init):
            self.skipTest("SKIPPED: Environment Modules not installed (Debian's "
                          "environment-modules conflicts with lmod); " + self.parse_with_tclsh())
        self.module_check(init)

    def test_modulefile_lmod(self):
        init = "/usr/share/lmod/lmod/init/bash"
        if not os.path.exists(init):
            self.skipTest("SKIPPED: Lmod not installed (deploy/install-deps.sh installs lmod); " +
                          self.parse_with_tclsh())
        self.module_check(init)

    def family(self):
        return "mpich" if MPI == "mpich" else "openmpi4"

    # ---- link-time PMPI ----

    def test_link_time_pmpi_reorders_without_preload(self):
        pmpi_flags = self.pkg_config("--libs", "toporr-pmpi")
        self.assertLess(pmpi_flags.index("-ltoporr_pmpi"), pmpi_flags.index("-ltoporr"))
        plain = self.compile(mpicc(MPI), STENCIL, os.path.join(self.tmp, "stencil"), [])
        linked = self.compile(mpicc(MPI), STENCIL, os.path.join(self.tmp, "stencil-pmpi"),
                              pmpi_flags)
        # The wrapper appends the MPI library: libtoporr_pmpi.so is searched before it.
        needed = [l.split("[")[1].rstrip("]") for l in
                  run(["readelf", "-d", linked]).stdout.splitlines() if "(NEEDED)" in l]
        mpi_lib = next(n for n in needed if n.startswith(("libmpi.", "libmpich.")))
        self.assertLess(needed.index("libtoporr_pmpi.so"), needed.index(mpi_lib), needed)
        report = os.path.join(self.tmp, "stencil.jsonl")
        env = self.toporr_env(report)
        self.assertNotIn("LD_PRELOAD", os.environ)
        base = run(mpirun(MPI, RANKS, env) + [plain])
        self.assertEqual(base.returncode, 0, base.stderr)
        self.assertFalse(os.path.exists(report), "the plain program wrote a toporr report")
        p = run(mpirun(MPI, RANKS, env) + [linked])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout, base.stdout)
        with open(report) as f:
            rows = [d for d in map(json.loads, filter(str.strip, f)) if d.get("event") == "decision"]
        self.assertEqual({r["collective"] for r in rows},
                         {"cart_create", "allreduce", "bcast", "reduce"})
        self.assertTrue(all(r["source"] == "file" for r in rows), rows)

    # ---- ABI mismatch ----

    def assert_refused(self, p, np):
        out = p.stdout + p.stderr
        lines = [l for l in out.splitlines() if MISMATCH in l]
        self.assertNotEqual(p.returncode, 0, out)
        self.assertEqual(len(lines), np, out)  # one line per process
        for line in lines:
            self.assertIn(f"{self.prefix}/lib/libtoporr.so was built for", line)
            self.assertIn("MPICH" if OTHER == "mpich" else "Open MPI", line.split("runs")[1])
        for sign in CRASH_SIGNS:
            self.assertNotIn(sign, out)

    def test_abi_mismatch_preloaded_into_the_other_mpi(self):
        if shutil.which(mpicc(OTHER)) is None:
            self.skipTest(f"SKIPPED: {mpicc(OTHER)} not installed")
        exe = self.compile(mpicc(OTHER), STENCIL, os.path.join(self.tmp, f"stencil-{OTHER}"), [])
        env = self.toporr_env(os.path.join(self.tmp, "mismatch.jsonl"))
        env["LD_PRELOAD"] = os.path.join(self.prefix, "lib/libtoporr_pmpi.so")
        self.assert_refused(run(mpirun(OTHER, 2, env) + [exe], timeout=60), 2)

    def test_abi_mismatch_linked_into_the_other_mpi(self):
        if shutil.which(mpicc(OTHER)) is None:
            self.skipTest(f"SKIPPED: {mpicc(OTHER)} not installed")
        exe = self.compile(mpicc(OTHER), STENCIL, os.path.join(self.tmp, f"stencil-{OTHER}-pmpi"),
                           self.pkg_config("--libs", "toporr-pmpi"))
        env = self.toporr_env(os.path.join(self.tmp, "mismatch.jsonl"))
        self.assert_refused(run(mpirun(OTHER, 2, env) + [exe], timeout=60), 2)

    # ---- the script's errors ----

    def test_missing_or_foreign_wrapper_is_a_clear_error(self):
        prefix = os.path.join(self.tmp, "unused")
        p = run([BUILD, "--mpicc", "/nonexistent/mpicc", "--prefix", prefix, "--kit", KIT])
        self.assertEqual(p.returncode, 1)
        self.assertIn("MPI compiler wrapper '/nonexistent/mpicc' not found", p.stderr)
        p = run([BUILD, "--mpicc", "gcc", "--prefix", prefix, "--kit", KIT])
        self.assertEqual(p.returncode, 1)
        self.assertIn("answers neither --showme:compile/--showme:link (Open MPI) nor -show",
                      p.stderr)
        self.assertFalse(os.path.exists(prefix))


if __name__ == "__main__":
    unittest.main(verbosity=2)

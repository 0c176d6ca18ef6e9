#!/usr/bin/env python3
"""libtoporr inside real MPI jobs: mpirun of C and Fortran programs against a real toporrd.

Usage: mpi_test.py openmpi|mpich [unittest args]. Run by Bazel (cwd = the runfiles tree):
builds the programs with the MPI library's own wrappers (mpicc/mpif90), starts toporrd on
a temporary socket with the bundled 16-host fat tree, and places ranks on fabric hosts
through TOPORR_HOSTMAP. Checked:
  - every collective/algorithm order equals `toporrctl plan` for the same hosts and ranks,
    at 1, 2, 3, 7, 8 and 16 ranks; the reordered communicator computes a correct allreduce;
  - a repeated call is answered from the communicator's cache: no daemon request (counted
    by the daemon's GetStats), and one GetCostRow per host (not per rank) otherwise;
  - under LD_PRELOAD=libtoporr_pmpi.so, unchanged C and Fortran programs get reordered
    MPI_Cart_create / MPI_Graph_create / MPI_Dist_graph_create(_adjacent) communicators whose
    neighbours, MPI_Neighbor_allgather, MPI_Cart_shift and coordinates are right; the
    MPI_Cart_create order equals `toporrctl plan --cart` for the same hosts and ranks;
    reorder=0 and TOPORR_DISABLE=1 leave the MPI library's answer; MPI_Cart_map and
    MPI_Graph_map (C and Fortran) give each process the rank the constructors give it; with
    toporr's collectives forced at every size, Cartesian communicators, their sub-grids and
    duplicates behave as without toporr, and a topology decision makes no collective
    decisions of its own;
  - every fallback cause (no daemon, stopped daemon, daemon killed mid-request, a server
    answering garbage / truncated rows / rows of two snapshots / unreachable hosts, a host
    missing from the fabric, ranks disagreeing): identity order, a correct result, exactly
    one warning, within the deadline plus one second;
  - repeated reorders on freed parents leak neither communicators nor caches;
  - the multi-level collectives (forced) equal the MPI library's on a generated table, and
    TOPORR_REPORT shows the fabric's levels and the multi-level candidate's prediction.
"""
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

from scratch_toporrd import plan_job_args, scratch_toporrd

sys.path.insert(0, os.path.join(os.getcwd(), "testing/tls"))
from test_certs import make_test_certificates, tls_listener  # noqa: E402

MPI = sys.argv.pop(1) if len(sys.argv) > 1 else "openmpi"
ROOT = os.getcwd()
TOPORRD = os.path.join(ROOT, "daemon/toporrd")
TOPORRCTL = os.path.join(ROOT, "client/ctl/toporrctl")
FAKE = os.path.join(ROOT, "client/mpi/testing/fake_toporrd")
LIBDIR = os.path.realpath(os.path.join(ROOT, "client/mpi", MPI, "libtoporr.so"))
LIBDIR = os.path.dirname(LIBDIR)
PMPI = os.path.join(ROOT, "client/mpi", MPI, "libtoporr_pmpi.so")
FABRIC = os.path.join(ROOT, "deploy/demo/fattree-2l-16h.ibnet")

if MPI == "openmpi":
    MPICC, MPICXX, MPIF90 = "mpicc.openmpi", "mpicxx.openmpi", "mpif90.openmpi"
    MPIRUN = ["mpirun.openmpi", "--oversubscribe", "--bind-to", "none"]

    def env_flag(name, value):
        return ["-x", f"{name}={value}"]
else:
    MPICC, MPICXX, MPIF90 = "mpicc.mpich", "mpicxx.mpich", "mpif90.mpich"
    MPIRUN = ["mpirun.mpich"]

    def env_flag(name, value):
        return ["-genv", name, value]

LEAVES = [["node01", "node02", "node03", "node04"], ["node05", "node06", "node07", "node08"],
          ["node09", "node10", "node11", "node12"], ["node13", "node14", "node15", "node16"]]
# Hosts of a job that take one host per leaf first: consecutive ranks land on different
# leaves (a scheduler's round-robin), so identity orders are poor.
SPREAD = [LEAVES[l][h] for h in range(4) for l in range(4)]

WARNING = "toporr: warning: keeping the identity rank order"


# client/plan/plan.h kMultilevelMargin / kMultilevelMarginBelowBytes: below 1 MiB the multi-level
# version must be predicted 1.3x faster than the flat choice to be adopted.
MULTILEVEL_MARGIN = 1.3
MULTILEVEL_MARGIN_BELOW_BYTES = 1 << 20
# client/plan/plan.h kLibraryMargin / kLibraryMarginLarge / kLibraryMarginBelowBytes: toporr replaces
# the MPI library's own call only when predicted 1.1x faster (1.05x from 1 MiB).
LIBRARY_MARGIN = 1.1
LIBRARY_MARGIN_LARGE = 1.05
LIBRARY_MARGIN_BELOW_BYTES = 1 << 20


def weighed_ns(report, candidate):
    """A candidate's predicted time as selection weighs it (the multi-level margin, and the
    library's margin: client/plan/plan.h)."""
    if candidate["algorithm"] == "multilevel" and report["bytes"] < MULTILEVEL_MARGIN_BELOW_BYTES:
        return candidate["predicted_ns"] * MULTILEVEL_MARGIN
    if candidate["algorithm"] == "mpi_library":
        margin = (LIBRARY_MARGIN if report["bytes"] < LIBRARY_MARGIN_BELOW_BYTES
                  else LIBRARY_MARGIN_LARGE)
        return candidate["predicted_ns"] / margin
    return candidate["predicted_ns"]


def round_robin(num_ranks, num_hosts):
    """Rank r on SPREAD[r % num_hosts]."""
    return [SPREAD[r % num_hosts] for r in range(num_ranks)]


class Job:
    def __init__(self, proc, elapsed, tmp):
        self.stdout, self.stderr, self.elapsed = proc.stdout, proc.stderr, elapsed
        self.returncode = proc.returncode
        self.orders, self.checks = {}, {}
        for line in self.stdout.splitlines():
            f = line.split()
            if len(f) >= 4 and f[0] == "ORDER":
                self.orders.setdefault(f[1], []).append(
                    {"source": f[2], "cached": f[3] == "1", "order": [int(x) for x in f[4:]]})
            elif len(f) >= 3 and f[0] == "CHECK":
                self.checks.setdefault(f[1], []).append(f[2])
        report = os.path.join(tmp, "report.jsonl")
        self.report = []
        self.verified = []
        if os.path.exists(report):
            with open(report) as r:
                lines = [json.loads(l) for l in r if l.strip()]
                self.report = [l for l in lines if l.get("event") == "decision"]
                self.verified = [l for l in lines if l.get("event") == "verified"]
            os.unlink(report)

    def warnings(self):
        return [l for l in self.stderr.splitlines() if WARNING in l]


def program_commands(tmp):
    """The test programs, each as attribute -> (file in tmp, compile command without -o)."""
    t = "client/mpi/testing/"
    link = ["-L", LIBDIR, "-ltoporr", f"-Wl,-rpath,{LIBDIR}"]
    return {
        "check": ("toporr_check", [MPICC, "-O1", "-Wno-stringop-overread", "-I", ROOT,
                                   t + "toporr_check.c"] + link),
        "fcart": ("toporr_cart", [MPIF90, t + "toporr_cart.f90"]),
        "cxx": ("toporr_cxx_check", [MPICXX, "-std=c++17", "-O1", "-I", ROOT,
                                     t + "toporr_cxx_check.cc"] + link),
        "freorder": ("toporr_reorder", [MPIF90, "-J", tmp, "client/toporr_f.f90",
                                        t + "toporr_reorder.f90"] + link),
        "coll": ("coll_check", [MPICC, "-O1", "-I", ROOT, t + "coll_check.c"] + link + ["-lm"]),
        "nonblocking": ("nonblocking_check", [MPICC, "-O1", "-Wno-stringop-overflow", "-I", ROOT,
                                              t + "nonblocking_check.c", "-lm"]),
        "topo_map": ("topo_map_check", [MPICC, "-O1", t + "topo_map_check.c"]),
        "stencil": ("stencil", [MPICC, "-O1", t + "stencil.c"]),
        "allreduce_loop": ("allreduce_loop", [MPICC, "-O1", t + "allreduce_loop.c"]),
        "counted": ("stencil_counted", [MPICC, "-O1", t + "stencil.c", t + "pmpi_count.c"]),
        "fcoll": ("fortran_coll", [MPIF90, "-w", t + "fortran_coll.f90"]),
        "misuse": ("misuse_check", [MPICC, "-O1", t + "misuse_check.c"]),
        "shim": ("fail_split_shim.so", [MPICC, "-shared", "-fPIC", t + "fail_split_shim.c"]),
        "other_series": ("ompi_version_shim.so", [MPICC, "-shared", "-fPIC",
                                                  t + "ompi_version_shim.c"]),
        "profile_check": ("profile_check", [MPICC, "-O1", t + "profile_check.c"]),
        "profile_wait": ("profile_wait", [MPICC, "-O1", t + "profile_wait.c"]),
        "profile_fortran": ("profile_fortran", [MPIF90, t + "profile_fortran.f90"]),
        "profile_threads": ("profile_threads", [MPICC, "-O1", t + "profile_threads.c",
                                                "-lpthread"]),
        "pairs": ("traffic_pairs", [MPICC, "-O1", "-I", ROOT, t + "traffic_pairs.c"] + link),
    }


class MpiTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix=f"toporr-mpi-{MPI}-")
        cls.build("check", "fcart", "cxx", "freorder", "coll", "topo_map", "stencil", "fcoll",
                  "misuse", "shim", "allreduce_loop")
        cls.serve_demo_fabric()

    @classmethod
    def build(cls, *names):
        """Compiles the named test programs (program_commands) into cls.tmp; each path becomes
        the attribute of its name."""
        commands = program_commands(cls.tmp)
        for name in names:
            file, command = commands[name]
            setattr(cls, name, os.path.join(cls.tmp, file))
            subprocess.run(command + ["-o", getattr(cls, name)], check=True)

    @classmethod
    def tearDownClass(cls):
        cls.stop_daemon()

    @classmethod
    def serve_demo_fabric(cls):
        """toporrd on a socket in cls.tmp, the demo fabric ingested as snapshot 1."""
        cls.sock = os.path.join(cls.tmp, "toporrd.sock")
        cls.daemon = None
        cls.start_daemon()
        out = cls.ctl("ingest", "--format", "ibnetdiscover", FABRIC)
        assert "snapshot 1 created" in out, out

    @classmethod
    def start_daemon(cls):
        with socket.socket() as probe:  # a free loopback port for the TCP listener
            probe.bind(("127.0.0.1", 0))
            cls.tcp = f"127.0.0.1:{probe.getsockname()[1]}"
        with open(os.path.join(cls.tmp, "toporrd.log"), "a") as log:
            cls.daemon = subprocess.Popen(
                [TOPORRD, "--config=", "--db", os.path.join(cls.tmp, "toporr.db"), "--socket",
                 cls.sock, "--listen", cls.tcp], stderr=log)
        for _ in range(200):
            if subprocess.run([TOPORRCTL, "--socket", cls.sock, "health"],
                              capture_output=True).returncode == 0:
                return
            time.sleep(0.05)
        raise RuntimeError("toporrd did not become healthy")

    @classmethod
    def stop_daemon(cls):
        if cls.daemon is not None:
            cls.daemon.send_signal(signal.SIGCONT)
            cls.daemon.terminate()
            cls.daemon.wait()
            cls.daemon = None

    @classmethod
    def ctl(cls, *args):
        p = subprocess.run([TOPORRCTL, "--socket", cls.sock] + list(args), capture_output=True,
                           text=True)
        if p.returncode != 0:
            raise RuntimeError(f"toporrctl {' '.join(args)}: {p.stderr}")
        return p.stdout

    def stats(self):
        return json.loads(self.ctl("--json", "stats"))["requests"]

    def run_job(self, np, specs, hosts, program=None, preload=False, socket=None, env=None,
                timeout=180, bind=False, rank_env=None, expect_success=True):
        hostmap = os.path.join(self.tmp, "hostmap")
        with open(hostmap, "w") as f:
            f.write("".join(h + "\n" for h in hosts))
        job_env = dict(os.environ)
        # Every job runs on this one machine (TOPORR_HOSTMAP names its hosts), so Open MPI
        # needs no TCP between its ranks; Open MPI 5's TCP component otherwise prints a line
        # per rank pair on machines whose interfaces it cannot pair, which a plain run
        # prints as well.
        job_env.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                        "OMPI_MCA_btl": "^tcp",
                        "TOPORR_SOCKET": socket or self.sock, "TOPORR_HOSTMAP": hostmap,
                        "TOPORR_REPORT": os.path.join(self.tmp, "report.jsonl")})
        job_env.update(env or {})
        cmd = list(MPIRUN)
        if bind:  # one core per rank, so that libtoporr asks hwloc where it runs; with more
            # ranks than cores, rank r on core r % cores (both libraries map so)
            cmd = [MPIRUN[0], "-bind-to", "core"]
            if MPI == "openmpi":
                cmd = [MPIRUN[0], "--oversubscribe", "--map-by", "core", "--bind-to",
                       "core:overload-allowed"]
        cmd += ["-np", str(np)]
        if preload:
            cmd += env_flag("LD_PRELOAD", PMPI)
        for name, value in (rank_env or {}).items():  # for the ranks only, not mpirun
            cmd += env_flag(name, value)
        cmd += [program or self.check] + list(specs)
        start = time.monotonic()
        proc = subprocess.run(cmd, env=job_env, capture_output=True, text=True, timeout=timeout)
        job = Job(proc, time.monotonic() - start, self.tmp)
        if expect_success:
            self.assertEqual(job.returncode, 0, f"{cmd} failed:\n{job.stdout}\n{job.stderr}")
        return job

    def plan_job_args(self, hosts):
        """`toporrctl plan` options giving it the job's hosts and its rank -> host list."""
        return plan_job_args(self.tmp, hosts)

    def plan_order(self, hosts, spec):
        coll, alg, size, root = spec.split(":")
        args = ["--json", "plan"] + self.plan_job_args(hosts) + ["--collective", coll,
                                                                 "--size", size, "--root", root]
        if alg != "auto":
            args += ["--algorithm", alg]
        return json.loads(self.ctl(*args))["new_order"]

    def cart_plan(self, hosts, cart):
        """`toporrctl --json plan --cart CART` for the job, from the daemon."""
        return json.loads(self.ctl("--json", "plan", *self.plan_job_args(hosts), "--cart", cart))

    # ---- reordering ----

    def check_matches_plan(self, np, num_hosts, specs):
        hosts = round_robin(np, num_hosts)
        job = self.run_job(np, specs, hosts)
        self.assertEqual(job.warnings(), [], job.stderr)
        self.assertEqual(len(job.report), len(specs))
        for spec, rep in zip(specs, job.report):
            with self.subTest(np=np, spec=spec):
                self.assertEqual(job.checks[spec], ["ok"])
                got = job.orders[spec][0]
                # One host asks no cost source (the intra-host costs alone).
                source = "daemon" if num_hosts > 1 and np > 1 else "local"
                self.assertEqual(got["source"], source)
                self.assertEqual(got["order"], self.plan_order(hosts, spec))
                self.assertEqual(rep["new_order"], got["order"])
                self.assertEqual(rep["source"], source)
                self.assertEqual(rep["snapshot_id"], 1 if source == "daemon" else None)
                self.assertIsNone(rep["fallback_reason"])
                self.assertEqual(rep["size"], np)
                self.assertEqual(rep["hosts"], len(set(hosts)))
                if np == 1:  # one rank: nothing planned
                    self.assertEqual(rep["candidates"], [])
                    continue
                # The candidates' predicted times, the chosen one the fastest of them.
                times = [c["predicted_ns"] for c in rep["candidates"]]
                self.assertTrue(times)
                self.assertAlmostEqual(min(times), rep["predicted_after_ns"], delta=1e-6 * min(times) + 1e-9)
        return job

    def test_orders_match_toporrctl_plan_at_16_ranks(self):
        specs = ["allreduce:ring:1048576:0", "allreduce:recursive_doubling:1048576:0",
                 "allreduce:rabenseifner:1048576:0", "allreduce:auto:1048576:0",
                 "bcast:binomial:65536:3", "bcast:binary_tree:65536:0",
                 "bcast:knomial:65536:0", "bcast:scatter_allgather:1048576:0",
                 "bcast:auto:4194304:5", "allgather:ring:65536:0"]
        job = self.check_matches_plan(16, 4, specs)
        # Round-robin over 4 hosts is poor for these: at least one order must change.
        self.assertTrue(any(r["new_order"] != list(range(16)) for r in job.report))

    def test_orders_match_toporrctl_plan_at_small_sizes(self):
        specs = ["allreduce:auto:1048576:0", "bcast:binomial:65536:0",
                 "allreduce:recursive_doubling:4096:0"]
        for np, hosts in [(1, 1), (2, 2), (3, 2), (7, 3), (8, 4)]:
            self.check_matches_plan(np, hosts, specs)

    def test_cache_answers_a_repeated_call_without_a_request(self):
        spec = "allreduce:rabenseifner:1048576:0"
        before = self.stats()
        job = self.run_job(16, [spec, spec, "allreduce:rabenseifner:1500000:0"],
                           round_robin(16, 4))
        after = self.stats()
        # One row per host (4 hosts, 16 ranks) for three calls, each request carrying the
        # host list (no registration for a job of this size): the second call repeats the
        # first, the third falls in the same power-of-two size class.
        self.assertEqual(after.get("RegisterHostList", 0) - before.get("RegisterHostList", 0), 0)
        self.assertEqual(after.get("GetCostRow", 0) - before.get("GetCostRow", 0), 4)
        first, second = job.orders[spec]
        self.assertFalse(first["cached"])
        self.assertTrue(second["cached"])
        self.assertEqual(first["order"], second["order"])
        self.assertTrue(job.orders["allreduce:rabenseifner:1500000:0"][0]["cached"])
        self.assertEqual([r["cached"] for r in job.report], [False, True, True])

    def test_large_job_form_leaf_groups_plan_as_well_as_dense_rows(self):
        # TOPORR_COMPRESS_ABOVE=2 makes this 8-host job exchange its costs in leaf-group form
        # (CompressRows), the path of jobs beyond 2,048 hosts.
        hosts = round_robin(16, 8)
        specs = ["allreduce:rabenseifner:1048576:0", "bcast:binomial:65536:0"]
        dense = self.run_job(16, specs, hosts)
        grouped = self.run_job(16, specs, hosts, env={"TOPORR_COMPRESS_ABOVE": "2"})
        self.assertEqual(grouped.warnings(), [], grouped.stderr)
        for d, g in zip(dense.report, grouped.report):
            with self.subTest(spec=d["collective"] + " " + d["algorithm"]):
                self.assertEqual(g["source"], "daemon")
                self.assertEqual((d["cost_form"], g["cost_form"]), ("rows", "groups"))
                self.assertEqual(g["predicted_before_ns"], d["predicted_before_ns"])
                self.assertLessEqual(g["predicted_after_ns"], d["predicted_after_ns"] * 1.001)
        for spec in specs:
            self.assertEqual(grouped.checks[spec], ["ok"])

    def test_daemon_over_tcp(self):
        spec = "allreduce:auto:1048576:0"
        hosts = round_robin(8, 4)
        job = self.run_job(8, [spec], hosts, socket="/nonexistent/toporrd.sock",
                           env={"TOPORR_ADDRESS": self.tcp})
        self.assertEqual(job.warnings(), [], job.stderr)
        self.assertEqual(job.orders[spec][0]["source"], "daemon")
        self.assertEqual(job.orders[spec][0]["order"], self.plan_order(hosts, spec))

    def test_daemon_over_tls_and_each_tls_failure(self):
        """Rows over TLS with certificates openssl makes here; a wrong CA, an expired daemon
        certificate, plaintext to the TLS port, TLS to a plaintext port and plaintext outside
        loopback each end in the identity order with one warning naming the cause, within the
        deadline."""
        spec = "allreduce:auto:1048576:0"
        hosts = round_robin(8, 4)
        certs = make_test_certificates(self.tmp)

        good, good_conf = tls_listener(certs.server_cert, certs.server_key)
        old, old_conf = tls_listener(certs.expired_cert, certs.expired_key)
        with scratch_toporrd(TOPORRD, TOPORRCTL, self.tmp, "tls", good_conf) as ctl, \
                scratch_toporrd(TOPORRD, TOPORRCTL, self.tmp, "expired", old_conf) as old_ctl:
            for c in (ctl, old_ctl):
                c("ingest", "--format", "ibnetdiscover", FABRIC)
            job = self.run_job(8, [spec], hosts, socket="/nonexistent/toporrd.sock",
                               env={"TOPORR_ADDRESS": good, "TOPORR_TLS_CA": certs.ca})
            self.assertEqual(job.warnings(), [], job.stderr)
            self.assertEqual(job.orders[spec][0]["source"], "daemon")
            self.assertEqual(job.orders[spec][0]["order"], self.plan_order(hosts, spec))
            for case, env, reason in [
                    ("wrong CA", {"TOPORR_ADDRESS": good, "TOPORR_TLS_CA": certs.other_ca},
                     "not valid for tls_ca " + certs.other_ca +
                     ": unable to get local issuer certificate"),
                    ("expired", {"TOPORR_ADDRESS": old, "TOPORR_TLS_CA": certs.ca},
                     "not valid for tls_ca " + certs.ca + ": certificate has expired"),
                    ("client key of another certificate",
                     {"TOPORR_ADDRESS": good, "TOPORR_TLS_CA": certs.ca,
                      "TOPORR_TLS_CERT": certs.server_cert, "TOPORR_TLS_KEY": certs.expired_key},
                     f"tls_key {certs.expired_key} is not the key of tls_cert"),
                    ("server name without CA", {"TOPORR_ADDRESS": good,
                                                "TOPORR_TLS_SERVER_NAME": "toporrd"},
                     "tls_server_name is set but tls_ca is not"),
                    ("plaintext to TLS", {"TOPORR_ADDRESS": good},
                     "is the daemon's listener TLS?"),
                    ("TLS to plaintext", {"TOPORR_ADDRESS": self.tcp, "TOPORR_TLS_CA": certs.ca},
                     "does not speak TLS"),
                    ("plaintext off loopback", {"TOPORR_ADDRESS": "192.0.2.1:50051"},
                     "over plaintext TCP: set tls_ca")]:
                with self.subTest(case=case):
                    job = self.run_job(8, [spec], hosts, socket="/nonexistent/toporrd.sock",
                                       env=dict(env, TOPORR_DEADLINE_MS="1000"))
                    self.check_fallback(job, spec, reason, deadline_ms=1000)

    def test_site_configuration_file_sets_the_daemon_for_every_job(self):
        """An admin's client.conf (TOPORR_CONFIG here) names the TLS listener and its CA: a
        job with no other toporr setting reads its rows over TLS; a malformed file is
        ignored with one warning naming its line."""
        spec = "allreduce:auto:1048576:0"
        hosts = round_robin(8, 4)
        certs = make_test_certificates(self.tmp)
        address, conf = tls_listener(certs.server_cert, certs.server_key)
        site = os.path.join(self.tmp, "client.conf")
        with scratch_toporrd(TOPORRD, TOPORRCTL, self.tmp, "site", conf) as ctl:
            ctl("ingest", "--format", "ibnetdiscover", FABRIC)
            with open(site, "w") as f:
                f.write(f"# toporr site configuration\naddress = {address}\n"
                        f"tls_ca = {certs.ca}\ndeadline_ms = 3000\n")
            job = self.run_job(8, [spec], hosts, socket="/nonexistent/toporrd.sock",
                               env={"TOPORR_CONFIG": site})
            self.assertEqual(job.warnings(), [], job.stderr)
            self.assertEqual(job.orders[spec][0]["source"], "daemon")
            with open(site, "a") as f:
                f.write("deadline = 3\n")
            # A key this release does not know (a newer one's) is skipped with one warning;
            # the rest of the file, its TLS settings included, still applies.
            job = self.run_job(8, [spec], hosts, socket="/nonexistent/toporrd.sock",
                               env={"TOPORR_CONFIG": site, "TOPORR_DEADLINE_MS": "10000"})
            self.assertEqual(job.orders[spec][0]["source"], "daemon", job.stderr)  # over TLS
            notes = [l for l in job.stderr.splitlines() if "site configuration" in l]
            self.assertEqual(len(notes), 1, job.stderr)
            self.assertTrue(notes[0].startswith("toporr: warning: "), notes[0])
            self.assertIn(f"{site}:5: deadline must be one of the known keys", notes[0])
            self.assertIn("line ignored", notes[0])
            # A file another user owns, or every user may change, is not trusted.
            for mode, owner in [(0o666, 0), (0o644, 65534)]:
                os.chown(site, owner, owner)
                os.chmod(site, mode)
                job = self.run_job(8, [spec], hosts, socket="/nonexistent/toporrd.sock",
                                   env={"TOPORR_CONFIG": site, "TOPORR_DEADLINE_MS": "10000"})
                notes = [l for l in job.stderr.splitlines() if "site configuration" in l]
                self.assertEqual(len(notes), 1, job.stderr)
                self.assertIn("not trusted", notes[0])
                self.assertEqual(job.orders[spec][0]["source"], "fallback", job.stderr)
            os.chown(site, 0, 0)
            os.chmod(site, 0o644)

    def test_file_cost_source_needs_no_daemon(self):
        hosts = round_robin(16, 4)
        costs = os.path.join(self.tmp, "costs.bin")
        self.ctl("export", "--format", "costs", "--output", costs, "--hosts",
                 ",".join(sorted(set(hosts))))
        spec = "allreduce:auto:1048576:0"
        before = self.stats()
        job = self.run_job(16, [spec], hosts, env={"TOPORR_COSTS": costs},
                           socket="/nonexistent/toporrd.sock")
        self.assertEqual(self.stats().get("GetCostRow"), before.get("GetCostRow"))
        self.assertEqual(job.orders[spec][0]["source"], "file")
        self.assertEqual(job.orders[spec][0]["order"], self.plan_order(hosts, spec))
        self.assertEqual(job.report[0]["snapshot_id"], 1)

    def test_routes_reach_rank_zero_from_the_daemon_and_the_file(self):
        # The demo fabric routed by the real OpenSM (ibsim), in a daemon of this test's own:
        # rows and TOPORRC2 files then carry routes, and libtoporr's orders are toporrctl
        # plan's, which models the same routes.
        sim = os.path.join(self.tmp, "ibsim")
        subprocess.run(["bash", "collectors/sim/run_ibsim.sh",
                        os.path.join(ROOT, "deploy/demo/fattree-2l-16h.net"), sim],
                       check=True, capture_output=True)
        with scratch_toporrd(TOPORRD, TOPORRCTL, self.tmp, "routes") as ctl:
            sock = ctl.socket
            ctl("ingest", "--format", "ibnetdiscover", os.path.join(sim, "ibnetdiscover.txt"))
            ctl("ingest", "--format", "lft", os.path.join(sim, "dump_fts.txt"))
            hosts = round_robin(16, 8)
            spec = "allreduce:auto:4194304:0"
            coll, alg, size, root = spec.split(":")
            planfile = os.path.join(self.tmp, "routes.hosts")
            ranks = os.path.join(self.tmp, "routes.ranks")
            with open(planfile, "w") as f:
                f.write("".join(f"{h} slots=2\n" for h in dict.fromkeys(hosts)))
            with open(ranks, "w") as f:
                f.write("".join(h + "\n" for h in hosts))
            plan = json.loads(ctl("--json", "plan", "--hostfile", planfile, "--ranks", ranks,
                                  "--collective", coll, "--size", size, "--root", root))
            self.assertIn("routes of its forwarding tables modelled", plan["cost_source"])
            costs = os.path.join(self.tmp, "routes.costs")
            out = json.loads(ctl("--json", "export", "--format", "costs", "--output", costs,
                                 "--hosts", ",".join(sorted(set(hosts)))))
            self.assertTrue(out["routes"])
            for label, kwargs in [("daemon", dict(socket=sock)),
                                  ("file", dict(socket="/nonexistent/toporrd.sock",
                                                env={"TOPORR_COSTS": costs}))]:
                with self.subTest(source=label):
                    job = self.run_job(16, [spec], hosts, **kwargs)
                    self.assertEqual(job.warnings(), [], job.stderr)
                    rep = job.report[0]
                    self.assertEqual(rep["source"], label)
                    self.assertEqual(rep["contention"], "routes")
                    self.assertEqual(rep["new_order"], plan["new_order"])
            # Routes off: the hosts' own links only.
            job = self.run_job(16, [spec], hosts, socket=sock,
                               env={"TOPORR_ROUTES_MAX_HOSTS": "0"})
            self.assertEqual(job.report[0]["contention"], "host links")

    def test_no_leak_of_communicators_or_caches(self):
        job = self.run_job(4, ["leak"], round_robin(4, 2))
        self.assertEqual(job.checks["leak"], ["ok"], job.stdout + job.stderr)

    def test_c_cxx_and_fortran_callers_get_the_same_order(self):
        spec = "allreduce:auto:1048576:0"
        hosts = round_robin(16, 4)
        c = self.run_job(16, [spec], hosts).orders[spec][0]["order"]
        self.assertNotEqual(c, list(range(16)))
        cxx = self.run_job(16, [], hosts, program=self.cxx)
        self.assertEqual(cxx.checks["cxx-reorder"], ["ok"])
        self.assertEqual(cxx.orders["cxx-reorder"][0]["source"], "daemon")
        self.assertEqual(cxx.orders["cxx-reorder"][0]["order"], c)
        fortran = self.run_job(16, [], hosts, program=self.freorder)
        self.assertEqual(fortran.checks["fortran-reorder"], ["ok"])
        self.assertEqual(fortran.orders["fortran-reorder"][0]["order"], c)

    # ---- toporr's own collectives ----

    def test_collectives_match_the_mpi_library(self):
        # coll_check.c: every algorithm x counts x datatypes x ops x roots / in-place, against
        # the library's own MPI_Allreduce / MPI_Bcast, plus calls through the selection on
        # communicators reordered with the daemon's costs.
        # MPICH's busy-polling ranks make an oversubscribed small machine crawl: beyond 2
        # ranks it runs the quick table (6 counts, no 2^20) and stops at 7 ranks; Open MPI
        # runs the whole table at every size.
        plan = [(np, []) for np in [1, 2, 3, 5, 7, 8, 12, 16]]
        if MPI == "mpich":
            plan = [(1, []), (2, []), (3, ["quick"]), (5, ["quick"]), (7, ["quick"])]
        for np, args in plan:
            with self.subTest(np=np):
                job = self.run_job(np, args, round_robin(np, 4), program=self.coll)
                lines = [l for l in job.stdout.splitlines() if l.startswith("COLL ")]
                self.assertEqual(len(lines), 1, job.stdout)
                cases, failures = map(int, lines[0].split()[1:])
                self.assertGreater(cases, 600 if args else 3000)
                self.assertEqual(failures, 0, job.stdout)
                self.assertEqual(job.warnings(), [], job.stderr)
                if np > 1:
                    chosen = {r["collective"] + ":" + r["algorithm"]: r for r in job.report}
                    self.assertIn("allreduce:ring", chosen)
                    self.assertEqual(chosen["allreduce:ring"]["source"], "daemon")

    def check_library_candidate(self, reports, np):
        # Selection (algorithm "auto") weighs the MPI library's own call first: it wins ties
        # (and below 1 MiB gains under its margin), and when it wins the caller's order is kept.
        auto = [r for r in reports if r["algorithm"] == "auto" and r["source"] != "fallback"
                and not r["cached"] and r["collective"] in ("allreduce", "bcast", "allgather")]
        self.assertTrue(auto)
        for r in auto:
            first = r["candidates"][0]
            self.assertEqual(first["algorithm"], "mpi_library", r)
            self.assertNotEqual(first["effective"], "", r)
            best = min(r["candidates"], key=lambda c: weighed_ns(r, c))["predicted_ns"]
            self.assertAlmostEqual(r["predicted_after_ns"], best, delta=1e-6 * best + 1e-9)
            if r["chosen_algorithm"] == "mpi_library":
                # On the launch order, or on the leaf-sorted one (a second library
                # candidate) where that is predicted faster.
                library = [c for c in r["candidates"] if c["algorithm"] == "mpi_library"]
                self.assertIn(len(library), (1, 2), r)
                chosen = min(library, key=lambda c: c["predicted_ns"])
                if len(library) == 2 and library[1]["predicted_ns"] == library[0]["predicted_ns"]:
                    chosen = library[0]
                self.assertEqual(r["predicted_after_ns"], chosen["predicted_ns"], r)
                if chosen["mapping"] == "identity":
                    self.assertEqual(r["new_order"], list(range(np)))
                else:
                    self.assertEqual(chosen["mapping"], "leaf-sorted", r)
                    self.assertNotEqual(r["new_order"], list(range(np)))
                    self.assertEqual(r["leaf_sorted"]["predicted_ns"], chosen["predicted_ns"])
            else:
                self.assertLess(r["predicted_after_ns"], weighed_ns(r, first), r)

    def test_multilevel_collectives_match_the_mpi_library(self):
        # coll_check.c's multi-level table, forced by TOPORR_ALGORITHM=multilevel, on 8 hosts
        # of the 4 leaves (two per leaf, ranks dealt round-robin over them): stages per host,
        # per leaf and at the top, roots anywhere in them.
        plan = [(np, []) for np in [1, 2, 3, 5, 7, 8]] + [(12, ["quick"]), (16, ["quick"])]
        if MPI == "mpich":
            plan = [(2, ["quick"]), (3, ["quick"]), (5, ["quick"])]
        for np, args in plan:
            with self.subTest(np=np):
                job = self.run_job(np, ["multilevel"] + args, round_robin(np, 8),
                                   program=self.coll, env={"TOPORR_ALGORITHM": "multilevel"})
                lines = [l for l in job.stdout.splitlines() if l.startswith("COLL ")]
                self.assertEqual(len(lines), 1, job.stdout)
                cases, failures = map(int, lines[0].split()[1:])
                self.assertGreater(cases, 400 if args else 2000)
                self.assertEqual(failures, 0, job.stdout)
                self.assertEqual(job.warnings(), [], job.stderr)
                decided = {r["collective"] for r in job.report}
                self.assertEqual(decided, {"allreduce", "bcast", "reduce", "gather"})
                for r in job.report:  # one rank: the MPI library's call, nothing asked
                    self.assertEqual(r["source"], "daemon" if np > 1 else "local", r)
                    self.assertEqual(r["chosen_algorithm"],
                                     "multilevel" if np > 1 else "mpi_library", r)
                    self.assertEqual(r["new_order"], list(range(np)))

    def test_multilevel_levels_come_from_the_fabric(self):
        # 16 ranks on 8 hosts, two per leaf: the levels are host, leaf, top. Under the PMPI
        # drop-in (auto selection) every decision of the stencil lists the multi-level
        # candidate with its predicted time and stages, and takes it only when faster by its
        # margin (weighed_ns).
        np = 16 if MPI == "openmpi" else 6
        job = self.run_job(np, [], round_robin(np, 8), program=self.stencil, preload=True)
        self.assertEqual(job.warnings(), [], job.stderr)
        rows = [r for r in job.report if r["collective"] in ("allreduce", "bcast", "reduce")]
        self.assertTrue(rows)
        for r in rows:
            with self.subTest(collective=r["collective"], bytes=r["bytes"]):
                self.assertEqual(r["levels"], ["host", "leaf", "top"])
                ml = [c for c in r["candidates"] if c["algorithm"] == "multilevel"]
                self.assertEqual(len(ml), 1, r["candidates"])
                self.assertEqual(ml[0]["mapping"], "levels")
                self.assertGreater(ml[0]["predicted_ns"], 0)
                stages = r["stages"]
                self.assertTrue(stages, r)
                self.assertLessEqual({s["level"] for s in stages}, set(r["levels"]))
                self.assertAlmostEqual(sum(s["predicted_ns"] for s in stages),
                                       ml[0]["predicted_ns"], delta=1e-6 * ml[0]["predicted_ns"])
                flat = min(c["predicted_ns"] for c in r["candidates"] if c is not ml[0])
                if r["chosen_algorithm"] == "multilevel":
                    self.assertLess(weighed_ns(r, ml[0]), flat)
                    self.assertEqual(r["predicted_after_ns"], ml[0]["predicted_ns"])
                else:
                    chosen = {"algorithm": r["chosen_algorithm"],
                              "predicted_ns": r["predicted_after_ns"]}
                    self.assertLessEqual(weighed_ns(r, chosen), weighed_ns(r, ml[0]))
        # All hosts on one leaf: no leaf level.
        one_leaf = [LEAVES[0][r % 4] for r in range(8)]
        job = self.run_job(8, [], one_leaf, program=self.stencil, preload=True)
        self.assertTrue(all(r["levels"] == ["host", "top"] for r in job.report
                            if r["collective"] == "allreduce"))

    def test_pmpi_collectives_leave_an_unchanged_program_unchanged(self):
        np = 16 if MPI == "openmpi" else 6  # MPICH: see above
        hosts = round_robin(np, 4)
        plain = self.run_job(np, [], hosts, program=self.stencil)
        dropped_in = self.run_job(np, [], hosts, program=self.stencil, preload=True)
        self.assertEqual(dropped_in.stdout, plain.stdout)
        self.assertEqual(dropped_in.warnings(), [], dropped_in.stderr)
        decided = {r["collective"] for r in dropped_in.report if r["source"] == "daemon"}
        self.assertEqual(decided, {"cart_create", "allreduce", "bcast", "reduce"})
        self.assertTrue(all(r["bytes"] >= 65536 for r in dropped_in.report
                            if r["collective"] in ("allreduce", "bcast", "reduce")))
        self.check_library_candidate(dropped_in.report, np)
        # The daemon gone: the MPI library's own calls, the same output, one warning.
        gone = self.run_job(np, [], hosts, program=self.stencil, preload=True,
                            socket=os.path.join(self.tmp, "absent.sock"))
        self.assertEqual(gone.stdout, plain.stdout)
        self.assertEqual(len(gone.warnings()), 1, gone.stderr)

    def test_run_time_check_measures_the_library_on_the_leaf_sorted_order(self):
        """Where the plan predicts the MPI library's call faster on the leaf-sorted order than
        on the caller's, the run-time check measures toporr's choice against the library's
        call there, and a verdict for the library keeps running it there: 6 ranks dealt
        round-robin over 3 hosts of 3 leaves, a 256 KiB allreduce on MPI_COMM_WORLD (toporr's
        ring on its order against the library's Rabenseifner on the leaf-sorted order)."""
        np = 6
        hosts = round_robin(np, 3)
        args = ["32768", "8"]
        plain = self.run_job(np, args, hosts, program=self.allreduce_loop)
        job = self.run_job(np, args, hosts, program=self.allreduce_loop, preload=True,
                           env={"TOPORR_VERIFY_CALLS": "2", "TOPORR_VERBOSE": "1"})
        self.assertEqual(job.stdout, plain.stdout)
        self.assertEqual(len(plain.stdout.splitlines()), 8, plain.stdout)
        self.assertEqual(job.warnings(), [], job.stderr)
        decided = [r for r in job.report if r["collective"] == "allreduce" and not r["cached"]]
        self.assertEqual(len(decided), 1, job.report)
        r = decided[0]
        library = {c["mapping"]: c for c in r["candidates"] if c["algorithm"] == "mpi_library"}
        self.assertEqual(set(library), {"identity", "leaf-sorted"}, r["candidates"])
        self.assertLess(library["leaf-sorted"]["predicted_ns"],
                        library["identity"]["predicted_ns"])
        self.assertNotEqual(r["chosen_algorithm"], "mpi_library", r)
        self.assertEqual(len(job.verified), 1, job.verified)
        v = job.verified[0]
        self.assertEqual(v["library_order"], "leaf-sorted", v)
        self.assertEqual(len(v["library_us"]), 2)
        self.assertIn("MPI library (leaf-sorted order)", job.stderr)
        # Either verdict may come out on a shared machine; the four calls after it ran its
        # path (on the leaf-sorted communicator for "mpi_library") with the program's output.
        self.assertIn(v["verdict"], ("toporr", "mpi_library"))

    def test_run_time_check_times_both_paths_and_keeps_the_faster(self):
        """Each decision where toporr chose its own path is timed against the MPI library's
        call (TOPORR_VERIFY_CALLS calls each, alternating, the slowest rank's time), reported
        as a "verified" line, and the faster path stays; the program's output is unchanged.
        TOPORR_VERIFY=0 turns it off."""
        np = 8
        hosts = round_robin(np, 4)
        plain = self.run_job(np, [], hosts, program=self.stencil)
        job = self.run_job(np, [], hosts, program=self.stencil, preload=True,
                           env={"TOPORR_VERIFY_CALLS": "2", "TOPORR_VERBOSE": "1"})
        self.assertEqual(job.stdout, plain.stdout)
        self.assertEqual(job.warnings(), [], job.stderr)
        # The stencil's allreduce and reduce run 5 times each with one decision: checked after
        # 4 calls; its broadcasts change root every call (a decision each, never 4 calls).
        # toporr's path: its own algorithm, or the library's call on a reordered communicator.
        ours = [r for r in job.report if r["collective"] in ("allreduce", "reduce")
                and r["source"] == "daemon" and not r["cached"]
                and (r["chosen_algorithm"] != "mpi_library" or r["new_order"] != list(range(np)))]
        self.assertTrue(ours, job.report)
        self.assertEqual(len(job.verified), len(ours), job.verified)
        for r in ours:
            v = [x for x in job.verified
                 if (x["collective"], x["bytes"], x["root"]) == (r["collective"], r["bytes"],
                                                                 r["root"])]
            with self.subTest(collective=r["collective"]):
                self.assertEqual(len(v), 1, job.verified)
                v = v[0]
                self.assertEqual(v["chosen_algorithm"], r["chosen_algorithm"])
                self.assertEqual(len(v["toporr_us"]), 2)
                self.assertEqual(len(v["library_us"]), 2)
                self.assertTrue(all(t > 0 for t in v["toporr_us"] + v["library_us"]), v)
                faster = v["toporr_median_us"] < v["library_median_us"]
                self.assertEqual(v["verdict"], "toporr" if faster else "mpi_library")
                # The library's path: its call where the plan predicted it fastest (the
                # leaf-sorted order unless the caller's is as fast), unless that is the
                # decision itself.
                library = {c["mapping"]: c["predicted_ns"] for c in r["candidates"]
                           if c["algorithm"] == "mpi_library"}
                sorted_faster = ("leaf-sorted" in library and
                                 library["leaf-sorted"] < library["identity"] and
                                 r["chosen_algorithm"] != "mpi_library")
                self.assertEqual(v["library_order"], "leaf-sorted" if sorted_faster else "caller",
                                 (v, r["candidates"]))
                self.assertIn(f"verified {r['collective']} {r['chosen_algorithm']}", job.stderr)
        off = self.run_job(np, [], hosts, program=self.stencil, preload=True,
                           env={"TOPORR_VERIFY_CALLS": "2", "TOPORR_VERIFY": "0"})
        self.assertEqual(off.stdout, plain.stdout)
        self.assertEqual(off.verified, [])

    def test_pmpi_intercepts_fortran_collectives(self):
        np = 8 if MPI == "openmpi" else 4
        hosts = round_robin(np, 4)
        plain = self.run_job(np, [], hosts, program=self.fcoll)
        dropped_in = self.run_job(np, [], hosts, program=self.fcoll, preload=True)
        for tag in ["FCOLL", "FREDUCE", "FGATHER"]:
            self.assertIn(tag, plain.stdout)
        # MPI_IN_PLACE recognised too. Lines come from two ranks: compare them sorted.
        self.assertEqual(sorted(dropped_in.stdout.splitlines()), sorted(plain.stdout.splitlines()))
        decided = {r["collective"]: r for r in dropped_in.report}
        self.assertEqual(set(decided), {"allreduce", "bcast", "reduce", "allgather"})
        self.assertEqual({r["root"] for r in dropped_in.report if r["collective"] == "reduce"},
                         {0, 1})
        self.assertEqual(decided["allgather"]["bytes"], 80000)
        self.assertEqual(decided["allreduce"]["bytes"], 160000)
        self.assertEqual(decided["bcast"]["root"], np - 1)
        self.assertTrue(all(r["source"] == "daemon" for r in dropped_in.report))

    # ---- topology functions through the PMPI layer ----

    def test_pmpi_reorders_topology_constructors(self):
        hosts = round_robin(16, 8)
        job = self.run_job(16, ["cart", "graph", "dist", "distgen"], hosts, preload=True)
        self.assertEqual(job.warnings(), [], job.stderr)
        for name in ["cart", "graph", "dist", "distgen"]:
            with self.subTest(name=name):
                self.assertTrue(all(c == "ok" for c in job.checks[name]), job.checks[name])
                self.assertNotEqual(job.orders[name][0]["order"], list(range(16)))
        reports = {r["collective"]: r for r in job.report}
        self.assertLess(reports["dist_graph_create_adjacent"]["predicted_after_ns"],
                        reports["dist_graph_create_adjacent"]["predicted_before_ns"])

    def test_cart_order_matches_toporrctl_plan(self):
        hosts = round_robin(16, 8)
        job = self.run_job(16, ["cart"], hosts, preload=True)
        self.assertEqual(job.warnings(), [], job.stderr)
        self.assertTrue(all(c == "ok" for c in job.checks["cart"]), job.checks["cart"])
        # toporr_check's cart: MPI_Dims_create(16, 2) = 4x4, periodic along the first dimension.
        plan = self.cart_plan(hosts, "4x4:1x0")
        got = job.orders["cart"][0]["order"]
        self.assertNotEqual(got, list(range(16)))
        self.assertEqual(got, plan["new_order"])
        self.assertTrue(plan["reordered"])
        rep = {r["collective"]: r for r in job.report}["cart_create"]
        self.assertEqual(rep["source"], "daemon")
        self.assertEqual(rep["new_order"], got)
        self.assertEqual(rep["chosen_algorithm"], plan["embedder"])
        for ours, theirs in [("before", "predicted_before_ns"), ("after", "predicted_after_ns")]:
            self.assertAlmostEqual(plan[ours]["time_ns"], rep[theirs],
                                   delta=1e-6 * rep[theirs])

    def test_without_pmpi_or_disabled_the_mpi_library_answers(self):
        hosts = round_robin(16, 8)
        for preload, env in [(False, {}), (True, {"TOPORR_DISABLE": "1"})]:
            job = self.run_job(16, ["cart", "dist"], hosts, preload=preload, env=env)
            for name in ["cart", "dist"]:
                with self.subTest(preload=preload, name=name):
                    self.assertTrue(all(c == "ok" for c in job.checks[name]))
                    self.assertEqual(job.orders[name][0]["order"], list(range(16)))
            self.assertEqual(job.warnings(), [])

    def test_fortran_cart_create_is_intercepted(self):
        hosts = round_robin(16, 8)
        c_job = self.run_job(16, ["cart"], hosts, preload=True)
        f_job = self.run_job(16, [], hosts, program=self.fcart, preload=True)
        self.assertEqual(f_job.checks["fortran-cart"], ["ok"])
        self.assertNotEqual(f_job.orders["fortran-cart"][0]["order"], list(range(16)))
        self.assertEqual(f_job.orders["fortran-cart"][0]["order"], c_job.orders["cart"][0]["order"])
        plain = self.run_job(16, [], hosts, program=self.fcart)
        self.assertEqual(plain.orders["fortran-cart"][0]["order"], list(range(16)))

    def test_pmpi_map_functions_answer_as_the_constructors(self):
        """mpi4py's testCartMap / testGraphMap: MPI_Cart_map and MPI_Graph_map give each process
        the rank MPI_Cart_create / MPI_Graph_create (reorder=1) give it for the same arguments
        on the same communicator, whichever is called first, MPI_UNDEFINED outside a grid
        smaller than the communicator; from Fortran too."""
        for np in (8, 12):
            with self.subTest(np=np):
                job = self.run_job(np, ["map", "graphmap"], round_robin(np, 8),
                                   program=self.topo_map, preload=True, timeout=600)
                self.assertEqual(job.warnings(), [], job.stderr)
                self.assertEqual(job.checks["map"], ["ok"], job.stderr)
                self.assertEqual(job.checks["graphmap"], ["ok"], job.stderr)
                self.assertNotEqual(job.orders["cart-map"][0]["order"], list(range(np)))
                # A grid in MPI_COMM_WORLD's order is mapped as MPI_COMM_WORLD.
                self.assertEqual(job.orders["cart-map-on-grid"][0]["order"],
                                 job.orders["cart-map"][0]["order"])
        f_job = self.run_job(8, [], round_robin(8, 8), program=self.fcart, preload=True)
        self.assertEqual(f_job.checks["fortran-cart"], ["ok"], f_job.stderr)
        self.assertEqual(f_job.checks["fortran-graph-map"], ["ok"], f_job.stderr)
        self.assertNotEqual(f_job.orders["fortran-cart"][0]["order"], list(range(8)))

    def test_cartesian_communicators_with_toporrs_collectives_forced(self):
        """mpi4py's topology tests in one job with toporr's collectives forced at every size
        (TOPORR_ALGORITHM=ring, TOPORR_MIN_BYTES=1): the map functions agree with the
        constructors, and Cartesian communicators built with and without reorder, their
        MPI_Cart_sub sub-grids and MPI_Comm_dup duplicates (attributes copied) shift and compute
        collectives as without toporr. The topology decisions' own MPI calls are not
        intercepted: every collective decision is one of the program's calls."""
        np = 8
        hosts = round_robin(np, 8)
        plain = self.run_job(np, ["cartwork"], hosts, program=self.topo_map)
        self.assertEqual(plain.checks["cartwork"], ["ok"], plain.stderr)
        job = self.run_job(np, ["map", "graphmap", "cartwork"], hosts, program=self.topo_map,
                           preload=True, env={"TOPORR_ALGORITHM": "ring", "TOPORR_MIN_BYTES": "1"},
                           timeout=600)
        self.assertEqual(job.warnings(), [], job.stderr)
        for name in ["map", "graphmap", "cartwork"]:
            self.assertEqual(job.checks[name], ["ok"], job.stderr)
        decided = {}
        for r in job.report:
            decided.setdefault(r["collective"], set()).add(r["bytes"])
        # topo_map_check's own calls: allgather of one int, bcast and reduce of 3,000 doubles,
        # allreduce of one int (its checks) and of one and 3,000 doubles.
        self.assertEqual(decided["allgather"], {4}, job.report)
        self.assertEqual(decided["bcast"], {24000}, job.report)
        self.assertEqual(decided["reduce"], {24000}, job.report)
        self.assertEqual(decided["allreduce"], {4, 8, 24000}, job.report)
        self.assertTrue(all(r["chosen_algorithm"] == "ring" for r in job.report
                            if r["collective"] == "allreduce" and r["source"] == "daemon"))

    # ---- never fail a job ----

    overhead_us = {}

    def mpi_overhead_us(self, np):
        """What a successful call of this job size spends in MPI (names, splits, gathers,
        broadcasts) on this machine now: the fallback bound is the deadline plus one second
        on top of it. Matters for MPICH, whose busy-polling ranks are slow when oversubscribed."""
        if np not in self.overhead_us:
            job = self.run_job(np, ["allreduce:auto:1048576:0"], round_robin(np, 4))
            self.overhead_us[np] = job.report[0]["elapsed_us"]
        return self.overhead_us[np]

    def check_fallback(self, job, spec, reason_part, deadline_ms=2000):
        self.assertTrue(job.checks[spec] and all(c == "ok" for c in job.checks[spec]), job.stdout)
        self.assertEqual(job.orders[spec][0]["order"], list(range(len(job.orders[spec][0]["order"]))))
        self.assertEqual(job.orders[spec][0]["source"], "fallback")
        warnings = job.warnings()
        self.assertEqual(len(warnings), 1, job.stderr)
        # ... and nothing else: the library prints no logs of its own or of gRPC.
        self.assertEqual([l for l in job.stderr.splitlines() if l.strip()], warnings)
        self.assertIn(reason_part, warnings[0])
        self.assertIn(reason_part, job.report[0]["fallback_reason"])
        np = len(job.orders[spec][0]["order"])
        self.assertLessEqual(job.report[0]["elapsed_us"],
                             (deadline_ms + 1000) * 1000 + self.mpi_overhead_us(np))

    def test_a_refused_daemon_costs_one_attempt_per_job(self):
        """No daemon (its socket gone, or a TCP port nobody listens on): 32 MPI_Comm_dup + 1 MiB
        allreduce steps try the connection about once per back-off, not once per communicator
        (a probe of 100 ms or more each made such a job take seconds more than with the daemon
        up), and the one warning names the refusal at once instead of waiting out the
        deadline."""
        def elapsed(job):
            return float(job.stdout.split("ELAPSED ")[1].split()[0])

        up = self.run_job(4, ["dups:32"], round_robin(4, 4), program=self.misuse, preload=True,
                          env={"TOPORR_DEADLINE_MS": "500"})
        self.assertIn("CHECK dups ok", up.stdout, up.stderr)
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            closed_port = probe.getsockname()[1]
        cases = [("no socket", {}, os.path.join(self.tmp, "absent.sock"), "absent.sock"),
                 ("no listener", {"TOPORR_ADDRESS": f"127.0.0.1:{closed_port}"},
                  "/nonexistent/toporrd.sock", f"127.0.0.1:{closed_port}")]
        for name, env, sock, named in cases:
            with self.subTest(name=name):
                job = self.run_job(4, ["dups:32"], round_robin(4, 4), program=self.misuse,
                                   preload=True, socket=sock,
                                   env={"TOPORR_DEADLINE_MS": "500", **env})
                self.assertIn("CHECK dups ok", job.stdout, job.stderr)
                self.assertEqual(len(job.warnings()), 1, job.stderr)
                self.assertIn(named, job.warnings()[0])
                self.assertNotIn("no answer within", job.warnings()[0])
                fallbacks = [r for r in job.report if r["source"] == "fallback"]
                self.assertEqual(len(fallbacks), 32, job.report)
                # Its decisions ask nothing during the back-off, so the job takes no longer than
                # with the daemon up (whose decisions also plan), however loaded the machine.
                print(f"\n32 steps, {name}: {elapsed(job):.2f} s; daemon up: {elapsed(up):.2f} s",
                      file=sys.stderr)
                self.assertLess(elapsed(job), 1.5 * elapsed(up) + 1.0)

    def test_files_beyond_their_bound_are_refused_unread(self):
        """A 1 GiB (sparse) file named by a setting is refused by its size, before it is read,
        with one warning naming the file and the bound: as TOPORR_HOSTMAP (the identity
        order), TOPORR_CONFIG and TOPORR_TLS_CA (the rest of the configuration still used),
        and `toporrctl plan --traffic` (an error, at once)."""
        huge = os.path.join(self.tmp, "huge")
        with open(huge, "wb") as f:
            f.truncate(1 << 30)
        spec = "allreduce:auto:1048576:0"
        hosts = round_robin(4, 4)
        started = time.monotonic()
        job = self.run_job(4, [spec], hosts, env={"TOPORR_HOSTMAP": huge})
        notes = [l for l in job.stderr.splitlines() if "toporr: warning" in l]
        self.assertEqual(len(notes), 1, job.stderr)
        self.assertIn(f"TOPORR_HOSTMAP {huge}: larger than the {64 << 20} bytes a host map",
                      notes[0])
        self.assertEqual(job.orders[spec][0]["order"], list(range(4)))
        job = self.run_job(4, [spec], hosts, env={"TOPORR_CONFIG": huge})
        notes = [l for l in job.stderr.splitlines() if "site configuration ignored" in l]
        self.assertEqual(len(notes), 1, job.stderr)
        self.assertIn(f"{huge}: larger than the {1 << 20} bytes a configuration file", notes[0])
        self.assertEqual(job.orders[spec][0]["source"], "daemon")
        job = self.run_job(4, [spec], hosts, socket="/nonexistent/toporrd.sock",
                           env={"TOPORR_ADDRESS": "127.0.0.1:1", "TOPORR_TLS_CA": huge})
        self.assertEqual(len(job.warnings()), 1, job.stderr)
        self.assertIn(f"{huge}: larger than the {1 << 20} bytes a PEM file", job.warnings()[0])
        hostfile = os.path.join(self.tmp, "bound.hosts")
        with open(hostfile, "w") as f:
            f.write("node01 slots=2\nnode05 slots=2\n")
        p = subprocess.run([TOPORRCTL, "--socket", self.sock, "plan", "--hostfile", hostfile,
                            "--traffic", huge], capture_output=True, text=True, timeout=60)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn(f"{huge}: larger than the {256 << 20} bytes a traffic profile may have",
                      p.stderr)
        # Four jobs and a plan: none read a GiB (a GiB read is too slow and too big for one rank).
        self.assertLess(time.monotonic() - started, 120)

    def test_fallback_without_daemon(self):
        spec = "allreduce:auto:1048576:0"
        job = self.run_job(8, [spec, spec], round_robin(8, 4),
                           socket=os.path.join(self.tmp, "absent.sock"))
        self.check_fallback(job, spec, "absent.sock")
        self.assertTrue(job.orders[spec][1]["cached"])  # no second attempt, no second warning

    def test_fallback_when_the_daemon_is_stopped(self):
        spec = "allreduce:auto:1048576:0"
        self.daemon.send_signal(signal.SIGSTOP)
        try:
            job = self.run_job(8, [spec], round_robin(8, 4), env={"TOPORR_DEADLINE_MS": "700"})
        finally:
            self.daemon.send_signal(signal.SIGCONT)
        self.check_fallback(job, spec, "TOPORR_DEADLINE_MS=700", deadline_ms=700)

    def test_fallback_when_the_daemon_is_killed_mid_request(self):
        spec = "allreduce:auto:1048576:0"
        cls = type(self)
        cls.daemon.send_signal(signal.SIGSTOP)
        killer = subprocess.Popen(["sh", "-c", f"sleep 1; kill -KILL {cls.daemon.pid}"])
        try:
            job = self.run_job(8, [spec], round_robin(8, 4), env={"TOPORR_DEADLINE_MS": "5000"})
        finally:
            killer.wait()
            cls.daemon.wait()
            cls.daemon = None
            cls.start_daemon()
        self.check_fallback(job, spec, "toporrd", deadline_ms=5000)

    def test_fallback_on_misbehaving_servers(self):
        spec = "allreduce:auto:1048576:0"
        for mode, reason in [("garbage", "toporrd"), ("truncated", "the row of"),
                             ("mixed", "snapshot"), ("unreachable", "the row of"),
                             ("absurd", "not a cost")]:
            with self.subTest(mode=mode):
                sock = os.path.join(self.tmp, f"fake-{mode}.sock")
                fake = subprocess.Popen([FAKE, "--socket", sock, "--mode", mode],
                                        stderr=subprocess.DEVNULL)
                try:
                    for _ in range(100):
                        if os.path.exists(sock):
                            break
                        time.sleep(0.05)
                    job = self.run_job(8, [spec], round_robin(8, 4), socket=sock,
                                       env={"TOPORR_DEADLINE_MS": "1000"})
                finally:
                    fake.kill()
                    fake.wait()
                self.check_fallback(job, spec, reason, deadline_ms=1000)

    def test_a_report_that_cannot_be_written_never_blocks_the_job(self):
        """TOPORR_REPORT naming a FIFO nobody reads, or a path in a missing directory: the
        job runs on unchanged (it used to block on the FIFO's open), with one line saying
        the report is not written."""
        spec = "allreduce:auto:1048576:0"
        fifo = os.path.join(self.tmp, "report.fifo")
        if not os.path.exists(fifo):
            os.mkfifo(fifo)
        for path in (fifo, os.path.join(self.tmp, "absent", "report.jsonl")):
            with self.subTest(path=path):
                job = self.run_job(8, [spec, "allreduce:ring:4194304:0"], round_robin(8, 4),
                                   env={"TOPORR_REPORT": path}, timeout=120)
                self.assertEqual(job.orders[spec][0]["source"], "daemon", job.stderr)
                self.assertEqual(job.checks[spec], ["ok"])
                notes = [l for l in job.stderr.splitlines() if "TOPORR_REPORT not written" in l]
                self.assertEqual(len(notes), 1, job.stderr)
                self.assertIn(os.path.basename(path), notes[0])

    def test_fallback_for_a_host_missing_from_the_fabric(self):
        spec = "bcast:binomial:65536:0"
        hosts = round_robin(8, 4)
        hosts[5] = "node99"
        job = self.run_job(8, [spec], hosts)
        self.check_fallback(job, spec, "node99")

    def test_jobs_report_their_decisions_to_the_daemon_at_finalize(self):
        """At MPI_Finalize rank 0 sends the daemon one summary (Topology.ReportJob): a
        daemon of the test's own counts each job's new decisions by collective and source
        and its fallbacks by cause in its metrics; TOPORR_JOB_METRICS=0 sends nothing; with
        the daemon stopped, the summary holds the job's exit up by at most its 500 ms."""
        def metrics(ctl):
            out = {}
            for line in ctl("stats", "--prometheus").splitlines():
                if line.startswith("toporr_job_") and not line.startswith("#"):
                    name, value = line.rsplit(" ", 1)
                    out[name] = float(value)
            return out

        spec = "allreduce:auto:1048576:0"
        with scratch_toporrd(TOPORRD, TOPORRCTL, self.tmp, "jobs") as ctl:
            ctl("ingest", "--format", "ibnetdiscover", FABRIC)
            self.assertEqual(metrics(ctl)["toporr_job_reports_total"], 0)
            job = self.run_job(8, [spec, spec], round_robin(8, 4), socket=ctl.socket)
            self.assertEqual([r["source"] for r in job.report], ["daemon", "daemon"])
            hosts = round_robin(8, 4)
            hosts[5] = "node99"
            missing = self.run_job(8, [spec], hosts, socket=ctl.socket)
            self.assertEqual(missing.report[0]["source"], "fallback")
            m = metrics(ctl)
            self.assertEqual(m["toporr_job_reports_total"], 2, m)
            # The second call of the first job reused the cached decision: one new decision.
            self.assertEqual(
                m['toporr_job_decisions_total{collective="allreduce",source="daemon"}'], 1, m)
            self.assertEqual(
                m['toporr_job_decisions_total{collective="allreduce",source="fallback"}'], 1, m)
            self.assertEqual(m['toporr_job_fallbacks_total{cause="unknown_host"}'], 1, m)
            self.assertEqual(sum(v for k, v in m.items()
                                 if k.startswith("toporr_job_fallbacks_total")), 1, m)
            self.run_job(8, [spec], round_robin(8, 4), socket=ctl.socket,
                         env={"TOPORR_JOB_METRICS": "0"})
            self.assertEqual(metrics(ctl)["toporr_job_reports_total"], 2)

        # The class's daemon stopped: each job's decision waits its 5 s deadline; the summary
        # at finalize waits 500 ms more at most (not another deadline).
        elapsed = {}
        self.daemon.send_signal(signal.SIGSTOP)
        try:
            for on in ("0", "1"):
                job = self.run_job(4, [spec], round_robin(4, 4),
                                   env={"TOPORR_DEADLINE_MS": "5000", "TOPORR_JOB_METRICS": on})
                self.assertEqual(job.report[0]["source"], "fallback")
                elapsed[on] = job.elapsed
        finally:
            self.daemon.send_signal(signal.SIGCONT)
        print(f"\nstopped daemon: job {elapsed['0']:.2f} s without the summary, "
              f"{elapsed['1']:.2f} s with it", file=sys.stderr)
        self.assertLess(elapsed["1"] - elapsed["0"], 2.0)

    def test_bound_ranks_use_hwloc_and_fall_back_when_it_fails(self):
        spec = "allreduce:auto:1048576:0"
        hosts = round_robin(2, 2)
        job = self.run_job(2, [spec], hosts, bind=True)
        self.assertEqual(job.warnings(), [], job.stderr)
        self.assertEqual(job.orders[spec][0]["source"], "daemon")
        # hwloc told to describe another machine (no usable topology of this one).
        job = self.run_job(2, [spec], hosts, bind=True,
                           rank_env={"HWLOC_THISSYSTEM": "0", "HWLOC_XMLFILE": "/nonexistent.xml"})
        self.check_fallback(job, spec, "hwloc")

    def test_fallback_when_the_communicator_cannot_be_made_on_one_rank(self):
        spec = "allreduce:auto:1048576:0"
        # A cache miss of a job of at most 256 hosts makes one communicator: the reordered
        # result (its leaders are known from the gathered host names, no split finds them),
        # by MPI_Comm_create on the reordered group.
        job = self.run_job(8, [spec], round_robin(8, 4), rank_env={
            "LD_PRELOAD": self.shim, "TOPORR_TEST_FAIL_SPLIT_CALL": "1",
            "TOPORR_TEST_FAIL_SPLIT_RANK": "5"})
        self.check_fallback(job, spec, "MPI_Comm_create")

    def test_collectives_fall_back_before_any_data_moves(self):
        # An unchanged Fortran program under the PMPI layer, one rank's MPI_Comm_create failing
        # inside the decision of its first intercepted collective (MPI_ALLREDUCE): that call
        # and its data go to the MPI library on the caller's communicator, the later
        # collectives are decided normally, and every result equals the plain run's.
        np = 8 if MPI == "openmpi" else 4
        hosts = round_robin(np, 4)
        plain = self.run_job(np, [], hosts, program=self.fcoll)
        job = self.run_job(np, [], hosts, program=self.fcoll, rank_env={
            "LD_PRELOAD": self.shim + ":" + PMPI, "TOPORR_TEST_FAIL_SPLIT_CALL": "1",
            "TOPORR_TEST_FAIL_SPLIT_RANK": str(np - 3)})
        self.assertEqual(sorted(job.stdout.splitlines()), sorted(plain.stdout.splitlines()))
        warnings = job.warnings()
        self.assertEqual(len(warnings), 1, job.stderr)
        self.assertIn("MPI_Comm_create", warnings[0])
        first = job.report[0]
        self.assertEqual((first["collective"], first["source"]), ("allreduce", "fallback"))
        self.assertEqual(first["new_order"], list(range(np)))
        self.assertTrue(any(r["source"] == "daemon" for r in job.report[1:]), job.report)

    def test_fallback_when_ranks_disagree(self):
        spec = "allreduce:ring:1048576:mixed"
        job = self.run_job(8, [spec], round_robin(8, 4))
        self.check_fallback(job, spec, "different arguments")


    # ---- erroneous programs, small communicators, a daemon that is down ----

    def test_ranks_passing_different_counts_fail_as_the_mpi_library_makes_them(self):
        """An erroneous program (rank 0 passes n elements to MPI_Allreduce, the others 2n),
        with no decision cached and with one cached for rank 0's size class: under the
        PMPI layer it fails the way the MPI library alone makes it fail (the library's own
        error), never a crash or a hang inside toporr."""
        hosts = round_robin(4, 4)
        for mode in ("counts-differ", "counts-differ-cached"):
            with self.subTest(mode=mode):
                plain = self.run_job(4, [mode], hosts, program=self.misuse, timeout=120,
                                     expect_success=False)
                self.assertNotEqual(plain.returncode, 0, plain.stdout)
                job = self.run_job(4, [mode], hosts, program=self.misuse, preload=True,
                                   timeout=120, expect_success=False)
                self.assertNotEqual(job.returncode, 0, job.stdout)
                self.assertNotIn(f"CHECK {mode}", job.stdout)
                self.assertLess(job.elapsed, 60)
                # The library reports the mismatch, as in the plain run. (Open MPI's abort of
                # an erroneous allreduce may itself crash in its error handler, or lose its
                # message in its own show_help; a crash must then be inside that handler,
                # after the library found the error, never in toporr's code.)
                if MPI == "openmpi":
                    # (Open MPI's show_help may lose the plain run's message as well.)
                    self.assertRegex(plain.stderr, "MPI_ERR_TRUNCATE|ORTE_ERROR_LOG")
                    crash = re.search(r"Segmentation fault|signal 11", job.stderr)
                    if crash:
                        self.assertRegex(job.stderr, "errors_are_fatal|errhandler_invoke")
                    else:
                        self.assertRegex(job.stderr, "MPI_ERR_TRUNCATE|ORTE_ERROR_LOG")
                else:
                    # MPICH's launcher may tear the job down before the aborting rank's
                    # message is forwarded (more often on a loaded machine, and under MPICH
                    # 4.2 often several times in a row), with toporr or without: each run must
                    # fail fast, one of twelve of each must show it.
                    for preload, run in ((False, plain), (True, job)):
                        for _ in range(11):
                            if "Fatal error in" in run.stderr:
                                break
                            run = self.run_job(4, [mode], hosts, program=self.misuse,
                                               preload=preload, timeout=120,
                                               expect_success=False)
                            self.assertNotEqual(run.returncode, 0, run.stdout)
                            self.assertLess(run.elapsed, 60)
                        self.assertIn("Fatal error in", run.stderr, f"preload={preload}")

    def test_bcast_with_one_signature_and_two_datatypes_is_correct(self):
        """MPI_Bcast of 4n MPI_INT at the root, n contiguous-of-4-int elsewhere (legal): the
        PMPI layer hands it to the MPI library, whose result is right."""
        job = self.run_job(4, ["bcast-types"], round_robin(4, 4), program=self.misuse,
                           preload=True)
        self.assertIn("CHECK bcast-types ok", job.stdout, job.stderr)
        self.assertEqual(job.warnings(), [], job.stderr)

    def test_communicators_of_one_rank_or_host_need_no_daemon_and_warn_once(self):
        """No daemon: MPI_COMM_SELF collectives ask nothing and warn nothing; a 3-way split
        (each part on several hosts) warns once per job, not once per part."""
        job = self.run_job(6, ["small-comms"], round_robin(6, 6), program=self.misuse,
                           preload=True, socket=os.path.join(self.tmp, "absent.sock"))
        self.assertIn("CHECK small-comms ok", job.stdout, job.stderr)
        self.assertEqual(len(job.warnings()), 1, job.stderr)
        self.assertIn("absent.sock", job.warnings()[0])
        singles = [r for r in job.report if r["size"] == 1]
        self.assertTrue(singles, job.report)
        for r in singles:
            self.assertEqual((r["source"], r["fallback_reason"]), ("local", None), r)
        # One host, several ranks: ordered from the intra-host costs, nothing asked.
        job = self.run_job(4, ["allreduce:auto:1048576:0"], ["node01"] * 4,
                           socket=os.path.join(self.tmp, "absent.sock"))
        self.assertEqual(job.warnings(), [], job.stderr)
        self.assertEqual(job.report[0]["source"], "local", job.report)

    def test_a_stalled_daemon_costs_one_deadline_per_job(self):
        """The daemon stopped (SIGSTOP: connections open, no answer): ten MPI_Comm_dup + 1 MiB
        allreduce steps pay the deadline about once (the back-off of row_source.h), not ten
        times, and warn once."""
        deadline_ms = 1000
        self.daemon.send_signal(signal.SIGSTOP)
        try:
            job = self.run_job(4, ["dups:10"], round_robin(4, 4), program=self.misuse,
                               preload=True, env={"TOPORR_DEADLINE_MS": str(deadline_ms)})
        finally:
            self.daemon.send_signal(signal.SIGCONT)
        self.assertIn("CHECK dups ok", job.stdout, job.stderr)
        elapsed = float(job.stdout.split("ELAPSED ")[1].split()[0])
        print(f"\nten steps against a stalled daemon: {elapsed:.2f} s (deadline "
              f"{deadline_ms / 1000:.1f} s)", file=sys.stderr)
        self.assertEqual(len(job.warnings()), 1, job.stderr)
        fallbacks = [r for r in job.report if r["source"] == "fallback"]
        self.assertEqual(len(fallbacks), 10, job.report)
        # One decision waited for the deadline; the others answered at once (their time is
        # the decision's MPI steps, however loaded the machine).
        waited = [r["elapsed_us"] for r in fallbacks if r["elapsed_us"] >= 900 * deadline_ms]
        self.assertEqual(len(waited), 1, [r["elapsed_us"] for r in fallbacks])

    def test_a_fallback_is_retried_once_the_daemon_answers(self):
        """The daemon down at the job's first decision (fallback), up again during the job:
        the cached fallback is decided anew at a later call (report: retry 1, source daemon),
        and the results are right throughout."""
        cls = type(self)
        cls.stop_daemon()
        report = os.path.join(self.tmp, "report.jsonl")
        if os.path.exists(report):
            os.unlink(report)

        def start_after_first_decision():  # bounded: 60 s
            for _ in range(1200):
                if os.path.exists(report) and os.path.getsize(report) > 0:
                    break
                time.sleep(0.05)
            cls.start_daemon()

        starter = threading.Thread(target=start_after_first_decision)
        starter.start()
        try:
            job = self.run_job(4, ["pause-then:12:4"], round_robin(4, 4), program=self.misuse,
                               preload=True, env={"TOPORR_DEADLINE_MS": "500"})
        finally:
            starter.join()
            if cls.daemon is None:
                cls.start_daemon()
        self.assertIn("CHECK pause-then ok", job.stdout, job.stderr)
        allreduce = [r for r in job.report if r["collective"] == "allreduce"]
        self.assertEqual((allreduce[0]["source"], allreduce[0]["retry"]), ("fallback", 0))
        retried = [r for r in allreduce if r["retry"] >= 1 and not r["cached"]]
        self.assertTrue(retried, allreduce)
        self.assertEqual(retried[0]["source"], "daemon", retried)

    def test_reproducible_reductions_are_bitwise_the_mpi_librarys(self):
        """TOPORR_REPRODUCIBLE=1: a 1 MiB double allreduce's result is bitwise the MPI
        library's (TOPORR_DISABLE=1), whether the daemon answers or not."""
        hosts = round_robin(8, 4)

        def bits(env, socket=None):
            job = self.run_job(8, ["sum-bits"], hosts, program=self.misuse, preload=True,
                               env=env, socket=socket)
            self.assertIn("CHECK sum-bits ok", job.stdout, job.stderr)
            return job.stdout.split("BITS ")[1].split()[0], job

        library, _ = bits({"TOPORR_DISABLE": "1"})
        repro, job = bits({"TOPORR_REPRODUCIBLE": "1"})
        self.assertEqual(repro, library)
        self.assertEqual([r for r in job.report if r["collective"] == "allreduce"], [])
        absent, _ = bits({"TOPORR_REPRODUCIBLE": "1"}, os.path.join(self.tmp, "absent.sock"))
        self.assertEqual(absent, library)


if __name__ == "__main__":
    unittest.main(verbosity=2)

#!/usr/bin/env python3
"""toporr inside Open MPI: the components mca_coll_toporr.so and mca_topo_toporr.so
(client/mpi/openmpi_component), found through OMPI_MCA_mca_base_component_path (a directory
holding them and a link to libtoporr.so, as a site's own component directory would), in real
MPI jobs (mpirun, no LD_PRELOAD) against a real toporrd, ranks placed on fabric hosts with
TOPORR_HOSTMAP.

Usage: openmpi_components_test.py openmpi [unittest args]; run by Bazel from the runfiles
tree. Shares mpi_test.py's job and daemon plumbing (only the tests below run). Checked:
  - ompi_info lists both components and their parameters (coll: priority 40, min_bytes and
    toporr's settings; topo: priority 50 and the settings decisions read); a TOPORR_* variable
    is a parameter's default, an OMPI_MCA_* one wins over it;
  - the topo component reorders MPI_Dist_graph_create and MPI_Dist_graph_create_adjacent
    (reorder = 1) as the PMPI layer does (same orders, same decisions), and MPI_Cart_create /
    MPI_Graph_create only on communicators whose map function Open MPI asks it for: the map
    functions agree with the constructors everywhere (topo_map_check's map, graphmap and
    cartwork, the Fortran grid), with correct coordinates, shifts and neighbour lists;
    `topo ^toporr` and topo_toporr_disable leave the library's order;
  - coll_check's collectives table with the coll component taking every call;
  - nonblocking_check's table and requests in flight through the module's nonblocking and
    persistent slots, with the run-time check off and on, decided from the daemon;
  - unchanged programs (stencil.c, fortran_coll.f90) print the same with the component as
    without, and toporr decides their large allreduce / bcast / reduce / allgather from the
    daemon's costs: one TOPORR_REPORT line each, the same decisions as the PMPI layer's
    (LD_PRELOAD=libtoporr_pmpi.so) for the same job;
  - an Open MPI of another series (a stand-in: MPI_Get_library_version preloaded) leaves
    both components out with one line each, the job unchanged;
  - every fallback cause of the PMPI suite (no daemon; a cost file that is not one; a host
    the fabric does not have; a stalled daemon; a daemon answering garbage; TLS with the
    wrong CA; MPI_Comm_create failing on one rank; hwloc failing for bound ranks): the
    identity order, the same output, one warning per job for both components, naming it;
  - a PMPI profiling tool linked into the program (pmpi_count.c) counts exactly the
    application's MPI_Allreduce calls while toporr decides (toporr's own steps call PMPI_*);
  - `coll ^toporr` (OMPI_MCA_coll) and coll_toporr_disable / coll_toporr_min_bytes leave no
    report line; coll_toporr_report moves the report.
"""
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mpi_test  # noqa: E402  (takes the MPI argument off sys.argv)
from mpi_test import MPI, make_test_certificates, round_robin  # noqa: E402

COMPONENTS = [os.path.join(mpi_test.ROOT, "client/mpi/openmpi_component", name)
              for name in ("mca_coll_toporr.so", "mca_topo_toporr.so")]


def ompi_info(*args):
    return subprocess.run(["ompi_info", *args], capture_output=True, text=True,
                          timeout=60).stdout


# Open MPI's own component directory (openmpi3 in Debian 12's 4.1, openmpi40 in Debian 13's
# 5.0) and the release series running here ("4.1", "5.0").
SYSTEM_COMPONENTS = ompi_info("--path", "pkglibdir").split(":", 1)[1].strip()
SERIES = ".".join(re.search(r"Open MPI v(\d+)\.(\d+)", ompi_info("--version")).groups())
# A series other than the one running, for the stand-in that reports it.
OTHER_SERIES = "Open MPI v4.1.6" if SERIES != "4.1" else "Open MPI v5.0.3"
# What a decision is, as two ways of running toporr for the same job must agree on it.
DECISION = ["collective", "bytes", "root", "algorithm", "chosen_algorithm", "new_order",
            "source", "size", "hosts"]


def collectives(report):
    """The coll component's decisions of a report (the topo component's are *_create)."""
    return [r for r in report if not r["collective"].endswith("_create")]


class OpenMpiComponentsTest(mpi_test.MpiTest):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix=f"toporr-components-{MPI}-")
        # Open MPI loads every mca_*.so of the path's directories: one holding only ours, and
        # the libtoporr.so they depend on (their RUNPATH has $ORIGIN).
        cls.components = os.path.join(cls.tmp, "components")
        os.mkdir(cls.components)
        for path in COMPONENTS + [os.path.join(mpi_test.LIBDIR, "libtoporr.so")]:
            os.symlink(os.path.realpath(path),
                       os.path.join(cls.components, os.path.basename(path)))
        cls.component_env = {
            "OMPI_MCA_mca_base_component_path": f"{cls.components}:{SYSTEM_COMPONENTS}"}
        cls.build("stencil", "counted", "fcoll", "check", "fcart", "topo_map", "coll",
                  "other_series", "shim", "nonblocking")
        cls.serve_demo_fabric()

    @classmethod
    def tearDownClass(cls):
        cls.stop_daemon()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def component_job(self, np, hosts, program, env=None, specs=(), **kwargs):
        return self.run_job(np, list(specs), hosts, program=program,
                            env={**self.component_env, **(env or {})}, **kwargs)

    def ompi_info(self, env, framework="coll"):
        p = subprocess.run(["ompi_info", "--param", framework, "toporr", "--level", "9",
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
        out = self.ompi_info({"TOPORR_DEADLINE_MS": "700"}, framework="topo")
        self.assertIn("mca:topo:toporr:version:", out)
        for name, value in [("priority", "50"), ("disable", "false"), ("report", ""),
                            ("deadline_ms", "700"), ("socket", "/run/toporr/toporrd.sock"),
                            ("costs", ""), ("hostmap", "")]:
            with self.subTest(name=name):
                self.assertIn(f"mca:topo:toporr:param:topo_toporr_{name}:value:{value}\n", out)
        self.assertNotIn("topo_toporr_min_bytes", out)  # a collective setting
        # Without the components' directory on the path, Open MPI has no such components.
        for framework in ["coll", "topo"]:
            plain = subprocess.run(["ompi_info", "--param", framework, "all", "--level", "9",
                                    "--parsable"], capture_output=True, text=True, timeout=60)
            self.assertNotIn(f"{framework}_toporr_priority", plain.stdout)

    def test_unchanged_programs_give_the_same_results_and_decisions(self):
        np = 16
        hosts = round_robin(np, 4)
        plain = self.run_job(np, [], hosts, program=self.stencil)
        job = self.component_job(np, hosts, self.stencil)
        self.assertEqual(job.stdout, plain.stdout)
        self.assertEqual(job.warnings(), [], job.stderr)
        # The stencil's large collectives through the coll component; its grid
        # (MPI_Cart_create on MPI_COMM_WORLD, reorder = 1) in MPI_COMM_WORLD's order, as Open
        # MPI's MPI_Cart_map answers there.
        self.assertEqual({r["collective"] for r in job.report}, {"allreduce", "bcast", "reduce"})
        colls = job.report
        self.assertTrue(all(r["source"] == "daemon" and r["bytes"] >= 65536
                            for r in colls), job.report)
        self.check_library_candidate(colls, np)
        # The PMPI layer also reorders the grid, so the collectives it decides run on another
        # order: the same calls are decided, from the same costs.
        pmpi = self.run_job(np, [], hosts, program=self.stencil, preload=True)
        key = lambda ds: [(d["collective"], d["bytes"], d["source"]) for d in ds]
        self.assertEqual(key(self.decisions(job)), key(d for d in self.decisions(pmpi)
                                                       if d["collective"] != "cart_create"))
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

    def test_collectives_table_with_the_component_taking_every_call(self):
        """coll_check's generated table (quick: 6 counts x datatypes x ops x in place / roots)
        compares each of toporr's algorithms with MPI_Allreduce / MPI_Allgather (its bcast
        results against values it computes), which here are the component's for every call
        (coll_toporr_min_bytes = 1): its decisions, reordered communicators and argument
        checks on every shape of call."""
        for np in (5, 8):
            with self.subTest(np=np):
                job = self.component_job(np, round_robin(np, 4), self.coll, specs=["quick"],
                                         env={"OMPI_MCA_coll_toporr_min_bytes": "1"})
                lines = [l for l in job.stdout.splitlines() if l.startswith("COLL ")]
                self.assertEqual(len(lines), 1, job.stdout)
                cases, failures = map(int, lines[0].split()[1:])
                self.assertGreater(cases, 600)
                self.assertEqual(failures, 0, job.stdout)
                self.assertEqual(job.warnings(), [], job.stderr)
                decided = {r["collective"] for r in job.report if r["algorithm"] == "auto"}
                self.assertTrue({"allreduce", "allgather"} <= decided, decided)

    def test_nonblocking_and_persistent_collectives_through_the_component(self):
        """The module's nonblocking and persistent slots: nonblocking_check.c's table
        (MPI_Iallreduce / Ireduce / Ibcast / Iallgather and the persistent *_init forms against
        the library's blocking results, user ops and derived datatypes among them) is right
        with the run-time check off and on, and its requests in flight (nonblocking and
        persistent allreduces and bcasts only, mixed with point-to-point) complete right with
        daemon decisions that reorder. The starts on toporr's communicators go below Open
        MPI's API, which retains a call's user op and datatypes once on the request it
        returns (client/mpi/library_starts.h)."""
        hosts = ["node01", "node05", "node01", "node05", "node02", "node06", "node02", "node06"]
        identity = list(range(8))
        for verify in ["0", "1"]:
            with self.subTest(verify=verify):
                env = {"OMPI_MCA_coll_toporr_min_bytes": "1",
                       "OMPI_MCA_coll_toporr_verify": verify}
                job = self.component_job(8, hosts, self.nonblocking, specs=["table", "quick"],
                                         env=env)
                self.assertIn("COLL 480 0", job.stdout)
                self.assertEqual(job.warnings(), [], job.stderr)
                self.assertTrue({"allreduce", "bcast", "reduce", "allgather"}
                                <= {r["collective"] for r in job.report}, job.report)
                job = self.component_job(8, hosts, self.nonblocking,
                                         specs=["inflight", "16", "20000"], env=env)
                self.assertEqual(job.checks["inflight"], ["ok"], job.stdout + job.stderr)
                # No blocking call in this mode: these decisions are the slots'.
                mine = [r for r in job.report if r["collective"] == "allreduce"]
                self.assertTrue(mine and all(r["source"] == "daemon" for r in mine), job.report)
                self.assertTrue(any(r["new_order"] != identity for r in mine), job.report)

    def test_fallbacks_identity_and_one_warning(self):
        """Every fallback cause of the PMPI suite, under the components: the identity order
        for the coll component's collectives, the output of the plain run, and one warning per
        job naming the cause."""
        np = 8
        hosts = round_robin(np, 4)
        plain = self.run_job(np, [], hosts, program=self.stencil)
        not_costs = os.path.join(self.tmp, "not_costs")
        with open(not_costs, "w") as f:
            f.write("this is not a cost file\n")
        unknown = ["node%02d" % (i % 4 + 1) for i in range(np - 1)] + ["no-such-host"]
        certs = make_test_certificates(self.tmp)
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            tls = f"127.0.0.1:{probe.getsockname()[1]}"
        fake = os.path.join(self.tmp, "fake-garbage.sock")
        split = {"LD_PRELOAD": self.shim, "TOPORR_TEST_FAIL_SPLIT_CALL": "1",
                 "TOPORR_TEST_FAIL_SPLIT_RANK": "5"}
        hwloc = {"HWLOC_THISSYSTEM": "0", "HWLOC_XMLFILE": "/nonexistent.xml"}
        deadline = {"TOPORR_DEADLINE_MS": "700"}
        cases = [
            # (cause, hosts, env, run_job arguments, what the warning names)
            ("no daemon", hosts, {}, {"socket": os.path.join(self.tmp, "absent.sock")},
             "absent.sock"),
            ("cost file", hosts, {"TOPORR_COSTS": not_costs}, {}, "not_costs"),
            ("unknown host", unknown, {}, {}, "no-such-host"),
            ("stalled daemon", hosts, deadline, {}, "TOPORR_DEADLINE_MS=700"),
            ("garbage answer", hosts, {"TOPORR_DEADLINE_MS": "1000"}, {"socket": fake},
             "toporrd"),
            ("TLS wrong CA", hosts, {"TOPORR_ADDRESS": tls, "TOPORR_TLS_CA": certs.other_ca,
                                     "TOPORR_DEADLINE_MS": "1000"},
             {"socket": "/nonexistent/toporrd.sock"}, "not valid for tls_ca"),
            ("the communicator fails on one rank", hosts, {}, {"rank_env": split},
             "MPI_Comm_create"),
            ("hwloc fails", hosts, {}, {"bind": True, "rank_env": hwloc}, "hwloc"),
        ]
        conf = (f"listen_address = {tls}\ntls_cert_path = {certs.server_cert}\n"
                f"tls_key_path = {certs.server_key}\n")
        garbage = subprocess.Popen([mpi_test.FAKE, "--socket", fake, "--mode", "garbage"],
                                   stderr=subprocess.DEVNULL)
        try:
            with mpi_test.scratch_toporrd(mpi_test.TOPORRD, mpi_test.TOPORRCTL, self.tmp,
                                          "components-tls", conf) as ctl:
                ctl("ingest", "--format", "ibnetdiscover", mpi_test.FABRIC)
                for _ in range(100):
                    if os.path.exists(fake):
                        break
                    time.sleep(0.05)
                for cause, job_hosts, env, kwargs, named in cases:
                    with self.subTest(cause=cause):
                        if cause == "stalled daemon":
                            self.daemon.send_signal(signal.SIGSTOP)
                        try:
                            job = self.component_job(np, job_hosts, self.stencil, env=env,
                                                     **kwargs)
                        finally:
                            if cause == "stalled daemon":
                                self.daemon.send_signal(signal.SIGCONT)
                        self.assertEqual(job.stdout, plain.stdout)
                        warnings = job.warnings()
                        self.assertEqual(len(warnings), 1, job.stderr)
                        self.assertIn(named, warnings[0])
                        self.assertIn("allreduce", {r["collective"] for r in job.report})
                        # A split fails once (in the first decision); the later ones succeed.
                        failed = job.report[:1] if kwargs.get("rank_env") is split else job.report
                        for r in failed:
                            self.assertEqual(r["source"], "fallback", r)
                            self.assertEqual(r["new_order"], list(range(np)), r)
        finally:
            garbage.kill()
            garbage.wait()

    def test_out_of_range_parameters_are_refused_with_one_warning(self):
        """An Open MPI parameter gets the check of its TOPORR_* variable: a value out of its
        range is refused with one warning naming the parameter and the range, and the
        process configuration's value is kept: the decisions of the default run, and a stalled
        daemon given up after the default deadline instead of never."""
        np = 4
        hosts = round_robin(np, 4)
        default = self.component_job(np, hosts, self.stencil)
        dist = self.component_job(np, hosts, self.check, specs=["dist"])
        cases = [
            # (parameter, value, program, what the warning says is expected)
            ("coll_toporr_deadline_ms", "0", self.stencil, "milliseconds in 1..600000"),
            ("coll_toporr_deadline_ms", "-5", self.stencil, "milliseconds in 1..600000"),
            # Open MPI reads an int64 this large as -1.
            ("coll_toporr_min_bytes", "99999999999999999999", self.stencil, "a byte count >= 0"),
            ("coll_toporr_verify_calls", "0", self.stencil, "a count in 1..50"),
            ("coll_toporr_verify_calls", "-5", self.stencil, "a count in 1..50"),
            ("topo_toporr_deadline_ms", "0", self.check, "milliseconds in 1..600000"),
        ]
        for name, value, program, expected in cases:
            with self.subTest(name=name, value=value):
                topo = program is self.check
                job = self.component_job(np, hosts, program, specs=["dist"] if topo else (),
                                         env={f"OMPI_MCA_{name}": value})
                baseline = dist if topo else default
                self.assertEqual(job.stdout, baseline.stdout)
                refused = [l for l in job.stderr.splitlines() if f"{name}=" in l]
                self.assertEqual(len(refused), 1, job.stderr)
                self.assertTrue(refused[0].startswith("toporr: warning: "), refused[0])
                self.assertIn(f"ignored: expected {expected}", refused[0])
                self.assertEqual(job.warnings(), [], job.stderr)
                self.assertEqual(self.decisions(job), self.decisions(baseline))
                if name == "coll_toporr_verify_calls":  # the run-time check still runs
                    self.assertEqual([len(v["toporr_us"]) for v in job.verified],
                                     [len(v["toporr_us"]) for v in default.verified])
        # A deadline too large to be one: with the daemon stalled the job ends after the
        # default deadline (2 s per decision) with the fallback, instead of hanging.
        self.daemon.send_signal(signal.SIGSTOP)
        try:
            started = time.monotonic()
            job = self.component_job(np, hosts, self.stencil, timeout=120,
                                     env={"OMPI_MCA_coll_toporr_deadline_ms": "2147483647"})
            elapsed = time.monotonic() - started
        finally:
            self.daemon.send_signal(signal.SIGCONT)
        self.assertEqual(job.stdout, default.stdout)
        self.assertIn("coll_toporr_deadline_ms=2147483647 ignored", job.stderr)
        self.assertEqual(len(job.warnings()), 1, job.stderr)
        self.assertTrue(all(r["source"] == "fallback" for r in job.report), job.report)
        self.assertLess(elapsed, 100)

    def test_another_open_mpi_series_refuses_the_components(self):
        """Both components, opened by an Open MPI whose MPI_Get_library_version names another
        series (a preloaded stand-in: one Open MPI here), say so in one line each and are left
        out: the job runs as without them, no decision, no crash; ompi_info lists neither."""
        np = 8
        hosts = round_robin(np, 4)
        plain = self.run_job(np, [], hosts, program=self.stencil)
        job = self.component_job(np, hosts, self.stencil,
                                 env={"TOPORR_TEST_OMPI_VERSION": f"{OTHER_SERIES}, package: x"},
                                 rank_env={"LD_PRELOAD": self.other_series})
        self.assertEqual(job.stdout, plain.stdout)
        self.assertEqual(job.report, [])
        errors = [l for l in job.stderr.splitlines() if l.startswith("toporr: error:")]
        self.assertEqual(sorted(errors), [
            f"toporr: error: mca_{fw}_toporr is built for Open MPI {SERIES}, this process runs "
            f"{OTHER_SERIES}: the component is not used" for fw in ("coll", "topo")],
            job.stderr)
        info = subprocess.run(["ompi_info", "--param", "coll", "toporr", "--level", "9",
                               "--parsable"], capture_output=True, text=True, timeout=60,
                              env={**os.environ, **self.component_env,
                                   "LD_PRELOAD": self.other_series,
                                   "TOPORR_TEST_OMPI_VERSION": f"{OTHER_SERIES}, package: x"})
        self.assertNotIn("coll_toporr_priority", info.stdout)
        self.assertIn(f"mca_coll_toporr is built for Open MPI {SERIES}", info.stderr)

    # ---- the topo component ----

    def test_topo_component_reorders_where_the_map_functions_agree(self):
        """Distributed graphs (no map function) are reordered as the PMPI layer reorders them.
        Cartesian and graph constructors on MPI_COMM_WORLD keep the launch order, because Open
        MPI answers MPI_Cart_map / MPI_Graph_map there without asking a component, and the two
        must agree."""
        np = 16
        hosts = round_robin(np, 8)
        specs = ["cart", "graph", "dist", "distgen"]
        job = self.component_job(np, hosts, self.check, specs=specs)
        pmpi = self.run_job(np, specs, hosts, preload=True)
        self.assertEqual(job.warnings(), [], job.stderr)
        for name in specs:
            with self.subTest(name=name):
                self.assertTrue(job.checks[name] and all(c == "ok" for c in job.checks[name]),
                                job.checks[name])
                self.assertNotEqual(pmpi.orders[name][0]["order"], list(range(np)))
                if name in ("cart", "graph"):
                    self.assertEqual(job.orders[name][0]["order"], list(range(np)))
                else:
                    self.assertEqual(job.orders[name][0]["order"],
                                     pmpi.orders[name][0]["order"])
        distributed = {"dist_graph_create", "dist_graph_create_adjacent"}
        self.assertEqual({r["collective"] for r in job.report}, distributed)
        self.assertTrue(all(r["source"] == "daemon" for r in job.report), job.report)
        self.assertEqual(self.decisions(job),
                         [d for d in self.decisions(pmpi) if d["collective"] in distributed])
        fortran = self.component_job(np, hosts, self.fcart)
        self.assertEqual(fortran.checks["fortran-cart"], ["ok"], fortran.stderr)
        self.assertEqual(fortran.checks["fortran-graph-map"], ["ok"], fortran.stderr)
        self.assertEqual(fortran.orders["fortran-cart"][0]["order"], list(range(np)))

    def test_topo_component_map_functions_answer_as_the_constructors(self):
        """mpi4py's testCartMap / testGraphMap and its Cartesian checks under the components
        alone (they hung a job when the constructors reordered on MPI_COMM_WORLD): every map
        call agrees with its constructor, on MPI_COMM_WORLD, MPI_COMM_SELF, duplicates and on
        Cartesian and graph communicators, where Open MPI asks the component and toporr
        reorders with the PMPI layer's order."""
        np = 8
        hosts = round_robin(np, 8)
        specs = ["map", "graphmap", "cartwork"]
        # Grids smaller than MPI_COMM_WORLD left out: Open MPI answers MPI_Cart_map there with
        # the caller's rank, not MPI_UNDEFINED, without asking any component.
        job = self.component_job(np, hosts, self.topo_map, specs=["full"] + specs, timeout=600)
        pmpi = self.run_job(np, ["map"], hosts, program=self.topo_map, preload=True, timeout=600)
        self.assertEqual(job.warnings(), [], job.stderr)
        for name in specs:
            self.assertEqual(job.checks[name], ["ok"], job.stderr)
        self.assertEqual(job.orders["cart-map"][0]["order"], list(range(np)))
        on_grid = job.orders["cart-map-on-grid"][0]["order"]
        self.assertNotEqual(on_grid, list(range(np)))
        self.assertEqual(on_grid, pmpi.orders["cart-map-on-grid"][0]["order"])
        decided = {r["collective"] for r in job.report if r["source"] == "daemon"}
        self.assertTrue({"cart_create", "graph_create"} <= decided, job.report)

    def test_topo_component_excluded_or_disabled_leaves_the_librarys_order(self):
        np = 16
        hosts = round_robin(np, 8)
        for env in [{"OMPI_MCA_topo": "^toporr"}, {"OMPI_MCA_topo_toporr_disable": "1"}]:
            with self.subTest(env=env):
                job = self.component_job(np, hosts, self.check, specs=["cart", "dist"], env=env)
                for name in ["cart", "dist"]:
                    self.assertEqual(job.checks[name], ["ok"] * len(job.checks[name]))
                    self.assertEqual(job.orders[name][0]["order"], list(range(np)))
                self.assertEqual(job.report, [])
                self.assertEqual(job.warnings(), [], job.stderr)

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
                self.assertEqual(collectives(job.report), [])
                self.assertEqual(job.warnings(), [], job.stderr)
        # coll_toporr_report wins over TOPORR_REPORT.
        moved = os.path.join(self.tmp, "moved.jsonl")
        job = self.component_job(np, hosts, self.stencil,
                                 env={"OMPI_MCA_coll_toporr_report": moved})
        self.assertEqual(collectives(job.report), [])
        with open(moved) as f:
            self.assertIn('"event":"decision"', f.read().replace(" ", ""))
        os.unlink(moved)


def load_tests(loader, tests, pattern):
    """This file's tests only (not mpi_test.MpiTest's, whose plumbing it shares)."""
    names = sorted(n for n in OpenMpiComponentsTest.__dict__ if n.startswith("test_"))
    return unittest.TestSuite(OpenMpiComponentsTest(n) for n in names)


if __name__ == "__main__":
    unittest.main(verbosity=2)

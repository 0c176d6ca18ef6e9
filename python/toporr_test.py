#!/usr/bin/env python3
"""The Python package against real parts: libtoporr_plan.so through ctypes, a real toporrd on
a scratch socket and over TLS (certificates made by openssl here), the site configuration
file, `toporrctl plan` as the reference for every order, a TOPORRC cost file, a C program
linked to the library, and toporr.torch's rank exchange over a real torch TCPStore between
processes (the fallbacks included). Run by Bazel from the runfiles root."""
import importlib.util
import json
import os
import socket
import subprocess
import sys
import tempfile
import textwrap
import unittest

ROOT = os.getcwd()
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "client/mpi/testing"))
sys.path.insert(0, os.path.join(ROOT, "testing/tls"))
from scratch_toporrd import plan_job_args, scratch_toporrd  # noqa: E402
from test_certs import make_test_certificates, tls_listener  # noqa: E402

LIBRARY = os.path.join(ROOT, "client/planapi/libtoporr_plan.so")
os.environ["TOPORR_PLAN_LIBRARY"] = LIBRARY
# The tests choose the daemon per case: TOPORR_CONFIG names no file, so no site file applies.
os.environ["TOPORR_CONFIG"] = "/nonexistent/client.conf"
import toporr  # noqa: E402

TOPORRD = os.path.join(ROOT, "daemon/toporrd")
TOPORRCTL = os.path.join(ROOT, "client/ctl/toporrctl")
HEADER_DIR = ROOT
FABRIC = os.path.join(ROOT, "deploy/demo/fattree-2l-16h.ibnet")
# The demo fabric's leaves hold node01-04, node05-08, ...: two hosts of two leaves each, two
# processes per host, dealt round-robin over the hosts.
ROUND_ROBIN = ["node01", "node05", "node02", "node06"] * 2

TORCH = None if importlib.util.find_spec("torch") else "python3-torch is not installed"


def metric(ctl, series):
    """The value of one series of the daemon's metrics (`toporrctl stats --prometheus`), 0
    when it has none."""
    for line in ctl("stats", "--prometheus").splitlines():
        if line.startswith(series + " "):
            return float(line.split()[1])
    return 0.0


class ScratchTest(unittest.TestCase):
    """A scratch directory per test class (cls.tmp), removed after it."""

    @classmethod
    def setUpClass(cls):
        cls.tmpdir = tempfile.TemporaryDirectory(prefix="toporr-python-")
        cls.tmp = cls.tmpdir.name

    @classmethod
    def tearDownClass(cls):
        cls.tmpdir.cleanup()

    def ctl_plan(self, ctl, hosts, size="64M", algorithm="ring", collective="allreduce"):
        """`toporrctl plan`'s new order for processes on `hosts`."""
        args = ["--json", "plan"] + plan_job_args(self.tmp, hosts) + [
            "--collective", collective, "--size", size]
        if algorithm:
            args += ["--algorithm", algorithm]
        return json.loads(ctl(*args))["new_order"]


class PackageTest(ScratchTest):
    def test_orders_costs_and_paths_from_a_real_daemon_equal_toporrctls(self):
        with scratch_toporrd(TOPORRD, TOPORRCTL, self.tmp, "plain") as ctl:
            ctl("ingest", "--format", "ibnetdiscover", FABRIC)
            with toporr.Planner(socket=ctl.socket) as planner:
                self.assertIn(ctl.socket, planner.source)
                for hosts, algorithm, size in [(ROUND_ROBIN, "ring", 64 << 20),
                                               (ROUND_ROBIN, None, 1 << 20),
                                               (["node09", "node01", "node13", "node05"],
                                                "recursive_doubling", 4 << 20)]:
                    with self.subTest(hosts=hosts, algorithm=algorithm):
                        plan = planner.order(hosts, size=size, algorithm=algorithm)
                        self.assertEqual(plan.order,
                                         self.ctl_plan(ctl, hosts, str(size), algorithm))
                        self.assertEqual(plan.snapshot_id, 1)
                        self.assertIn("toporrd snapshot 1", plan.source)
                plan = planner.order(ROUND_ROBIN, size=64 << 20, algorithm="ring")
                self.assertTrue(plan.reordered)
                self.assertLess(plan.planned_ns, plan.launch_ns)
                self.assertEqual([ROUND_ROBIN[r] for r in plan.order][:4],
                                 ["node01", "node01", "node02", "node02"])
                self.assertEqual(plan.new_rank(plan.order[5]), 5)
                self.assertEqual(toporr.nccl_split(plan.order, plan.order[3]), (0, 3))
                near, far = planner.cost("node01", "node02"), planner.cost("node01", "node05")
                self.assertGreater(far.latency_ns, near.latency_ns)
                served = json.loads(ctl("--json", "cost", "node01", "node05"))
                self.assertAlmostEqual(far.latency_ns, served["latency_ns"], places=3)
                path = planner.path("node01", "node05")
                served = json.loads(ctl("--json", "path", "node01", "node05"))
                self.assertEqual(served, {**served, **path})
                self.assertEqual(path["hops"], 3)
                with self.assertRaises(toporr.NotFound) as unknown:
                    planner.order(["node01", "nosuchhost"])
                self.assertIn("nosuchhost", unknown.exception.reason)
                self.assertEqual(unknown.exception.code, 5)
                with self.assertRaises(toporr.InvalidArgument):
                    planner.order(ROUND_ROBIN, collective="alltoallw")
                with self.assertRaises(toporr.InvalidArgument):
                    planner.order(ROUND_ROBIN, collective="bcast", root=8)

    def test_offline_dump_and_cost_file_plan_as_the_daemon(self):
        with scratch_toporrd(TOPORRD, TOPORRCTL, self.tmp, "export") as ctl:
            ctl("ingest", "--format", "ibnetdiscover", FABRIC)
            expected = self.ctl_plan(ctl, ROUND_ROBIN)
            costs = os.path.join(self.tmp, "job.costs")
            ctl("export", "--format", "costs", "--output", costs,
                *sorted(set(ROUND_ROBIN)))
        with toporr.Planner(fabric=FABRIC) as offline:
            self.assertEqual(offline.order(ROUND_ROBIN, size=64 << 20, algorithm="ring").order,
                             expected)
            self.assertEqual(offline.path("node01", "node05")["hops"], 3)
        with toporr.Planner(costs=costs, socket="/nonexistent/toporrd.sock") as from_file:
            self.assertEqual(
                from_file.order(ROUND_ROBIN, size=64 << 20, algorithm="ring").order, expected)
            with self.assertRaises(toporr.FailedPrecondition):
                from_file.path("node01", "node05")
        with self.assertRaises(toporr.NotFound) as missing:
            toporr.Planner(fabric="/nonexistent/f.ibnet").order(ROUND_ROBIN)
        self.assertIn("/nonexistent/f.ibnet", missing.exception.reason)
        bad = os.path.join(self.tmp, "bad.ibnet")
        with open(bad, "w") as f:
            f.write("Switch\t36 \"S-1\"\n[1]\tgarbage\n")
        with self.assertRaises(toporr.ToporrError) as parse:
            toporr.Planner(fabric=bad).order(["a", "b"])
        self.assertIn("bad.ibnet", parse.exception.reason)

    def test_settings_and_unreachable_daemons_raise_typed_errors(self):
        with self.assertRaises(toporr.InvalidArgument) as bad:
            toporr.Planner(deadline_ms=0)
        self.assertIn("deadline_ms", bad.exception.reason)
        with self.assertRaises(toporr.InvalidArgument):
            toporr.Planner(no_such_setting=1)
        with self.assertRaises(toporr.DaemonUnavailable) as down:
            toporr.Planner(socket="/nonexistent/toporrd.sock", deadline_ms=500).order(ROUND_ROBIN)
        self.assertIn("/nonexistent/toporrd.sock", down.exception.reason)
        with self.assertRaises(toporr.FailedPrecondition) as plaintext:
            toporr.Planner(address="192.0.2.1:50051")
        self.assertIn("tls_ca", plaintext.exception.reason)
        # A listening socket that never answers: DEADLINE_EXCEEDED within the deadline.
        with socket.socket() as silent:
            silent.bind(("127.0.0.1", 0))
            silent.listen()
            address = f"127.0.0.1:{silent.getsockname()[1]}"
            with self.assertRaises(toporr.DaemonUnavailable) as late:
                toporr.Planner(address=address, deadline_ms=300).order(ROUND_ROBIN)
            self.assertIn("deadline_ms=300", late.exception.reason)
        with scratch_toporrd(TOPORRD, TOPORRCTL, self.tmp, "empty") as ctl:
            with self.assertRaises(toporr.FailedPrecondition) as no_snapshot:
                toporr.Planner(socket=ctl.socket).order(ROUND_ROBIN)
            self.assertIn("no fabric has been ingested", no_snapshot.exception.reason)
        env = dict(os.environ, TOPORR_PLAN_LIBRARY="/nonexistent/libtoporr_plan.so")
        p = subprocess.run([sys.executable, "-c", "import toporr; toporr.Planner()"], env=env,
                           capture_output=True, text=True,
                           cwd=os.path.join(ROOT, "python"))
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("LibraryNotFound", p.stderr)
        self.assertIn("TOPORR_PLAN_LIBRARY", p.stderr)

    def test_job_counts_reach_the_daemons_metrics(self):
        decisions = 'toporr_job_decisions_total{collective="allreduce",source="daemon"}'
        unknown = 'toporr_job_fallbacks_total{cause="unknown_host"}'
        with scratch_toporrd(TOPORRD, TOPORRCTL, self.tmp, "metrics") as ctl:
            ctl("ingest", "--format", "ibnetdiscover", FABRIC)
            # Counted by the planner, sent at close: two orders, one unknown host, one
            # fallback of the caller's own.
            with toporr.Planner(socket=ctl.socket) as planner:
                planner.order(ROUND_ROBIN, size=64 << 20, algorithm="ring")
                planner.order(ROUND_ROBIN)
                with self.assertRaises(toporr.NotFound):
                    planner.order(["node01", "gpu-x"])
                planner.record_fallback(2, "the rank exchange timed out")
                self.assertEqual(metric(ctl, decisions), 0)
            self.assertEqual(metric(ctl, decisions), 2)
            self.assertEqual(metric(ctl, unknown), 1)
            self.assertEqual(metric(ctl, 'toporr_job_fallbacks_total{cause="other"}'), 1)
            self.assertEqual(metric(ctl, 'toporr_job_gain_ratio_count{kind="predicted"}'), 2)
            self.assertEqual(metric(ctl, "toporr_job_reports_total"), 1)
            # report() sends now and starts again; an empty planner sends nothing.
            with toporr.Planner(socket=ctl.socket) as planner:
                planner.order(ROUND_ROBIN)
                planner.report()
                self.assertEqual(metric(ctl, decisions), 3)
            self.assertEqual(metric(ctl, "toporr_job_reports_total"), 2)
            # A planner left open: the interpreter's exit sends its counts; switched off by
            # TOPORR_JOB_METRICS=0 or the setting.
            program = ("import toporr\np = toporr.Planner()\n"
                       f"p.order({ROUND_ROBIN!r})\n")
            env = dict(os.environ, TOPORR_SOCKET=ctl.socket,
                       PYTHONPATH=os.path.join(ROOT, "python"))
            subprocess.run([sys.executable, "-c", program], env=env, check=True)
            self.assertEqual(metric(ctl, decisions), 4)
            subprocess.run([sys.executable, "-c", program], env=dict(env, TOPORR_JOB_METRICS="0"),
                           check=True)
            with toporr.Planner(socket=ctl.socket, job_metrics="false") as planner:
                planner.order(ROUND_ROBIN)
            self.assertEqual(metric(ctl, decisions), 4)
            # Offline planners count nothing, and never reach for a daemon.
            with toporr.Planner(fabric=FABRIC) as offline:
                offline.order(ROUND_ROBIN)
                offline.report()
            self.assertEqual(metric(ctl, "toporr_job_reports_total"), 3)
        # No daemon: report() raises, close() stays quiet and quick.
        planner = toporr.Planner(socket="/nonexistent/toporrd.sock", deadline_ms=300)
        with self.assertRaises(toporr.DaemonUnavailable):
            planner.order(ROUND_ROBIN)
        with self.assertRaises(toporr.DaemonUnavailable):
            planner.report()
        planner.close()

    def test_a_standby_daemon_answers_when_the_first_is_down(self):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            live = f"127.0.0.1:{probe.getsockname()[1]}"
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            dead = f"127.0.0.1:{probe.getsockname()[1]}"  # nothing listens there
        with scratch_toporrd(TOPORRD, TOPORRCTL, self.tmp, "standby",
                             f"listen_address = {live}\n") as ctl:
            ctl("ingest", "--format", "ibnetdiscover", FABRIC)
            expected = self.ctl_plan(ctl, ROUND_ROBIN)
            with toporr.Planner(address=f"{dead},{live}", deadline_ms=2000) as planner:
                self.assertTrue(planner.source.startswith(f"toporrd at {dead},{live}"),
                                planner.source)
                plan = planner.order(ROUND_ROBIN, size=64 << 20, algorithm="ring")
                self.assertEqual(plan.order, expected)
                self.assertEqual(planner.cost("node01", "node05").latency_ns,
                                 json.loads(ctl("--json", "cost", "node01", "node05"))["latency_ns"])
        # Both down: one error naming both daemons.
        with self.assertRaises(toporr.DaemonUnavailable) as down:
            toporr.Planner(address=f"{dead},{live}", deadline_ms=1000).order(ROUND_ROBIN)
        self.assertIn(dead, down.exception.reason)
        self.assertIn(live, down.exception.reason)

    def test_tls_daemon_named_by_the_site_file(self):
        certs = make_test_certificates(self.tmp)
        address, conf = tls_listener(certs.server_cert, certs.server_key)
        site = os.path.join(self.tmp, "client.conf")
        with open(site, "w") as f:
            f.write(f"address = {address}\ntls_ca = {certs.ca}\n")
        os.chmod(site, 0o644)
        with scratch_toporrd(TOPORRD, TOPORRCTL, self.tmp, "tls", conf) as ctl:
            ctl("ingest", "--format", "ibnetdiscover", FABRIC)
            expected = self.ctl_plan(ctl, ROUND_ROBIN)
            program = textwrap.dedent("""
                import json, toporr
                p = toporr.Planner()
                print(json.dumps([p.source, p.order(%r, size=64 << 20, algorithm="ring").order]))
            """ % (ROUND_ROBIN,))
            env = dict(os.environ, TOPORR_CONFIG=site, PYTHONPATH=os.path.join(ROOT, "python"))
            out = subprocess.run([sys.executable, "-c", program], env=env, check=True,
                                 capture_output=True, text=True)
            source, order = json.loads(out.stdout)
            self.assertEqual(source, f"toporrd at {address} (TLS)")
            self.assertEqual(order, expected)
            with self.assertRaises(toporr.DaemonUnavailable) as wrong_ca:
                toporr.Planner(address=address, tls_ca=certs.other_ca).order(ROUND_ROBIN)
            self.assertIn("unable to get local issuer certificate", wrong_ca.exception.reason)

    def test_c_program_links_the_library(self):
        source = os.path.join(self.tmp, "plan_example.c")
        with open(source, "w") as f:
            f.write(textwrap.dedent(r"""
                #include <stdio.h>
                #include "client/toporr_plan.h"
                int main(int argc, char** argv) {
                  const char* settings[] = {argv[1]};
                  const char* hosts[] = {"node01", "node05", "node02", "node06"};
                  toporr_planner* p;
                  int32_t order[4];
                  toporr_plan_info info;
                  if (toporr_planner_open(settings, 1, &p) != TOPORR_PLAN_OK) return 2;
                  int rc = toporr_plan_order(p, hosts, 4, "allreduce", "ring", 1 << 24, 0,
                                             order, &info);
                  if (rc != TOPORR_PLAN_OK) return 3;
                  printf("%d %d %d %d %s %d\n", order[0], order[1], order[2], order[3],
                         info.algorithm, toporr_plan_new_rank(order, 4, 1));
                  rc = toporr_plan_order(p, hosts, 4, "allreduce", "ring", 1 << 24, 9, order,
                                         NULL);
                  printf("%d %s\n", rc, toporr_plan_last_error());
                  toporr_planner_close(p);
                  return 0;
                }
            """))
        binary = os.path.join(self.tmp, "plan_example")
        subprocess.run(["cc", "-std=c99", "-Wall", "-Werror", "-I", HEADER_DIR, source, LIBRARY,
                        "-Wl,-rpath," + os.path.dirname(os.path.realpath(LIBRARY)), "-o", binary], check=True)
        out = subprocess.run([binary, "fabric=" + FABRIC], check=True, capture_output=True,
                             text=True).stdout.splitlines()
        order = [int(x) for x in out[0].split()[:4]]
        self.assertEqual(sorted(order), [0, 1, 2, 3])
        self.assertEqual(out[0].split()[4], "ring")
        self.assertEqual(int(out[0].split()[5]), order.index(1))
        self.assertTrue(out[1].startswith("3 root 9"), out[1])


RANK_WORKER = textwrap.dedent("""
    import datetime, json, os, sys, warnings
    import torch.distributed as dist
    import toporr.torch
    rank, world, port, host = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    store = toporr.torch.tcp_store("127.0.0.1", port, world, rank == 0,
                                   datetime.timedelta(seconds=30))
    os.environ["TOPORR_HOST"] = host
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        new = toporr.torch.new_rank(store, rank, world, size=64 << 20, timeout=20)
    if os.environ.get("TOPORR_TEST_NCCL"):
        # NCCL on the new ranks: one GPU per process, a sum that needs every rank.
        import torch
        torch.cuda.set_device(rank % torch.cuda.device_count())
        dist.init_process_group("nccl", store=dist.PrefixStore("nccl", store), rank=new,
                                world_size=world)
        t = torch.full((1,), float(rank), device="cuda")
        dist.all_reduce(t)
        assert t.item() == world * (world - 1) / 2, t
        dist.destroy_process_group()
    print(json.dumps({"rank": rank, "new": new,
                      "warnings": [str(w.message) for w in caught]}))
    # Rank 0 serves the store: it stays until every process has its rank (at most 30 s).
    store.add("done", 1)
    for _ in range(600 if rank == 0 else 0):
        if store.add("done", 0) >= world:
            break
        import time; time.sleep(0.05)
""")


@unittest.skipIf(TORCH, TORCH)
class TorchRankTest(ScratchTest):
    """toporr.torch.new_rank between real processes sharing a real TCPStore on loopback, each
    told which host it stands for (TOPORR_HOST)."""

    def exchange(self, hosts, env):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        # USE_LIBUV=0: every torch has the plain TCPStore; Debian 13's has no other.
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"), USE_LIBUV="0", **env)
        procs = [subprocess.Popen([sys.executable, "-c", RANK_WORKER, str(r), str(len(hosts)),
                                   str(port), h], env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
                 for r, h in enumerate(hosts)]
        results = []
        try:
            for p in procs:
                out, err = p.communicate(timeout=120)
                self.assertEqual(p.returncode, 0, err)
                results.append(json.loads(out.splitlines()[-1]))
        finally:
            for p in procs:
                p.kill()
        return results

    def test_every_process_gets_its_rank_in_toporrctls_order(self):
        with scratch_toporrd(TOPORRD, TOPORRCTL, self.tmp, "torch") as ctl:
            ctl("ingest", "--format", "ibnetdiscover", FABRIC)
            expected = self.ctl_plan(ctl, ROUND_ROBIN)
            results = self.exchange(ROUND_ROBIN, {"TOPORR_SOCKET": ctl.socket})
        self.assertEqual([r["warnings"] for r in results], [[]] * 8)
        new = [r["new"] for r in results]
        self.assertEqual([new.index(i) for i in range(8)], expected)

    def test_nccl_communicator_on_the_new_ranks(self):
        import torch
        import torch.distributed as dist
        if not dist.is_nccl_available() or torch.cuda.device_count() < 2:
            self.skipTest("SKIPPED: NCCL needs a torch built with it and 2 GPUs "
                          f"({torch.cuda.device_count()} here)")
        hosts = ROUND_ROBIN[:torch.cuda.device_count() // 2 * 2]
        with scratch_toporrd(TOPORRD, TOPORRCTL, self.tmp, "nccl") as ctl:
            ctl("ingest", "--format", "ibnetdiscover", FABRIC)
            expected = self.ctl_plan(ctl, hosts)
            results = self.exchange(hosts, {"TOPORR_SOCKET": ctl.socket,
                                            "TOPORR_TEST_NCCL": "1"})
        new = [r["new"] for r in results]
        self.assertEqual([new.index(i) for i in range(len(hosts))], expected)

    def test_a_missing_daemon_keeps_the_launch_ranks_with_one_warning(self):
        results = self.exchange(ROUND_ROBIN, {"TOPORR_SOCKET": "/nonexistent/toporrd.sock",
                                              "TOPORR_DEADLINE_MS": "500"})
        self.assertEqual([r["new"] for r in results], list(range(8)))
        self.assertEqual(len(results[0]["warnings"]), 1)
        self.assertIn("/nonexistent/toporrd.sock", results[0]["warnings"][0])
        self.assertIn("keeping the launcher's ranks", results[0]["warnings"][0])
        self.assertEqual([r["warnings"] for r in results[1:]], [[]] * 7)

    def test_an_unknown_host_and_disable_keep_the_launch_ranks(self):
        with scratch_toporrd(TOPORRD, TOPORRCTL, self.tmp, "unknown") as ctl:
            ctl("ingest", "--format", "ibnetdiscover", FABRIC)
            hosts = ROUND_ROBIN[:3] + ["gpu-x"]
            results = self.exchange(hosts, {"TOPORR_SOCKET": ctl.socket})
            self.assertEqual([r["new"] for r in results], [0, 1, 2, 3])
            self.assertIn("gpu-x", results[0]["warnings"][0])
            results = self.exchange(ROUND_ROBIN, {"TOPORR_SOCKET": ctl.socket,
                                                  "TOPORR_DISABLE": "1"})
            self.assertEqual([r["new"] for r in results], list(range(8)))
            self.assertEqual([r["warnings"] for r in results], [[]] * 8)

    def test_rank_zero_reports_the_jobs_outcome_at_exit(self):
        with scratch_toporrd(TOPORRD, TOPORRCTL, self.tmp, "torchmetrics") as ctl:
            ctl("ingest", "--format", "ibnetdiscover", FABRIC)
            self.exchange(ROUND_ROBIN, {"TOPORR_SOCKET": ctl.socket})
            self.assertEqual(metric(ctl, "toporr_job_reports_total"), 1)
            self.assertEqual(
                metric(ctl, 'toporr_job_decisions_total{collective="allreduce",source="daemon"}'),
                1)
            self.exchange(ROUND_ROBIN[:3] + ["gpu-x"], {"TOPORR_SOCKET": ctl.socket})
            self.assertEqual(metric(ctl, 'toporr_job_fallbacks_total{cause="unknown_host"}'), 1)
            self.assertEqual(metric(ctl, "toporr_job_reports_total"), 2)


if __name__ == "__main__":
    unittest.main(verbosity=2)

#!/usr/bin/env python3
"""PyTorch jobs across the virtual cluster's hosts take their ranks from toporr: real
`torchrun` on 8 namespace hosts (2 processes each, node ranks dealt round-robin over the two
leaves), Gloo over the shaped fabric, toporrd on the head node. Each process learns its rank
through the job's own TCPStore (toporr.torch.init_process_group); the order must be exactly
`toporrctl plan`'s for the same processes, and with the daemon stopped every process keeps the
launcher's rank, one warning on the launcher's rank 0, and the job still runs."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torchrun_jobs import run_env_job, run_torchrun, torchrun_unusable  # noqa: E402
from vcluster_testing import main, namespaces_skip_reason, netns_of, vc  # noqa: E402

ROOT = os.getcwd()
NAME = "vtrank"
TOPORRD = os.path.join(ROOT, "daemon/toporrd")
TOPORRCTL = os.path.join(ROOT, "client/ctl/toporrctl")
LIBRARY = os.path.realpath(os.path.join(ROOT, "client/planapi/libtoporr_plan.so"))
PYTHON = os.path.realpath(os.path.join(ROOT, "python/toporr/__init__.py"))
JOB = os.path.realpath(os.path.join(ROOT, "testing/vcluster/torch_rank_job.py"))
PROCS = 2
# Where torchrun itself cannot run (Debian 13's torch), the processes are started with the
# variables torchrun would set, and env:// stands for its rendezvous.
TORCHRUN_UNUSABLE = torchrun_unusable() if os.path.exists("/usr/bin/torchrun") else None


def skip_reason():
    if not os.path.exists("/usr/bin/torchrun"):
        return "python3-torch is not installed (no /usr/bin/torchrun)"
    return namespaces_skip_reason(NAME)


class TorchVclusterTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if TORCHRUN_UNUSABLE:
            print(f"NOTE: {TORCHRUN_UNUSABLE}; the jobs start their processes without "
                  "torchrun, with the variables it would set", flush=True)
        cls.tmp = tempfile.mkdtemp(prefix="torch_vcluster_test.")
        vc("up", "--name", NAME, "--toporrd", TOPORRD, "--toporrctl", TOPORRCTL)
        try:
            cls.state = json.loads(vc("status", "--name", NAME, "--json").stdout)
            hosts = cls.state["layout"]["hosts"]
            leaves = {}
            for h in hosts:
                leaves.setdefault(h["leaf"], []).append(h["name"])
            # Node ranks round-robin over the leaves: node01, node05, node02, node06, ...
            cls.hosts = [h for pair in zip(*leaves.values()) for h in pair]
            cls.leaf_of = {h["name"]: h["leaf"] for h in hosts}
            cls.ip_of = {h["name"]: h["ip"] for h in hosts}
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        vc("down", "--name", NAME, check=False)
        assert not netns_of(NAME), netns_of(NAME)

    def job(self, tag):
        out = os.path.join(self.tmp, f"{tag}.json")
        env = ["GLOO_SOCKET_IFNAME=eth0", "OMP_NUM_THREADS=1", "USE_LIBUV=0",
               f"TOPORR_CONFIG={os.path.join(self.state['state_dir'], 'client.conf')}",
               f"PYTHONPATH={os.path.dirname(os.path.dirname(PYTHON))}",
               f"TOPORR_PLAN_LIBRARY={LIBRARY}", "TOPORR_DEADLINE_MS=2000"]
        launch = run_torchrun if TORCHRUN_UNUSABLE is None else run_env_job
        failed = launch(NAME, self.hosts, self.ip_of[self.hosts[0]], PROCS, JOB, [out], env,
                        os.path.join(self.tmp, tag), timeout=240)
        self.assertIsNone(failed, failed)
        with open(out) as f:
            return sorted(json.load(f), key=lambda r: r["launch"])

    def plan(self, rank_hosts):
        hostfile, ranks = os.path.join(self.tmp, "plan.hosts"), os.path.join(self.tmp, "plan.ranks")
        with open(hostfile, "w") as f:
            f.write("".join(f"{h} slots={PROCS}\n" for h in self.hosts))
        with open(ranks, "w") as f:
            f.write("".join(h + "\n" for h in rank_hosts))
        p = subprocess.run([TOPORRCTL, "--socket", self.state["toporrd"]["socket"], "--json",
                            "plan", "--hostfile", hostfile, "--ranks", ranks, "--collective",
                            "allreduce", "--algorithm", "ring", "--size", "64M"],
                           capture_output=True, text=True, check=True)
        return json.loads(p.stdout)

    def test_ranks_follow_toporrctl_plan(self):
        rows = self.job("planned")
        rank_hosts = [h for h in self.hosts for _ in range(PROCS)]
        self.assertEqual([r["host"] for r in rows], rank_hosts)
        self.assertEqual([r["warnings"] for r in rows], [[]] * len(rows))
        plan = self.plan(rank_hosts)
        new_order = sorted(range(len(rows)), key=lambda r: rows[r]["new"])
        self.assertEqual(new_order, plan["new_order"])
        # The ring now crosses each leaf's uplink once each way: one leaf after the other.
        ring = [rank_hosts[r] for r in new_order]
        crossings = sum(self.leaf_of[ring[i]] != self.leaf_of[ring[i - 1]]
                        for i in range(len(ring)))
        self.assertEqual(crossings, 2, ring)

    def test_daemon_stopped_keeps_the_launch_ranks(self):
        vc("daemon", "stop", "--name", NAME)
        try:
            rows = self.job("stopped")
        finally:
            vc("daemon", "start", "--name", NAME)
        self.assertEqual([r["new"] for r in rows], list(range(len(rows))))
        warned = [r["launch"] for r in rows if r["warnings"]]
        self.assertEqual(warned, [0], rows)
        self.assertEqual(len(rows[0]["warnings"]), 1)
        self.assertIn("keeping the launcher's ranks", rows[0]["warnings"][0])
        self.assertIn("toporrd", rows[0]["warnings"][0])


if __name__ == "__main__":
    main(skip_reason())

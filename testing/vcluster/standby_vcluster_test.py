#!/usr/bin/env python3
"""A standby toporrd across the hosts of the virtual cluster (testing/vcluster).

Usage: standby_vcluster_test.py [unittest args]. Run by Bazel (cwd = the runfiles tree), as
root. One cluster of 8 hosts; its head node runs toporrd as `vcluster up` starts it (TLS on
198.18.0.2:7450), and node08 runs a second toporrd (TLS on its own address, port 7451) that
ingests the same dump (the cluster's ibnetdiscover and dump_fts). The hosts' site
configuration lists both, head first: `address = 198.18.0.2:7450, <node08>:7451`, one CA, one
tls_server_name. Ranks find their hosts by gethostname() (no TOPORR_HOSTMAP). Checked, with
Open MPI jobs of 8 ranks on the 8 hosts and toporrctl on a host:
  - the head's daemon stopped (`vcluster daemon stop`): every decision's rows come from the
    standby, no warning; toporrctl answers from it, warning naming the head's address;
  - the head's daemon address unreachable from every host (a blackhole route): the same;
  - both down (the head's daemon stopped, the standby hanging): identity order, one warning
    naming both addresses, within the deadline.
Every namespace is removed at the end, also when a test fails. Where namespaces cannot be
created the run prints one line "SKIPPED: <why>" and exits 0.
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

ROOT = os.getcwd()
os.environ["PATH"] = os.environ.get("PATH", "/usr/bin:/bin") + ":/usr/local/sbin:/usr/sbin:/sbin"
VC = os.path.join(ROOT, "testing/vcluster/vcluster.py")
sys.path.insert(0, os.path.dirname(VC))
import vcluster_testing as vt  # noqa: E402
from vcluster_testing import netns_of  # noqa: E402
TOPORRD = os.path.join(ROOT, "daemon/toporrd")
TOPORRCTL = os.path.join(ROOT, "client/ctl/toporrctl")
CHECK_SRC = os.path.join(ROOT, "client/mpi/testing/toporr_check.c")
NAME = f"s{os.getpid() % 10000000}"
HOSTS = [f"node{i:02d}" for i in range(1, 9)]
HEAD_DAEMON = "198.18.0.2:7450"
STANDBY_HOST = "node08"
STANDBY_PORT = 7451
DEADLINE_MS = 2000
SPEC = "allreduce:ring:4194304:0"
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


def vc(*args, check=True, timeout=300):
    return vt.vc(*args, check=check, timeout=timeout, env=ENV)


def conf_values(path):
    """The key = value lines of a toporrd.conf."""
    values = {}
    with open(path) as f:
        for line in f:
            if "=" in line and not line.lstrip().startswith("#"):
                key, value = line.split("=", 1)
                values[key.strip()] = value.strip()
    return values


class Job(vt.ReportedJob):
    """A job of toporr_check: its CHECK verdicts besides the report."""

    def __init__(self, proc, elapsed, report_path):
        super().__init__(proc, elapsed, report_path)
        self.checks = [l.split()[2] for l in self.stdout.splitlines() if l.startswith("CHECK ")]


class StandbyVclusterTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="standby_vcluster_test.")
        cls.report_path = os.path.join(cls.tmp, "report.jsonl")
        cls.standby = None
        vc("up", "--name", NAME, "--toporrd", TOPORRD, "--toporrctl", TOPORRCTL)
        try:
            cls.state = json.loads(vc("status", "--name", NAME, "--json").stdout)
            cls.start_standby()
            cls.client_conf = os.path.join(cls.tmp, "client.conf")
            with open(cls.client_conf, "w") as f:
                f.write(f"address = {HEAD_DAEMON}, {cls.standby_address}\n"
                        f"tls_ca = {cls.state['toporrd']['ca']}\ntls_server_name = toporrd\n")
            libdir = os.path.dirname(os.path.realpath(
                os.path.join(ROOT, "client/mpi/openmpi/libtoporr.so")))
            cls.check = os.path.join(cls.tmp, "toporr_check")
            subprocess.run(["mpicc.openmpi", "-O1", "-Wno-stringop-overread", "-I", ROOT, "-o",
                            cls.check, CHECK_SRC, "-L", libdir, "-ltoporr",
                            f"-Wl,-rpath,{libdir}"], check=True)
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def start_standby(cls):
        """toporrd on node08 with the head daemon's certificate (it names "toporrd", which
        the clients check for both), its own database, the cluster's dump ingested."""
        host = next(h for h in cls.state["layout"]["hosts"] if h["name"] == STANDBY_HOST)
        cls.standby_address = f"{host['ip']}:{STANDBY_PORT}"
        head = conf_values(cls.state["toporrd"]["conf"])
        conf = os.path.join(cls.tmp, "standby.conf")
        with open(conf, "w") as f:
            f.write(f"tls_cert_path = {head['tls_cert_path']}\n"
                    f"tls_key_path = {head['tls_key_path']}\n"
                    f"listen_allowed_networks = {head['listen_allowed_networks']}\n")
        cls.standby_sock = os.path.join(cls.tmp, "standby.sock")
        with open(os.path.join(cls.tmp, "standby-toporrd.log"), "a") as log:
            # `vcluster exec` execs nsenter, which execs toporrd: this pid is the daemon's.
            cls.standby = subprocess.Popen(
                [sys.executable, VC, "exec", "--name", NAME, STANDBY_HOST, "--", TOPORRD,
                 "--config", conf, "--db", os.path.join(cls.tmp, "standby.db"), "--socket",
                 cls.standby_sock, "--listen", cls.standby_address], stdout=log, stderr=log,
                env=ENV)
        for _ in range(200):
            if subprocess.run([TOPORRCTL, "--socket", cls.standby_sock, "health"],
                              capture_output=True).returncode == 0:
                break
            time.sleep(0.05)
        else:
            raise RuntimeError("the standby toporrd did not become healthy")
        fabric = os.path.join(os.path.dirname(cls.state["toporrd"]["socket"]), "fabric")
        for fmt, dump in (("ibnetdiscover", "ibnetdiscover.txt"), ("lft", "dump_fts.txt")):
            subprocess.run([TOPORRCTL, "--socket", cls.standby_sock, "ingest", "--format", fmt,
                            os.path.join(fabric, dump)], check=True, capture_output=True)

    @classmethod
    def tearDownClass(cls):
        if cls.standby is not None:
            cls.standby.send_signal(signal.SIGCONT)
            cls.standby.terminate()
            try:
                cls.standby.wait(timeout=10)
            except subprocess.TimeoutExpired:
                cls.standby.kill()
                cls.standby.wait()
        vc("down", "--name", NAME, check=False)
        assert not netns_of(NAME), netns_of(NAME)

    def mpirun(self, env=None, timeout=180):
        """8 ranks, one per host, under Open MPI; the site configuration of the test."""
        rank_env = {"TOPORR_CONFIG": self.client_conf,
                    "TOPORR_SOCKET": "/nonexistent/toporrd.sock",
                    "TOPORR_REPORT": self.report_path, "TOPORR_DEADLINE_MS": str(DEADLINE_MS)}
        rank_env.update(env or {})
        cmd = [sys.executable, VC, "mpirun", "--name", NAME, "openmpi", "--host",
               ",".join(HOSTS), "--map-by", "node", "-np", str(len(HOSTS))]
        for k, v in rank_env.items():
            cmd += ["-x", f"{k}={v}"]
        cmd += [self.check, SPEC, SPEC]
        start = time.monotonic()
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=ENV,
                              cwd=self.tmp)
        job = Job(proc, time.monotonic() - start, self.report_path)
        self.assertEqual(job.returncode, 0, f"{cmd} failed:\n{job.stdout}\n{job.stderr}")
        self.assertEqual(job.checks, ["ok", "ok"], job.stdout)
        return job

    def host_toporrctl(self, host, *args):
        return vc("exec", "--name", NAME, host, "--", "env", f"TOPORR_CONFIG={self.client_conf}",
                  TOPORRCTL, *args, check=False)

    def standby_snapshot(self):
        p = subprocess.run([TOPORRCTL, "--socket", self.standby_sock, "--json", "snapshot"],
                           capture_output=True, text=True, check=True)
        return json.loads(p.stdout)[0]["id"]

    def assert_served_by_standby(self, job):
        self.assertEqual(job.warnings(), [], job.stderr)
        self.assertEqual([r["cached"] for r in job.report], [False, True], job.report)
        r = job.report[0]
        self.assertEqual(r["source"], "daemon", r)
        self.assertEqual(r["hosts"], 8)
        self.assertEqual(r["snapshot_id"], self.standby_snapshot())
        self.assertLess(r["elapsed_us"], DEADLINE_MS * 1000 + 1_000_000)

    def test_the_head_daemon_stopped(self):
        vc("daemon", "--name", NAME, "stop")
        try:
            job = self.mpirun()
            p = self.host_toporrctl("node03", "--json", "cost", "node01", "node05")
        finally:
            vc("daemon", "--name", NAME, "start")
        self.assert_served_by_standby(job)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout)["daemon_address"], self.standby_address)
        self.assertIn(f"toporrctl: warning: toporrd at {HEAD_DAEMON} (TLS): ", p.stderr)
        self.assertIn(f"toporrd at {self.standby_address} (TLS) answered", p.stderr)

    def test_the_report_names_the_standby(self):
        vc("daemon", "--name", NAME, "stop")
        try:
            job = self.mpirun()
        finally:
            vc("daemon", "--name", NAME, "start")
        self.assertEqual(job.report[0]["daemon_address"], self.standby_address)

    def test_the_head_daemon_unreachable_from_every_host(self):
        namespaces = [f"tvc-{NAME}-{h}" for h in HOSTS]
        try:
            for ns in namespaces:
                subprocess.run(["ip", "-n", ns, "route", "add", "blackhole", "198.18.0.2/32"],
                               check=True)
            job = self.mpirun()
            p = self.host_toporrctl("node05", "--json", "row", "node05")
        finally:
            for ns in namespaces:
                subprocess.run(["ip", "-n", ns, "route", "del", "blackhole", "198.18.0.2/32"],
                               capture_output=True)
        self.assert_served_by_standby(job)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout)["daemon_address"], self.standby_address)

    def test_both_down_one_warning_names_both(self):
        vc("daemon", "--name", NAME, "stop")
        self.standby.send_signal(signal.SIGSTOP)
        try:
            job = self.mpirun({"TOPORR_DEADLINE_MS": "1000"})
        finally:
            self.standby.send_signal(signal.SIGCONT)
            vc("daemon", "--name", NAME, "start")
        warnings = job.warnings()
        self.assertEqual(len(warnings), 1, job.stderr)
        self.assertIn("none of the 2 toporrd addresses answered", warnings[0])
        self.assertIn(f"toporrd at {HEAD_DAEMON} (TLS)", warnings[0])
        self.assertIn(f"toporrd at {self.standby_address} (TLS)", warnings[0])
        self.assertEqual(job.report[0]["source"], "fallback")
        self.assertLess(job.report[0]["elapsed_us"], 1000 * 1000 + 1_000_000)


if __name__ == "__main__":
    vt.main(vt.namespaces_skip_reason(NAME))

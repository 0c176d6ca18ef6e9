#!/usr/bin/env python3
"""A standby toporrd: two real daemons on loopback ports, clients given both addresses.

Usage: standby_test.py openmpi|mpich [unittest args]. Run by Bazel (cwd = the runfiles tree).
Each daemon has its own SQLite file and ingests the same dump (an 8-host fat tree made here by
collectors/sim: gen_fattree.py, then ibsim + OpenSM + ibnetdiscover); the standby ingested
another dump before it, so its snapshot of the shared dump has another id (2, the first's is
1) and every answer says which daemon it came from. Checked, for toporrctl and for libtoporr
decisions in real MPI jobs (TOPORR_HOSTMAP places the ranks on fabric hosts):
  - the first address a stopped daemon (a port nobody listens on): the standby answers,
    within the deadline; toporrctl warns naming the first, `--json` names the standby;
  - the first daemon hanging (SIGSTOP: it accepts connections and never answers): it costs
    its share of the deadline only, the standby answers within the deadline;
  - both down: toporrctl exits 1 and a job keeps the identity order with one warning, each
    on one line naming both addresses and why each failed, within the deadline;
  - an answer of the first daemon (an unknown host; a TLS certificate it presents that the CA
    does not accept) is the answer: the standby is not asked;
  - the TLS settings apply to every address; a job above the small-form size (its leaders
    ask by host-list ticket) gets every row from the daemon that issued the ticket;
  - leaders of one decision that reach different daemons do not mix their rows.
"""
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.join(os.getcwd(), "testing/tls"))
sys.path.insert(0, os.path.join(os.getcwd(), "testing/vcluster"))
from test_certs import make_test_certificates, tls_listener  # noqa: E402
from vcluster_testing import ReportedJob as Job  # noqa: E402

MPI = sys.argv.pop(1) if len(sys.argv) > 1 else "openmpi"
ROOT = os.getcwd()
TOPORRD = os.path.join(ROOT, "daemon/toporrd")
TOPORRCTL = os.path.join(ROOT, "client/ctl/toporrctl")
LIBDIR = os.path.dirname(os.path.realpath(os.path.join(ROOT, "client/mpi", MPI, "libtoporr.so")))
SIM = os.path.join(ROOT, "collectors/sim")

if MPI == "openmpi":
    MPICC = "mpicc.openmpi"
    MPIRUN = ["mpirun.openmpi", "--oversubscribe", "--bind-to", "none"]

    def env_flag(name, value):
        return ["-x", f"{name}={value}"]
else:
    MPICC = "mpicc.mpich"
    MPIRUN = ["mpirun.mpich"]

    def env_flag(name, value):
        return ["-genv", name, value]

HOSTS = [f"node{i:05d}" for i in range(1, 9)]
SPECS = ["allreduce:ring:1048576:0", "bcast:binomial:65536:0"]


def free_address():
    """A loopback HOST:PORT nobody listens on (bound and closed)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{probe.getsockname()[1]}"


def make_fabric(workdir, name, hosts_per_leaf):
    """An 8-host two-level fat tree's ibnetdiscover dump, by the real tools."""
    net = os.path.join(workdir, name + ".net")
    subprocess.run([sys.executable, os.path.join(SIM, "gen_fattree.py"), "--hosts", "8",
                    "--hosts-per-leaf", str(hosts_per_leaf), "--spines", "2", "--out", net],
                   check=True, capture_output=True)
    out = os.path.join(workdir, name)
    subprocess.run(["bash", os.path.join(SIM, "run_ibsim.sh"), net, out, "--topology-only",
                    "--timeout", "60"], check=True, capture_output=True)
    return os.path.join(out, "ibnetdiscover.txt")


class Daemon:
    """A real toporrd with its own database and socket, and a TCP listener on `address`
    (plaintext on loopback, or TLS with `config`'s certificate)."""

    def __init__(self, workdir, name, address=None, config=""):
        self.name, self.workdir = name, workdir
        self.address = address or free_address()
        self.sock = os.path.join(workdir, name + ".sock")
        self.conf = os.path.join(workdir, name + ".conf")
        with open(self.conf, "w") as f:
            f.write(config)
        self.proc = None
        self.start()

    def start(self):
        args = [TOPORRD, "--config=" + self.conf, "--db", os.path.join(self.workdir, self.name + ".db"),
                "--socket", self.sock]
        with open(self.conf) as f:
            if "listen_address" not in f.read():
                args += ["--listen", self.address]
        with open(os.path.join(self.workdir, self.name + "-toporrd.log"), "a") as log:
            self.proc = subprocess.Popen(args, stderr=log)
        for _ in range(200):
            if subprocess.run([TOPORRCTL, "--socket", self.sock, "health"],
                              capture_output=True).returncode == 0:
                return
            time.sleep(0.05)
        raise RuntimeError(f"toporrd {self.name} did not become healthy")

    def stop(self):
        if self.proc is not None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.terminate()
            self.proc.wait()
            self.proc = None

    def pause(self):
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self):
        self.proc.send_signal(signal.SIGCONT)

    def ctl(self, *args):
        p = subprocess.run([TOPORRCTL, "--socket", self.sock] + list(args), capture_output=True,
                           text=True, timeout=60)
        if p.returncode != 0:
            raise RuntimeError(f"toporrctl {' '.join(args)} ({self.name}): {p.stderr}")
        return p.stdout

    def requests(self, method):
        return json.loads(self.ctl("--json", "stats"))["requests"].get(method, 0)


class StandbyTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix=f"toporr-standby-{MPI}-")
        cls.daemons = []
        try:
            cls.fabric = make_fabric(cls.tmp, "fattree", 4)
            cls.other_fabric = make_fabric(cls.tmp, "fattree-2perleaf", 2)
            cls.first = cls.daemon("first")
            cls.standby = cls.daemon("standby")
            cls.first.ctl("ingest", "--format", "ibnetdiscover", cls.fabric)
            cls.standby.ctl("ingest", "--format", "ibnetdiscover", cls.other_fabric)
            cls.standby.ctl("ingest", "--format", "ibnetdiscover", cls.fabric)
            # No site configuration: the settings are the test's alone.
            cls.empty_config = os.path.join(cls.tmp, "client.conf")
            open(cls.empty_config, "w").close()
            cls.check = os.path.join(cls.tmp, "toporr_check")
            subprocess.run([MPICC, "-O1", "-Wno-stringop-overread", "-I", ROOT,
                            "client/mpi/testing/toporr_check.c", "-L", LIBDIR, "-ltoporr",
                            f"-Wl,-rpath,{LIBDIR}", "-o", cls.check], check=True)
            # Rank 0 takes TOPORR_ADDRESS from TOPORR_TEST_RANK0_ADDRESS when it is set.
            cls.rank0_wrapper = os.path.join(cls.tmp, "rank0_address.sh")
            with open(cls.rank0_wrapper, "w") as f:
                f.write('#!/bin/sh\nr=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}\n'
                        'if [ "$r" = 0 ] && [ -n "$TOPORR_TEST_RANK0_ADDRESS" ]; then\n'
                        '  TOPORR_ADDRESS=$TOPORR_TEST_RANK0_ADDRESS; export TOPORR_ADDRESS\n'
                        'fi\nexec "$@"\n')
            os.chmod(cls.rank0_wrapper, 0o755)
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def daemon(cls, name, **kwargs):
        d = Daemon(cls.tmp, name, **kwargs)
        cls.daemons.append(d)
        return d

    @classmethod
    def tearDownClass(cls):
        for d in cls.daemons:
            d.stop()

    def snapshot_of(self, daemon):
        return json.loads(daemon.ctl("--json", "snapshot"))[0]["id"]

    # ---- toporrctl ----

    def toporrctl(self, *args, timeout=60):
        start = time.monotonic()
        p = subprocess.run([TOPORRCTL, "--socket", "/nonexistent/toporrd.sock"] + list(args),
                           capture_output=True, text=True, timeout=timeout,
                           env=dict(os.environ, TOPORR_CONFIG=self.empty_config))
        return p, time.monotonic() - start

    def test_ctl_passes_over_a_stopped_daemon(self):
        dead = free_address()
        target = f"{dead},{self.standby.address}"
        p, took = self.toporrctl("--target", target, "--json", "cost", "node00001", "node00005")
        self.assertEqual(p.returncode, 0, p.stderr)
        answer = json.loads(p.stdout)
        self.assertEqual(answer["daemon_address"], self.standby.address)
        self.assertEqual(answer["snapshot_id"], self.snapshot_of(self.standby))
        lines = p.stderr.splitlines()
        self.assertEqual(len(lines), 1, p.stderr)
        self.assertRegex(lines[0], rf"^toporrctl: warning: toporrd at {dead} \(plaintext\): "
                                   r".*refused.*; toporrd at "
                                   rf"{self.standby.address} \(plaintext\) answered$")
        self.assertLess(took, 5)
        # --verbose says who answered; one address alone keeps the JSON as it was.
        p, _ = self.toporrctl("--target", target, "--verbose", "hosts")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(f"toporrctl: answered by toporrd at {self.standby.address}\n", p.stderr)
        p, _ = self.toporrctl("--target", self.standby.address, "--json", "cost", "node00001",
                              "node00005")
        self.assertNotIn("daemon_address", json.loads(p.stdout))
        self.assertEqual(p.stderr, "")

    def test_ctl_gives_a_hanging_daemon_its_share_of_the_timeout(self):
        self.first.pause()
        try:
            p, took = self.toporrctl("--target", f"{self.first.address},{self.standby.address}",
                                     "--timeout", "2", "--json", "row", "node00001")
        finally:
            self.first.resume()
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout)["daemon_address"], self.standby.address)
        self.assertIn(f"toporrd at {self.first.address} (plaintext) did not answer in time",
                      p.stderr)
        self.assertGreater(took, 0.9)  # the first one's share: half of the 2 s
        self.assertLess(took, 2.5)

    def test_ctl_with_no_daemon_answering_names_each_on_one_line(self):
        dead = free_address()
        self.first.pause()
        try:
            p, took = self.toporrctl("--target", f"{dead},{self.first.address}", "--timeout", "1",
                                     "hosts")
        finally:
            self.first.resume()
        self.assertEqual(p.returncode, 1)
        self.assertEqual(len(p.stderr.splitlines()), 1, p.stderr)
        self.assertRegex(p.stderr, rf"^toporrctl: cannot reach toporrd: none of the 2 toporrd "
                                   rf"addresses answered: toporrd at {dead} \(plaintext\): .*"
                                   rf"refused.*; toporrd at {self.first.address} \(plaintext\) "
                                   r"did not answer in time\n$")
        self.assertLess(took, 2)

    def test_ctl_takes_an_answer_as_it_is(self):
        before = self.standby.requests("GetCost")
        p, _ = self.toporrctl("--target", f"{self.first.address},{self.standby.address}",
                              "cost", "node00001", "node99999")
        self.assertEqual(p.returncode, 1)
        self.assertIn("node99999", p.stderr)
        self.assertNotIn("warning", p.stderr)
        self.assertEqual(self.standby.requests("GetCost"), before)
        p, _ = self.toporrctl("--target", f"{self.first.address},,{self.standby.address}", "hosts")
        self.assertEqual(p.returncode, 2)
        self.assertIn('--target', p.stderr)
        self.assertIn('element 2 "" is empty', p.stderr)

    def test_ctl_tls_applies_to_every_address_and_a_tls_failure_is_an_answer(self):
        certs = make_test_certificates(self.tmp, reuse=True)
        expired_address, expired_conf = tls_listener(certs.expired_cert, certs.expired_key)
        good_address, good_conf = tls_listener(certs.server_cert, certs.server_key)
        expired = self.daemon("tls-expired", address=expired_address, config=expired_conf)
        good = self.daemon("tls-good", address=good_address, config=good_conf)
        try:
            good.ctl("ingest", "--format", "ibnetdiscover", self.fabric)
            dead = free_address()
            p, _ = self.toporrctl("--target", f"{dead},{good.address}", "--tls-ca", certs.ca,
                                  "--json", "hosts")
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(json.loads(p.stdout)["daemon_address"], good.address)
            self.assertIn(f"toporrd at {good.address} (TLS) answered", p.stderr)
            before = good.requests("ListHosts")
            p, _ = self.toporrctl("--target", f"{expired.address},{good.address}", "--tls-ca",
                                  certs.ca, "hosts")
            self.assertEqual(p.returncode, 1)
            self.assertIn("certificate has expired", p.stderr)
            self.assertEqual(good.requests("ListHosts"), before)
        finally:
            expired.stop()
            good.stop()

    # ---- libtoporr in MPI jobs ----

    def run_job(self, env, np=8, specs=SPECS, rank0_address=None, timeout=180):
        hostmap = os.path.join(self.tmp, "hostmap")
        with open(hostmap, "w") as f:
            f.write("".join(HOSTS[r % 4] + "\n" for r in range(np)))  # 4 hosts, round robin
        report = os.path.join(self.tmp, "report.jsonl")
        job_env = dict(os.environ)
        job_env.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                        "OMPI_MCA_btl": "^tcp", "TOPORR_CONFIG": self.empty_config,
                        "TOPORR_SOCKET": "/nonexistent/toporrd.sock", "TOPORR_HOSTMAP": hostmap,
                        "TOPORR_REPORT": report})
        job_env.update(env)
        if rank0_address:
            job_env["TOPORR_TEST_RANK0_ADDRESS"] = rank0_address
        cmd = list(MPIRUN) + ["-np", str(np)]
        for name in ("TOPORR_CONFIG", "TOPORR_ADDRESS", "TOPORR_DEADLINE_MS",
                     "TOPORR_COMPRESS_ABOVE", "TOPORR_TEST_RANK0_ADDRESS"):
            if name in job_env:
                cmd += env_flag(name, job_env[name])
        cmd += [self.rank0_wrapper, self.check] + list(specs)
        start = time.monotonic()
        proc = subprocess.run(cmd, env=job_env, capture_output=True, text=True, timeout=timeout)
        job = Job(proc, time.monotonic() - start, report)
        self.assertEqual(job.returncode, 0, f"{cmd} failed:\n{job.stdout}\n{job.stderr}")
        self.assertTrue(job.report, job.stderr)
        return job

    def assert_from_standby(self, job):
        self.assertEqual(job.warnings(), [], job.stderr)
        snapshot = self.snapshot_of(self.standby)
        for r in job.report:
            self.assertEqual(r["source"], "daemon", r)
            self.assertEqual(r["snapshot_id"], snapshot, r)
            self.assertIsNone(r["fallback_reason"])

    def test_jobs_get_their_rows_from_the_standby_when_the_first_is_stopped(self):
        job = self.run_job({"TOPORR_ADDRESS": f"{free_address()},{self.standby.address}",
                            "TOPORR_DEADLINE_MS": "2000"})
        self.assert_from_standby(job)
        self.assertLess(job.report[0]["elapsed_us"], 2_000_000)

    def test_jobs_pass_over_a_hanging_first_daemon_within_the_deadline(self):
        self.first.pause()
        try:
            job = self.run_job({"TOPORR_ADDRESS": f"{self.first.address},{self.standby.address}",
                                "TOPORR_DEADLINE_MS": "2000"})
        finally:
            self.first.resume()
        self.assert_from_standby(job)
        first, second = job.report[0], job.report[1]
        # Every leader gave the hanging daemon its share (1 s of 2 s), then asked the standby;
        # the next decision asked the standby first.
        self.assertGreater(first["elapsed_us"], 900_000)
        self.assertLess(first["elapsed_us"], 3_000_000)
        self.assertLess(second["elapsed_us"], first["elapsed_us"] - 500_000)

    def test_a_ticket_job_gets_every_row_from_the_daemon_that_issued_the_ticket(self):
        # TOPORR_COMPRESS_ABOVE=1: rank 0 registers the host list, the leaders ask by ticket.
        job = self.run_job({"TOPORR_ADDRESS": f"{free_address()},{self.standby.address}",
                            "TOPORR_COMPRESS_ABOVE": "1"})
        self.assert_from_standby(job)
        self.assertEqual({r["cost_form"] for r in job.report}, {"groups"})

    def test_with_no_daemon_answering_one_warning_names_both(self):
        dead = free_address()
        self.first.pause()
        try:
            job = self.run_job({"TOPORR_ADDRESS": f"{dead},{self.first.address}",
                                "TOPORR_DEADLINE_MS": "1000"})
        finally:
            self.first.resume()
        warnings = job.warnings()
        self.assertEqual(len(warnings), 1, job.stderr)
        self.assertEqual([l for l in job.stderr.splitlines() if l.strip()], warnings)
        self.assertIn("none of the 2 toporrd addresses answered", warnings[0])
        self.assertRegex(warnings[0], rf"toporrd at {dead} \(plaintext\): \w+: .*refused")
        self.assertIn(f"toporrd at {self.first.address} (plaintext): GetCostRow: no answer within "
                      "its share of TOPORR_DEADLINE_MS=1000", warnings[0])
        for r in job.report:
            self.assertEqual(r["source"], "fallback")
        self.assertLess(job.report[0]["elapsed_us"], 2_000_000)

    def test_leaders_reaching_different_daemons_do_not_mix_rows(self):
        # Rank 0 (the leader of one host) asks the standby, the other leaders the first daemon:
        # their rows come from snapshots 2 and 1, and the decision keeps the identity order.
        job = self.run_job({"TOPORR_ADDRESS": self.first.address},
                           rank0_address=self.standby.address)
        self.assertEqual(len(job.warnings()), 1, job.stderr)
        self.assertIn("not mixing them", job.warnings()[0])
        self.assertEqual(job.report[0]["source"], "fallback")

    def test_the_report_names_the_daemon_that_answered(self):
        job = self.run_job({"TOPORR_ADDRESS": f"{free_address()},{self.standby.address}"})
        self.assertEqual([r["daemon_address"] for r in job.report],
                         [self.standby.address] * len(job.report))

    def test_rows_of_two_daemons_with_equal_snapshot_ids_are_not_mixed(self):
        # A third daemon whose snapshot 1 is another fabric (two hosts per leaf): rank 0's row
        # from it and the other leaders' from the first daemon carry the same snapshot id.
        third = self.daemon("third")
        try:
            third.ctl("ingest", "--format", "ibnetdiscover", self.other_fabric)
            self.assertEqual(self.snapshot_of(third), self.snapshot_of(self.first))
            job = self.run_job({"TOPORR_ADDRESS": self.first.address},
                               rank0_address=third.address)
        finally:
            third.stop()
        self.assertEqual(job.report[0]["source"], "fallback", job.report[0])


if __name__ == "__main__":
    unittest.main(verbosity=2)

#!/usr/bin/env python3
"""toporr across hosts: the virtual cluster (testing/vcluster) with real Open MPI and MPICH.

Usage: vcluster_test.py [unittest args]. Run by Bazel (cwd = the runfiles tree), as root.
One cluster for the whole run: 8 namespace hosts on 2 leaves of 4 (host links 400 Mbit/s,
leaf uplinks 400 Mbit/s: 4:1), a head node running toporrd with the cluster's own fabric
dump (ibsim + OpenSM + ibnetdiscover + dump_fts) ingested, serving TCP over TLS to the
cluster's network only. No TOPORR_HOSTMAP anywhere: a rank's host is its gethostname(),
leaders fetch their rows from the head over TLS, found through the cluster's site client
configuration (TOPORR_CONFIG = STATE/client.conf: address and CA). Checked:
  - the tool: it refuses a taken name and non-root users, removes a cluster whose creation
    was killed, and a 16 MiB transfer's time tracks the shaped rates (one flow at the host
    rate; four flows across the leaves share one uplink);
  - the fabric dump names the cluster's hosts; toporrd on the head serves them over TLS
    (toporrctl from a host with the site configuration) and refuses plaintext;
  - 16 ranks (8 hosts x 2, round-robin) under each MPI: reordered allreduces and a reordered
    MPI_Cart_create equal `toporrctl plan` for the hosts the ranks really ran on; results
    correct; rows from the daemon over TCP;
  - fallback across hosts: the head unreachable from one host (a blackhole route) -> identity
    on every rank, one warning naming the cause, within the deadline plus the MPI steps; the
    daemon stopped mid-job; the daemon restarted between two collectives;
  - an unchanged mpi4py program across the hosts under the drop-in and under Open MPI's
    coll/topo components (results, decisions; the components' for allreduce and bcast);
  - toporr-probe, measuring over the real network between the hosts of a cluster of its own,
    finds its leaves and the taper between them.
Where namespaces cannot be created the run prints one line "SKIPPED: <why>" and exits 0
(deploy/run-tests.sh counts it as skipped, not passed).
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
VC_MODULES = [os.path.join(ROOT, "testing/vcluster", m)  # imported by vcluster.py
              for m in ("vcluster_build.py", "vcluster_state.py")]
TOPORRD = os.path.join(ROOT, "daemon/toporrd")
TOPORRCTL = os.path.join(ROOT, "client/ctl/toporrctl")
CHECK_SRC = os.path.join(ROOT, "client/mpi/testing/toporr_check.c")
MPI4PY_CHECK = os.path.join(ROOT, "testing/vcluster/mpi4py_check.py")
COMPONENTS = [os.path.join(ROOT, "client/mpi/openmpi_component", name)
              for name in ("mca_coll_toporr.so", "mca_topo_toporr.so")]
PROBE = {"openmpi": os.path.join(ROOT, "probe/toporr-probe"),
         "mpich": os.path.join(ROOT, "probe/toporr-probe-mpich")}
NAME = f"t{os.getpid() % 10000000}"
HOSTS = [f"node{i:02d}" for i in range(1, 9)]
LEAF = {h: i // 4 for i, h in enumerate(HOSTS)}
DEADLINE_MS = 2000
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


def vc(*args, check=True, timeout=300):
    return vt.vc(*args, check=check, timeout=timeout, env=ENV)


def skip_reason():
    return vt.namespaces_skip_reason(NAME)


class Job(vt.ReportedJob):
    """A job of toporr_check: its ORDER, CHECK and HOSTS lines besides the report."""

    def __init__(self, proc, elapsed, report_path):
        super().__init__(proc, elapsed, report_path)
        self.orders, self.checks, self.hosts = {}, {}, []
        for line in self.stdout.splitlines():
            f = line.split()
            if len(f) >= 4 and f[0] == "ORDER":
                self.orders.setdefault(f[1], []).append(
                    {"source": f[2], "order": [int(x) for x in f[4:]]})
            elif len(f) >= 3 and f[0] == "CHECK":
                self.checks.setdefault(f[1], []).append(f[2])
            elif f and f[0] == "HOSTS":
                self.hosts = f[1:]


class VclusterTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="vcluster_test.")
        cls.report_path = os.path.join(cls.tmp, "report.jsonl")
        vc("up", "--name", NAME, "--toporrd", TOPORRD, "--toporrctl", TOPORRCTL)
        cls.state = json.loads(vc("status", "--name", NAME, "--json").stdout)
        cls.sock = cls.state["toporrd"]["socket"]
        cls.check, cls.pmpi = {}, {}
        for mpi in ("openmpi", "mpich"):
            cls.pmpi[mpi] = os.path.join(ROOT, "client/mpi", mpi, "libtoporr_pmpi.so")
            libdir = os.path.dirname(os.path.realpath(
                os.path.join(ROOT, "client/mpi", mpi, "libtoporr.so")))
            cls.check[mpi] = os.path.join(cls.tmp, f"toporr_check_{mpi}")
            subprocess.run([f"mpicc.{mpi}", "-O1", "-Wno-stringop-overread", "-I", ROOT, "-o",
                            cls.check[mpi], CHECK_SRC, "-L", libdir, "-ltoporr",
                            f"-Wl,-rpath,{libdir}"], check=True)

    @classmethod
    def tearDownClass(cls):
        vc("down", "--name", NAME, check=False)
        assert not netns_of(NAME), netns_of(NAME)

    def ctl(self, *args):
        p = subprocess.run([TOPORRCTL, "--socket", self.sock] + list(args), capture_output=True,
                           text=True)
        self.assertEqual(p.returncode, 0, f"toporrctl {' '.join(args)}: {p.stderr}")
        return p.stdout

    # ---- jobs ----

    def mpirun_cmd(self, mpi, np, program_args, env=None, program=None):
        """The launcher on the head node: np ranks round-robin over the 8 hosts (rank r on
        node(r % 8 + 1)); toporr's settings for the ranks."""
        rank_env = {"TOPORR_CONFIG": self.state["toporrd"]["client_conf"],
                    "TOPORR_SOCKET": "/nonexistent/toporrd.sock",
                    "TOPORR_REPORT": self.report_path, "TOPORR_DEADLINE_MS": str(DEADLINE_MS)}
        rank_env.update(env or {})
        if mpi == "openmpi":
            args = ["--host", ",".join(f"{h}:2" for h in HOSTS), "--map-by", "node",
                    "-np", str(np)]
            for k, v in rank_env.items():
                # Open MPI 5's launcher does not hand an MCA parameter given with -x to the
                # ranks' MCA system: --mca does, under 4.1 and 5.0.
                if k.startswith("OMPI_MCA_"):
                    args += ["--mca", k[len("OMPI_MCA_"):], v]
                else:
                    args += ["-x", f"{k}={v}"]
        else:
            args = ["-hosts", ",".join(HOSTS), "-n", str(np)]
            for k, v in rank_env.items():
                args += ["-genv", k, v]
        return [sys.executable, VC, "mpirun", "--name", NAME, mpi] + args + [
            program or self.check[mpi]] + list(program_args)

    def mpirun(self, mpi, np, program_args, env=None, timeout=180, program=None):
        cmd = self.mpirun_cmd(mpi, np, program_args, env, program)
        start = time.monotonic()
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=ENV,
                              cwd=self.tmp)
        job = Job(proc, time.monotonic() - start, self.report_path)
        self.assertEqual(job.returncode, 0, f"{cmd} failed:\n{job.stdout}\n{job.stderr}")
        return job

    def plan_order(self, hosts, spec):
        coll, alg, size, root = spec.split(":")
        hostfile = os.path.join(self.tmp, "plan.hosts")
        ranks = os.path.join(self.tmp, "plan.ranks")
        with open(hostfile, "w") as f:
            f.write("".join(f"{h} slots={hosts.count(h)}\n" for h in dict.fromkeys(hosts)))
        with open(ranks, "w") as f:
            f.write("".join(h + "\n" for h in hosts))
        args = ["--json", "plan", "--hostfile", hostfile, "--ranks", ranks, "--collective", coll,
                "--size", size, "--root", root]
        if alg != "auto":
            args += ["--algorithm", alg]
        return json.loads(self.ctl(*args))["new_order"]

    # ---- the tool ----

    def test_tool_refuses_a_taken_name_and_non_root(self):
        p = vc("up", "--name", NAME, "--no-fabric", check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn(f"cluster '{NAME}' exists already", p.stderr)
        public = tempfile.mkdtemp(prefix="vcluster_test.public.")  # readable by nobody
        os.chmod(public, 0o755)
        subprocess.run(["cp", VC] + VC_MODULES + [public], check=True)
        p = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                            sys.executable, os.path.join(public, "vcluster.py"), "up", "--name",
                            "nobody1", "--no-fabric"], capture_output=True, text=True, timeout=60)
        subprocess.run(["rm", "-rf", public])
        self.assertEqual(p.returncode, 1)
        self.assertIn("must run as root", p.stderr)
        p = vc("up", "--name", "bad-name", check=False)
        self.assertIn("--name must be", p.stderr)
        p = vc("up", "--name", f"u{NAME[1:]}", "--uplink-mbit", "300", "--no-fabric",
               check=False)
        self.assertIn("cannot express it", p.stderr)
        self.assertFalse(netns_of(f"u{NAME[1:]}"))

    def test_tool_removes_a_killed_creation(self):
        name = f"k{NAME[1:]}"
        proc = subprocess.Popen([sys.executable, VC, "up", "--name", name, "--no-fabric"],
                                stderr=subprocess.DEVNULL)
        for _ in range(200):  # killed while it builds: some hosts made, not all
            if len(netns_of(name)) >= 4:
                break
            time.sleep(0.02)
        proc.kill()
        proc.wait()
        self.assertTrue(netns_of(name), "the creation finished or never started")
        vc("down", "--name", name)
        self.assertEqual(netns_of(name), [])
        self.assertFalse(os.path.exists(f"/run/toporr-vcluster/{name}"))
        holders = subprocess.run(["pgrep", "-f", f"tvc-{name}-"], capture_output=True)
        self.assertNotEqual(holders.returncode, 0, holders.stdout)

    def transfer_seconds(self, pairs):
        """Seconds for every (sender, receiver) pair to move 16 MiB at once (the slowest)."""
        server = ("import socket,sys\ns=socket.socket()\n"
                  "s.setsockopt(socket.SOL_SOCKET,socket.SO_REUSEADDR,1);s.bind(('0.0.0.0',5001));s.listen(1)\n"
                  "c,_=s.accept();n=0\nwhile n<16<<20:\n b=c.recv(1<<20)\n if not b:break\n"
                  " n+=len(b)\nc.sendall(b'k')\n")
        client = ("import socket,sys,time\nfor i in range(100):\n try:\n"
                  "  c=socket.create_connection((sys.argv[1],5001),5);break\n"
                  " except OSError:time.sleep(0.05)\n"
                  "t=time.time();c.sendall(b'x'*(16<<20));c.recv(1);print(time.time()-t)\n")
        ips = {h: f"198.18.{LEAF[h] + 1}.{i + 1}" for i, h in enumerate(HOSTS)}
        servers = [subprocess.Popen([sys.executable, VC, "exec", "--name", NAME, r, "--",
                                     sys.executable, "-c", server]) for _, r in pairs]
        clients = [subprocess.Popen([sys.executable, VC, "exec", "--name", NAME, s, "--",
                                     sys.executable, "-c", client, ips[r]],
                                    stdout=subprocess.PIPE, text=True) for s, r in pairs]
        times = [float(c.communicate(timeout=60)[0]) for c in clients]
        for s in servers:
            s.wait(timeout=10)
        return max(times)

    def test_shaped_rates_bound_a_16_mib_transfer(self):
        ideal = 16 * 8 * 2**20 / 400e6  # 0.34 s at 400 Mbit/s
        one = self.transfer_seconds([("node01", "node05")])
        self.assertGreater(one, 0.9 * ideal)
        self.assertLess(one, 1.6 * ideal)
        # Four flows from leaf 1 to leaf 2 share its one 400 Mbit/s uplink: 4x as long.
        four = self.transfer_seconds([("node01", "node05"), ("node02", "node06"),
                                      ("node03", "node07"), ("node04", "node08")])
        print(f"\n16 MiB: one flow {one:.3f} s, four across the taper {four:.3f} s "
              f"(ideal {ideal:.3f} / {4 * ideal:.3f})", file=sys.stderr)
        self.assertGreater(four, 3.0 * one)
        self.assertLess(four, 6.0 * ideal)

    def test_fabric_dump_names_the_cluster_hosts(self):
        hosts = json.loads(self.ctl("--json", "hosts"))
        self.assertEqual([h["name"] for h in hosts["hosts"]], HOSTS)
        same = json.loads(self.ctl("--json", "cost", "node01", "node02"))
        cross = json.loads(self.ctl("--json", "cost", "node01", "node05"))
        self.assertLess(same["hops"], cross["hops"])
        # From a compute host over TCP: TLS with the site configuration, never plaintext.
        conf = self.state["toporrd"]["client_conf"]
        p = vc("exec", "--name", NAME, "node03", "--", "env", f"TOPORR_CONFIG={conf}",
               TOPORRCTL, "cost", "node01", "node05", check=False)
        self.assertEqual(p.returncode, 0, p.stderr)
        address = self.state["toporrd"]["address"]
        p = vc("exec", "--name", NAME, "node03", "--", "env", "TOPORR_CONFIG=/nonexistent",
               TOPORRCTL, "--target", address, "--insecure", "--timeout", "3", "health",
               check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn("is the daemon's listener TLS?", p.stderr)

    # ---- reordering across hosts ----

    def reorders_like_plan(self, mpi):
        specs = ["allreduce:ring:4194304:0", "allreduce:rabenseifner:4194304:0",
                 "allreduce:auto:4194304:0", "bcast:binomial:1048576:0"]
        job = self.mpirun(mpi, 16, ["hosts"] + specs)
        self.assertEqual(job.warnings(), [], job.stderr)
        self.assertEqual(job.hosts, [HOSTS[r % 8] for r in range(16)])
        for spec in specs:
            with self.subTest(mpi=mpi, spec=spec):
                self.assertEqual(job.checks[spec], ["ok"])
                got = job.orders[spec][0]
                self.assertEqual(got["source"], "daemon")
                self.assertEqual(got["order"], self.plan_order(job.hosts, spec))
        ring = job.orders["allreduce:ring:4194304:0"][0]["order"]
        self.assertNotEqual(ring, list(range(16)))  # round-robin over 2 leaves is poor
        # Ring neighbours on different leaves: toporr's ring crosses the taper twice only.
        crossings = sum(LEAF[job.hosts[ring[i]]] != LEAF[job.hosts[ring[(i + 1) % 16]]]
                        for i in range(16))
        self.assertEqual(crossings, 2)
        # MPI_Cart_create(reorder=1) of an unchanged program, through the PMPI layer.
        job = self.mpirun(mpi, 16, ["cart"], env={"LD_PRELOAD": self.pmpi[mpi]})
        self.assertEqual(job.warnings(), [], job.stderr)
        self.assertTrue(job.checks["cart"] and all(c == "ok" for c in job.checks["cart"]),
                        job.stdout)
        rep = {r["collective"]: r for r in job.report}
        self.assertEqual(rep["cart_create"]["source"], "daemon")
        self.assertEqual(rep["cart_create"]["hosts"], 8)
        self.assertNotEqual(job.orders["cart"][0]["order"], list(range(16)))

    def test_openmpi_reorders_like_plan(self):
        self.reorders_like_plan("openmpi")

    def test_mpich_reorders_like_plan(self):
        self.reorders_like_plan("mpich")

    def mpi4py_job(self, env, decided=("allreduce", "bcast", "cart_create")):
        """An unchanged mpi4py program (Debian's python3-mpi4py, built for Open MPI) on 16 ranks
        across the hosts with toporr entering as env says: its collectives' results are right
        and toporr decided them from the daemon's rows."""
        job = self.mpirun("openmpi", 16, [MPI4PY_CHECK], program="/usr/bin/python3", env=env)
        self.assertEqual(job.warnings(), [], job.stderr)
        line = [l.split() for l in job.stdout.splitlines() if l.startswith("MPI4PY ")]
        self.assertEqual(len(line), 1, job.stdout)
        self.assertEqual(line[0][2:18], [HOSTS[r % 8] for r in range(16)])
        for name in ("allreduce", "bcast", "reduce", "allgather", "cart"):
            self.assertEqual(job.checks.get(name), ["ok"], f"{name}: {job.stdout}")
        rep = {}
        for d in job.report:
            rep.setdefault(d["collective"], d)
        for coll in decided:
            self.assertIn(coll, rep, [d["collective"] for d in job.report])
            self.assertEqual(rep[coll]["source"], "daemon", rep[coll])
            self.assertEqual(rep[coll]["hosts"], 8)
        self.assertNotEqual(rep["allreduce"]["new_order"], list(range(16)))

    def test_mpi4py_drop_in_across_hosts(self):
        self.mpi4py_job({"LD_PRELOAD": self.pmpi["openmpi"]})

    def test_mpi4py_components_across_hosts(self):
        # Open MPI's coll and topo components, found in a directory of their own before the
        # system's: nothing preloaded.
        system = subprocess.run(["ompi_info", "--path", "pkglibdir"], capture_output=True,
                                text=True, check=True).stdout.split(":", 1)[1].strip()
        components = os.path.join(self.tmp, "components")
        if not os.path.isdir(components):
            os.mkdir(components)
            for path in COMPONENTS + [os.path.join(ROOT, "client/mpi/openmpi/libtoporr.so")]:
                os.symlink(os.path.realpath(path),
                           os.path.join(components, os.path.basename(path)))
        # The coll component's decisions; mpi4py's Create_cart reaches no topo component
        # decision (its reorder runs Open MPI's own).
        self.mpi4py_job({"OMPI_MCA_mca_base_component_path": f"{components}:{system}"},
                        decided=("allreduce", "bcast"))

    # ---- fallback across hosts ----

    def test_head_unreachable_from_one_host(self):
        spec = "allreduce:ring:4194304:0"
        ns = f"tvc-{NAME}-node03"
        subprocess.run(["ip", "-n", ns, "route", "add", "blackhole", "198.18.0.2/32"],
                       check=True)
        try:
            for mpi in ("openmpi", "mpich"):
                with self.subTest(mpi=mpi):
                    job = self.mpirun(mpi, 16, [spec])
                    self.assertEqual(job.checks[spec], ["ok"])
                    self.assertEqual(job.orders[spec][0]["order"], list(range(16)))
                    self.assertEqual(len(job.warnings()), 1, job.stderr)
                    # Rank 2 is node03's leader (round-robin), the one cut off.
                    self.assertIn("rank 2: toporrd at 198.18.0.2:7450", job.warnings()[0])
                    self.assertIn("rank 2:", job.report[0]["fallback_reason"])
                    # The deadline once, plus starting 16 ranks on 8 hosts and the steps.
                    self.assertLess(job.elapsed, DEADLINE_MS / 1000 + 20, job.elapsed)
        finally:
            subprocess.run(["ip", "-n", ns, "route", "del", "blackhole", "198.18.0.2/32"])

    def paused_job(self, mpi, specs_before, action, specs_after):
        """A job that pauses between two sets of decisions while action() runs."""
        gate = os.path.join(self.tmp, f"gate-{mpi}-{time.monotonic_ns()}")
        cmd = self.mpirun_cmd(mpi, 16, specs_before + [f"pause:{gate}"] + specs_after)
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=ENV, cwd=self.tmp)
        try:
            for _ in range(1200):
                if os.path.exists(gate + ".waiting") or proc.poll() is not None:
                    break
                time.sleep(0.05)
            self.assertTrue(os.path.exists(gate + ".waiting"), "the job never paused")
            action()
            open(gate + ".go", "w").close()
            out, err = proc.communicate(timeout=180)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        job = Job(subprocess.CompletedProcess(cmd, proc.returncode, out, err), 0,
                  self.report_path)
        self.assertEqual(job.returncode, 0, f"{out}\n{err}")
        return job

    def daemon_pid(self):
        return json.loads(vc("status", "--name", NAME, "--json").stdout)["pids"]["toporrd"]

    def test_daemon_stopped_mid_job_then_restarted(self):
        first, second = "allreduce:ring:4194304:0", "allreduce:rabenseifner:4194304:0"
        saved = {}

        def stop():
            pid = self.daemon_pid()
            saved["pid"] = pid
            os.kill(pid, signal.SIGTERM)
            for _ in range(200):
                if not os.path.exists(f"/proc/{pid}"):
                    break
                time.sleep(0.05)

        job = self.paused_job("openmpi", [first], stop, [second])
        self.assertEqual(job.orders[first][0]["source"], "daemon")
        self.assertNotEqual(job.orders[first][0]["order"], list(range(16)))
        self.assertEqual(job.orders[second][0]["order"], list(range(16)))
        self.assertEqual(job.checks[second], ["ok"])
        self.assertEqual(len(job.warnings()), 1, job.stderr)
        # Restarted between two collectives: the second decision is the daemon's again.
        vc("daemon", "--name", NAME, "start", "--toporrd", TOPORRD, "--toporrctl", TOPORRCTL)
        pid = self.daemon_pid()

        def restart():
            os.kill(self.daemon_pid(), signal.SIGTERM)
            time.sleep(0.5)
            vc("daemon", "--name", NAME, "start", "--toporrd", TOPORRD, "--toporrctl",
               TOPORRCTL)

        job = self.paused_job("openmpi", [first], restart, [second])
        self.assertNotEqual(self.daemon_pid(), pid)
        self.assertEqual(job.orders[first][0]["source"], "daemon")
        self.assertEqual(job.checks[second], ["ok"])
        after = job.orders[second][0]
        print(f"\nafter a restart: {after['source']}; warnings {job.warnings()}",
              file=sys.stderr)
        self.assertEqual(after["source"], "daemon", job.stderr)
        self.assertEqual(job.warnings(), [], job.stderr)

    # ---- the probe ----

    def test_probe_detects_the_leaves(self):
        # The probe over the real network on a cluster of its own: 4 hosts on 2 leaves whose
        # uplinks (200 Mbit/s) are slower than one host link (400 Mbit/s). The probe clusters
        # on the one-way time of its smallest message; over TCP between namespaces a small
        # message takes ~35 us whatever the path, so the leaves show in a message the shaped
        # rates bound (1 MiB: ~21 ms inside a leaf, at least ~42 ms across). On the main
        # cluster an uplink carries one host link's rate, so a single pair across the leaves
        # is as fast as one inside a leaf and only the rounds' contention tells them apart:
        # not a measurement a small shared machine reproduces run after run.
        name = f"p{NAME[1:]}"
        hosts = HOSTS[:4]
        vc("up", "--name", name, "--no-fabric", "--hosts", "4", "--hosts-per-leaf", "2",
           "--uplink-mbit", "200")
        try:
            out = os.path.join(self.tmp, "probe.json")
            cmd = [sys.executable, VC, "mpirun", "--name", name, "openmpi", "--host",
                   ",".join(hosts), "--map-by", "node", "-np", "4", PROBE["openmpi"], "--out",
                   out, "--sizes", "1048576", "--repetitions", "3"]
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=ENV,
                               cwd=self.tmp)
            self.assertEqual(p.returncode, 0, f"{cmd}:\n{p.stdout}\n{p.stderr}")
        finally:
            vc("down", "--name", name, check=False)
        with open(out) as f:
            probe = json.load(f)
        self.assertEqual(probe["hosts"], hosts)
        levels = probe["host_levels"]
        print("\nprobe levels: " + "; ".join(
            f"{l['name']} {l['groups']} {l['gbps']:.3f} Gb/s" for l in levels), file=sys.stderr)
        self.assertEqual([l["groups"] for l in levels],
                         [[0, 1, 2, 3], [0, 0, 1, 1], [0, 0, 0, 0]])  # host, leaf, top
        # The taper in the measured bandwidth: across the leaves at most the uplink's 200
        # Mbit/s (less when two pairs of a round share an uplink), well under half of a pair
        # inside a leaf (400 Mbit/s; a 1 MiB message measures above it, the shapers' buckets
        # pass its first 64 KiB at once).
        self.assertLess(levels[2]["gbps"], 0.25)
        self.assertLess(levels[2]["gbps"], 0.5 * levels[1]["gbps"])

    def test_calibrate_fits_the_emulated_network(self):
        # toporr-probe on four hosts of the main cluster (two per leaf) at three sizes, one pair
        # at a time (pairs across the leaves measured together would share the uplink), and the
        # cost model fitted to it: TCP's per-message latency and the emulated rates, which the
        # dump states as 4x QDR (32 Gb/s), far faster than the shapers let through.
        hosts = ["node01", "node02", "node05", "node06"]
        out = os.path.join(self.tmp, "calibrate_probe.json")
        cmd = [sys.executable, VC, "mpirun", "--name", NAME, "openmpi", "--host",
               ",".join(hosts), "--map-by", "node", "-np", "4", PROBE["openmpi"], "--out", out,
               "--sizes", "0,65536,1048576", "--repetitions", "5", "--serial"]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=ENV,
                           cwd=self.tmp)
        self.assertEqual(p.returncode, 0, f"{cmd}:\n{p.stdout}\n{p.stderr}")
        dump = os.path.join(self.state["state_dir"], "fabric", "ibnetdiscover.txt")
        model = os.path.join(self.tmp, "model.conf")
        fit = json.loads(self.ctl("--json", "calibrate", "--kind", "tcp", "--fabric", dump,
                                  "--output", model, out))
        text = self.ctl("calibrate", "--kind", "tcp", "--fabric", dump, out)
        print(f"\n{text}", file=sys.stderr)
        mbit = self.state["layout"]["host_mbit"]
        self.assertEqual(fit["pairs"], 6)
        self.assertEqual(sorted(c["switches"] for c in fit["classes"]), [1, 3])
        # Over kernel TCP between namespaces a message costs about ten microseconds or more,
        # measured and as the fitted model predicts it (which of the model's latency terms
        # carries it, per message or per switch, the few classes leave to the fit).
        for c in fit["classes"]:
            self.assertGreater(c["measured_latency_ns"], 5000, c)
            self.assertGreater(c["fitted_latency_ns"], 5000, c)
        for c in fit["classes"]:
            self.assertGreater(c["fitted_gbps"], 0.5 * mbit / 1000, c)
            self.assertLess(c["fitted_gbps"], 1.5 * mbit / 1000, c)
        self.assertGreater(fit["within_25_percent_fitted"], fit["within_25_percent_preset"])
        # A third of the points are empty messages, whose time on a shared 2-core machine is
        # the scheduler's as much as the network's: half the points, not all.
        self.assertGreaterEqual(fit["within_25_percent_fitted"], 0.5 * fit["points"], fit)
        with open(model) as f:
            lines = f.read()
        self.assertIn("cost_model = tcp\n", lines)
        self.assertIn("cost_model_host_rate_scale = ", lines)
        # The file is a plan's model: a ring over the 8 hosts (one rank each, in leaf order:
        # no uplink carries two flows) then takes about what the host links allow.
        hf = os.path.join(self.tmp, "calibrate.hosts")
        with open(hf, "w") as f:
            f.write("".join(f"{h} slots=1\n" for h in HOSTS))
        plan = ["--json", "plan", "--fabric", dump, "--hostfile", hf, "--map-by", "node",
                "--collective", "allreduce", "--algorithm", "ring", "--size", "1048576"]
        fitted = json.loads(self.ctl(*plan, "--cost-model", model))["before"]["time_ns"]
        preset = json.loads(self.ctl(*plan))["before"]["time_ns"]
        ideal = 2 * 7 / 8 * 1048576 * 8 / (mbit * 1e6) * 1e9
        print(f"ring 1 MiB over 8 hosts: fitted model {fitted / 1e6:.1f} ms, InfiniBand "
              f"preset {preset / 1e6:.2f} ms, the host links' bound {ideal / 1e6:.1f} ms",
              file=sys.stderr)
        self.assertGreater(fitted, 0.7 * ideal)
        self.assertLess(fitted, 2.0 * ideal)
        self.assertLess(preset, 0.1 * ideal)
        # toporrd serving from the fitted model: its costs carry the per-message latency and
        # the scaled rates, the topology keeps the fabric's.
        before = json.loads(self.ctl("--json", "cost", "node01", "node05"))
        vc("daemon", "--name", NAME, "start", "--cost-model", model)
        try:
            after = json.loads(self.ctl("--json", "cost", "node01", "node05"))
        finally:
            vc("daemon", "--name", NAME, "start")
        print(f"node01-node05 served: preset {before['latency_ns']:.0f} ns "
              f"{before['bottleneck_gbps']} Gb/s; fitted {after['latency_ns']:.0f} ns "
              f"{after['bottleneck_gbps']:.3f} Gb/s", file=sys.stderr)
        f, h = fit["fitted"], before["hops"]
        self.assertEqual(after["hops"], h)
        self.assertAlmostEqual(after["latency_ns"],
                               f["nic_latency_ns"] + f["per_message_ns"]
                               + h * f["switch_latency_ns"] + (h + 1) * f["link_latency_ns"],
                               delta=2)
        self.assertAlmostEqual(after["bottleneck_gbps"],
                               before["bottleneck_gbps"] * min(fit["fitted"]["host_rate_scale"],
                                                               fit["fitted"]["switch_rate_scale"]),
                               delta=1e-3)
        self.assertEqual(json.loads(self.ctl("--json", "cost", "node01", "node05"))["latency_ns"],
                         before["latency_ns"])

if __name__ == "__main__":
    vt.main(skip_reason())

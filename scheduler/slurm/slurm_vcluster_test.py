#!/usr/bin/env python3
"""Slurm's own rank orders across the virtual cluster's hosts, with toporr's exports.

Usage: slurm_vcluster_test.py [unittest args]. Run by Bazel (cwd = the runfiles tree), as root.
A cluster of the virtual cluster's tapered profile (8 hosts on 2 leaves of 4, toporrd on the
head node with the cluster's own fabric dump) becomes a Slurm cluster: slurmctld on the head
node, a slurmd on every host (NodeName = the host's name, auth/none, each in its host's
namespaces). The hosts' names interleave the leaves (leaf1 holds node01, node03, node05,
node07), as a site's naming often does. Checked, each with a real `srun -N 8 -n 8`:
  - without a topology: the tasks run in node name order (rank 0 on node01, rank 1 on node02,
    ...), across the leaves at every step: the launch order a job otherwise gets;
  - `TopologyPlugin=topology/tree` + `TopologyParam=SwitchAsNodeRank` with the
    topology.conf that `toporrctl export --format slurm-topology` wrote from the daemon
    (`scontrol show topology` lists its leaves): the tasks run leaf by leaf, exactly the
    leaf-sorted order `toporrctl plan` reports for that launch order (`leaf_sorted_order`):
    the free baseline, from Slurm itself (Slurm 23 and later: Debian 13's 24.11; Debian 12's
    22.05 ranks nodes by switch for selection only and keeps the tasks in name order, which
    the test asserts there);
  - the SLURM_HOSTFILE that `toporrctl plan --slurm-hostfile` writes for the launch order's
    hosts, run with `srun --distribution=arbitrary`: the tasks run on the hosts of the
    plan's new order, rank by rank.
Where namespaces cannot be created or Slurm's daemons are missing the run prints one line
"SKIPPED: <why>" and exits 0.
"""
import json
import os
import re
import shutil
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
from vcluster_state import HEAD_IP  # noqa: E402
from vcluster_testing import main, namespaces_skip_reason, vc  # noqa: E402
TOPORRD = os.path.join(ROOT, "daemon/toporrd")
TOPORRCTL = os.path.join(ROOT, "client/ctl/toporrctl")
NAME = f"s{os.getpid() % 10000000}"
HOSTS = [f"node{i:02d}" for i in range(1, 9)]
# The hosts' names interleave the two leaves (leaf1: node01, node03, node05, node07), as a
# site's naming often does: Slurm, which orders a job's nodes by name, starts every job
# across the leaves.
LEAF_ORDER = HOSTS[0::2] + HOSTS[1::2]
CTLD_PORT, SLURMD_PORT = 6817, 6818  # inside the cluster's own network namespaces


def slurm_version():
    """(major, minor) of the installed Slurm, from `slurmd -V` (the client tools need a
    configuration first)."""
    out = subprocess.run(["slurmd", "-V"], capture_output=True, text=True).stdout
    m = re.search(r"(\d+)\.(\d+)", out)
    if not m:
        raise RuntimeError(f"slurmd -V: no version in {out!r}")
    return int(m.group(1)), int(m.group(2))


def skip_reason():
    for tool in ("slurmctld", "slurmd", "srun", "sinfo"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (deploy/install-deps.sh)"
    return namespaces_skip_reason(NAME)


class SlurmOnTheClusterTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.mkdtemp(prefix="slurm_vcluster_test.")
        os.chmod(cls.work, 0o755)
        vc("up", "--name", NAME, "--host-names", ",".join(LEAF_ORDER), "--toporrd", TOPORRD,
           "--toporrctl", TOPORRCTL)
        cls.state = json.loads(vc("status", "--name", NAME, "--json").stdout)
        cls.sock = cls.state["toporrd"]["socket"]
        cls.ip = {h["name"]: h["ip"] for h in cls.state["layout"]["hosts"]}
        cls.leaf = {h["name"]: h["leaf"] for h in cls.state["layout"]["hosts"]}
        cls.daemons = []

    @classmethod
    def tearDownClass(cls):
        cls.stop_slurm()
        vc("down", "--name", NAME, check=False)
        if not os.environ.get("KEEP_WORK"):
            shutil.rmtree(cls.work, ignore_errors=True)

    # ---- Slurm on the cluster ----

    @classmethod
    def on(cls, host, argv):
        """argv inside host's namespaces (nsenter execs it: the pid is argv's)."""
        pid = cls.state["pids"][f"holder-{host}"]
        return ["nsenter", "-t", str(pid), "--net", "--uts", "--ipc", "--mount", "--root",
                f"--wd={cls.work}"] + argv

    @classmethod
    def stop_slurm(cls):
        for p in cls.daemons:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in cls.daemons:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        cls.daemons = []

    def start_slurm(self, tag, topology_lines):
        """slurmctld on the head and a slurmd on every host, with the slurm.conf of tag in a
        directory of its own (topology.conf beside it); returns SLURM_CONF once every node
        is idle."""
        self.stop_slurm()
        d = os.path.join(self.work, tag)
        for sub in ["state"] + [f"spool-{h}" for h in HOSTS]:
            os.makedirs(os.path.join(d, sub), exist_ok=True)
        nodes = "\n".join(f"NodeName={h} NodeAddr={self.ip[h]} CPUs=1 State=UNKNOWN"
                          for h in HOSTS)
        conf = os.path.join(d, "slurm.conf")
        with open(conf, "w") as f:
            f.write(f"""ClusterName=toporrvc
SlurmctldHost=head({HEAD_IP})
SlurmctldPort={CTLD_PORT}
SlurmdPort={SLURMD_PORT}
SlurmUser=root
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool-%n
SlurmctldPidFile={d}/slurmctld.pid
SlurmdPidFile={d}/slurmd-%n.pid
SlurmctldLogFile={d}/slurmctld.log
SlurmdLogFile={d}/slurmd-%n.log
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
MpiDefault=none
ReturnToService=2
{chr(10).join(topology_lines)}
{nodes}
PartitionName=all Nodes=ALL Default=YES MaxTime=5
""")
        env = dict(os.environ, SLURM_CONF=conf)
        with open(os.path.join(d, "daemons.out"), "a") as out:
            self.daemons.append(subprocess.Popen(
                self.on("head", ["slurmctld", "-D", "-i", "-f", conf]), stdout=out,
                stderr=out, env=env, start_new_session=True))
            for h in HOSTS:
                self.daemons.append(subprocess.Popen(
                    self.on(h, ["slurmd", "-D", "-f", conf]), stdout=out, stderr=out, env=env,
                    start_new_session=True))
        deadline = time.monotonic() + 60
        while True:
            p = subprocess.run(self.on("head", ["sinfo", "-h", "-N", "-o", "%N %t"]),
                               capture_output=True, text=True, env=env)
            idle = [l.split()[0] for l in p.stdout.splitlines() if l.split()[1:2] == ["idle"]]
            if sorted(idle) == HOSTS:
                return conf
            dead = [p for p in self.daemons if p.poll() is not None]
            if dead or time.monotonic() > deadline:
                logs = ""
                for name in sorted(os.listdir(d)):
                    if name.endswith(".log") or name == "daemons.out":
                        with open(os.path.join(d, name)) as f:
                            logs += f"--- {name}\n" + "".join(f.readlines()[-8:])
                self.fail(f"{tag}: Slurm's nodes not idle (sinfo: {p.stdout!r}; "
                          f"{len(dead)} daemons exited)\n{logs}")
            time.sleep(0.3)

    def srun_hosts(self, conf, args, env=None):
        """The host of each task, by task rank, of `srun ARGS hostname` from the head."""
        p = subprocess.run(self.on("head", ["srun"] + args + ["-l", "hostname"]),
                           capture_output=True, text=True, timeout=120,
                           env=dict(os.environ, SLURM_CONF=conf, **(env or {})))
        self.assertEqual(p.returncode, 0, f"srun {args}: {p.stderr}")
        tasks = {}
        for line in p.stdout.splitlines():
            rank, _, host = line.partition(":")
            tasks[int(rank)] = host.strip()
        return [tasks[r] for r in sorted(tasks)]

    def plan(self, hosts, out=None):
        hostfile = os.path.join(self.work, "job.hosts")
        with open(hostfile, "w") as f:
            f.write("".join(f"{h} slots=1\n" for h in hosts))
        args = [TOPORRCTL, "--socket", self.sock, "--json", "plan", "--hostfile", hostfile,
                "--map-by", "node", "--collective", "allreduce", "--algorithm", "ring",
                "--size", "1048576"]
        if out:
            args += ["--slurm-hostfile", out]
        p = subprocess.run(args, capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        return json.loads(p.stdout)

    # ---- the orders ----

    def test_orders_from_slurm_and_from_toporr(self):
        # The launch order: slurm.conf's node order, without a topology.
        conf = self.start_slurm("flat", [])
        launch = self.srun_hosts(conf, ["-N", "8", "-n", "8"])
        self.assertEqual(launch, HOSTS)
        self.assertEqual([self.leaf[h] for h in launch], ["leaf1", "leaf2"] * 4)

        # SwitchAsNodeRank on toporr's topology.conf: the leaf-sorted order.
        d = os.path.join(self.work, "tree")
        os.makedirs(d)
        p = subprocess.run([TOPORRCTL, "--socket", self.sock, "export", "--format",
                            "slurm-topology", "--output", os.path.join(d, "topology.conf")],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        conf = self.start_slurm("tree", ["TopologyPlugin=topology/tree",
                                         "TopologyParam=SwitchAsNodeRank"])
        shown = subprocess.run(self.on("head", ["scontrol", "show", "topology"]),
                               capture_output=True, text=True,
                               env=dict(os.environ, SLURM_CONF=conf)).stdout
        leaves = {}
        for m in re.finditer(r"SwitchName=(\S+) .*Nodes=(\S+)", shown):
            leaves[m.group(1)] = subprocess.run(
                ["scontrol", "show", "hostnames", m.group(2)], capture_output=True,
                text=True, env=dict(os.environ, SLURM_CONF=conf)).stdout.split()
        self.assertEqual(leaves.get("leaf01"), LEAF_ORDER[:4], shown)
        self.assertEqual(leaves.get("leaf02"), LEAF_ORDER[4:], shown)
        leafsorted = self.srun_hosts(conf, ["-N", "8", "-n", "8"])
        plan = self.plan(launch)
        version = slurm_version()
        if version >= (23, 0):
            self.assertEqual(leafsorted, [launch[i] for i in plan["leaf_sorted_order"]])
            self.assertEqual([self.leaf[h] for h in leafsorted],
                             sorted(self.leaf[h] for h in leafsorted))
        else:
            # Slurm 22.05 ranks the nodes by switch for selection only: a job's tasks stay in
            # name order, and only a SLURM_HOSTFILE gives another order.
            self.assertEqual(leafsorted, HOSTS)
            print(f"\nSlurm {'.'.join(map(str, version))}: SwitchAsNodeRank leaves the "
                  "tasks in name order", file=sys.stderr)

        # toporr's order for the launch order's hosts: the plan's SLURM_HOSTFILE.
        hostfile = os.path.join(self.work, "plan.hostfile")
        plan = self.plan(launch, hostfile)
        self.assertTrue(plan["reordered"], plan)
        ordered = self.srun_hosts(conf, ["-n", "8", "--distribution=arbitrary"],
                                  env={"SLURM_HOSTFILE": hostfile})
        self.assertEqual(ordered, [launch[i] for i in plan["new_order"]])
        print(f"\nlaunch {launch}\nSwitchAsNodeRank {leafsorted}\ntoporr plan {ordered}",
              file=sys.stderr)


if __name__ == "__main__":
    main(skip_reason())

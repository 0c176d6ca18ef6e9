"""PyTorch jobs across the virtual cluster's hosts: one `torchrun` per host (static
rendezvous: node rank k on the k-th host given, the master the first host), started through
`vcluster exec`, waited for within a bound and ended however the wait ends. Shared by the
torch tests and bench/vcluster/run_torch_bench.py."""
import os
import signal
import subprocess
import sys
import time

from vcluster_testing import VC

# Python 3.11's IntFlag no longer lists Std.NONE and Std.ALL, so torch 1.13's torchrun cannot
# parse its own defaults `--redirects 0 --tee 0` (AttributeError on None): redirect and tee
# stdout (1) instead, which keeps the workers' stdout in --log_dir and on the console.
TORCHRUN_STD = ["--redirects", "1", "--tee", "1"]
MASTER_PORT = 29500


def kill_all(procs):
    """Ends every torchrun started (each leads a process group of its own, its workers in it)."""
    for p in procs:
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
    deadline = time.monotonic() + 15
    for p in procs:
        try:
            p.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
    for p in procs:
        try:
            os.killpg(p.pid, signal.SIGKILL)  # the group may outlive its leader
        except ProcessLookupError:
            pass
        if p.poll() is None:
            p.wait(timeout=10)


def run_torchrun(cluster, hosts, master_addr, procs_per_host, script, script_args, env, jobdir,
                 timeout, torchrun="/usr/bin/torchrun", master_port=MASTER_PORT, cwd=None):
    """Runs `script script_args` as a torchrun job over `hosts` (node rank = index), `env`
    (a list of NAME=VALUE) set on every host; each host's output in JOBDIR/HOST.log, torchrun's
    logs in JOBDIR/torchrun-HOST. Returns None when every torchrun exited 0, else why not
    (a host's exit code, or the timeout), with the tails of the logs; every process started
    has ended either way."""
    os.makedirs(jobdir, exist_ok=True)
    procs, logs = [], []
    try:
        for node_rank, host in enumerate(hosts):
            cmd = [sys.executable, VC, "exec", "--name", cluster, host, "--", "env"] + env + [
                torchrun, "--nnodes", str(len(hosts)), "--nproc_per_node", str(procs_per_host),
                "--node_rank", str(node_rank), "--master_addr", master_addr, "--master_port",
                str(master_port)] + TORCHRUN_STD + [
                "--log_dir", os.path.join(jobdir, f"torchrun-{host}"), script] + script_args
            logf = open(os.path.join(jobdir, f"{host}.log"), "w")
            logs.append(logf)
            procs.append(subprocess.Popen(cmd, stdout=logf, stderr=subprocess.STDOUT,
                                          stdin=subprocess.DEVNULL, cwd=cwd or jobdir,
                                          start_new_session=True))
        deadline = time.monotonic() + timeout
        failed = None
        while True:
            codes = [p.poll() for p in procs]
            bad = [(hosts[i], c) for i, c in enumerate(codes) if c not in (None, 0)]
            if bad:
                failed = f"torchrun exited {bad}"
                break
            if all(c == 0 for c in codes):
                break
            if time.monotonic() > deadline:
                failed = f"not finished after {timeout:.0f} s"
                break
            time.sleep(0.5)
    finally:
        kill_all(procs)
        for f in logs:
            f.close()
    if failed is None:
        return None
    tails = []
    for h in hosts[:2] + hosts[-1:]:
        with open(os.path.join(jobdir, f"{h}.log"), errors="replace") as f:
            tails.append(f"--- {h}.log\n" + "".join(f.readlines()[-15:]))
    return f"{failed}; logs in {jobdir}\n" + "\n".join(tails)

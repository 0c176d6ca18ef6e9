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


def torchrun_unusable(python=sys.executable):
    """Why torchrun cannot run here, or None: Debian 13's python3-torch 2.6 is built without
    libuv, yet every torchrun rendezvous makes its TCPStore with libuv (the default since
    torch 2.4, which USE_LIBUV does not change for it)."""
    probe = "import torch.distributed as d\nd.TCPStore('127.0.0.1', 0, 1, True)\n"
    p = subprocess.run([python, "-c", probe], capture_output=True, text=True)
    if p.returncode == 0:
        return None
    return "torchrun's TCPStore cannot be made: " + (p.stderr.strip().splitlines() or ["?"])[-1]


def run_torchrun(cluster, hosts, master_addr, procs_per_host, script, script_args, env, jobdir,
                 timeout, torchrun="/usr/bin/torchrun", master_port=MASTER_PORT):
    """Runs `script script_args` as a torchrun job over `hosts` (node rank = index), `env`
    (a list of NAME=VALUE) set on every host; each host's output in JOBDIR/HOST.log, torchrun's
    logs in JOBDIR/torchrun-HOST. Returns None when every torchrun exited 0, else why not
    (a host's exit code, or the timeout), with the tails of the logs; every process started
    has ended either way."""
    commands = []
    for node_rank, host in enumerate(hosts):
        commands.append((host, ["env", "PYTHONFAULTHANDLER=1"] + env + [
            torchrun, "--nnodes", str(len(hosts)), "--nproc_per_node", str(procs_per_host),
            "--node_rank", str(node_rank), "--master_addr", master_addr, "--master_port",
            str(master_port)] + TORCHRUN_STD + [
            "--log_dir", os.path.join(jobdir, f"torchrun-{host}"), script] + script_args))
    return _run_on_hosts(cluster, commands, jobdir, timeout)


def run_env_job(cluster, hosts, master_addr, procs_per_host, script, script_args, env, jobdir,
                timeout, master_port=MASTER_PORT):
    """The same job without torchrun: every process started directly with the variables
    torchrun would give it for env:// (RANK = node rank x procs + local rank, LOCAL_RANK,
    WORLD_SIZE, MASTER_ADDR, MASTER_PORT; launch rank 0 serves the store). For torch builds
    whose torchrun cannot run (torchrun_unusable)."""
    world = len(hosts) * procs_per_host
    commands = []
    for node_rank, host in enumerate(hosts):
        for local in range(procs_per_host):
            rank = node_rank * procs_per_host + local
            commands.append((host, ["env", "PYTHONFAULTHANDLER=1"] + env + [
                f"RANK={rank}", f"LOCAL_RANK={local}", f"WORLD_SIZE={world}",
                f"LOCAL_WORLD_SIZE={procs_per_host}", f"MASTER_ADDR={master_addr}",
                f"MASTER_PORT={master_port}", sys.executable, script] + script_args))
    return _run_on_hosts(cluster, commands, jobdir, timeout)


def _run_on_hosts(cluster, commands, jobdir, timeout):
    """Starts each (host, command) with `vcluster exec`, output in JOBDIR/HOST.log (a host's
    commands share it; Python's fault handler writes a crashing process's stacks there), and
    waits for all within `timeout` seconds: None, or why not with
    the logs' tails; every process started has ended either way."""
    os.makedirs(jobdir, exist_ok=True)
    procs, logs, hosts = [], {}, []
    try:
        for host, command in commands:
            if host not in logs:
                logs[host] = open(os.path.join(jobdir, f"{host}.log"), "w")
            hosts.append(host)
            cmd = [sys.executable, VC, "exec", "--name", cluster, host, "--"] + command
            procs.append(subprocess.Popen(cmd, stdout=logs[host], stderr=subprocess.STDOUT,
                                          stdin=subprocess.DEVNULL, cwd=jobdir,
                                          start_new_session=True))
        deadline = time.monotonic() + timeout
        failed = None
        while True:
            codes = [p.poll() for p in procs]
            bad = sorted({(hosts[i], c) for i, c in enumerate(codes) if c not in (None, 0)})
            if bad:
                failed = f"exited {bad}"
                break
            if all(c == 0 for c in codes):
                break
            if time.monotonic() > deadline:
                failed = f"not finished after {timeout:.0f} s"
                break
            time.sleep(0.5)
    finally:
        kill_all(procs)
        for f in logs.values():
            f.close()
    if failed is None:
        return None
    # The failing hosts' logs first, then the first and last host's for context.
    failing = [h for h, c in sorted({(hosts[i], p.returncode) for i, p in enumerate(procs)})
               if c not in (None, 0)]
    names = list(dict.fromkeys(failing[:3] + list(logs)[:1] + list(logs)[-1:]))
    tails = []
    for h in names:
        with open(os.path.join(jobdir, f"{h}.log"), errors="replace") as f:
            tails.append(f"--- {h}.log\n" + "".join(f.readlines()[-15:]))
    return f"{failed}; logs in {jobdir}\n" + "\n".join(tails)

"""A real toporrd of a test's own: a database and a Unix socket in a scratch directory."""
import contextlib
import os
import subprocess
import time


@contextlib.contextmanager
def scratch_toporrd(toporrd, toporrctl, workdir, name, config=""):
    """Runs `toporrd` on WORKDIR/NAME.sock (database NAME.db, log NAME-toporrd.log, and
    when CONFIG is given the toporrd.conf text NAME.conf) until the block ends; yields ctl(*args), which runs `toporrctl` against it and returns its
    stdout or raises RuntimeError with its stderr (ctl.socket: the daemon's socket). The daemon is healthy when the block
    starts and stopped (SIGTERM, waited for) when it ends."""
    sock = os.path.join(workdir, name + ".sock")
    conf = ""
    if config:
        conf = os.path.join(workdir, name + ".conf")
        with open(conf, "w") as f:
            f.write(config)
    with open(os.path.join(workdir, name + "-toporrd.log"), "a") as log:
        daemon = subprocess.Popen([toporrd, "--config=" + conf, "--db",
                                   os.path.join(workdir, name + ".db"), "--socket", sock],
                                  stderr=log)

    def ctl(*args):
        p = subprocess.run([toporrctl, "--socket", sock] + list(args), capture_output=True,
                           text=True)
        if p.returncode != 0:
            raise RuntimeError(f"toporrctl {' '.join(args)}: {p.stderr}")
        return p.stdout

    ctl.socket = sock
    try:
        for _ in range(200):
            if subprocess.run([toporrctl, "--socket", sock, "health"],
                              capture_output=True).returncode == 0:
                break
            time.sleep(0.05)
        else:
            raise RuntimeError(f"toporrd on {sock} did not become healthy")
        yield ctl
    finally:
        daemon.terminate()
        daemon.wait()


def plan_job_args(workdir, hosts):
    """`toporrctl plan` options giving it a job's processes, process i on hosts[i]: a hostfile
    in order of first appearance (as libtoporr and libtoporr_plan number the hosts) and the
    rank -> host list, written as WORKDIR/plan.hosts and WORKDIR/plan.ranks."""
    hostfile = os.path.join(workdir, "plan.hosts")
    ranks = os.path.join(workdir, "plan.ranks")
    distinct = list(dict.fromkeys(hosts))
    with open(hostfile, "w") as f:
        f.write("".join(f"{h} slots={hosts.count(h)}\n" for h in distinct))
    with open(ranks, "w") as f:
        f.write("".join(h + "\n" for h in hosts))
    return ["--hostfile", hostfile, "--ranks", ranks]

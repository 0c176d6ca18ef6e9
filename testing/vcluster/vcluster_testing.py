"""What the tests on the virtual cluster share: running the tool, a cluster's namespaces on
the machine, why no cluster can be made here, and an MPI job's outcome as libtoporr
reports it."""
import json
import os
import subprocess
import sys
import unittest

VC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vcluster.py")


def vc(*args, check=True, timeout=300, env=None):
    """`vcluster ARGS` (this checkout's tool); raises AssertionError with its stderr when it
    fails and check is set."""
    p = subprocess.run([sys.executable, VC] + list(args), capture_output=True, text=True,
                       timeout=timeout, env=env)
    if check and p.returncode != 0:
        raise AssertionError(f"vcluster {' '.join(args)} failed: {p.stderr}")
    return p


# How libtoporr's warning of an identity-order fallback starts.
WARNING = "toporr: warning: keeping the identity rank order"


class ReportedJob:
    """A finished job: its output, exit status and time, and the decision records of its
    TOPORR_REPORT file (read, then removed so that the next job starts a new one)."""

    def __init__(self, proc, elapsed, report_path):
        self.stdout, self.stderr, self.elapsed = proc.stdout, proc.stderr, elapsed
        self.returncode = proc.returncode
        self.report = []
        if os.path.exists(report_path):
            with open(report_path) as r:
                self.report = [d for d in map(json.loads, filter(str.strip, r))
                               if d.get("event") == "decision"]
            os.unlink(report_path)

    def warnings(self):
        """libtoporr's fallback warnings on the job's standard error."""
        return [l for l in self.stderr.splitlines() if WARNING in l]


def netns_of(name):
    """The network namespaces of cluster `name` left on the machine."""
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return [l.split()[0] for l in out.splitlines() if l.startswith(f"tvc-{name}-")]


def main(why):
    """The calling test module's unittest main, or, where `why` says the cluster cannot be
    made here, the one line "SKIPPED: <why>" and exit 0 (deploy/run-tests.sh counts it)."""
    if why:
        print(f"SKIPPED: {why}")
        sys.exit(0)
    unittest.main(module="__main__", verbosity=2)


def namespaces_skip_reason(name):
    """Why cluster `name` cannot be made here (not root, no network namespace can be
    created: tried with a scratch one), or None."""
    if os.geteuid() != 0:
        return "not root: the virtual cluster needs to create namespaces"
    probe = f"tvc-{name}-canary"
    p = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if p.returncode != 0:
        return f"cannot create a network namespace here: {p.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", probe])
    return None

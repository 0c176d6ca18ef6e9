"""What the tests on the virtual cluster share: running the tool, a cluster's namespaces on
the machine, and why no cluster can be made here."""
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

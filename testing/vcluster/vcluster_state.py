"""vcluster's footprint on the machine (testing/vcluster/vcluster.py): the cluster's addresses,
state.json (everything a cluster creates, recorded before it is made), running commands in
namespaces, and removing a cluster, also one whose creation was killed. Every object of a
cluster carries the prefix `tvc-NAME-` or lives under STATE_ROOT/NAME.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import time

# ip, tc and sysctl live in sbin, which test runners (Bazel) leave out of PATH.
os.environ["PATH"] = os.environ.get("PATH", "/usr/bin:/bin") + ":/usr/local/sbin:/usr/sbin:/sbin"
STATE_ROOT = os.environ.get("VCLUSTER_STATE_ROOT", "/run/toporr-vcluster")
NS_PREFIX = "tvc-"
SUBNET = "198.18.0.0/16"
HEAD_IP = "198.18.0.1"
# toporrd's service address, a second address of the head node: a test can cut one host off
# the daemon (a blackhole route to it) while MPI still reaches the head.
DAEMON_IP = "198.18.0.2"
TOPORRD_PORT = 7450


class VclusterError(Exception):
    pass


def log(msg):
    print(f"vcluster: {msg}", file=sys.stderr, flush=True)


def sh(*cmd, check=True, capture=False, netns=None, timeout=60):
    """Runs cmd (inside `ip netns exec NETNS` if given); raises VclusterError on failure."""
    argv = [str(c) for c in cmd]
    if netns:
        argv = ["ip", "netns", "exec", netns] + argv
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise VclusterError(f"'{' '.join(argv)}' did not finish in {timeout} s")
    if check and p.returncode != 0:
        raise VclusterError(f"'{' '.join(argv)}' failed (exit {p.returncode}): "
                            f"{p.stderr.strip() or p.stdout.strip()}")
    return p.stdout if capture else p


# ---- state ---------------------------------------------------------------------------------


class State:
    """state.json of one cluster: what was created, in order, so that it can be removed."""

    def __init__(self, name):
        self.name = name
        self.dir = os.path.join(STATE_ROOT, name)
        self.path = os.path.join(self.dir, "state.json")
        self.data = {"name": name, "objects": [], "hosts": [], "pids": {}}

    def load(self):
        with open(self.path) as f:
            self.data = json.load(f)
        return self

    def save(self):
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.data, f, indent=1)
        os.replace(tmp, self.path)

    def creating(self, kind, name):
        """Records an object before it is made, so that a run killed while making it leaves
        nothing that down does not know of (down skips what does not exist)."""
        self.data["objects"].append({"kind": kind, "name": name})
        self.save()

    def ns(self, host):
        return f"{NS_PREFIX}{self.name}-{host}"


def namespace_argv(state, host):
    """nsenter arguments entering every namespace of host (through its holder process, whose
    /proc entry every mount namespace sees) and its root directory (the cluster's root, or the
    one this tool runs in), keeping the working directory: with a cluster root, the same path
    inside it, or its / where the root has no such directory."""
    pid = state.data["pids"][f"holder-{host}"]
    wd = os.getcwd()
    root = state.data.get("root")
    if root:  # nsenter opens --wd before it enters: name the directory as seen from here
        wd = root + wd if os.path.isdir(root + wd) else root
    return ["nsenter", "-t", str(pid), "--net", "--uts", "--ipc", "--mount", "--root",
            f"--wd={wd}"]


def list_netns():
    out = sh("ip", "netns", "list", capture=True, check=False) or ""
    return [line.split()[0] for line in out.splitlines() if line.strip()]


# ---- down ----------------------------------------------------------------------------------


def ns_inodes(state):
    inodes = set()
    for obj in state.data["objects"]:
        if obj["kind"] == "netns":
            try:
                inodes.add(os.stat(f"/run/netns/{obj['name']}").st_ino)
            except OSError:
                pass
    return inodes


def processes_inside(inodes):
    """Pids of processes in any of the given namespaces (by nsfs inode)."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        for kind in ("net", "uts", "ipc", "mnt"):
            try:
                if os.stat(f"/proc/{entry}/ns/{kind}").st_ino in inodes:
                    pids.append(int(entry))
                    break
            except OSError:
                break
    return pids


def processes_naming(directory):
    """Pids of processes with an argument inside directory (the fabric dump's run_ibsim.sh,
    ibsim and opensm name their files in the state directory)."""
    prefix = os.fsencode(directory.rstrip("/") + "/")
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                args = f.read().split(b"\0")
        except OSError:
            continue
        if any(a.startswith(prefix) for a in args):
            pids.append(int(entry))
    return pids


def kill_all(pids, grace=5.0):
    for sig in (signal.SIGCONT, signal.SIGTERM):
        for pid in pids:
            try:
                os.kill(pid, sig)
            except OSError:
                pass
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        pids = [p for p in pids if os.path.exists(f"/proc/{p}") and not zombie(p)]
        if not pids:
            return
        time.sleep(0.05)
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def zombie(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def down_state(state):
    """Removes what state lists, newest first, and any namespace named for the cluster that
    it does not list; never raises for what is already gone."""
    listed = {obj["name"] for obj in state.data["objects"] if obj["kind"] == "netns"}
    state.data["objects"] = [{"kind": "netns", "name": n} for n in list_netns()
                             if n.startswith(f"{NS_PREFIX}{state.name}-") and n not in listed
                             ] + state.data["objects"]
    kill_all(processes_inside(ns_inodes(state)) + list(state.data.get("pids", {}).values()))
    kill_all(processes_naming(state.dir))  # what outlived the run_ibsim.sh just stopped
    problems = []
    for obj in reversed(state.data["objects"]):
        if obj["kind"] == "netns" and obj["name"] in list_netns():
            p = sh("ip", "netns", "del", obj["name"], check=False)
            if p.returncode:
                problems.append(f"ip netns del {obj['name']}: {p.stderr.strip()}")
    shutil.rmtree(state.dir, ignore_errors=True)
    if os.path.exists(state.dir):
        problems.append(f"{state.dir} could not be removed")
    root = state.data.get("root")
    if root:  # the empty directory the hosts mounted the state directory on
        try:
            os.rmdir(root.rstrip("/") + state.dir)
        except OSError:
            pass
    if problems:
        raise VclusterError("; ".join(problems))


def down(name):
    """Removes cluster name; False when there was none. Without a state file (a run killed
    before writing it) its namespaces are found by their prefix."""
    state = State(name)
    if os.path.exists(state.path):
        state.load()
    else:
        state.data["objects"] = [{"kind": "netns", "name": n} for n in list_netns()
                                 if n.startswith(f"{NS_PREFIX}{name}-")]
        if not state.data["objects"] and not os.path.exists(state.dir):
            return False
    down_state(state)
    return True


def cleanup():
    names = set()
    if os.path.isdir(STATE_ROOT):
        names.update(os.listdir(STATE_ROOT))
    for ns in list_netns():
        if ns.startswith(NS_PREFIX):
            names.add(ns[len(NS_PREFIX):].split("-")[0])
    for n in sorted(names):
        down(n)
        log(f"removed cluster '{n}'")
    return sorted(names)


def load(name):
    state = State(name)
    if not os.path.exists(state.path):
        raise VclusterError(f"no cluster '{name}' ({state.path} not found); "
                            f"create it with 'vcluster up --name {name}'")
    return state.load()

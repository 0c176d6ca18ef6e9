#!/usr/bin/env python3
"""vcluster: a small HPC cluster on one Linux machine, for toporr's multi-host tests.

Hosts are Linux namespace sets (net + UTS + IPC + mount) with their own host names
(node01 ...), addresses and /etc/hosts; their links run through a fabric namespace that
holds one bridge per leaf, a bridge per pod (three levels) and a spine or core bridge on top,
every host link and every inter-bridge uplink shaped with `tc tbf` in both directions, so that
every packet between two leaves crosses both leaves' uplinks (a dragonfly: one router
namespace per group instead, below). A head node namespace (host name `head`) on the top
bridge runs toporrd. MPI jobs start on the head node and reach the
hosts through an rsh agent that enters a host's namespaces (`nsenter`).

    vcluster up [--name NAME] [--profile P] [--hosts N] [--hosts-per-leaf 4]
                [--leaf-hosts N1,N2,...] [--leaves-per-pod 2] [--host-mbit 400]
                [--uplink-mbit M] [--pod-uplink-mbit M] [--damaged-uplink LEAF]
                [--global-mbit M] [--toporrd BIN --toporrctl BIN [--cost-model FILE]]
                [--host-names N1,N2,...] [--root DIR]
    vcluster down [--name NAME]        remove one cluster (also after a killed run)
    vcluster cleanup                   remove every cluster this tool left on the machine
    vcluster status [--name NAME] [--json]
    vcluster exec [--name NAME] HOST -- CMD...     run CMD inside HOST's namespaces
    vcluster mpirun [--name NAME] openmpi|mpich ARGS...   the MPI launcher on the head node
    vcluster daemon [--name NAME] start|stop [--toporrd BIN --toporrctl BIN]
                    [--cost-model FILE]
    vcluster run [up options] -- CMD...  up, CMD (with VCLUSTER_NAME set), then down

Profiles (--profile; a leaf uplink's rate is relative to the hosts on the leaf unless
--uplink-mbit gives it):
  tapered  (default) 8 hosts, leaves under one spine, leaf uplinks 4:1
  full     as tapered with full bisection: a leaf uplink carries all its host links (1:1)
  tree3    a 3-level fat tree: 16 hosts = 2 pods x 2 leaves x 4 hosts; leaf uplinks to
           the pod switch 2:1, pod uplinks to the core 2:1 of the pod's leaf uplinks
           (--leaves-per-pod, --pod-uplink-mbit)
  damaged  tapered with 12 hosts on 3 leaves, leaf3's uplink at a quarter of its rate
  uneven   tapered with leaves of 5, 3 and 1 hosts (--leaf-hosts 5,3,1); each leaf uplink
           at one host link's rate (a leaf of n hosts is n:1)
  dragonfly  16 hosts in 4 groups of 4 (--hosts, --hosts-per-leaf), one router per group, the
           groups all-to-all by one global link per pair (6), each at half a host link's
           rate (--global-mbit); routed, not bridged (below)
--damaged-uplink LEAF (leafN or N) damages a leaf's uplink, towards the spine or its pod, in
any profile: 1/4 of the rate of its healthy siblings in tbf, and in the fabric dump the same
number of links at 1/4 of their width x speed (4x QDR -> 4x SDR). --leaf-hosts gives leaves of
different sizes in any profile (tree3: consecutive leaves form the pods). Host addresses are
198.18.LEAF.INDEX (leaf and host numbered from 1 in name order).

The fabric dump (an ibsim net file of exactly the emulated fabric, read back through the
real OpenSM, ibnetdiscover and dump_fts) has one switch per bridge, leafNN, podNN and core01,
or leafNN and spine01, and expresses each emulated uplink rate as k parallel 4x QDR links
(k x the host rate) or one narrower or slower link (1/2 .. 1/16 of it).

A dragonfly's groups are joined by loops, along which learning bridges cannot forward (they
need a tree, or STP, which would cut the loops), so it is routed at L3: each group's switch
is a router namespace (tvc-NAME-routerG, IP forwarding on) whose bridge holds the group's
hosts in 198.18.G.0/24 (router .254, their default route); each global link is a veth pair
between two routers, shaped both ways, with a static route per other group over the direct
link: the minimal route, the one OpenSM's min-hop routing gives the dump's cabling. The head
(198.18.0.0/24) hangs off router 1; the other routers route to it over their link to group 1.
Its dump has one switch per group, df1_1.. (collectors/sim/gen_direct.py's dragonfly), and
each global link as one link of the global rate's fraction of 4x QDR (1/2: 4x DDR).

Everything a cluster creates carries the prefix `tvc-NAME-` (namespaces) or lives under
/run/toporr-vcluster/NAME (state.json, the namespace files, /etc/hosts, the rsh agent, the
fabric dumps, toporrd's database and log). state.json lists every object before it is created,
so that `down` and `cleanup` remove exactly what a run made, even one that was killed.
Addresses are in 198.18.0.0/15 (RFC 2544, network benchmarking) and exist only inside the
cluster's own namespaces; nothing outside them is ever contacted.
"""

import argparse
import json
import os
import signal
import subprocess
import sys

# What a cluster is on the machine, and removing it: vcluster_state.py; creating one:
# vcluster_build.py (beside this script).
from vcluster_build import PROFILES, start_toporrd, stop_toporrd, up
from vcluster_state import (DAEMON_IP, HEAD_IP, SUBNET, VclusterError, cleanup, down, load, log,
                            namespace_argv)


# ---- using a cluster -----------------------------------------------------------------------


def mpirun_argv(state, mpi, extra):
    """The MPI launcher on the head node, starting ranks through the cluster's rsh agent with
    TCP between hosts on the fabric and shared memory inside a host."""
    agent = os.path.join(state.dir, "rsh")
    head = namespace_argv(state, "head")
    if mpi == "openmpi":
        return head + ["mpirun.openmpi", "--mca", "plm_rsh_agent", agent, "--mca",
                       "oob_tcp_if_include", SUBNET, "--mca", "btl_tcp_if_include", SUBNET,
                       "--mca", "btl", "self,vader,tcp", "--mca", "pml", "ob1",
                       "--mca", "mpi_yield_when_idle", "1"] + list(extra)
    if mpi == "mpich":
        extra = list(extra)
        shim = state.data.get("mpich_shim")
        if shim:  # first in LD_PRELOAD, before the job's own (-genv LD_PRELOAD X)
            for i in range(len(extra) - 2):
                if extra[i] == "-genv" and extra[i + 1] == "LD_PRELOAD":
                    extra[i + 2] = f"{shim} {extra[i + 2]}"
                    break
            else:
                extra = ["-genv", "LD_PRELOAD", shim] + extra
        return head + ["mpirun.mpich", "-launcher", "ssh", "-launcher-exec", agent] + extra
    raise VclusterError(f"unknown MPI '{mpi}' (openmpi or mpich)")


def status(name, as_json):
    state = load(name)
    if as_json:
        print(json.dumps(state.data, indent=1))
        return
    layout = state.data["layout"]
    print(f"cluster {name}: {state.data['describe']}")
    print(f"  state   {state.dir}")
    print(f"  head    {HEAD_IP} on {layout['top'] or 'router1'}, toporrd {DAEMON_IP} ("
          f"{state.data.get('toporrd', {}).get('address', 'not started')})")
    for g in layout.get("groups", []):
        print(f"  {g['name']}  {g['hosts']} hosts in {g['subnet']}, {g['router']} at "
              f"{g['gateway']}")
    for link in layout.get("global_links", []):
        print(f"  global  {' - '.join(link['groups'])} {link['mbit']:g} Mbit/s "
              f"(dump: {link['ib']})")
    for p in layout["pods"]:
        print(f"  {p['name']}  leaves {','.join(p['leaves'])}, uplink to {layout['top']} "
              f"{p['uplink_mbit']:g} Mbit/s (dump: {p['ib']})")
    for l in layout["leaves"]:
        print(f"  {l['name']}  {l['hosts']} hosts, uplink to {l['pod'] or layout['top']} "
              f"{l['uplink_mbit']:g} Mbit/s (dump: {l['ib']})"
              + ("  DAMAGED" if l["damaged"] else ""))
    for h in layout["hosts"]:
        print(f"  {h['name']}  {h['ip']}  {h['leaf']}" + (f"  {h['pod']}" if h["pod"] else ""))
    print(f"  rsh agent {state.dir}/rsh")


def add_up_args(p):
    p.add_argument("--profile", choices=PROFILES, default="tapered",
                   help="the fabric's shape: tapered (default: leaf uplinks 4:1), full (1:1), "
                        "tree3 (3 levels, 2:1 at each), damaged (3 leaves, leaf3's uplink at "
                        "1/4), uneven (leaves of 5, 3, 1 hosts), dragonfly (groups of "
                        "hosts all-to-all by global links, routed); see above")
    p.add_argument("--hosts", type=int,
                   help="hosts (2..16; default 8, tree3 and dragonfly 16, damaged 12)")
    p.add_argument("--hosts-per-leaf", type=int, default=4,
                   help="hosts per leaf, or per group of a dragonfly (default 4)")
    p.add_argument("--leaf-hosts", metavar="N1,N2,...",
                   help="hosts on each leaf, for leaves of different sizes (uneven: 5,3,1)")
    p.add_argument("--leaves-per-pod", type=int, help="tree3: leaves per pod (default 2)")
    p.add_argument("--host-mbit", type=float, default=400, help="host link rate (default 400)")
    p.add_argument("--uplink-mbit", type=float,
                   help="rate of a leaf's uplink (default: from --profile)")
    p.add_argument("--pod-uplink-mbit", type=float,
                   help="tree3: rate of a pod's uplink to the core (default: half the sum of "
                        "its leaves' uplinks)")
    p.add_argument("--damaged-uplink", metavar="LEAF",
                   help="leafN (or N) whose uplink runs at 1/4 of its rate (damaged: leaf3)")
    p.add_argument("--global-mbit", type=float,
                   help="dragonfly: rate of a global link between two groups (default: half "
                        "the host link's; 1/2, 1/4, 1/8 or 1/16 of it, or equal)")
    p.add_argument("--head-mbit", type=float, default=0,
                   help="head node link rate (default 0: not shaped)")
    p.add_argument("--toporrd", help="start this toporrd on the head node and ingest the fabric")
    p.add_argument("--toporrctl", help="the toporrctl to ingest with (with --toporrd)")
    p.add_argument("--cost-model", metavar="FILE",
                   help="toporrd's cost model: the cost_model lines of FILE (toporrctl "
                        "calibrate --output) added to its toporrd.conf")
    p.add_argument("--no-fabric", action="store_true",
                   help="skip the fabric dump (ibsim + opensm + ibnetdiscover)")
    p.add_argument("--host-names", metavar="N1,N2,...",
                   help="the hosts' names in leaf order (default node01, node02, ...): e.g. "
                        "names that interleave the leaves, as a site's naming often does")
    p.add_argument("--root", metavar="DIR",
                   help="run the hosts and the head node on the files of the Debian root DIR "
                        "(their MPI, libraries and tools; testing/stacks/stack_root.sh makes "
                        "one): programs, --toporrd and --toporrctl name paths inside DIR")


def main(argv=None):
    p = argparse.ArgumentParser(prog="vcluster", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    pu = sub.add_parser("up", help="create a cluster")
    pu.add_argument("--name", default="vc")
    add_up_args(pu)
    pd = sub.add_parser("down", help="remove a cluster")
    pd.add_argument("--name", default="vc")
    sub.add_parser("cleanup", help="remove every cluster of this tool")
    ps = sub.add_parser("status", help="describe a cluster")
    ps.add_argument("--name", default="vc")
    ps.add_argument("--json", action="store_true")
    pe = sub.add_parser("exec", help="run a command inside a host's namespaces")
    pe.add_argument("--name", default="vc")
    pe.add_argument("host")
    pe.add_argument("cmd", nargs=argparse.REMAINDER)
    pm = sub.add_parser("mpirun", help="run the MPI launcher on the head node")
    pm.add_argument("--name", default="vc")
    pm.add_argument("mpi", choices=("openmpi", "mpich"))
    pm.add_argument("args", nargs=argparse.REMAINDER)
    pt = sub.add_parser("daemon", help="start or stop toporrd on the head node")
    pt.add_argument("--name", default="vc")
    pt.add_argument("action", choices=("start", "stop"))
    pt.add_argument("--toporrd", help="start: the toporrd binary (default: the last one)")
    pt.add_argument("--toporrctl", help="start: the toporrctl binary (default: the last one)")
    pt.add_argument("--cost-model", metavar="FILE",
                    help="start: toporrd's cost model (default: toporrd's own)")
    pr = sub.add_parser("run", help="up, run a command, down")
    pr.add_argument("--name", default="vc")
    add_up_args(pr)
    pr.add_argument("cmd", nargs=argparse.REMAINDER)
    args = p.parse_args(argv)

    def on_signal(signum, _frame):
        raise KeyboardInterrupt(f"signal {signum}")

    # up and run remove what they made when stopped (SIGKILL leaves it to down/cleanup).
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)
    try:
        if args.command == "up":
            if args.toporrd and not args.toporrctl:
                raise VclusterError("--toporrd needs --toporrctl")
            state = up(args)
            log(f"cluster '{args.name}' up: {state.data['describe']}; state {state.dir}")
        elif args.command == "down":
            if not down(args.name):
                log(f"no cluster '{args.name}'")
        elif args.command == "cleanup":
            cleanup()
        elif args.command == "status":
            status(args.name, args.json)
        elif args.command == "exec":
            cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
            if not cmd:
                raise VclusterError("exec: no command")
            state = load(args.name)
            if args.host not in state.data["hosts"] + ["head"]:
                raise VclusterError(f"exec: '{args.host}' is not a host of '{args.name}'")
            os.execvp("nsenter", namespace_argv(state, args.host) + cmd)
        elif args.command == "mpirun":
            extra = args.args[1:] if args.args[:1] == ["--"] else args.args
            argv = mpirun_argv(load(args.name), args.mpi, extra)
            os.execvp(argv[0], argv)
        elif args.command == "daemon":
            state = load(args.name)
            if args.action == "stop":
                stop_toporrd(state)
            else:
                last = state.data.get("daemon_bins", {})
                toporrd = args.toporrd or last.get("toporrd")
                toporrctl = args.toporrctl or last.get("toporrctl")
                if not toporrd or not toporrctl:
                    raise VclusterError("daemon start: --toporrd and --toporrctl are needed")
                start_toporrd(state, toporrd, toporrctl, args.cost_model)
        elif args.command == "run":
            cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
            if not cmd:
                raise VclusterError("run: no command")
            if args.toporrd and not args.toporrctl:
                raise VclusterError("--toporrd needs --toporrctl")
            state = up(args)
            try:
                rc = subprocess.call(cmd, env=dict(os.environ, VCLUSTER_NAME=args.name,
                                                   VCLUSTER_STATE=state.path))
            finally:
                down(args.name)
            return rc
    except VclusterError as e:
        log(f"error: {e}")
        return 1
    except KeyboardInterrupt:
        log("interrupted")
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())

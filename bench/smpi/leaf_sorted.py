#!/usr/bin/env python3
"""The leaf-sorted order of an MPI launch order: the baseline a site gets without toporr
(Slurm's TopologyParam=SwitchAsNodeRank, or a by-slot launch on a host list sorted by leaf
switch), against which bench/smpi/collectives_report.py sets toporr's times.

    leaf_sorted.py --ibnetdiscover ibnetdiscover.txt HOSTFILE > LEAF_SORTED_HOSTFILE

HOSTFILE holds the launch order, one line per rank: the rank's host (SMPI's hostfile form,
as bench/smpi/collectives_eval_lib.sh writes it). The output has the same form and the same
lines, in the leaf-sorted order. Exit status 1 with a message when a host of HOSTFILE is not
a CA of the dump or the dump cannot be read, 2 on bad usage.
"""

import argparse
import sys

from fabric_to_platform import InputError, name_nodes, parse_ibnetdiscover


def leaf_of_hosts(ibnetdiscover_path):
    """host name -> name of the leaf switch it hangs off, from an ibnetdiscover dump: the
    switch the host's CA port is cabled to. Hosts and switches are named as
    fabric_to_platform.py names them (a host = the first word of its CA's description, its
    first CA when it has several; its lowest-numbered cabled port)."""
    nodes = parse_ibnetdiscover(ibnetdiscover_path)
    hosts, _ = name_nodes(nodes)
    leaf = {}
    for name, ca in hosts.items():
        if not ca.ports:
            continue
        peer = nodes.get(ca.ports[min(ca.ports)][0])
        if peer is not None and peer.kind == "Switch":
            leaf[name] = peer.name
    return leaf


def leaf_sorted_order(launch_hosts, leaf_of):
    """The leaf-sorted order of a launch order, as the list of launch ranks in their new
    order (new rank i is launch rank result[i]).

    Definition: the launch order's hosts grouped by the leaf switch they hang off (leaf_of:
    host -> leaf, the switch a host's CA port is cabled to in the fabric dump); the groups in
    the order of their first host in the launch order, the hosts within a group in launch
    order (a host's place is that of its first rank); and each host's ranks contiguous, in
    launch order.

    launch_hosts: the host of every launch rank (index = launch rank). Raises KeyError for a
    host leaf_of does not know."""
    groups = {}  # leaf -> {host: [launch ranks]}, both in order of first appearance
    for rank, host in enumerate(launch_hosts):
        groups.setdefault(leaf_of[host], {}).setdefault(host, []).append(rank)
    return [rank for hosts in groups.values() for ranks in hosts.values() for rank in ranks]


def leaf_sorted_hosts(launch_hosts, leaf_of):
    """The host of every rank of the leaf-sorted order (see leaf_sorted_order)."""
    return [launch_hosts[r] for r in leaf_sorted_order(launch_hosts, leaf_of)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ibnetdiscover", required=True, help="the fabric's ibnetdiscover dump")
    ap.add_argument("hostfile", help="the launch order: one host per rank")
    args = ap.parse_args()
    try:
        leaf = leaf_of_hosts(args.ibnetdiscover)
    except (InputError, OSError) as e:
        print(f"leaf_sorted: {e}", file=sys.stderr)
        return 1
    launch = [l.strip() for l in open(args.hostfile) if l.strip()]
    missing = sorted({h for h in launch if h not in leaf})
    if missing:
        print(f"leaf_sorted: {args.hostfile}: hosts not on a leaf switch of {args.ibnetdiscover}: "
              f"{' '.join(missing[:5])}{' ...' if len(missing) > 5 else ''}", file=sys.stderr)
        return 1
    print("\n".join(leaf_sorted_hosts(launch, leaf)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

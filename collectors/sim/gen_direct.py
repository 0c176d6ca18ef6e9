#!/usr/bin/env python3
"""Writes an ibsim `.net` file of a direct-network fabric: a 3-D torus or a dragonfly of
switches with hosts on every switch (the SMPI evaluation's fabrics besides fat trees).

The records, GUIDs and per-port width/speed masks are gen_fattree.py's (same `Net` writer),
so the output goes through collectors/sim/run_ibsim.sh (ibsim + OpenSM + ibnetdiscover +
dump_fts) like the fat trees.

Shapes (all deterministic):
  torus      --dims XxYxZ switches sw<x>_<y>_<z>; ports 1..H face hosts, then the torus
             links in dimension order: +x, -x, +y, -y, +z, -z. A dimension of size 2 has two
             parallel cables between the pair (both wrap-around directions); size 1 none.
             OpenSM's `dor` engine routes this in dimension order (it takes the lowest port
             among minimal ones, and the ports are numbered in dimension order).
  dragonfly  --groups G --switches-per-group A --global-per-switch K: switches df<g>_<a>;
             ports 1..H face hosts, then A-1 local ports (all-to-all inside the group), then
             K global ports. Global cables join every pair of groups (G <= A*K + 1), the
             pairs dealt round-robin over the groups' switches so global ports fill evenly
             ("consecutive" arrangement). Route with OpenSM `updn` or `dfsssp`.
Hosts are node00001.. in switch order (H per switch), like gen_fattree's.

Examples:
  gen_direct.py --shape torus --dims 4x4x4 --hosts-per-switch 4 --out torus-256h.net
  gen_direct.py --shape dragonfly --groups 9 --switches-per-group 4 \\
      --global-per-switch 2 --hosts-per-switch 8 --out dragonfly-288h.net
"""

import argparse
import itertools
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_fattree import HCA_GUID_BASE, SPEED_MASKS, SWITCH_GUID_BASE, WIDTH_MASK, Net, Node  # noqa: E402

TORUS_CODE, DRAGONFLY_CODE = 4, 5  # GUID bits 20..23, apart from gen_fattree's levels


def add_switch(net, code, index, name, ports):
    guid = SWITCH_GUID_BASE | (code << 20) | (index + 1)
    return net.add(Node("Switch", name, f"MF0;{name}:MQM8700/U1", guid, 0xCF08, ports))


def add_hosts(net, switches, args):
    i = 0
    for sw in switches:
        for port in range(1, args.hosts_per_switch + 1):
            name = f"{args.host_prefix}{i + 1:0{args.host_digits}d}"
            hca = net.add(Node("Hca", name, f"{name} mlx5_0", HCA_GUID_BASE + ((i + 1) << 4),
                               0x101B, 1))
            net.connect(hca, 1, sw, port, args.host_width, args.host_speed)
            i += 1
    return i


def parse_dims(text):
    try:
        dims = [int(d) for d in text.lower().split("x")]
    except ValueError:
        raise SystemExit(f"gen_direct: --dims '{text}' is not XxYxZ (e.g. 4x4x4)")
    if len(dims) != 3 or min(dims) < 1:
        raise SystemExit(f"gen_direct: --dims '{text}' needs three sizes >= 1")
    return dims


def build_torus(net, args):
    dims = parse_dims(args.dims)
    h = args.hosts_per_switch
    coords = list(itertools.product(*(range(d) for d in dims)))
    index = {c: i for i, c in enumerate(coords)}
    # Port of the link leaving c in dimension k, direction +1 / -1 (hosts first).
    port = lambda k, sign: h + 1 + 2 * k + (0 if sign > 0 else 1)
    switches = [
        add_switch(net, TORUS_CODE, i, "sw" + "_".join(str(v) for v in c), h + 6)
        for i, c in enumerate(coords)
    ]
    hosts = add_hosts(net, switches, args)
    for c in coords:
        for k, d in enumerate(dims):
            if d == 1:
                continue
            nxt = list(c)
            nxt[k] = (c[k] + 1) % d
            # Each cable once: from c's + port to the neighbour's - port.
            net.connect(switches[index[c]], port(k, +1), switches[index[tuple(nxt)]],
                        port(k, -1), args.link_width, args.link_speed)
    shape = f"3-D torus {'x'.join(map(str, dims))} of {len(switches)} switches"
    return hosts, shape


def build_dragonfly(net, args):
    g, a, k, h = args.groups, args.switches_per_group, args.global_per_switch, args.hosts_per_switch
    if g < 2 or a < 1 or k < 1:
        raise SystemExit("gen_direct: a dragonfly needs --groups >= 2, --switches-per-group >= 1"
                         " and --global-per-switch >= 1")
    if g - 1 > a * k:
        raise SystemExit(f"gen_direct: {g} groups need {g - 1} global cables per group, but a "
                         f"group has only {a} x {k} global ports (groups <= A*K + 1)")
    digits = len(str(max(g, a)))
    switches = [[add_switch(net, DRAGONFLY_CODE, gi * a + si,
                            f"df{gi + 1:0{digits}d}_{si + 1:0{digits}d}", h + a - 1 + k)
                 for si in range(a)] for gi in range(g)]
    hosts = add_hosts(net, [s for grp in switches for s in grp], args)
    for grp in switches:  # local all-to-all: port h+1.. in peer order, skipping itself
        for i, j in itertools.combinations(range(a), 2):
            net.connect(grp[i], h + j, grp[j], h + 1 + i, args.link_width, args.link_speed)
    # Global cables: each group's next free global port, dealt round-robin over its switches.
    used = [0] * g

    def global_port(gi):
        slot = used[gi]
        used[gi] += 1
        sw = switches[gi][slot % a]
        return sw, h + a + slot // a

    for gi, gj in itertools.combinations(range(g), 2):
        (si, pi), (sj, pj) = global_port(gi), global_port(gj)
        net.connect(si, pi, sj, pj, args.link_width, args.link_speed)
    shape = f"dragonfly of {g} groups x {a} switches, {k} global ports per switch"
    return hosts, shape


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--shape", choices=("torus", "dragonfly"), required=True)
    p.add_argument("--dims", default="4x4x4", help="torus: XxYxZ switches (default 4x4x4)")
    p.add_argument("--groups", type=int, default=9, help="dragonfly: groups (default 9)")
    p.add_argument("--switches-per-group", type=int, default=4, help="dragonfly (default 4)")
    p.add_argument("--global-per-switch", type=int, default=2, help="dragonfly (default 2)")
    p.add_argument("--hosts-per-switch", type=int, default=4)
    p.add_argument("--host-speed", default="HDR")
    p.add_argument("--host-width", default="4x")
    p.add_argument("--link-speed", default="HDR", help="switch-to-switch speed (default HDR)")
    p.add_argument("--link-width", default="4x")
    p.add_argument("--host-prefix", default="node")
    p.add_argument("--host-digits", type=int, default=5)
    p.add_argument("--out", default="-", help="output file (default stdout)")
    args = p.parse_args()
    if args.hosts_per_switch < 1:
        p.error("--hosts-per-switch must be positive")
    for speed in (args.host_speed, args.link_speed):
        if speed not in SPEED_MASKS:
            p.error(f"unknown speed '{speed}' (one of {', '.join(SPEED_MASKS)})")
    for width in (args.host_width, args.link_width):
        if width not in WIDTH_MASK:
            p.error(f"unknown width '{width}' (one of {', '.join(WIDTH_MASK)})")

    net = Net()
    build = build_torus if args.shape == "torus" else build_dragonfly
    hosts, shape = build(net, args)
    header = [
        f"ibsim net file written by collectors/sim/gen_direct.py: {shape}",
        f"{hosts} hosts, {args.hosts_per_switch} per switch; host links {args.host_width} "
        f"{args.host_speed}, switch links {args.link_width} {args.link_speed}",
        "command: " + " ".join(["gen_direct.py"] + sys.argv[1:]),
    ]
    if args.out == "-":
        net.write(sys.stdout, header)
    else:
        with open(args.out, "w") as f:
            net.write(f, header)
    nodes, switches, ports = net.counts()
    print(f"gen_direct: {nodes} nodes ({switches} switches), {net.links} links, {ports} ports",
          file=sys.stderr)


if __name__ == "__main__":
    main()

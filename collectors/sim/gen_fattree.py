#!/usr/bin/env python3
"""Writes an ibsim `.net` file describing a 2- or 3-level fat tree.

The output is the ibnetdiscover-compatible grammar that ibsim 0.10 parses (sim_net.c:
parse_netconf, as collectors/sim/ibsim_net.h reads it): one record per node, an absolute
GUID line before every record, both ends of every cable listed, and per-port `w=`/`s=`/`e=`
enabled-width/speed masks on both ends so that ibsim's "highest common enabled value" rule
yields exactly the width and speed asked for.

Shape (all counts deterministic, GUIDs derived from positions):
  hosts      node00001 .. nodeNNNNN, one HCA each, description "nodeNNNNN mlx5_0"
  leaves     ceil(hosts / hosts_per_leaf); leaf ports 1..H face hosts, H+1..H+U go up
  2 levels   every leaf spreads its U uplinks round-robin over the spines
  3 levels   leaves are grouped into pods of `leaves_per_pod`; a leaf spreads its U uplinks
             round-robin over the `aggs_per_pod` aggregation switches of its pod; aggregation
             switch number a of every pod spreads its uplinks round-robin over core group a
  extras     (for edge cases) dual-homed hosts, routers and SHARP aggregation nodes take the
             leaf ports after the uplinks

Unless given, the number of spines (2 levels) or cores per group (3 levels) is the smallest
divisor of the lower switch's uplink count that keeps every top switch at or below --radix
ports, so that every cable bundle between two switches has the same number of links.

Example (the 10,240-host benchmark fabric):
  gen_fattree.py --hosts 10240 --levels 3 --hosts-per-leaf 32 --leaves-per-pod 32 \
      --out fattree-3l-10240h.net
"""

import argparse
import math
import sys

# Per-port option values (ibsim sim_net.c parse_port_opt). Width masks: 1=1x 2=4x 4=8x 8=12x
# 16=2x. Speed masks: s (basic) 1=SDR 2=DDR 4=QDR; e (extended) 1=FDR 2=EDR 4=HDR. Setting
# the same cumulative mask on both ends makes the highest bit the active value. (NDR, e=8,
# needs ibsim >= 0.12; Debian ships 0.10, whose e= accepts 0..7.)
WIDTH_MASK = {"1x": 1, "2x": 16, "4x": 2, "8x": 4, "12x": 8}
SPEED_MASKS = {  # speed -> (s, e)
    "SDR": (1, 0),
    "DDR": (3, 0),
    "QDR": (7, 0),
    "FDR": (7, 1),
    "EDR": (7, 3),
    "HDR": (7, 7),
}

SWITCH_GUID_BASE = 0x7CFE900300000000
HCA_GUID_BASE = 0x0C42A10300000000
ROUTER_GUID_BASE = 0x0008F10400400000
SHARP_GUID_BASE = 0x0002C90000020000
# Switch levels occupy separate GUID ranges (bits 20..23) so ids never collide.
LEVEL_CODE = {"leaf": 1, "spine": 2, "agg": 2, "core": 3}


class Node:
    """One ibsim record: kind is "Switch", "Hca" or "Rt"."""

    def __init__(self, kind, node_id, desc, guid, devid, min_ports=0):
        self.kind = kind
        self.node_id = node_id
        self.desc = desc
        self.guid = guid
        self.devid = devid
        self.min_ports = min_ports
        self.ports = {}  # port -> (remote node id, remote port, options string)
        self.next_free = 1

    def take_port(self):
        while self.next_free in self.ports:
            self.next_free += 1
        port = self.next_free
        self.next_free += 1
        return port

    def num_ports(self):
        return max([self.min_ports] + list(self.ports))


class Net:
    def __init__(self):
        self.nodes = []
        self.links = 0

    def add(self, node):
        self.nodes.append(node)
        return node

    def connect(self, a, pa, b, pb, width, speed):
        if pa in a.ports or pb in b.ports:
            raise ValueError(f"port reused: {a.node_id}[{pa}] or {b.node_id}[{pb}]")
        s, e = SPEED_MASKS[speed]
        opts = f"w={WIDTH_MASK[width]} s={s} e={e}"
        a.ports[pa] = (b.node_id, pb, opts)
        b.ports[pb] = (a.node_id, pa, opts)
        self.links += 1

    def write(self, out, header):
        for line in header:
            out.write(f"# {line}\n")
        out.write("\n")
        for n in self.nodes:
            guid_key = {"Switch": "switchguid", "Hca": "caguid", "Rt": "rtguid"}[n.kind]
            out.write(f"vendid=0x2c9\ndevid=0x{n.devid:x}\n{guid_key}=0x{n.guid:016x}\n")
            port0 = " enhanced port 0" if n.kind == "Switch" else ""
            out.write(f'{n.kind}\t{n.num_ports()} "{n.node_id}"\t\t# "{n.desc}"{port0}\n')
            for p in sorted(n.ports):
                rid, rp, opts = n.ports[p]
                out.write(f'[{p}]\t"{rid}"[{rp}]\t{opts}\n')
            out.write("\n")

    def counts(self):
        switches = [n for n in self.nodes if n.kind == "Switch"]
        ports = sum(n.num_ports() + (1 if n.kind == "Switch" else 0) for n in self.nodes)
        return len(self.nodes), len(switches), ports


def smallest_fitting_divisor(uplinks, lower_switches, radix):
    """Fewest top switches g (a divisor of `uplinks`) with lower*uplinks/g <= radix."""
    for g in range(1, uplinks + 1):
        if uplinks % g == 0 and lower_switches * uplinks // g <= radix:
            return g
    return uplinks


def parse_list(text, valid, what):
    items = [t.strip() for t in text.split(",") if t.strip()]
    for t in items:
        if t not in valid:
            raise SystemExit(f"gen_fattree: unknown {what} '{t}' (one of {', '.join(valid)})")
    return items


def switch(net, level, index, ports, digits):
    name = f"{level}{index + 1:0{digits}d}"
    guid = SWITCH_GUID_BASE | (LEVEL_CODE[level] << 20) | (index + 1)
    return net.add(Node("Switch", name, f"MF0;{name}:MQM8700/U1", guid, 0xCF08, ports))


def build(args):
    net = Net()
    h = args.hosts_per_leaf
    n_leaves = math.ceil(args.hosts / h)
    up = args.leaf_uplinks if args.leaf_uplinks is not None else h
    host_speeds = parse_list(args.host_speeds, SPEED_MASKS, "speed")
    host_widths = parse_list(args.host_widths, WIDTH_MASK, "width")
    if args.uplink_speed not in SPEED_MASKS or args.uplink_width not in WIDTH_MASK:
        raise SystemExit("gen_fattree: bad --uplink-speed/--uplink-width")
    if args.dual_homed and n_leaves < 2:
        raise SystemExit("gen_fattree: --dual-homed needs at least two leaves")

    digits = lambda n: max(2, len(str(n)))
    leaves = [switch(net, "leaf", i, h + up, digits(n_leaves)) for i in range(n_leaves)]
    uplink = lambda a, b: net.connect(a, a.take_port(), b, b.take_port(),
                                      args.uplink_width, args.uplink_speed)

    # Hosts first so that leaf ports 1..H face hosts.
    hosts = []
    for i in range(args.hosts):
        name = f"{args.host_prefix}{i + 1:0{args.host_digits}d}"
        guid = HCA_GUID_BASE + ((i + 1) << 4)
        dual = i >= args.hosts - args.dual_homed
        ports = max(args.hca_ports, 2 if dual else 1)
        hca = net.add(Node("Hca", name, f"{name} mlx5_0", guid, 0x101B, ports))
        leaf = leaves[i // h]
        net.connect(hca, 1, leaf, (i % h) + 1, host_widths[i % len(host_widths)],
                    host_speeds[i % len(host_speeds)])
        hosts.append((hca, dual, i // h))
    for leaf in leaves:
        leaf.next_free = h + 1

    if args.levels == 2:
        n_spines = args.spines or smallest_fitting_divisor(up, n_leaves, args.radix)
        spines = [switch(net, "spine", i, 0, digits(n_spines)) for i in range(n_spines)]
        for leaf in leaves:
            for u in range(up):
                uplink(leaf, spines[u % n_spines])
        top = f"{n_spines} spines"
    else:
        lpp = args.leaves_per_pod
        app = args.aggs_per_pod or up
        n_pods = math.ceil(n_leaves / lpp)
        agg_up = args.agg_uplinks or (lpp * up // app)
        cpg = args.cores_per_group or smallest_fitting_divisor(agg_up, n_pods, args.radix)
        aggs = [switch(net, "agg", i, 0, digits(n_pods * app)) for i in range(n_pods * app)]
        cores = [switch(net, "core", i, 0, digits(app * cpg)) for i in range(app * cpg)]
        for li, leaf in enumerate(leaves):
            pod = li // lpp
            for u in range(up):
                uplink(leaf, aggs[pod * app + u % app])
        for ai, agg in enumerate(aggs):
            group = ai % app
            for v in range(agg_up):
                uplink(agg, cores[group * cpg + v % cpg])
        top = f"{n_pods} pods x {app} aggregation switches, {app} core groups x {cpg} cores"

    # Edge cases take leaf ports after the uplinks.
    for hca, dual, li in hosts:
        if dual:
            other = leaves[(li + 1) % n_leaves]
            net.connect(hca, 2, other, other.take_port(), host_widths[0], host_speeds[0])
    for r in range(args.routers):
        name = f"gw{r + 1:02d}"
        rt = net.add(Node("Rt", name, f"{name} IB-to-IB router",
                          ROUTER_GUID_BASE + ((r + 1) << 4), 0x5A5A, 2))
        for p, leaf in ((1, leaves[r % n_leaves]), (2, leaves[(r + 1) % n_leaves])):
            net.connect(rt, p, leaf, leaf.take_port(), args.uplink_width, "QDR")
    for s in range(args.sharp_nodes):
        leaf = leaves[s % n_leaves]
        agg = net.add(Node("Hca", f"sharp{s + 1:02d}", "Mellanox Technologies Aggregation Node",
                           SHARP_GUID_BASE + ((s + 1) << 4), 0xCF09, 1))
        net.connect(agg, 1, leaf, leaf.take_port(), args.uplink_width, args.uplink_speed)

    header = [
        f"ibsim net file written by collectors/sim/gen_fattree.py: {args.levels}-level fat tree",
        f"{args.hosts} hosts, {n_leaves} leaves x {h} hosts + {up} uplinks, {top}",
        f"hosts {','.join(host_widths)} {','.join(host_speeds)}; "
        f"switch links {args.uplink_width} {args.uplink_speed}; dual-homed {args.dual_homed}, "
        f"routers {args.routers}, SHARP nodes {args.sharp_nodes}",
        "command: " + " ".join(["gen_fattree.py"] + sys.argv[1:]),
    ]
    return net, header


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--hosts", type=int, required=True)
    p.add_argument("--hosts-per-leaf", type=int, default=16)
    p.add_argument("--levels", type=int, choices=(2, 3), default=2)
    p.add_argument("--leaf-uplinks", type=int, help="uplinks per leaf (default: hosts per leaf)")
    p.add_argument("--spines", type=int, help="2 levels: spine count (default: see above)")
    p.add_argument("--leaves-per-pod", type=int, default=16, help="3 levels")
    p.add_argument("--aggs-per-pod", type=int, help="3 levels (default: leaf uplinks)")
    p.add_argument("--agg-uplinks", type=int,
                   help="3 levels: uplinks per aggregation switch (default: its downlinks)")
    p.add_argument("--cores-per-group", type=int, help="3 levels (default: see above)")
    p.add_argument("--radix", type=int, default=64,
                   help="port budget of a top switch when choosing defaults (default 64)")
    p.add_argument("--host-speeds", default="HDR",
                   help="host link speeds, cycled over hosts, e.g. HDR,EDR,FDR (default HDR)")
    p.add_argument("--host-widths", default="4x", help="host link widths, cycled (default 4x)")
    p.add_argument("--uplink-speed", default="HDR", help="switch-to-switch speed (default HDR)")
    p.add_argument("--uplink-width", default="4x", help="switch-to-switch width (default 4x)")
    p.add_argument("--hca-ports", type=int, choices=(1, 2), default=1,
                   help="declared HCA ports; 2 = dual-port HCAs with port 2 unconnected")
    p.add_argument("--dual-homed", type=int, default=0,
                   help="the last N hosts also cable HCA port 2 to the next leaf")
    p.add_argument("--routers", type=int, default=0,
                   help="2-port routers gwNN between leaf r and leaf r+1")
    p.add_argument("--sharp-nodes", type=int, default=0,
                   help="1-port SHARP aggregation nodes on the first leaves")
    p.add_argument("--host-prefix", default="node")
    p.add_argument("--host-digits", type=int, default=5)
    p.add_argument("--out", default="-", help="output file (default stdout)")
    args = p.parse_args()
    if args.hosts < 1 or args.hosts_per_leaf < 1:
        p.error("--hosts and --hosts-per-leaf must be positive")

    net, header = build(args)
    nodes, switches, ports = net.counts()
    if args.out == "-":
        net.write(sys.stdout, header)
    else:
        with open(args.out, "w") as f:
            net.write(f, header)
    print(f"gen_fattree: {nodes} nodes ({switches} switches), {net.links} links, {ports} ports",
          file=sys.stderr)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Writes a SimGrid platform (XML, version 4.1) that reproduces an InfiniBand fabric as its
subnet manager routed it, for SMPI simulations of MPI jobs on that fabric.

    fabric_to_platform.py --ibnetdiscover ibnetdiscover.txt --lfts dump_fts.txt \
        --cores 8 --out platform.xml [--hosts-out hosts.txt]

Inputs are the real tools' outputs (collectors/sim/run_ibsim.sh writes both):
  ibnetdiscover.txt  nodes, cables (both ends, width x speed) and the LID of every CA port
  dump_fts.txt       every switch's linear forwarding table (`dump_fts`; OpenSM's
                     opensm-lfts.dump has the same per-switch block grammar and also works)

What the platform contains (one `Full` zone, so every route is spelled out):
  hosts   one per CA description's first word ("node00017 mlx5_0" -> node00017), with
          `core` = --cores so several MPI ranks share a host; speed 1 Gf (SMPI runs with
          smpi/simulate-computation:no in this evaluation, so it never matters)
  links   one per cable DIRECTION ("leaf01:9" is what leaf01 sends out of port 9), shared
          among the flows crossing it (SimGrid's max-min sharing), bandwidth = the cable's
          data rate (lanes x per-lane data rate, 4xHDR = 200 Gb/s), latency --link-latency.
          Two links per cable make the two directions independent, as on a real IB cable.
          With --nic-latency / --switch-latency / --cable-latency instead (toporr's cost
          model, mapping/costs/host_costs.h: 300 ns per HCA, 130 ns per switch, 15 ns per cable),
          a direction's latency is its cable's, plus the switch it enters, plus the HCA it
          leaves or enters: a path then takes exactly the latency the cost model gives it
          (leaf-local 760 ns, across a spine 1050 ns), where --link-latency alone leaves out
          the HCAs (a 200 ns MPI latency between two hosts of a leaf).
          With --host-mbit R every bandwidth is rescaled by R Mbit/s over the hosts' cable
          rate: host cables run at R Mbit/s and every other cable keeps its ratio to them
          (for an emulated cluster whose dump expresses its rates as InfiniBand links).
  routes  for every ordered pair of hosts, the exact egress ports the switches' LFTs choose
          for the destination's LID (walked hop by hop from the source HCA), so SimGrid's
          link sharing sees the same collisions as the real fabric.
  loopback  host -> itself uses its own link "<host>:loopback" (--loopback-bw, --loopback-lat,
          FATPIPE by default: each intra-host flow gets the full rate, like per-core shared
          memory copies; SHARED with --loopback-shared). Intra-host messages never touch the
          HCA cable.

Limits: one HCA port per host (a host with several CAs keeps the first one listed and a note
is printed); hosts x hosts routes are written, which is fine for the few hundred hosts of an
SMPI job (SimGrid would need a hierarchical zone beyond that). Exit status 1 with
`file:line: what is wrong` on bad input, 2 on bad usage.
"""

import argparse
import re
import sys

# Per-lane data rate in Gb/s after encoding (8b/10b up to QDR, 64b/66b from FDR on).
LANE_GBPS = {
    "SDR": 2.0, "DDR": 4.0, "QDR": 8.0, "FDR10": 10.0, "FDR": 13.64, "EDR": 25.0,
    "HDR": 50.0, "NDR": 100.0, "XDR": 200.0,
}

NODE_RE = re.compile(r'^(Switch|Ca|Rt)\s+(\d+)\s+"([SHR])-([0-9a-fA-F]+)"(.*)$')
PORT_RE = re.compile(r'^\[(\d+)\](?:\([0-9a-fA-F]+\))?\s+"([SHR])-([0-9a-fA-F]+)"\[(\d+)\](.*)$')
RATE_RE = re.compile(r'\b(\d+)x([A-Z]+\d*)\b')
LID_RE = re.compile(r'\blid\s+(\d+)')
LFT_HEADER_RE = re.compile(r'^Unicast lids .* guid (0x[0-9a-fA-F]+)')
LFT_ENTRY_RE = re.compile(r'^(0x[0-9a-fA-F]+)\s+(\d+)\s')


class InputError(Exception):
    pass


class Node:
    def __init__(self, kind, guid, desc, line):
        self.kind = kind  # "Switch", "Ca", "Rt"
        self.guid = guid
        self.desc = desc
        self.line = line
        self.lid = None          # switch LID (port 0) or CA port LID (first port)
        self.ports = {}          # port -> (remote guid, remote port, gbps)
        self.name = None


def parse_ibnetdiscover(path):
    nodes = {}
    current = None
    with open(path) as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if line.startswith("#@") or not line.strip() or line.startswith("#"):
                continue
            m = NODE_RE.match(line)
            if m:
                kind, _, _, guid, rest = m.groups()
                guid = int(guid, 16)
                desc_m = re.search(r'#\s*"([^"]*)"', rest)
                current = Node(kind, guid, desc_m.group(1) if desc_m else "", lineno)
                lid_m = LID_RE.search(rest)
                if kind == "Switch" and lid_m:
                    current.lid = int(lid_m.group(1))
                nodes[guid] = current
                continue
            if line.startswith("["):
                if current is None:
                    raise InputError(f"{path}:{lineno}: port line before any node header")
                m = PORT_RE.match(line)
                if not m:
                    raise InputError(f"{path}:{lineno}: cannot read port line `{line.strip()}`")
                port, _, rguid, rport, rest = m.groups()
                rate = RATE_RE.search(rest)
                if not rate:
                    raise InputError(f"{path}:{lineno}: port line has no width x speed (e.g. 4xHDR)")
                lanes, speed = int(rate.group(1)), rate.group(2)
                if speed not in LANE_GBPS:
                    raise InputError(f"{path}:{lineno}: unknown link speed {speed}")
                current.ports[int(port)] = (int(rguid, 16), int(rport), lanes * LANE_GBPS[speed])
                if current.kind == "Ca" and current.lid is None:
                    lid_m = LID_RE.search(rest)  # a CA port line's first lid is its own
                    if lid_m:
                        current.lid = int(lid_m.group(1))
    if not nodes:
        raise InputError(f"{path}: no nodes (not an ibnetdiscover topology file?)")
    return nodes


def parse_lfts(path):
    """guid -> {lid: out port}."""
    tables = {}
    current = None
    with open(path) as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.strip()
            m = LFT_HEADER_RE.match(line)
            if m:
                current = tables.setdefault(int(m.group(1), 16), {})
                continue
            m = LFT_ENTRY_RE.match(line)
            if m:
                if current is None:
                    raise InputError(f"{path}:{lineno}: LFT entry before any switch header")
                current[int(m.group(1), 16)] = int(m.group(2))
    if not tables:
        raise InputError(f"{path}: no forwarding tables (expected dump_fts output)")
    return tables


def name_nodes(nodes):
    """Hosts: first word of the CA description. Switches: the name between ';' and ':' of
    "MF0;leaf04:MQM8700/U1", else the description, else S-<guid>; made unique."""
    used = set()
    hosts = {}  # host name -> CA node
    notes = []
    for guid in sorted(nodes):
        n = nodes[guid]
        if n.kind == "Ca":
            words = n.desc.split()
            if not words:
                continue
            if words[0] in hosts:
                notes.append(f"host {words[0]} has several CAs; keeping the first")
                continue
            n.name = words[0]
            hosts[n.name] = n
            used.add(n.name)
    for guid in sorted(nodes):
        n = nodes[guid]
        if n.name is not None:
            continue
        m = re.search(r';([^:;]+):', n.desc)
        base = m.group(1) if m else (n.desc.strip() or f"{n.kind[0]}-{guid:016x}")
        base = re.sub(r'[^A-Za-z0-9_.-]', '_', base)
        name = base if base not in used else f"{base}-{guid:016x}"
        n.name = name
        used.add(name)
    return hosts, notes


def route(src, dst, nodes, lfts):
    """Egress (node, port) pairs from src's HCA to dst's HCA, following the LFTs."""
    if not src.ports:
        raise InputError(f"host {src.name} has no cabled port")
    port = min(src.ports)
    hops = [(src, port)]
    here = nodes.get(src.ports[port][0])
    for _ in range(64):
        if here is None:
            raise InputError(f"route {src.name} -> {dst.name} leaves the fabric")
        if here is dst:
            return hops
        if here.kind != "Switch":
            raise InputError(f"route {src.name} -> {dst.name} reaches {here.name}, not {dst.name}")
        table = lfts.get(here.guid)
        if table is None:
            raise InputError(f"switch {here.name} (guid 0x{here.guid:016x}) has no LFT in the dump")
        out = table.get(dst.lid)
        if out is None or out == 0 or out not in here.ports:
            raise InputError(f"switch {here.name}: LFT has no usable port for LID {dst.lid} "
                             f"({dst.name})")
        hops.append((here, out))
        here = nodes.get(here.ports[out][0])
    raise InputError(f"route {src.name} -> {dst.name} loops (more than 64 hops)")


def fmt_gbps(gbps):
    return f"{gbps:.6g}Gbps"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ibnetdiscover", required=True)
    p.add_argument("--lfts", required=True, help="dump_fts output (or opensm-lfts.dump)")
    p.add_argument("--cores", type=int, default=8, help="cores per host (default 8)")
    p.add_argument("--link-latency", default="100ns",
                   help="per cable direction: wire + one switch traversal (default 100ns)")
    p.add_argument("--nic-latency", type=float,
                   help="ns per HCA (each end of a path); with the two below, replaces "
                        "--link-latency (see above)")
    p.add_argument("--switch-latency", type=float, default=130.0,
                   help="ns per switch traversal, with --nic-latency (default 130)")
    p.add_argument("--cable-latency", type=float, default=15.0,
                   help="ns per cable, with --nic-latency (default 15)")
    p.add_argument("--host-mbit", type=float,
                   help="rescale every link so the hosts' cables run at this many Mbit/s and "
                        "the others keep their ratio to them (all hosts' cables must have one "
                        "rate; default: the dump's rates)")
    p.add_argument("--loopback-bw", default="20GBps", help="intra-host rate (default 20GBps)")
    p.add_argument("--loopback-lat", default="200ns", help="intra-host latency (default 200ns)")
    p.add_argument("--loopback-shared", action="store_true",
                   help="intra-host flows share --loopback-bw (default: each gets it)")
    p.add_argument("--out", required=True)
    p.add_argument("--hosts-out", help="also write the host names, sorted, one per line")
    p.add_argument("--only-hosts",
                   help="file of host names, one per line: the platform has those hosts only "
                        "(and the routes among them; a 1,024-host fabric's all-pairs routes "
                        "would be 1 M), e.g. a job's allocation on a large fabric")
    args = p.parse_args()
    if args.cores < 1:
        p.error("--cores must be >= 1")
    if args.host_mbit is not None and not args.host_mbit > 0:
        p.error("--host-mbit must be positive")

    try:
        nodes = parse_ibnetdiscover(args.ibnetdiscover)
        lfts = parse_lfts(args.lfts)
        hosts, notes = name_nodes(nodes)
        if not hosts:
            raise InputError(f"{args.ibnetdiscover}: no CA with a description, so no hosts")
        for h in hosts.values():
            if h.lid is None:
                raise InputError(f"{args.ibnetdiscover}:{h.line}: CA {h.name} has no LID "
                                 "(run ibnetdiscover on a routed fabric)")
        names = sorted(hosts)
        if args.only_hosts:
            with open(args.only_hosts) as f:
                wanted = sorted({line.strip() for line in f if line.strip()})
            unknown = [h for h in wanted if h not in hosts]
            if unknown:
                raise InputError(f"{args.only_hosts}: {len(unknown)} hosts not in "
                                 f"{args.ibnetdiscover}, e.g. {unknown[0]}")
            if not wanted:
                raise InputError(f"{args.only_hosts}: no host names")
            names = wanted
        routes = {}
        used_links = {}
        latency = {}  # link id -> ns, with --nic-latency
        for a in names:
            for b in names:
                if a == b:
                    continue
                hops = route(hosts[a], hosts[b], nodes, lfts)
                ids = []
                for node, port in hops:
                    link_id = f"{node.name}:{port}"
                    used_links[link_id] = node.ports[port][2]
                    ids.append(link_id)
                    if args.nic_latency is not None and link_id not in latency:
                        peer = nodes[node.ports[port][0]]
                        ns = args.cable_latency
                        ns += args.switch_latency if peer.kind == "Switch" else args.nic_latency
                        if node.kind != "Switch":
                            ns += args.nic_latency
                        latency[link_id] = ns
                routes[(a, b)] = ids
        scale = 1.0
        if args.host_mbit is not None:
            rates = {h: hosts[h].ports[min(hosts[h].ports)][2] for h in names}
            if len(set(rates.values())) != 1:
                slow = min(rates, key=rates.get)
                fast = max(rates, key=rates.get)
                raise InputError(f"--host-mbit: the hosts' cables differ ({slow} "
                                 f"{rates[slow]:g} Gb/s, {fast} {rates[fast]:g} Gb/s): no "
                                 "single host rate to rescale to")
            scale = args.host_mbit / 1000.0 / next(iter(rates.values()))
    except (InputError, OSError) as e:
        print(f"fabric_to_platform: {e}", file=sys.stderr)
        return 1
    for note in notes:
        print(f"fabric_to_platform: note: {note}", file=sys.stderr)

    out = []
    out.append("<?xml version='1.0'?>")
    out.append('<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">')
    out.append(f"<!-- generated by bench/smpi/fabric_to_platform.py from {args.ibnetdiscover} "
               f"and {args.lfts}: {len(names)} hosts x {args.cores} cores, "
               f"{len(used_links)} directed links; routes follow the LFTs"
               + (f"; bandwidths x {scale:.6g} (host cables {args.host_mbit:g} Mbit/s)"
                  if args.host_mbit is not None else "") + " -->")
    out.append('<platform version="4.1">')
    out.append('<zone id="fabric" routing="Full">')
    for h in names:
        out.append(f'  <host id="{h}" speed="1Gf" core="{args.cores}"/>')
    sharing = "SHARED" if args.loopback_shared else "FATPIPE"
    for h in names:
        out.append(f'  <link id="{h}:loopback" bandwidth="{args.loopback_bw}" '
                   f'latency="{args.loopback_lat}" sharing_policy="{sharing}"/>')
    for link_id in sorted(used_links):
        lat = f"{latency[link_id]:g}ns" if args.nic_latency is not None else args.link_latency
        out.append(f'  <link id="{link_id}" bandwidth="{fmt_gbps(used_links[link_id] * scale)}" '
                   f'latency="{lat}"/>')
    for h in names:
        out.append(f'  <route src="{h}" dst="{h}"><link_ctn id="{h}:loopback"/></route>')
    for (a, b), ids in sorted(routes.items()):
        links = "".join(f'<link_ctn id="{i}"/>' for i in ids)
        out.append(f'  <route src="{a}" dst="{b}" symmetrical="NO">{links}</route>')
    out.append("</zone>")
    out.append("</platform>")
    with open(args.out, "w") as f:
        f.write("\n".join(out) + "\n")
    if args.hosts_out:
        with open(args.hosts_out, "w") as f:
            f.write("\n".join(names) + "\n")
    print(f"fabric_to_platform: {len(names)} hosts, {len(used_links)} directed links, "
          f"{len(routes)} routes -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Slows down, in a SimGrid platform of fabric_to_platform.py, the links that toporr's choice
relies on and the MPI library's own call does not.

  degrade_platform.py --platform IN.xml --hostfile HOSTS --report REPORT.jsonl
                      --collective C --bytes B --factor F --out OUT.xml

HOSTS is the run's hostfile (rank r on line r: the launch order), REPORT a TOPORR_REPORT of
that run. Its `auto` decision for (C, B) gives toporr's algorithm and order (new rank i = old
rank new_order[i]) and, in its candidates, the algorithm the MPI library runs (`mpi_library`'s
effective algorithm) on the launch order. A link is degraded when a message of toporr's
algorithm on toporr's order crosses it and no message of the library's algorithm on the launch
order does (the routes are the platform's). Its bandwidth is divided by F; the platform stays
otherwise identical, so the cost file (what the model knows) still says the link is as fast as
before, and the MPI default runs as fast as before. Patterns known: ring (rank i sends to
i + 1), recursive_doubling and rabenseifner (rank i exchanges with i xor 2^j; the number of
ranks a power of two). Prints the degraded links on stderr.
"""

import argparse
import json
import re
import sys


def pairs(algorithm, hosts):
    """The (source host, destination host) pairs of `algorithm`'s messages, rank i on
    hosts[i]; messages within a host are left out."""
    n = len(hosts)
    if algorithm == "ring":
        peers = [(i, (i + 1) % n) for i in range(n)]
    elif algorithm in ("recursive_doubling", "rabenseifner") and n & (n - 1) == 0:
        peers = [(i, i ^ (1 << j)) for j in range(n.bit_length() - 1) for i in range(n)]
    else:
        raise ValueError(f"no pattern for {algorithm} on {n} ranks")
    return {(hosts[a], hosts[b]) for a, b in peers if hosts[a] != hosts[b]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--platform", required=True)
    ap.add_argument("--hostfile", required=True)
    ap.add_argument("--report", required=True)
    ap.add_argument("--collective", required=True)
    ap.add_argument("--bytes", type=int, required=True)
    ap.add_argument("--factor", type=float, required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    launch = [l.strip() for l in open(args.hostfile) if l.strip()]
    decision = None
    for line in open(args.report):
        d = json.loads(line)
        if (d.get("event") == "decision" and d["collective"] == args.collective and
                d["algorithm"] == "auto" and d["bytes"] == args.bytes):
            decision = d
    if decision is None or sorted(decision["new_order"]) != list(range(len(launch))):
        print(f"degrade_platform: {args.report}: no auto {args.collective} decision at "
              f"{args.bytes} B for {len(launch)} ranks", file=sys.stderr)
        return 1
    library = next((c["effective"] for c in decision["candidates"]
                    if c["algorithm"] == "mpi_library"), None)
    try:
        mine = pairs(decision["chosen_algorithm"], [launch[o] for o in decision["new_order"]])
        theirs = pairs(library, launch)
    except ValueError as e:
        print(f"degrade_platform: {e}", file=sys.stderr)
        return 1
    text = open(args.platform).read()
    routes = {(a, b): re.findall(r'<link_ctn id="([^"]+)"/>', body) for a, b, body in
              re.findall(r'<route src="([^"]+)" dst="([^"]+)"[^>]*>(.*?)</route>', text)}
    used = lambda pairs: {link for p in pairs for link in routes[p]}
    slow = used(mine) - used(theirs)
    if not slow:
        print(f"degrade_platform: toporr's {decision['chosen_algorithm']} uses no link the "
              f"library's {library} on the launch order does not", file=sys.stderr)
        return 1

    def degrade(m):
        value, unit = re.fullmatch(r"([0-9.eE+-]+)([A-Za-z]+)", m.group(2)).groups()
        return f'{m.group(1)}{float(value) / args.factor:g}{unit}"'

    out = re.sub(r'(<link id="(?:%s)" bandwidth=")([^"]+)"' % "|".join(map(re.escape, slow)),
                 degrade, text)
    with open(args.out, "w") as f:
        f.write(out)
    print(f"degrade_platform: toporr's {decision['chosen_algorithm']} vs the library's {library}: "
          f"{len(slow)} links / {args.factor:g}: {' '.join(sorted(slow))}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

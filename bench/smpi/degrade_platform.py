#!/usr/bin/env python3
"""Slows down, in a SimGrid platform of fabric_to_platform.py, the links that one rank order's
ring relies on and the launch order's ring does not.

  degrade_platform.py --platform IN.xml --hostfile HOSTS --report REPORT.jsonl
                      --collective C --bytes B --factor F --out OUT.xml

HOSTS is the run's hostfile (rank r on line r: the launch order), REPORT a TOPORR_REPORT of
that run; its `auto` decision for (C, B) gives toporr's order (new rank i = old rank
new_order[i]). A ring's messages go from each rank to the next (the last to the first); a
link is degraded when a route between two hosts that are neighbours in toporr's ring crosses
it and no route between neighbours in the launch order's ring does. Its bandwidth is divided
by F; the platform stays otherwise identical, so the cost file (what the model knows) still
says the link is as fast as before. Prints the degraded links on stderr.
"""

import argparse
import json
import re
import sys


def ring_pairs(hosts):
    n = len(hosts)
    return {(hosts[i], hosts[(i + 1) % n]) for i in range(n) if hosts[i] != hosts[(i + 1) % n]}


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
    order = None
    for line in open(args.report):
        d = json.loads(line)
        if (d.get("event") == "decision" and d["collective"] == args.collective and
                d["algorithm"] == "auto" and d["bytes"] == args.bytes):
            order = d["new_order"]
    if order is None or sorted(order) != list(range(len(launch))):
        print(f"degrade_platform: {args.report}: no auto {args.collective} decision at "
              f"{args.bytes} B for {len(launch)} ranks", file=sys.stderr)
        return 1
    text = open(args.platform).read()
    routes = {(a, b): re.findall(r'<link_ctn id="([^"]+)"/>', body) for a, b, body in
              re.findall(r'<route src="([^"]+)" dst="([^"]+)"[^>]*>(.*?)</route>', text)}
    used = lambda pairs: {link for p in pairs for link in routes[p]}
    slow = used(ring_pairs([launch[o] for o in order])) - used(ring_pairs(launch))
    if not slow:
        print("degrade_platform: toporr's ring uses no link the launch order's does not",
              file=sys.stderr)
        return 1

    def degrade(m):
        value, unit = re.fullmatch(r"([0-9.eE+-]+)([A-Za-z]+)", m.group(2)).groups()
        return f'{m.group(1)}{float(value) / args.factor:g}{unit}"'

    out = re.sub(r'(<link id="(?:%s)" bandwidth=")([^"]+)"' % "|".join(map(re.escape, slow)),
                 degrade, text)
    with open(args.out, "w") as f:
        f.write(out)
    print(f"degrade_platform: {len(slow)} links / {args.factor:g}: {' '.join(sorted(slow))}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

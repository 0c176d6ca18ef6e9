#!/usr/bin/env python3
"""MPICH's own topology-aware trees fed by toporr, against MPICH's default and toporr's
drop-in, measured on the virtual cluster with MPICH 4.2 (Debian 13: run it in the root of
testing/stacks).

    testing/stacks/stack_root.sh run trixie -- \\
        python3 /toporr/bench/vcluster/run_mpich_topo_bench.py [--rounds 3] [--reps 4]
        [--profiles tapered,tree3] [--placements roundrobin,leafsorted]
        [--sizes 1048576,16777216] [--raw DIR]
    bench/vcluster/run_mpich_topo_bench.py --report-only     (from the committed raw data)

MPICH 4.2 builds bcast and allreduce trees from the fabric when it knows each rank's place:
MPIR_CVAR_COORDINATES_FILE, a file of `rank: group switch port` that nothing in MPICH
produces. `toporrctl export --format mpich-coordinates --hosts H0,H1,...` writes it from the
daemon's fabric for the job's ranks. Variants, each a job of its own running
bench/vcluster/plain_coll_bench.c (nothing of toporr linked):
  default     MPICH's own selection on the launch order;
  mpich-topo  MPICH's tree with MPIR_CVAR_{BCAST,ALLREDUCE}_TREE_TYPE=topology_aware on
              toporr's coordinates (MPIR_CVAR_*_INTRA_ALGORITHM=tree, the other topology
              settings at MPICH's defaults);
  dropin      toporr's PMPI drop-in for MPICH (LD_PRELOAD libtoporr_pmpi.so): its selection of
              algorithm and order, or MPICH's call where it predicts no gain or its run-time
              check measured MPICH faster.
Cells: profile (tapered: 8 hosts x 2 ranks on 2 leaves, 4:1; tree3: 16 hosts x 1 on a 3-level
tree, 2:1 at each level; host link rates as in run_baselines_bench.py), starting order
(roundrobin: rank r on host r mod H of the name-sorted hosts; leafsorted: the leaf-sorted order
of that), collective, size. Each round runs the three variants' jobs in an order shuffled per
round (seeded); a job runs 2 warm-up repetitions (the drop-in decides and verifies there),
then --reps timed ones; a variant's time in a round is its job's median. Ratios are paired per
round (default's time / the variant's, > 1: faster than MPICH's default) and summarised by
their median and range over the rounds.

Raw data: DIR/*.jsonl (the job's lines plus a "job" line: variant, environment, hosts, load,
wall time), DIR/layout-PROFILE.json, DIR/coords-*.txt, DIR/meta.json, packed into
bench/results/mpich_topo/raw.tar.gz; the report bench/results/mpich_topo/mpich_topo.md is
written from it. Needs root (the cluster) and MPICH >= 4.2.
"""

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import run_baselines_bench as bb  # noqa: E402  (profiles, placements, leaf-sorted order)
import run_vcluster_bench as vb  # noqa: E402  (the build, sizes in words)

VC = os.path.join(REPO, "testing/vcluster/vcluster.py")
NAME = "mtopo"
RESULTS = os.path.join(REPO, "bench/results/mpich_topo")
VARIANTS = ("default", "mpich-topo", "dropin")
SIZES = (1048576, 16777216)


def log(msg):
    print(f"mpich-topo: {msg}", file=sys.stderr, flush=True)


def mpich_version():
    out = subprocess.run(["mpichversion"], capture_output=True, text=True).stdout
    m = re.search(r"MPICH Version:\s*(\d+)\.(\d+)(?:\.(\d+))?", out)
    return tuple(int(x or 0) for x in m.groups()) if m else None


def variant_env(variant, coll, coords, client_conf, report):
    if variant == "default":
        return {}
    if variant == "mpich-topo":
        c = coll.upper()
        return {"MPIR_CVAR_COORDINATES_FILE": coords, f"MPIR_CVAR_{c}_INTRA_ALGORITHM": "tree",
                f"MPIR_CVAR_{c}_TREE_TYPE": "topology_aware"}
    return {"TOPORR_CONFIG": client_conf, "TOPORR_SOCKET": "/nonexistent",
            "TOPORR_REPORT": report, "TOPORR_DEADLINE_MS": "5000"}


def job(args, prog, pmpi, hosts, variant, coll, coords, state_dir, raw, tag):
    report = os.path.join(raw, f"{tag}.report.jsonl")
    env = variant_env(variant, coll, coords, os.path.join(state_dir, "client.conf"), report)
    hostfile = os.path.join(args.work, f"{tag}.hosts")
    with open(hostfile, "w") as f:
        f.write("".join(h + ":1\n" for h in hosts))
    cmd = [sys.executable, VC, "mpirun", "--name", NAME, "mpich", "-f", hostfile, "-n",
           str(len(hosts))]
    if variant == "dropin":
        cmd += ["-genv", "LD_PRELOAD", pmpi]
    for k, v in env.items():
        cmd += ["-genv", k, v]
    cmd += [prog, "--collective", coll, "--sizes", ",".join(map(str, args.sizes)), "--reps",
            str(args.reps), "--warmup", "2"]
    load0 = os.getloadavg()[0]
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, cwd=args.work)
    wall = time.monotonic() - t0
    if p.returncode != 0:
        raise RuntimeError(f"{tag}: exit {p.returncode}\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
    lines = [l for l in p.stdout.splitlines() if l.startswith("{")]
    setup = json.loads(lines[0])
    if setup["hosts"] != hosts:
        raise RuntimeError(f"{tag}: ranks ran on {setup['hosts']}, asked {hosts}")
    lines.append(json.dumps({"kind": "job", "variant": variant, "env": env, "hosts": hosts,
                             "load1": [round(load0, 2), round(os.getloadavg()[0], 2)],
                             "wall_s": round(wall, 1)}))
    with open(os.path.join(raw, f"{tag}.jsonl"), "w") as f:
        f.write("\n".join(lines) + "\n")
    log(f"{tag}: {wall:.0f} s, load {load0:.1f}")


def measure(args, raw):
    version = mpich_version()
    if version is None or version < (4, 2, 0):
        sys.exit(f"mpich-topo: MPICH {version} here; its coordinates file needs 4.2 or later "
                 "(run in the Debian 13 root: testing/stacks/stack_root.sh run trixie -- ...)")
    binroot = vb.build()
    prog = os.path.join(args.work, "plain_coll_bench")
    subprocess.run(["mpicc.mpich", "-O2", "-o", prog, os.path.join(HERE, "plain_coll_bench.c")],
                   check=True)
    pmpi = os.path.join(binroot, "client/mpi/mpich/libtoporr_pmpi.so")
    toporrd = os.path.join(binroot, "daemon/toporrd")
    toporrctl = os.path.join(binroot, "client/ctl/toporrctl")
    meta_path = os.path.join(raw, "meta.json")
    meta = json.load(open(meta_path)) if os.path.exists(meta_path) else {"sessions": []}
    session = {"start": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
               "argv": sys.argv[1:], "mpich": ".".join(map(str, version)),
               "load1_start": round(os.getloadavg()[0], 2)}
    meta["sessions"].append(session)
    t_start = time.monotonic()
    rng = random.Random(20261129)
    try:
        for profile in args.profiles:
            spec = bb.PROFILES[profile]
            with bb.profile_cluster(NAME, profile, toporrd, toporrctl, raw) as st:
                layout = st["layout"]
                state_dir = st["state_dir"]
                for pl in args.placements:
                    hosts = bb.placement(pl, layout, spec["per_host"])
                    coords = os.path.join(raw, f"coords-{profile}-{pl}.txt")
                    with open(coords, "w") as f:
                        subprocess.run([toporrctl, "--socket", st["toporrd"]["socket"], "export",
                                        "--format", "mpich-coordinates", "--hosts",
                                        ",".join(hosts)], stdout=f, check=True)
                    for coll in ("allreduce", "bcast"):
                        for rnd in range(args.rounds):
                            order = list(VARIANTS)
                            rng.shuffle(order)
                            for variant in order:
                                tag = f"{profile}-{pl}-{coll}-r{rnd}-{variant}"
                                if os.path.exists(os.path.join(raw, f"{tag}.jsonl")):
                                    continue
                                job(args, prog, pmpi, hosts, variant, coll, coords, state_dir,
                                    raw, tag)
    finally:
        session["end"] = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
        session["minutes"] = round((time.monotonic() - t_start) / 60, 1)
        session["load1_end"] = round(os.getloadavg()[0], 2)
        with open(meta_path, "w") as f:
            json.dump(meta, f, indent=1)


# ---- report --------------------------------------------------------------------------------


def load(raw):
    """{(profile, placement, coll, size, round, variant): median us}, job lines by tag."""
    times, jobs = {}, {}
    for name in sorted(os.listdir(raw)):
        m = re.fullmatch(r"(\w+)-(\w+)-(allreduce|bcast)-r(\d+)-([\w-]+)\.jsonl", name)
        if not m:
            continue
        profile, pl, coll, rnd, variant = m.groups()
        lines = [json.loads(l) for l in open(os.path.join(raw, name)) if l.strip()]
        jobs[name] = next((l for l in lines if l["kind"] == "job"), {})
        by_size = {}
        for l in lines:
            if l["kind"] == "time":
                by_size.setdefault(l["bytes"], []).append(l["us"])
        for size, us in by_size.items():
            times[(profile, pl, coll, size, int(rnd), variant)] = statistics.median(us)
    return times, jobs


def dropin_choices(raw, profile, pl, coll):
    """The drop-in's decisions (chosen algorithm, reordered or not, verdicts) in its reports."""
    out = {}
    for name in sorted(os.listdir(raw)):
        if not (name.startswith(f"{profile}-{pl}-{coll}-") and name.endswith("dropin.report.jsonl")):
            continue
        for line in open(os.path.join(raw, name)):
            d = json.loads(line)
            key = d.get("bytes")
            if d.get("event") == "decision" and d.get("collective") == coll:
                reordered = d.get("new_order") != sorted(d.get("new_order") or [])
                out.setdefault(key, {})["choice"] = (
                    f"{d.get('chosen_algorithm')}{' reordered' if reordered else ''}")
            elif d.get("event") == "verified" and d.get("collective") == coll:
                out.setdefault(key, {}).setdefault("verdicts", set()).add(d.get("verdict"))
    return out


def report(raw, out_dir):
    times, jobs = load(raw)
    meta = json.load(open(os.path.join(raw, "meta.json")))
    cells = sorted({k[:4] for k in times}, key=lambda k: (k[0] != "tapered", k[0],
                                                          k[1] != "roundrobin", k[2], k[3]))
    md = os.path.join(out_dir, "mpich_topo.md")
    with open(md, "w") as f:
        w = lambda s="": f.write(s + "\n")
        w("# MPICH 4.2's topology-aware trees fed by toporr, MPICH's default and toporr's drop-in")
        w()
        w("Generated by `bench/vcluster/run_mpich_topo_bench.py` from the raw data in "
          "`raw.tar.gz` (`--report-only` regenerates it); do not edit by hand.")
        w()
        for s in meta["sessions"]:
            w(f"- Measured: `testing/stacks/stack_root.sh run trixie -- python3 "
              f"/toporr/bench/vcluster/run_mpich_topo_bench.py {' '.join(s['argv'])}`, MPICH "
              f"{s.get('mpich')}, {s['start']} to {s.get('end')}, {s.get('minutes')} min, "
              f"1-minute load {s.get('load1_start')} before, {s.get('load1_end')} after, on 2 "
              "cores.")
        loads = [x for j in jobs.values() for x in j.get("load1", [])]
        if loads:
            w(f"- Load around the jobs: 1-minute load average {min(loads):.1f}-{max(loads):.1f} "
              f"(median {statistics.median(loads):.1f}).")
        w("- **Measured** on the virtual cluster (namespace hosts, `tc tbf` shaped links, MPICH "
          "4.2 ch4 over TCP, 16 ranks on 2 cores). Not InfiniBand: see docs/vcluster.md.")
        w()
        w("Variants (one job each, alternating per round): **default** MPICH's own selection; "
          "**mpich-topo** MPICH's `tree` with `TREE_TYPE=topology_aware` on the coordinates "
          "`toporrctl export --format mpich-coordinates` wrote for the job's ranks; **dropin** "
          "toporr's PMPI drop-in. Ratio = default's time / the variant's (> 1: faster than "
          "MPICH's default), the median over rounds of the paired per-round ratios, [min, max]. "
          "Winner: the fastest median time; `~` when it is within 5 % of the next.")
        w()
        w("| profile | start | collective | size | default ms | mpich-topo | dropin | winner | "
          "drop-in chose |")
        w("|---|---|---|---|---|---|---|---|---|")
        for profile, pl, coll, size in cells:
            rounds = sorted({k[4] for k in times if k[:4] == (profile, pl, coll, size)})
            t = {v: [times.get((profile, pl, coll, size, r, v)) for r in rounds]
                 for v in VARIANTS}
            complete = [i for i in range(len(rounds)) if all(t[v][i] for v in VARIANTS)]
            if not complete:
                continue
            med = {v: statistics.median(t[v][i] for i in complete) for v in VARIANTS}
            cols = []
            for v in ("mpich-topo", "dropin"):
                ratios = [t["default"][i] / t[v][i] for i in complete]
                cols.append(f"{statistics.median(ratios):.2f}x [{min(ratios):.2f}, "
                            f"{max(ratios):.2f}]")
            ranked = sorted(VARIANTS, key=lambda v: med[v])
            close = med[ranked[1]] <= 1.05 * med[ranked[0]]
            winner = ranked[0] + (f" ~ {ranked[1]}" if close else "")
            ch = dropin_choices(raw, profile, pl, coll).get(size, {})
            chose = ch.get("choice", "no decision (below its size threshold): MPICH's call")
            if ch.get("verdicts"):
                chose += f"; check: {', '.join(sorted(ch['verdicts']))}"
            w(f"| {profile} | {pl} | {coll} | {vb.human(size)} | {med['default'] / 1000:.1f} | "
              f"{cols[0]} | {cols[1]} | {winner} | {chose} |")
        w()
        w(f"Rounds per cell: {max((k[4] for k in times), default=-1) + 1}; repetitions per job "
          "in the raw data (`\"kind\":\"time\"` lines). Each job runs 2 warm-up repetitions: "
          "where the drop-in's run-time check (its first calls alternate between toporr's "
          "path and MPICH's) ended with `mpi_library`, part of that alternation falls in the "
          "timed repetitions.")
    log(f"wrote {md}")


def pack(raw, out_dir):
    archive = os.path.join(out_dir, "raw.tar.gz")
    with tarfile.open(archive, "w:gz") as t:
        for f in sorted(os.listdir(raw)):
            if f.endswith((".jsonl", ".json", ".txt")):
                t.add(os.path.join(raw, f), arcname=f)
    log(f"wrote {archive}")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=4)
    ap.add_argument("--profiles", default="tapered,tree3")
    ap.add_argument("--placements", default="roundrobin,leafsorted")
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)))
    ap.add_argument("--raw", default="/tmp/toporr-mpich-topo",
                    help="raw results (kept between runs: a finished job is not rerun)")
    ap.add_argument("--results", default=RESULTS)
    ap.add_argument("--report-only", action="store_true")
    args = ap.parse_args()
    args.profiles = args.profiles.split(",")
    args.placements = args.placements.split(",")
    args.sizes = [int(s) for s in args.sizes.split(",")]
    if any(p not in ("tapered", "tree3") for p in args.profiles):
        ap.error("--profiles: tapered, tree3")
    if any(p not in ("roundrobin", "leafsorted") for p in args.placements):
        ap.error("--placements: roundrobin, leafsorted")
    os.makedirs(args.results, exist_ok=True)
    if args.report_only:
        with tempfile.TemporaryDirectory() as raw:
            with tarfile.open(os.path.join(args.results, "raw.tar.gz")) as t:
                t.extractall(raw)
            report(raw, args.results)
        return
    if os.geteuid() != 0:
        sys.exit("mpich-topo: must run as root (the virtual cluster)")
    os.makedirs(args.raw, exist_ok=True)
    args.work = os.path.join(args.raw, "work")
    os.makedirs(args.work, exist_ok=True)
    measure(args, args.raw)
    pack(args.raw, args.results)
    report(args.raw, args.results)


if __name__ == "__main__":
    main()

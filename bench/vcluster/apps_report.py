"""The application table of bench/vcluster/run_apps_bench.py: from the measured runs (one
JSON file per cell in the raw directory) to bench/results/apps_vcluster.md, with the paired
ratios, the noise bands and the targets. Imported by run_apps_bench.py; `--report-only`
makes the table again from a raw directory."""

import json
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
VARIANTS = ["default", "profiled", "dropin", "both"]
# Thermo values of a variant against the default run of the same repetition: equal within
# this relative difference (the trajectory is the same; a reduction in another order may
# change the last printed digit of a sum).
THERMO_RTOL = 1e-6
# HPCC's MPI-parallel tests with their own timers; their sum is HPCC's time here.
HPCC_TIMES = ["HPL_time", "PTRANS_time", "MPIRandomAccess_time", "MPIRandomAccess_LCG_time"]
# Rates (larger is better) reported beside them.
HPCC_RATES = ["HPL_Tflops", "PTRANS_GBs", "MPIRandomAccess_GUPs", "MPIFFT_Gflops",
              "NaturallyOrderedRingBandwidth_GBytes", "RandomlyOrderedRingBandwidth_GBytes"]


def log(msg):
    print(f"apps-bench: {msg}", file=sys.stderr, flush=True)


def quartiles(v):
    v = sorted(v)
    if len(v) == 1:
        return v[0], v[0], v[0]
    q = statistics.quantiles(v, n=4, method="inclusive")
    return q[0], q[1], q[2]


def load_cell(path):
    runs, prof, pl = [], None, None
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            if r["kind"] == "run":
                runs.append(r)
            elif r["kind"] == "profile_run":
                prof = r
            elif r["kind"] == "plan":
                pl = r
    return runs, prof, pl


def paired(runs, var, key, larger_better=False):
    """Per-repetition ratios default/variant of key (variant/default for rates)."""
    by = {(r["rep"], r["variant"]): r for r in runs}
    out = []
    for rep in sorted({r["rep"] for r in runs}):
        a, b = by.get((rep, "default")), by.get((rep, var))
        if a and b and a.get(key) and b.get(key):
            out.append(b[key] / a[key] if larger_better else a[key] / b[key])
    return out


def med(v):
    return statistics.median(v) if v else None


def fmt(x, digits=2):
    return "—" if x is None else f"{x:.{digits}f}"


def mb(b):
    return f"{b / 1e6:.1f} MB"


def decisions(path):
    """Decisions the drop-in reported in TOPORR_REPORT (0 when it wrote none: every call
    went to the MPI library)."""
    n = 0
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                try:
                    n += json.loads(line).get("event") == "decision"
                except ValueError:
                    pass
    return n


def profile_mpi_share(path):
    """The mean over ranks of the share of their run spent inside MPI, in %, from a traffic
    profile's `time` records (None without them)."""
    shares = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                w = line.split()
                if len(w) == 4 and w[0] == "time" and int(w[2]) > 0:
                    shares.append(min(1.0, int(w[3]) / int(w[2])))
    return 100 * sum(shares) / len(shares) if shares else None


def report(args, cells, skipped):
    rows = []
    for cell in cells:
        path = os.path.join(args.raw, cell.tag, "cell.jsonl")
        if not os.path.exists(path):
            continue
        runs, prof, pl = load_cell(path)
        dec = {v: decisions(os.path.join(args.raw, cell.tag, f"report-{v}.jsonl"))
               for v in ("dropin", "both")}
        base = [r for r in runs if r["variant"] == "default"]
        for v in VARIANTS[1:]:
            mine = [r for r in runs if r["variant"] == v]
            ratios = paired(runs, v, "time_s")
            if not ratios:
                continue
            q1, m, q3 = quartiles(ratios)
            row = dict(cell=cell, variant=v, n=len(ratios), q1=q1, median=m, q3=q3,
                       base_s=med([r["time_s"] for r in base if r.get("time_s")]),
                       var_s=med([r["time_s"] for r in mine if r.get("time_s")]),
                       base_comm=med([r["comm_pct"] for r in base if r.get("comm_pct")]),
                       mpi_share=profile_mpi_share(
                           os.path.join(args.raw, cell.tag, "traffic.prof")),
                       var_comm=med([r["comm_pct"] for r in mine if r.get("comm_pct")]),
                       correct=sum(1 for r in mine if r.get("correct")), runs=len(mine),
                       checks=[r.get("check", "") for r in mine],
                       base_correct=sum(1 for r in base if r.get("correct")),
                       base_runs=len(base), bytes=prof["bytes"], plan=pl,
                       base_spread=None, extra={}, decisions=dec.get(v),
                       load=med([r["load1"][0] for r in mine]),
                       # The same code as the default run: the plan kept the launch order
                       # (profiled), the drop-in passed every call to the library (dropin),
                       # or both (both).
                       aa=((v == "dropin" or not pl.get("reordered")) and
                           (v == "profiled" or dec.get(v) == 0)))
            bt = [r["time_s"] for r in base if r.get("time_s")]
            if len(bt) > 1:
                bq = quartiles(bt)
                row["base_spread"] = (bq[2] - bq[0]) / bq[1]
            if cell.app == "hpcc":
                for k in HPCC_TIMES:
                    row["extra"][k] = quartiles(paired(runs, v, k)) if paired(runs, v, k) else None
                for k in HPCC_RATES:
                    pr = paired(runs, v, k, larger_better=True)
                    row["extra"][k] = quartiles(pr) if pr else None
            rows.append(row)
    write_report(args, rows, cells, skipped)
    return rows


def noise_bands(rows):
    """app -> the 90th percentile of |1 - median| over the app's A/A cells (the same code
    run twice), as for the collective tables."""
    devs = {}
    for r in rows:
        if r["aa"]:
            devs.setdefault(r["cell"].app, []).append(abs(1 - r["median"]))
    return {k: sorted(v)[int(0.9 * (len(v) - 1))] for k, v in devs.items()}


def targets(rows, skipped):
    out = []
    noise = noise_bands(rows)
    band = lambda r: noise.get(r["cell"].app, 0.0)
    tr = [r for r in rows if r["cell"].profile == "tapered" and r["cell"].pl == "roundrobin"
          and r["variant"] == "profiled"]
    hit = [r for r in tr if 1 - 1 / r["median"] >= 0.15 and r["median"] > 1 + band(r)]
    out.append(("4:1 fabric, round-robin placement: at least one application >= 15 % lower run "
                "time with the profile-driven order (median of the per-repetition ratios), by "
                "more than the measured noise (the app's A/A band: " + ", ".join(
                    f"{a} ±{100 * v:.0f} %" for a, v in sorted(noise.items())) + ")",
                bool(hit), "; ".join(
                    f"{r['cell'].app} {100 * (1 - 1 / r['median']):.0f} % lower "
                    f"({r['median']:.2f}x [{r['q1']:.2f}, {r['q3']:.2f}]"
                    f"{', within the noise' if r['median'] <= 1 + band(r) else ''})"
                    for r in tr) or "no such cell measured"))
    judged = [r for r in rows if not r["aa"]]
    slower = [r for r in judged if r["median"] < 1 - band(r)]
    lost = [r for r in judged if r["q3"] < 1]
    out.append(("no application slower than the default beyond the measured noise in any cell "
                "(as in NOTES.md: the noise of an application is the 90th percentile of the "
                "deviations from 1 of its A/A cells' medians, the same code run twice: the "
                "drop-in where it passed every call to the MPI library, the planned order where "
                "the plan kept the launch order; A/A cells are not judged)",
                not slower, f"{len(slower)} of {len(judged)} cells slower" +
                (": " if slower else "") + "; ".join(
                    f"{r['cell'].tag} {r['variant']} {r['median']:.2f}x "
                    f"[{r['q1']:.2f}, {r['q3']:.2f}]" for r in slower) +
                f"; cells whose upper quartile is below 1 (lost in more than 3 of 4 "
                f"repetitions): {len(lost)}" + (": " if lost else "") + "; ".join(
                    f"{r['cell'].tag} {r['variant']} {r['median']:.2f}x "
                    f"[{r['q1']:.2f}, {r['q3']:.2f}]" for r in lost)))
    bad = [r for r in rows if r["correct"] < r["runs"] or r["base_correct"] < r["base_runs"]]
    out.append(("results correct: every run's output matches the default run of its "
                f"repetition (LAMMPS: thermo lines within {THERMO_RTOL:g} relative; HPCC: its "
                "own checks pass and give the same verdicts)", not bad,
                f"{len(bad)} cells with a mismatch" + (": " if bad else "") + "; ".join(
                    f"{r['cell'].tag} {r['variant']} {r['correct']}/{r['runs']} "
                    f"({'; '.join(sorted(set(c for c in r['checks'] if c)))})" for r in bad)))
    for app, why in skipped.items():
        if why:
            out.append((f"{app}", False, f"SKIPPED: {why}"))
    return out


def write_report(args, rows, cells, skipped):
    os.makedirs(args.results, exist_ok=True)
    md = os.path.join(args.results, "apps_vcluster.md")
    hp = [c for c in cells if c.app == "hpcc"]
    with open(md, "w") as f:
        w = lambda s="": f.write(s + "\n")
        w("# Measured on the virtual cluster: real applications with toporr's orders")
        w()
        w(f"Generated by `{args.command}`; do not edit by hand.")
        w()
        w("**Measured**, not simulated: Debian's LAMMPS (20220106) and HPCC (1.5.0), unchanged, "
          f"under Open MPI 4.1 (TCP BTL between hosts, shared memory inside), {args.ranks} "
          f"ranks on 8 hosts ({args.ranks // 8} per host) of the virtual cluster "
          "(testing/vcluster: Linux namespace sets on one 2-core machine shared with other "
          f"work, host links shaped to {args.host_mbit:g} Mbit/s with `tc tbf`, two leaves of 4 "
          f"hosts whose uplinks are 4:1 tapered (`tapered`: {args.host_mbit:g} Mbit/s per leaf) or "
          f"full bisection (`full`: {4 * args.host_mbit:g} Mbit/s)), toporrd on the head node.")
        w()
        w("Variants, each against `default` (the application in the launch order, nothing of "
          "toporr loaded) run in the same repetition, the four in an order shuffled per "
          "repetition: `profiled` = the launch order `toporrctl plan --traffic` wrote from a "
          "profiled run (`TOPORR_PROFILE`) of the same application and placement; `dropin` "
          "= the launch order under `LD_PRELOAD=libtoporr_pmpi.so` (toporr's topology "
          "functions and collectives, rows from toporrd); `both`. Ratio = default time / "
          "variant time (> 1: the variant is faster), median of the per-repetition ratios "
          "[q1, q3]; `lower` = 1 - 1/ratio, the run time saved. Times are medians over the "
          "repetitions, from the applications' own timers: LAMMPS's `Loop time`, HPCC's "
          f"{' + '.join(f'`{k}`' for k in HPCC_TIMES)} (its MPI-parallel tests; the "
          "embarrassingly parallel Star/Single tests and the b_eff latency/bandwidth test, "
          "which runs for a fixed time, are left out of it). `comm %`: LAMMPS's `Comm` row "
          "(% of the loop time, default / variant; HPCC has no communication timer), then "
          "after `·` the profiled run's time inside MPI (the profile's `time` records: "
          "% of each rank's run between MPI_Init and MPI_Finalize, mean over the ranks). "
          "`model`: `toporrctl plan`'s predicted speedup of the "
          "profiled traffic's communication time.")
        w()
        w("## Targets")
        w()
        for desc, met, detail in targets(rows, skipped):
            w(f"- **{'met' if met else 'missed'}**: {desc}. {detail}")
        w()
        w("## Application time")
        w()
        w("| app | fabric | placement | variant | ratio [q1, q3] | lower | default s | "
          "variant s | comm % (default / variant · profile) | model | profile bytes (p2p / coll) | "
          "correct | load |")
        w("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for r in rows:
            c = r["cell"]
            pred = r["plan"].get("speedup") if r["variant"] != "dropin" else None
            w(f"| {c.app} | {c.profile} | {c.pl} | {r['variant']}{' (A/A)' if r['aa'] else ''} | "
              f"{r['median']:.2f} [{r['q1']:.2f}, {r['q3']:.2f}] | "
              f"{100 * (1 - 1 / r['median']):.0f} % | {fmt(r['base_s'], 2)} | "
              f"{fmt(r['var_s'], 2)} | {fmt(r['base_comm'], 0)} / {fmt(r['var_comm'], 0)} · "
              f"{fmt(r['mpi_share'], 0)} | "
              f"{fmt(pred)} | {mb(r['bytes']['p2p'])} / {mb(r['bytes']['coll'])} | "
              f"{r['correct']}/{r['runs']} | {fmt(r['load'], 0)} |")
        w()
        w("`(A/A)`: the variant ran the same code as the default (the drop-in reported no "
          "decision in `TOPORR_REPORT`: every call went to the MPI library; or the plan kept "
          "the launch order); its spread is the cell's noise. `load`: the machine's 1-minute "
          "load average at the variant's runs' starts (median; 2 cores).")
        w()
        reps = sorted(set(f"{r['cell'].app} {r['n']}" for r in rows))
        w(f"Repetitions: {', '.join(reps)}. "
          "Spread of the default's own time per cell (interquartile range / median): " +
          ", ".join(f"{r['cell'].tag} {100 * r['base_spread']:.0f} %" for r in rows
                    if r["variant"] == "profiled" and r["base_spread"] is not None) + ".")
        w()
        hrows = [r for r in rows if r["cell"].app == "hpcc"]
        if hrows:
            w("## HPCC by test")
            w()
            w("Per test, the paired ratio (time: default / variant; rates: variant / "
              "default; > 1: the variant is better), median [q1, q3].")
            w()
            keys = HPCC_TIMES + HPCC_RATES
            w("| fabric | placement | variant | " + " | ".join(keys) + " |")
            w("|---|---|---|" + "---|" * len(keys))
            for r in hrows:
                c = r["cell"]
                cells_s = []
                for k in keys:
                    q = r["extra"].get(k)
                    cells_s.append("—" if not q else f"{q[1]:.2f} [{q[0]:.2f}, {q[2]:.2f}]")
                w(f"| {c.profile} | {c.pl} | {r['variant']} | " + " | ".join(cells_s) + " |")
            w()
        elif "hpcc" in args.apps and not skipped.get("hpcc"):
            w(f"HPCC cells measured: {', '.join(c.tag for c in hp) or 'none'}.")
            w()
        w("## Plans")
        w()
        w("| cell | launch order (host of each rank) | planned order | model before / after (us) |")
        w("|---|---|---|---|")
        seen = set()
        for r in rows:
            c, p = r["cell"], r["plan"]
            if c.tag in seen:
                continue
            seen.add(c.tag)
            b, a = p.get("before_ns"), p.get("after_ns")
            short = lambda hs: " ".join(h.replace("node0", "") for h in hs)
            w(f"| {c.tag} | {short(p['launch'])} | {short(p['planned'])} | "
              f"{fmt(b / 1e3 if b else None, 0)} / {fmt(a / 1e3 if a else None, 0)} |")
        w()
        notes = os.path.join(HERE, "NOTES.md")
        if os.path.exists(notes):
            text = open(notes).read()
            m = re.search(r"^## Applications.*?(?=^## (?!#)|\Z)", text, re.S | re.M)
            if m:
                # NOTES.md links the tables as ../results/X; from the folder this report is
                # written to, they are elsewhere when it is not bench/results.
                to_results = os.path.relpath(os.path.join(HERE, "..", "results"),
                                             os.path.dirname(os.path.abspath(md)))
                section = m.group(0).rstrip()
                if to_results != ".":
                    section = section.replace("](../results/", f"]({to_results}/")
                w(section)
                w()
    log(f"wrote {md}")

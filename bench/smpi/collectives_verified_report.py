#!/usr/bin/env python3
"""Tabulates toporr's selection with its run-time check (TOPORR_VERIFY=1) against the same
selection without it and the MPI default, from runs of bench/smpi/collectives_eval_lib.sh.

Input: --runs TSV as bench/smpi/collectives_report.py reads it. Per cell (fabric, placement,
HxK, collective) it pairs
  - the `warmups` run (TOPORR_VERIFY=0, modes mpi and auto, 1 + 2 x TOPORR_VERIFY_CALLS
    warm-up calls): the MPI default and the model's choice, each timed after the same
    warm-up calls as the verified run, so that a timed call's history (what ran before the
    barriers that start it) is the same in both runs; also the warm-up calls' total time
    without the check, for the cost section;
  - the `verified` run (TOPORR_VERIFY=1, mode auto, as many warm-up calls): the run-time
    check completes during the warm-up calls, so the timed call is the steady state after
    its verdict; its report.jsonl holds the "verified" lines (client/report/decision_report.h).

Checks (exit 1 after writing the output): every verified decision equals the unverified one
(algorithm, order, predictions); every decision whose choice is not the MPI library's own call
has exactly one "verified" line (the check completed within the warm-up calls), and no other
has one.

Targets (--tolerance 1 %, --gain-tolerance 5 %): with the check, no cell slower than the MPI
default beyond the tolerance; where the model's choice was faster than the MPI default, the
verified gain within the gain tolerance of the unverified gain. Misses are listed with the
check's measured medians, which say why.
"""

import argparse
import collections
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import collectives_report as cr  # noqa: E402  (the runs, decisions and names of the table)


def verified_lines(run):
    path = os.path.join(run.dir, "report.jsonl")
    if not os.path.exists(path):
        return []
    return [d for d in map(json.loads, filter(str.strip, open(path)))
            if d.get("event") == "verified"]


def warmup_totals(run):
    """(mode, bytes) -> (calls, us) from the `warmup ...` lines of cells.txt."""
    out = {}
    for line in open(os.path.join(run.dir, "cells.txt")):
        words = line.split()
        if words and words[0] == "warmup":
            f = dict(w.split("=", 1) for w in words[1:])
            out[(f["mode"], int(f["bytes"]))] = (int(f["calls"]), float(f["us"]))
    return out


def place(r):
    return f"{cr.FABRIC_SHORT.get(r.fabric, r.fabric)} {r.placement} {r.shape}"


def cell_key(r):
    return (r.fabric, r.placement, r.shape, r.collective)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", required=True)
    ap.add_argument("--output", required=True)
    ap.add_argument("--title", default="toporr's selection with the run-time check (SimGrid SMPI)")
    ap.add_argument("--command", default="bench/smpi/run_collectives_eval.sh --verify",
                    help="the command that produced the runs, for the header")
    ap.add_argument("--intro", default="", help="a paragraph after the header (markdown)")
    ap.add_argument("--tolerance", type=float, default=0.01)
    ap.add_argument("--gain-tolerance", type=float, default=0.05)
    ap.add_argument("--verify-calls", type=int, default=3)
    ap.add_argument("--elapsed", default="?")
    ap.add_argument("--commit", default="?")
    args = ap.parse_args()

    runs = [cr.Run(l.rstrip("\n").split("\t")) for l in open(args.runs) if l.strip()]
    fabrics = list(cr.FABRIC_SHORT)
    runs.sort(key=lambda r: (r.collective, fabrics.index(r.fabric) if r.fabric in fabrics
                             else len(fabrics)))
    by = collections.defaultdict(dict)  # cell -> variant -> Run
    for r in runs:
        by[cell_key(r)][r.variant] = r
    errors, rows, checks = [], [], []
    for r in runs:
        if r.variant != "warmups" or "verified" not in by[cell_key(r)]:
            continue
        v = by[cell_key(r)]["verified"]
        lines = collections.defaultdict(list)
        for x in verified_lines(v):
            lines[x["bytes"]].append(x)
        for b in r.sizes():
            mpi, sel, ver = (r.cells.get(("mpi", b)), r.cells.get(("auto", b)),
                             v.cells.get(("auto", b)))
            where = f"{r.label()} {cr.size_name(b)}"
            if None in (mpi, sel, ver):
                errors.append(f"{where}: missing the mpi, auto or verified auto cell")
                continue
            d, dv = cr.decision_of(r, "auto", b), cr.decision_of(v, "auto", b)
            if d is None or dv is None:
                errors.append(f"{where}: no single auto decision in both runs")
                continue
            if cr.comparable(d) != cr.comparable(dv):
                errors.append(f"{where}: the decision differs with verification on")
            own = d["chosen_algorithm"] != "mpi_library"
            check = lines.get(b, [])
            if own and len(check) != 1:
                errors.append(f"{where}: toporr chose {d['chosen_algorithm']} but {len(check)} "
                              "\"verified\" lines (expected 1: the check completes in the "
                              "warm-up calls)")
            if not own and check:
                errors.append(f"{where}: the MPI library's call was chosen, yet it was checked")
            c = check[0] if own and len(check) == 1 else None
            if c is not None:
                checks.append(c)
            row = dict(run=r, bytes=b, mpi=mpi, sel=sel, ver=ver, chosen=d["chosen_algorithm"],
                       reordered=cr.reordered(d), check=c)
            row["slower"] = ver > mpi * (1 + args.tolerance)
            gain_u, gain_v = mpi / sel, mpi / ver
            row["lost_gain"] = (gain_u > 1 + args.tolerance and
                                gain_v < gain_u * (1 - args.gain_tolerance))
            rows.append(row)

    out = []
    w = out.append
    w(f"# {args.title}\n")
    w(f"Generated by `{args.command}` (commit {args.commit}, {args.elapsed} s wall on this "
      "machine). **All times are simulated** (SimGrid SMPI, deterministic), microseconds per "
      "call. `MPI default` = MPI_Allreduce / MPI_Bcast (SMPI's `ompi` selector) on the launch "
      "order; `unverified` = toporr_allreduce / toporr_bcast with automatic selection and "
      "TOPORR_VERIFY=0 (the model's choice, as in collectives_smpi.md); `verified` = the same "
      f"with TOPORR_VERIFY=1, TOPORR_VERIFY_CALLS={args.verify_calls}: the decision, then "
      "toporr's path and the MPI library's call alternately, each started after a barrier and "
      "timed as the slowest rank's time by one 8-byte MPI_MAX reduction; the timed call runs "
      "the path whose median was lower (client/report/verification.h). All three are timed after the "
      f"same 1 + 2 x {args.verify_calls} = {1 + 2 * args.verify_calls} warm-up calls (with "
      "TOPORR_VERIFY=0 the decision and toporr's path or the library's call), then three "
      "barriers. `verdict`: `-` where the model chose the library's own call (nothing "
      "to check), else what the check kept, with the medians (toporr / library, us).\n")
    if args.intro:
        w(args.intro + "\n")
    w("| fabric | placement | ranks | collective | size | MPI default us | unverified us "
      "(algorithm) | verified us | verdict (medians toporr / library us) | unverified "
      "speedup | verified speedup |")
    w("|---|---|---|---|---|---|---|---|---|---|---|")
    for x in rows:
        r, c = x["run"], x["check"]
        verdict = "-" if c is None else (f"{c['verdict']} ({c['toporr_median_us']:.1f} / "
                                         f"{c['library_median_us']:.1f})")
        flag = " **slower**" if x["slower"] else (" **lost gain**" if x["lost_gain"] else "")
        w(f"| {cr.FABRIC_SHORT.get(r.fabric, r.fabric)} | {r.placement} {r.shape} | {r.ranks} | "
          f"{r.collective} | {cr.size_name(x['bytes'])} | {x['mpi']:.1f} | {x['sel']:.1f} "
          f"({x['chosen']}{' +r' if x['reordered'] else ''}) | {x['ver']:.1f} | {verdict} | "
          f"{x['mpi'] / x['sel']:.2f}x | {x['mpi'] / x['ver']:.2f}x{flag} |")
    w("")

    verdicts = collections.Counter(c["verdict"] for c in checks)
    unverified_slower = [x for x in rows if x["sel"] > x["mpi"] * (1 + args.tolerance)]
    slower = [x for x in rows if x["slower"]]
    lost = [x for x in rows if x["lost_gain"]]
    gaining = [x for x in rows if x["mpi"] / x["sel"] > 1 + args.tolerance]
    w("## Checks and verdicts\n")
    w(f"- cells: {len(rows)}; decisions where the model chose the MPI library's own call (not "
      f"checked): {sum(1 for x in rows if x['check'] is None)}; checked: {len(checks)}")
    w(f"- verdicts: toporr {verdicts.get('toporr', 0)}, mpi_library "
      f"{verdicts.get('mpi_library', 0)}")
    overturned = [x for x in rows if x["check"] is not None and
                  x["check"]["verdict"] == "mpi_library"]
    if overturned:
        w("- checked decisions whose verdict was the MPI library's call (unverified -> "
          "verified, MPI default):")
        out.extend(f"  - {place(x['run'])} {x['run'].collective} {cr.size_name(x['bytes'])} "
                   f"{x['chosen']}: {x['sel']:.1f} -> {x['ver']:.1f} us (MPI default "
                   f"{x['mpi']:.1f} us)" for x in overturned)
    w("")
    w("## Targets\n")
    w(f"- unverified (the model's choice): slower than the MPI default beyond "
      f"{100 * args.tolerance:.0f} % in {len(unverified_slower)} of {len(rows)} cells")
    w(f"- verified: no cell slower than the MPI default beyond {100 * args.tolerance:.0f} %: "
      f"{'met' if not slower else f'NOT met in {len(slower)} of {len(rows)} cells'}")
    w(f"- verified: gains within {100 * args.gain_tolerance:.0f} % of the unverified gains (the "
      f"{len(gaining)} cells where the model's choice beat the MPI default): "
      f"{'met' if not lost else f'NOT met in {len(lost)} cells'}")
    for x in slower + lost:
        r, c = x["run"], x["check"]
        why = ("not checked: the model chose the library's call" if c is None else
               f"verdict {c['verdict']}: measured toporr {', '.join(f'{t:.1f}' for t in c['toporr_us'])}"
               f" us, library {', '.join(f'{t:.1f}' for t in c['library_us'])} us")
        w(f"  - {place(r)} {r.collective} {cr.size_name(x['bytes'])}: MPI default {x['mpi']:.1f}, unverified {x['sel']:.1f} "
          f"({x['chosen']}), verified {x['ver']:.1f} us; {why}")
    w("")

    cost = []
    for key, variants in by.items():
        if "warmups" not in variants or "verified" not in variants:
            continue
        plain, ver = warmup_totals(variants["warmups"]), warmup_totals(variants["verified"])
        checked = {x["bytes"]: x for x in verified_lines(variants["verified"])}
        twin = variants["warmups"]
        for (mode, b), (calls, us) in sorted(ver.items()):
            if (mode, b) in plain:
                cost.append((variants["verified"], b, calls, plain[(mode, b)][1], us,
                             checked.get(b), twin.cells.get(("mpi", b))))
    if cost:
        w("## What the check costs\n")
        w("The first 1 + 2K calls of a decision (K = TOPORR_VERIFY_CALLS) in total, from the "
          "earliest rank's entry into the first to the latest rank's return from the last "
          "(the decision's own messages included, the same in both): with TOPORR_VERIFY=0 "
          "they are the decision and 2K + 1 calls of toporr's path; with the check, the decision, "
          "2K measured calls (K of toporr's path, K of the MPI library's, each after a barrier "
          "and followed by an 8-byte MPI_MAX reduction) and one call of the verdict's path. Against running "
          "toporr's path unchecked the measured calls add K x (T_library - T_toporr) + 2K x "
          "(T_barrier + T_reduce(8 B)) (and the last call T_library - T_toporr more when the library's call "
          "won); against the MPI library alone (what the job pays without toporr) they add "
          "K x (T_toporr - T_library) + 2K x (T_barrier + T_reduce(8 B)), negative where toporr is faster. "
          "Decisions where the model chose the library's own call are not checked and cost "
          "nothing.\n")
        w("`library calls x (T_library - T_toporr)`: the medians of the check; `the rest`: the "
          "difference minus that term, i.e. the 2K barriers and reductions (and any call that took other "
          "than its median).\n")
        w("| fabric | placement | collective | size | calls | unchecked total us | checked "
          "total us | difference us | verdict (medians toporr / library us) | library calls x "
          "(T_library - T_toporr) us | the rest us | MPI default us per call |")
        w("|---|---|---|---|---|---|---|---|---|---|---|---|")
        k = args.verify_calls
        for r, b, calls, plain_us, ver_us, c, mpi in cost:
            diff = ver_us - plain_us
            if c is None:
                verdict, term, rest = "not checked", "-", "-"
            else:
                n = k + (c["verdict"] == "mpi_library")
                t = n * (c["library_median_us"] - c["toporr_median_us"])
                verdict = (f"{c['verdict']} ({c['toporr_median_us']:.1f} / "
                           f"{c['library_median_us']:.1f})")
                term, rest = f"{n} x {t / n:+.1f} = {t:+.1f}", f"{diff - t:+.1f}"
            w(f"| {cr.FABRIC_SHORT.get(r.fabric, r.fabric)} | {r.placement} {r.shape} | "
              f"{r.collective} | {cr.size_name(b)} | {calls} | {plain_us:.1f} | {ver_us:.1f} | "
              f"{diff:+.1f} | {verdict} | {term} | {rest} | "
              f"{'-' if mpi is None else f'{mpi:.1f}'} |")
        w("")
    return 1 if cr.write_report(out, errors, args.output, "collectives_verified_report") else 0


if __name__ == "__main__":
    sys.exit(main())

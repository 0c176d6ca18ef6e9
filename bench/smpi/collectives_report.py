#!/usr/bin/env python3
"""Checks and tabulates the runs of bench/smpi/run_collectives_eval.sh.

Input: --runs TSV, one line per smpirun: fabric, placement (bynode|frag), HxK, ranks,
collective, variant (default; private: no folded temporaries; forced: the multi-level
version forced by TOPORR_ALGORITHM; leafsorted / leafsorted:NAME: the MPI default on the
leaf-sorted order, bench/smpi/leaf_sorted.py, under the ompi / NAME selector; its directory
is its launch-order twin's where the launch order is leaf-sorted already), wall seconds, and
the run's directory, which holds cells.txt (the `cell ...` / `skip ...` lines of
toporr_collective_time) and report.jsonl (TOPORR_REPORT: one JSON line per decision of rank 0).

Checks (any failure: exit 1, after writing the table):
  - every toporr cell (auto or forced) has exactly one decision for its (algorithm, size),
    from the cost file, never the identity fallback;
  - a forced cell's decision chose the algorithm that was forced;
  - in a `private` run (no shared temporaries) the decisions equal the default run's;
  - toporr's selection is never slower than the MPI default by more than --tolerance
    (violations are listed in the table, not hidden);
  - with --quick: allreduce at 16 MiB gains at least --quick-gain over the MPI default;
  - with --baseline FILE: no simulated time (MPI default, selection, forced algorithms) is
    more than --regression (2 %) above the time FILE holds for its cell (SMPI is
    deterministic: any change is the code's). --write-baseline FILE records this run's times
    (after a change that is meant to move them; commit the file with the change).

Output (--output, markdown): the leaf-sorted baseline's definition and summary (median and
range of toporr's selection vs the MPI default on the leaf-sorted order, by collective and
fabric); per cell the MPI default on the launch order and on the leaf-sorted order, toporr's
selection (with the chosen algorithm and whether it reordered), its ratio to each, the best
forced algorithm, the multi-level version vs the best flat algorithm; then the targets of the
collective evaluation, the TOPORR_MIN_BYTES the cells support, the violations and a short
summary.
"""

import argparse
import collections
import os
import sys

# The runs and their decisions, and the report's other sections, live beside this script;
# collectives_verified_report.py and model_quality.py import these names from here.
from collectives_runs import (FABRIC_SHORT, LARGE, LAUNCH, Run, check_decisions,
                              comparable, decision_of, reordered, size_name)
from collectives_sections import (FAMILIES, launch_section, leaf_sorted_summary,
                                  speedup_plots, write_report)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", required=True)
    ap.add_argument("--output", required=True)
    ap.add_argument("--multilevel", default="multilevel")
    ap.add_argument("--sources", help="sources.txt of build_libtoporr_smpi.sh")
    ap.add_argument("--tolerance", type=float, default=0.01,
                    help="toporr may be this much slower than the MPI default (fraction)")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--quick-gain", type=float, default=2.0)
    ap.add_argument("--baseline", help="TSV of simulated times a cell must not exceed")
    ap.add_argument("--write-baseline", help="write this run's simulated times as a baseline")
    ap.add_argument("--regression", type=float, default=0.02,
                    help="allowed slowdown against --baseline (fraction)")
    ap.add_argument("--plots", help="directory for the speedup-vs-size PNGs (needs gnuplot); "
                    "they go next to --output, which links them")
    ap.add_argument("--elapsed", default="?")
    ap.add_argument("--commit", default="?")
    ap.add_argument("--command", help="the command that made the runs, as the table names it "
                    "(default: bench/smpi/run_collectives_eval.sh [--quick])")
    ap.add_argument("--note", default="", help="a sentence for the table's header (a subset...)")
    args = ap.parse_args()

    runs = [Run(l.rstrip("\n").split("\t")) for l in open(args.runs) if l.strip()]
    # Tables by collective (FAMILIES' order), then fabric (FABRIC_SHORT's order), in the order
    # the runs came.
    fabrics = list(FABRIC_SHORT)
    runs.sort(key=lambda r: (FAMILIES.index(r.collective) if r.collective in FAMILIES else
                             len(FAMILIES), r.collective,
                             fabrics.index(r.fabric) if r.fabric in fabrics else len(fabrics)))
    errors = []
    for r in runs:
        if not r.variant.startswith("leafsorted"):  # no decision of its own (or its twin's)
            check_decisions(r, args.multilevel, errors)
        if not r.cells:
            errors.append(f"{r.label()}: no cells (see {r.dir}/stderr.txt)")
    # Shared temporaries must not change any decision.
    by_key = {(r.fabric, r.placement, r.shape, r.collective, r.variant): r for r in runs}
    for r in runs:
        if r.variant != "private":
            continue
        twin = by_key.get((r.fabric, r.placement, r.shape, r.collective, "default"))
        if twin is None:
            errors.append(f"{r.label()}: private run without its default twin")
            continue
        for d in r.decisions:
            t = decision_of(twin, d["algorithm"], d["bytes"])
            if t is None or comparable(t) != comparable(d):
                errors.append(f"{r.label()} {d['algorithm']} {size_name(d['bytes'])}: the decision "
                              "differs when the collectives' temporaries are shared")

    # Baselines: SMPI's own hierarchical algorithms (variant smpi:ALG), best per cell.
    hier = collections.defaultdict(list)  # (fabric, placement, shape, collective, bytes)
    for r in runs:
        if r.variant.startswith("smpi:"):
            for (mode, b), us in r.cells.items():
                if mode == "mpi":
                    hier[(r.fabric, r.placement, r.shape, r.collective, b)].append(
                        (us, r.variant[len("smpi:"):]))
    # Baseline: the MPI default under SMPI's mpich selector (variant selector:mpich).
    mpich = {}
    for r in runs:
        if r.variant == "selector:mpich":
            for (mode, b), us in r.cells.items():
                if mode == "mpi":
                    mpich[(r.fabric, r.placement, r.shape, r.collective, b)] = us
    # Baseline: the MPI default on the leaf-sorted order (variant leafsorted: ompi selector,
    # leafsorted:mpich: mpich selector) -> (us, whether that order is the launch order itself).
    leaf, leaf_mpich = {}, {}
    for r in runs:
        if r.variant not in ("leafsorted", "leafsorted:mpich"):
            continue
        twin = by_key.get((r.fabric, r.placement, r.shape, r.collective,
                           "default" if r.variant == "leafsorted" else "selector:mpich"))
        same = twin is not None and twin.dir == r.dir
        for (mode, b), us in r.cells.items():
            if mode == "mpi":
                (leaf if r.variant == "leafsorted" else leaf_mpich)[
                    (r.fabric, r.placement, r.shape, r.collective, b)] = (us, same)
    rows, violations = [], []
    for r in runs:
        if r.variant != "default":
            continue
        ml_run = by_key.get((r.fabric, r.placement, r.shape, r.collective, "forced"))
        forced = [m for m in r.modes() if m not in ("mpi", "auto", "scotch") and
                  not m.endswith(LAUNCH)]
        flat = [m for m in forced if m != args.multilevel]
        for b in r.sizes():
            mpi, sel = r.cells.get(("mpi", b)), r.cells.get(("auto", b))
            if mpi is None or sel is None:
                errors.append(f"{r.label()} {size_name(b)}: missing the mpi or auto cell")
                continue
            d = decision_of(r, "auto", b)
            chosen = d["chosen_algorithm"] if d else "?"
            best = min(((r.cells[(m, b)], m) for m in flat if (m, b) in r.cells), default=None)
            ml = r.cells.get((args.multilevel, b))
            if ml is None and ml_run is not None:
                ml = ml_run.cells.get((args.multilevel, b))
            h = min(hier.get((r.fabric, r.placement, r.shape, r.collective, b), []), default=None)
            cell = (r.fabric, r.placement, r.shape, r.collective, b)
            ls, ls_same = leaf.get(cell, (None, False))
            lsm, lsm_same = leaf_mpich.get(cell, (None, False))
            row = dict(run=r, bytes=b, mpi=mpi, sel=sel, chosen=chosen, reordered=reordered(d),
                       speedup=mpi / sel if sel > 0 else float("inf"), best=best, ml=ml, hier=h,
                       mpich=mpich.get(cell), scotch=r.cells.get(("scotch", b)),
                       leaf=ls, leaf_same=ls_same, leaf_mpich=lsm, leaf_mpich_same=lsm_same,
                       vs_leaf=ls / sel if ls is not None and sel > 0 else None)
            rows.append(row)
            if sel > mpi * (1 + args.tolerance):
                violations.append(row)
    for row in rows:
        if row["leaf"] is None:
            errors.append(f"{row['run'].label()} {size_name(row['bytes'])}: no MPI default on the "
                          "leaf-sorted order (run variant leafsorted)")
    if args.quick:
        for row in rows:
            r = row["run"]
            if r.collective == "allreduce" and row["bytes"] == LARGE and \
                    row["speedup"] < args.quick_gain:
                errors.append(f"{r.label()} 16 MiB: toporr's allreduce gains {row['speedup']:.2f}x "
                              f"over the MPI default, the gate wants >= {args.quick_gain}x")

    # Simulated times against the committed baseline (deterministic: any change is the code's).
    current = {}
    for r in runs:
        for (mode, b), us in r.cells.items():
            current[(r.label(), r.variant, mode, b)] = us
    regressions = []
    if args.baseline:
        if not os.path.exists(args.baseline):
            errors.append(f"baseline {args.baseline} not found (make it with --write-baseline)")
        else:
            for line in open(args.baseline):
                if not line.strip() or line.startswith("#"):
                    continue
                label, variant, mode, b, us = line.rstrip("\n").split("\t")
                key = (label, variant, mode, int(b))
                if key not in current:
                    errors.append(f"{label} {variant} {mode} {size_name(int(b))}: in the baseline, "
                                  "not simulated in this run")
                elif current[key] > float(us) * (1 + args.regression):
                    regressions.append((key, float(us), current[key]))
    for (label, variant, mode, b), was, now in regressions:
        errors.append(f"{label} {variant} {mode} {size_name(b)}: {now:.3f} us, the baseline has "
                      f"{was:.3f} us (+{100 * (now / was - 1):.1f} %, more than "
                      f"{100 * args.regression:.0f} %)")
    if args.write_baseline:
        with open(args.write_baseline, "w") as f:
            f.write("# simulated us per cell: run label, variant, mode, bytes, us "
                    "(bench/smpi/collectives_report.py --write-baseline)\n")
            for (label, variant, mode, b), us in sorted(current.items()):
                f.write(f"{label}\t{variant}\t{mode}\t{b}\t{us:.3f}\n")

    hier_rows = [x for x in rows if x["hier"] is not None]
    ml_present = any(any(m == args.multilevel for m in r.modes()) for r in runs)
    ml_reason = next((r.skips[args.multilevel] for r in runs if args.multilevel in r.skips),
                     "no decision listed it among its candidates")

    out = []
    w = out.append
    command = args.command or \
        f"bench/smpi/run_collectives_eval.sh{' --quick' if args.quick else ''}"
    w("# libtoporr's own collectives and selection in SimGrid SMPI\n")
    leaf_sorted_summary(rows, args.tolerance, w)
    # Each run once (a leaf-sorted row may name its launch-order twin's directory); a run's
    # seconds are its smpirun's wall time when it was simulated, cached or not.
    simulated = {}
    for r in runs:
        simulated[r.dir] = max(simulated.get(r.dir, 0.0), float(r.seconds))
    w(f"Generated by `{command}` (commit {args.commit}, {args.elapsed} s wall on this machine "
      f"for the invocation that wrote it; its {len(simulated)} smpiruns took "
      f"{sum(simulated.values()):.0f} s of wall time when they were simulated, some by earlier "
      f"invocations whose runs it reused).{' ' + args.note if args.note else ''} Simulated time "
      "per call "
      "(deterministic), after a warm-up call that made toporr's decision. `MPI default` = "
      "MPI_Allreduce / MPI_Bcast / MPI_Allgather with SMPI's `ompi` selector (Open MPI 4's fixed "
      "rules) on the launch order (allgather: the size is one rank's block, and only the MPI "
      "default and toporr's selection run; `run_collectives_eval.sh --allgather` times its "
      "algorithms one by one); `MPI default leaf-sorted` = the same on the leaf-sorted order (`= launch`: "
      "the launch order is leaf-sorted already, its time is the MPI default's); `toporr "
      "selected` = toporr_allreduce / toporr_bcast / toporr_allgather with automatic selection and the file cost "
      "source, started from the launch order, the algorithm it chose in parentheses (`+r`: on a "
      "reordered communicator); `vs launch order` = MPI default / toporr selected; `vs "
      "leaf-sorted` = MPI default leaf-sorted / toporr selected (**slower**: toporr more than "
      f"{100 * args.tolerance:.0f} % slower than it); `best forced` = the fastest of the "
      "algorithms selection chose among, each forced; `multilevel vs flat` = best forced flat / "
      "multilevel.\n")
    if args.sources and os.path.exists(args.sources):
        w("Library build (bench/smpi/build_libtoporr_smpi.sh):\n")
        w("```")
        w(open(args.sources).read().rstrip())
        w("```\n")
    if not ml_present:
        w(f"**Multi-level:** not in this build (`{args.multilevel}`: {ml_reason}); "
          "the column says `n/a`.\n")
    w("| fabric | placement | ranks | collective | size | MPI default us | MPI default "
      "leaf-sorted us | toporr selected us (algorithm) | vs launch order | vs leaf-sorted | "
      "best forced | multilevel vs flat |")
    w("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        r = row["run"]
        best = f"{row['best'][1]} {row['best'][0]:.1f}" if row["best"] else "-"
        if row["ml"] is not None and row["best"]:
            ml = f"{row['best'][0] / row['ml']:.2f}x ({row['ml']:.1f} us)"
        else:
            ml = "n/a"
        flag = " **slower**" if row in violations else ""
        if row["leaf"] is None:
            leaf_us, vs_leaf = "-", "-"
        else:
            leaf_us = "= launch" if row["leaf_same"] else f"{row['leaf']:.1f}"
            vs_leaf = f"{row['vs_leaf']:.2f}x" + (
                " **slower**" if row["vs_leaf"] < 1 / (1 + args.tolerance) else "")
        w(f"| {FABRIC_SHORT.get(r.fabric, r.fabric)} | {r.placement} {r.shape} | {r.ranks} | "
          f"{r.collective} | {size_name(row['bytes'])} | {row['mpi']:.1f} | {leaf_us} | "
          f"{row['sel']:.1f} ({row['chosen']}{' +r' if row['reordered'] else ''}) | "
          f"{row['speedup']:.2f}x{flag} | {vs_leaf} | {best} | {ml} |")
    w("")

    if args.plots:
        err = speedup_plots(rows, args.plots, w)
        if err:
            errors.append(err)

    launch_section(rows, args.tolerance, w)

    if hier_rows:
        w("## Against SMPI's hierarchical algorithms\n")
        w("SMPI's own SMP-aware / two-level algorithms (`--cfg=smpi/allreduce:ALG`, "
          "`smpi/bcast:ALG`) on the launch order, the best of them per cell, against toporr's "
          "selection.\n")
        w("| fabric | placement | collective | size | best SMPI hierarchical us (algorithm) | "
          "toporr selected us | toporr vs it |")
        w("|---|---|---|---|---|---|---|")
        for x in hier_rows:
            r = x["run"]
            w(f"| {FABRIC_SHORT.get(r.fabric, r.fabric)} | {r.placement} {r.shape} | "
              f"{r.collective} | {size_name(x['bytes'])} | {x['hier'][0]:.1f} ({x['hier'][1]}) | "
              f"{x['sel']:.1f} ({x['chosen']}) | {x['hier'][0] / x['sel']:.2f}x |")
        w("")

    def baseline_section(key, title, intro, columns, baseline_cells, extra=None):
        """A section comparing toporr's selection with the baseline in row[key]: the counts
        (faster / equal within the tolerance / slower, median ratio), then one table row per
        cell: the columns' values, toporr's selection, baseline / toporr, and extra(row)'s
        cells when given (one per column beyond those)."""
        at = [x for x in rows if x[key] is not None]
        if not at:
            return
        slower = [x for x in at if x["sel"] > x[key] * (1 + args.tolerance)]
        ratios = sorted(x[key] / x["sel"] for x in at)
        w(f"## {title}\n")
        w(f"{intro}toporr faster in {sum(r > 1 + args.tolerance for r in ratios)}, equal within "
          f"{100 * args.tolerance:.0f} % in {sum(abs(r - 1) <= args.tolerance for r in ratios)}, "
          f"slower in {len(slower)} of {len(ratios)} cells; median "
          f"{ratios[len(ratios) // 2]:.2f}x.\n")
        w("| fabric | placement | collective | size | " + " | ".join(columns) + " |")
        w("|---|---|---|---|" + "---|" * len(columns))
        for x in at:
            r = x["run"]
            flag = " **slower**" if x in slower else ""
            w(f"| {FABRIC_SHORT.get(r.fabric, r.fabric)} | {r.placement} {r.shape} | "
              f"{r.collective} | {size_name(x['bytes'])} | {baseline_cells(x)} | "
              f"{x['sel']:.1f} ({x['chosen']}) | {x[key] / x['sel']:.2f}x{flag} |" +
              (f" {extra(x)} |" if extra else ""))
        w("")

    gains = sorted(x["mpi"] / x["scotch"] for x in rows if x["scotch"] is not None)
    if gains:
        baseline_section(
            "scotch", "Against Scotch's mapping",
            "The MPI default (SMPI's `ompi` selector) on the order Scotch computes for the "
            "communication graph of what the library runs at that size (`scotch` mode of "
            "toporr_collective_time: mapping::EmbedScotch, a tree-leaf target from the same cost "
            "file), against toporr's selection. Scotch vs the MPI default on the launch order: "
            f"median {gains[len(gains) // 2]:.2f}x, best {gains[-1]:.2f}x. Against Scotch: ",
            ["MPI default us", "Scotch order us", "toporr selected us", "toporr vs Scotch"],
            lambda x: f"{x['mpi']:.1f} | {x['scotch']:.1f}")
    def mpich_leaf(x):
        if x["leaf_mpich"] is None:
            return "- | -"
        v = x["leaf_mpich"] / x["sel"]
        us = "= launch" if x["leaf_mpich_same"] else f"{x['leaf_mpich']:.1f}"
        return f"{us} | {v:.2f}x" + (" **slower**" if v < 1 / (1 + args.tolerance) else "")

    at_mpich = sorted(x["leaf_mpich"] / x["sel"] for x in rows
                      if x["mpich"] is not None and x["leaf_mpich"] is not None)
    mpich_leaf_intro = (
        "On the leaf-sorted order (the same selector): median "
        f"{at_mpich[len(at_mpich) // 2]:.2f}x, range {at_mpich[0]:.2f}x .. {at_mpich[-1]:.2f}x, "
        f"toporr slower by more than {100 * args.tolerance:.0f} % in "
        f"{sum(v < 1 / (1 + args.tolerance) for v in at_mpich)} of {len(at_mpich)} cells. "
        if at_mpich else "")
    baseline_section(
        "mpich", "Against MPICH's default (SMPI's `mpich` selector)",
        "The MPI default once more, under SMPI's `mpich` collective selector (MPICH's own "
        "decision rules and implementations) on the launch order and on the leaf-sorted order, "
        "against the same toporr selection (which still weighs the library's own call with the "
        f"`ompi` rules it was built for). {mpich_leaf_intro}On the launch order: ",
        ["MPI default ompi us", "MPI default mpich us", "toporr selected us", "toporr vs mpich",
         "MPI default mpich leaf-sorted us", "toporr vs mpich leaf-sorted"],
        lambda x: f"{x['mpi']:.1f} | {x['mpich']:.1f}", extra=mpich_leaf)

    # The targets of the collective evaluation.
    w("## Targets: toporr's selection against the MPI default\n")
    tapered_bcast = [x for x in rows if x["run"].fabric == "ft256t" and
                     x["run"].collective == "bcast" and x["bytes"] >= LARGE]
    if tapered_bcast:
        best = max(x["speedup"] for x in tapered_bcast)
        worst = min(x["speedup"] for x in tapered_bcast)
        w(f"- >= 1.5x over the MPI default bcast, large messages, tapered fat tree: "
          f"{'met' if worst >= 1.5 else 'met in some cells' if best >= 1.5 else 'NOT met'} "
          f"(16-64 MiB cells: {worst:.2f}x .. {best:.2f}x: " +
          ", ".join(f"{x['run'].placement} {x['run'].shape} {size_name(x['bytes'])} "
                    f"{x['speedup']:.2f}x" for x in tapered_bcast) + ")")
    bynode_ar = [x for x in rows if x["run"].placement == "bynode" and
                 x["run"].collective == "allreduce" and x["bytes"] >= LARGE]
    if bynode_ar:
        cuts = [1 - x["sel"] / x["mpi"] for x in bynode_ar]
        w(f"- >= 60 % lower allreduce time than the by-node default, large messages: "
          f"{'met' if min(cuts) >= 0.6 else 'met in some cells' if max(cuts) >= 0.6 else 'NOT met'} "
          f"(" + ", ".join(f"{FABRIC_SHORT.get(x['run'].fabric)} {x['run'].shape} "
                           f"{size_name(x['bytes'])} {100 * (1 - x['sel'] / x['mpi']):.0f} %"
                           for x in bynode_ar) + ")")
    w(f"- never slower than the MPI default (tolerance {100 * args.tolerance:.0f} %): "
      f"{'met' if not violations else f'NOT met in {len(violations)} of {len(rows)} cells'}")
    for x in violations:
        r = x["run"]
        w(f"  - {FABRIC_SHORT.get(r.fabric)} {r.placement} {r.shape} {r.collective} "
          f"{size_name(x['bytes'])}: toporr {x['sel']:.1f} us ({x['chosen']}) vs MPI default "
          f"{x['mpi']:.1f} us ({x['speedup']:.2f}x)")
    w("")

    # The model-quality targets this table decides (the model's pick is in model_quality_smpi.md).
    w("## Targets: rank order, placement and hierarchical algorithms\n")
    contiguous = {(x["run"].fabric, x["run"].shape, x["run"].collective, x["bytes"]): x
                  for x in rows if x["run"].placement == "bycore"}
    rab = []
    for x in rows:
        r = x["run"]
        twin = contiguous.get((r.fabric, r.shape, r.collective, x["bytes"]))
        if (r.collective != "allreduce" or r.placement not in ("bynode", "random") or
                twin is None or x["bytes"] < 1 << 20):
            continue
        mine, best = r.cells.get(("rabenseifner", x["bytes"])), \
            twin["run"].cells.get(("rabenseifner", x["bytes"]))
        if mine and best:
            rab.append((mine / best, r, x["bytes"]))
    if rab:
        worst = max(v for v, _, _ in rab)
        w(f"- Rabenseifner allreduce from round-robin / random placement on toporr's order within "
          f"1.1x of the same on the contiguous (by-core) placement, 1 MiB and up: "
          f"{'met' if worst <= 1.1 else 'NOT met'} (worst {worst:.2f}x: " +
          ", ".join(f"{FABRIC_SHORT.get(r.fabric)} {r.placement} {r.shape} {size_name(b)} "
                    f"{v:.2f}x" for v, r, b in rab) + ")")
    block = [x for x in rows if x["run"].placement == "bycore" and x["run"].fabric == "ft256"]
    if block:
        w("- Open MPI's default block placement on the full-bisection fat tree (by core, 64x4): "
          "toporr's selection vs the MPI default " +
          ", ".join(f"{x['run'].collective} {size_name(x['bytes'])} {x['speedup']:.2f}x"
                    for x in block) + " (the block order is already ring-optimal there)")
    large_hier = [x for x in rows if x["hier"] is not None and x["bytes"] >= LARGE and
                  x["run"].fabric in ("ft256t", "ft1024x3")]
    if large_hier:
        beat = [x for x in large_hier if x["sel"] < x["hier"][0]]
        w(f"- toporr's selection faster than SMPI's best hierarchical algorithm on the tapered "
          f"and 3-level fabrics, large messages: {len(beat)} of {len(large_hier)} cells (" +
          ", ".join(f"{FABRIC_SHORT.get(x['run'].fabric)} {x['run'].placement} "
                    f"{x['run'].collective} {x['hier'][0] / x['sel']:.2f}x" for x in large_hier) +
          ")")
    w(f"- never slower than the MPI default: see the selection targets above "
      f"({len(violations)} of {len(rows)} cells slower)")
    w("")

    # TOPORR_MIN_BYTES (the PMPI layer's threshold, one for all collectives).
    w("## TOPORR_MIN_BYTES\n")
    w("Cells per size where toporr's selection is faster / equal / slower than the MPI default "
      f"(tolerance {100 * args.tolerance:.0f} %); `selection errors`: slower cells where one of "
      "toporr's own algorithms, forced, is not slower than the MPI default (a better pick, not a "
      "threshold, fixes those).\n")
    w("| collective | size | faster | equal | slower | of which selection errors |")
    w("|---|---|---|---|---|---|")
    sizes = sorted({x["bytes"] for x in rows})

    def verdict(x):
        if x["speedup"] > 1 + args.tolerance:
            return "faster"
        return "slower" if x in violations else "equal"

    def selection_error(x):
        return x["best"] is not None and x["best"][0] <= x["mpi"] * (1 + args.tolerance)

    proposal = {}
    for coll in ("allreduce", "bcast"):
        found = None
        for s_ in sizes:
            at = [x for x in rows if x["run"].collective == coll and x["bytes"] == s_]
            if not at:
                continue
            v = [verdict(x) for x in at]
            errs = sum(1 for x in at if verdict(x) == "slower" and selection_error(x))
            w(f"| {coll} | {size_name(s_)} | {v.count('faster')} | {v.count('equal')} | "
              f"{v.count('slower')} | {errs} |")
            # The proposal: faster in most configurations at this size, and from here on slower
            # only where the selection, not the size, is at fault.
            above = [x for x in rows if x["run"].collective == coll and x["bytes"] >= s_]
            if found is None and 2 * v.count("faster") > len(at) and all(
                    verdict(x) != "slower" or selection_error(x) for x in above):
                found = s_
        proposal[coll] = found
    w("")
    for coll in ("allreduce", "bcast"):
        s_ = proposal[coll]
        w(f"- {coll}: {'no measured size' if s_ is None else size_name(s_)} is the smallest size "
          "at which the selection is faster than the MPI default in most configurations and "
          "from which it is slower only through selection errors")
    if None in proposal.values():
        w("- one threshold for both: no measured size qualifies; keep 65536")
    else:
        both = max(proposal.values())
        w(f"- one threshold for both: {size_name(both)} = {both} bytes"
          f"{' = the default in client/config/client_options.h' if both == 65536 else f' (client/config/client_options.h has 65536): proposed default {both}'}")
    w("")
    if write_report(out, errors, args.output, "collectives_report"):
        return 1
    if violations:
        print(f"collectives_report: toporr slower than the MPI default in {len(violations)} cells",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

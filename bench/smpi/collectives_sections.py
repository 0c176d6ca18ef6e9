"""Sections of the collectives reports (collectives_report.py and the reports that import it)
that are not the main table: the summary against the leaf-sorted order, the same algorithm on
toporr's order against the launch order, the speedup-vs-size plots (gnuplot), and writing the
markdown with its check failures.
"""

import collections
import os
import shutil
import statistics
import subprocess
import sys

from collectives_runs import FABRIC_SHORT, LAUNCH, decision_of, reordered, size_name


FAMILIES = ("allreduce", "bcast", "allgather")


def leaf_sorted_summary(rows, tolerance, w):
    """The table's opening: what the leaf-sorted order is and, by collective and fabric, the
    median and range of toporr's selection against the MPI default on it (rows' `vs_leaf`:
    leaf-sorted MPI default / toporr selected; rows without it are left out and counted)."""
    at = [x for x in rows if x.get("vs_leaf") is not None]
    w("## Against the leaf-sorted order\n")
    w("All times are simulated (SimGrid SMPI, deterministic), not measured. The **leaf-sorted "
      "order** of a launch order is its hosts grouped by the leaf switch they hang off in the "
      "fabric dump (`ibnetdiscover`: the switch a host's CA port is cabled to), the groups in "
      "the order of their first host in the launch order, the hosts within a group in launch "
      "order, and each host's ranks contiguous, in launch order (`bench/smpi/leaf_sorted.py`; "
      "`toporrctl plan` reports the same order). A site gets it without toporr: Slurm's "
      "`TopologyParam=SwitchAsNodeRank`, or a by-slot launch on a host list sorted by leaf "
      "switch. `vs leaf-sorted` = the MPI default (SMPI's `ompi` selector: Open MPI 4's rules) "
      "on the leaf-sorted order / toporr's selection started from the launch order: what "
      "toporr adds over that free order (1.00x: nothing; below 1: toporr is slower).\n")
    if not at:
        w("No cell has the leaf-sorted baseline.\n")
        return
    placements = collections.OrderedDict()  # (fabric, placement) -> leaf-sorted == launch
    for x in at:
        r = x["run"]
        placements[(r.fabric, f"{r.placement} {r.shape}")] = x["leaf_same"]
    same = [k for k, v in placements.items() if v]
    moved = [k for k, v in placements.items() if not v]

    def names(keys):
        return ", ".join(f"{FABRIC_SHORT.get(f, f)} {p}" for f, p in keys) or "none"

    w(f"The launch order is leaf-sorted already in {len(same)} of {len(placements)} placements "
      "(by core and fragmented ones: hosts in name order, their ranks contiguous; by node with "
      "one rank per host), where `vs leaf-sorted` = `vs launch order`; leaf-sorting moves ranks "
      f"in {len(moved)}: {names(moved)}.\n")
    fabrics = list(FABRIC_SHORT)
    present = [c for c in FAMILIES if any(x["run"].collective == c for x in at)]
    present += sorted({x["run"].collective for x in at} - set(present))
    missing = [c for c in FAMILIES if c not in present]

    def stats(xs):
        v = sorted(x["vs_leaf"] for x in xs)
        big = sorted(x["vs_leaf"] for x in xs if x["bytes"] >= 1048576)
        faster = sum(1 for y in v if y > 1 + tolerance)
        slower = sum(1 for y in v if y < 1 / (1 + tolerance))
        return (f"{len(v)} | {statistics.median(v):.2f}x | {v[0]:.2f}x .. {v[-1]:.2f}x | "
                f"{f'{statistics.median(big):.2f}x' if big else '-'} | "
                f"{faster} / {len(v) - faster - slower} / {slower}")

    headline = []
    for coll in present:
        xs = [x for x in at if x["run"].collective == coll]
        v = [x["vs_leaf"] for x in xs]
        headline.append(f"{coll} median {statistics.median(v):.2f}x (range {min(v):.2f}x .. "
                        f"{max(v):.2f}x, {len(v)} cells)")
    w("Headline (simulated): toporr's selection vs the MPI default on the leaf-sorted order, "
      "all fabrics, placements and sizes: " + "; ".join(headline) + "." +
      (f" Not in this table: {', '.join(missing)}." if missing else "") + "\n")
    w(f"| collective | fabric | cells | median | range | median, 1 MiB and up | toporr faster / "
      f"equal within {100 * tolerance:.0f} % / slower |")
    w("|---|---|---|---|---|---|---|")
    for coll in present:
        xs = [x for x in at if x["run"].collective == coll]
        by_fabric = collections.defaultdict(list)
        for x in xs:
            by_fabric[x["run"].fabric].append(x)
        for f in sorted(by_fabric, key=lambda f: (fabrics.index(f) if f in fabrics else
                                                  len(fabrics), f)):
            w(f"| {coll} | {FABRIC_SHORT.get(f, f)} | {stats(by_fabric[f])} |")
        w(f"| {coll} | **all** | {stats(xs)} |")
    w("")
    chosen = collections.defaultdict(collections.Counter)  # collective -> algorithm -> cells
    for x in at:
        if x["vs_leaf"] > 1 + tolerance:
            chosen[x["run"].collective][x["chosen"]] += 1
    if chosen:
        w("Where toporr beats the leaf-sorted order by more than "
          f"{100 * tolerance:.0f} %, its selection ran: " + "; ".join(
              f"{coll}: " + ", ".join(f"{a} {n}" for a, n in chosen[coll].most_common())
              for coll in present if chosen[coll]) + " (cells).\n")


def launch_section(rows, tolerance, w):
    """Each algorithm on toporr's order (forced: the library reorders when it predicts a gain)
    against the same implementation on the launch order (NAME@launch)."""
    pairs = collections.defaultdict(list)  # (collective, algorithm) -> [(ratio, row, reordered)]
    for x in rows:
        r, b = x["run"], x["bytes"]
        for mode in r.modes():
            if not mode.endswith(LAUNCH):
                continue
            name = mode[:-len(LAUNCH)]
            launch, mine = r.cells.get((mode, b)), r.cells.get((name, b))
            if launch and mine:
                pairs[(r.collective, name)].append(
                    (launch / mine, x, reordered(decision_of(r, name, b))))
    if not pairs:
        return
    w("## The same algorithm: toporr's order against the launch order\n")
    w("Per algorithm, toporr's implementation on the launch order (`NAME@launch`, called on "
      "MPI_COMM_WORLD) against the same algorithm forced through the library, which reorders "
      "when it predicts a gain: gain = launch-order time / toporr-order time (1.00x where the "
      "library kept the order). What the reordering heuristics alone are worth, per algorithm "
      "and placement, in particular for the tree broadcasts (binomial, binary tree, k-nomial).\n")
    w("| collective | algorithm | cells | reordered | gain median | gain max (cell) | "
      "cells slower than launch order |")
    w("|---|---|---|---|---|---|---|")
    for (coll, name), vals in sorted(pairs.items()):
        ratios = sorted(v for v, _, _ in vals)
        best = max(vals, key=lambda t: t[0])
        r, b = best[1]["run"], best[1]["bytes"]
        slower = sum(1 for v, _, _ in vals if v < 1 - tolerance)
        w(f"| {coll} | {name} | {len(vals)} | {sum(1 for _, _, ro in vals if ro)} | "
          f"{ratios[len(ratios) // 2]:.2f}x | {best[0]:.2f}x ({FABRIC_SHORT.get(r.fabric, r.fabric)} "
          f"{r.placement} {r.shape} {size_name(b)}) | {slower} |")
    w("")
    w("Per fabric and placement, 1 MiB and up (median gain over the sizes; `-`: not run):\n")
    by = collections.defaultdict(list)  # (fabric, placement, collective, algorithm) -> [gains]
    for (coll, name), vals in pairs.items():
        for v, x, _ in vals:
            if x["bytes"] >= 1048576:
                r = x["run"]
                by[(r.fabric, f"{r.placement} {r.shape}", coll, name)].append(v)
    columns = sorted({(coll, name) for (_, _, coll, name) in by})
    w("| fabric | placement | " + " | ".join(f"{c} {n}" for c, n in columns) + " |")
    w("|---|---|" + "---|" * len(columns))
    fabrics = list(FABRIC_SHORT)
    cells = sorted({(f, pl) for (f, pl, _, _) in by},
                   key=lambda k: (fabrics.index(k[0]) if k[0] in fabrics else len(fabrics), k[1]))
    for f, pl in cells:
        vals = []
        for c, n in columns:
            v = sorted(by.get((f, pl, c, n), []))
            vals.append(f"{v[len(v) // 2]:.2f}x" if v else "-")
        w(f"| {FABRIC_SHORT.get(f, f)} | {pl} | " + " | ".join(vals) + " |")
    w("")


def speedup_plots(rows, plot_dir, w):
    """Per fabric, speedup vs message size (one line per placement, one panel per collective,
    side by side) as PLOT_DIR/speedup_FABRIC.png with its data file; the table's markdown links
    them. Returns an error message or None."""
    gp = shutil.which("gnuplot")
    os.makedirs(plot_dir, exist_ok=True)
    by_fabric = collections.OrderedDict()
    for x in rows:
        by_fabric.setdefault(x["run"].fabric, []).append(x)
    w("## Speedup vs message size\n")
    w("Per fabric: the MPI default's time / toporr's selection's, by message size, one line "
      "per placement (`bynode HxK`: H hosts, K ranks each; 1.0 = as fast as the MPI default). "
      "Data beside each PNG (`.dat`).\n")
    for fabric, xs in by_fabric.items():
        name = f"speedup_{fabric}"
        dat = os.path.join(plot_dir, name + ".dat")
        png = os.path.join(plot_dir, name + ".png")
        series = collections.OrderedDict()  # (collective, placement) -> [(bytes, speedup)]
        for x in xs:
            r = x["run"]
            series.setdefault((r.collective, f"{r.placement} {r.shape}"), []).append(
                (x["bytes"], x["speedup"]))
        blocks = list(series.items())
        with open(dat, "w") as f:
            f.write(f"# {fabric}: bytes speedup (MPI default / toporr selected), one block per "
                    "collective and placement\n")
            for (coll, placement), points in blocks:
                f.write(f"# {coll} {placement}\n")
                for b, v in sorted(points):
                    f.write(f"{b} {v:.4f}\n")
                f.write("\n\n")
        if gp is None:
            w(f"- {FABRIC_SHORT.get(fabric, fabric)}: no plot (gnuplot is not installed), data in "
              f"`{name}.dat`")
            continue
        ymax = max(v for _, points in blocks for _, v in points)
        plots = {}
        for i, ((coll, placement), _) in enumerate(blocks):
            plots.setdefault(coll, []).append(
                f"'{dat}' index {i} using 1:2 with linespoints lw 2 title '{placement}'")
        panels = [c for c in FAMILIES if c in plots]
        script = [
            f"set terminal pngcairo size {600 * max(2, len(panels))},500 noenhanced",
            f"set output '{png}'",
            f"set multiplot layout 1,{max(2, len(panels))} title "
            f"'{FABRIC_SHORT.get(fabric, fabric)}: MPI default / toporr selected (SimGrid SMPI)'",
            "set logscale x 2", "set logscale y 2", "set grid",
            "set xtics ('8B' 8, '1K' 1024, '64K' 65536, '1M' 1048576, '16M' 16777216, "
            "'64M' 67108864)",
            "set xrange [6:90000000]", f"set yrange [0.8:{max(2.0, ymax * 1.25):.2f}]",
            "set xlabel 'message size'", "set ylabel 'speedup (x)'", "set key top left",
        ]
        for coll in panels:
            script.append(f"set title '{coll}{' (size per rank)' if coll == 'allgather' else ''}'")
            script.append("plot " + ", ".join(plots[coll]) +
                          ", 1 with lines dt 2 lc rgb 'gray' title 'MPI default'")
        script.append("unset multiplot")
        res = subprocess.run([gp], input="\n".join(script) + "\n", text=True,
                             capture_output=True)
        if res.returncode != 0:
            return f"gnuplot failed for {png}: {res.stderr.strip()}"
        w(f"![{FABRIC_SHORT.get(fabric, fabric)}]({name}.png)\n")
    w("")
    return None


def write_report(out, errors, path, prog):
    """Writes the markdown lines `out` and a "Check failures" section listing `errors` to
    `path` (and stdout). Returns True when there were errors (said on stderr as `prog`)."""
    if errors:
        out += ["## Check failures\n"] + [f"- {e}" for e in errors] + [""]
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        f.write("\n".join(out))
    print("\n".join(out))
    print(f"(written to {path})")
    if errors:
        print(f"{prog}: {len(errors)} check(s) failed", file=sys.stderr)
    return bool(errors)

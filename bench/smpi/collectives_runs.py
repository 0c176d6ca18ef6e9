"""The runs of bench/smpi/run_collectives_eval.sh as collectives_report.py reads them: the
--runs TSV rows (one smpirun each: fabric, placement, shape, ranks, collective, variant,
seconds, run directory), the cells and skips of cells.txt, rank 0's decisions of
report.jsonl, the checks on them and the names of fabrics and sizes in the tables. Shared by
collectives_report.py, collectives_verified_report.py and model_quality.py.
"""

import collections
import json
import os

SIZE_NAMES = {8: "8 B", 1024: "1 KiB", 65536: "64 KiB", 1048576: "1 MiB",
              16777216: "16 MiB", 67108864: "64 MiB"}
FABRIC_SHORT = {"bundled16": "bundled-16h", "ft256": "ft256-full", "ft256t": "ft256-tapered-4:1",
                "torus256": "torus-4x4x4-256h", "dfly288": "dragonfly-9x4-288h",
                "ft1024x3": "ft1024-3level-4:1"}
LARGE = 16777216  # "large messages": 16 MiB and up
LAUNCH = "@launch"  # mode NAME@launch: toporr's NAME on the launch order, no decision


def size_name(b):
    return SIZE_NAMES.get(b, f"{b} B")


def read_cells(path):
    cells, skips = {}, {}
    for line in open(path):
        words = line.split()
        if not words:
            continue
        fields = dict(w.split("=", 1) for w in words[1:] if "=" in w)
        if words[0] == "cell":
            cells[(fields["mode"], int(fields["bytes"]))] = float(fields["us"])
        elif words[0] == "skip":
            skips[fields["mode"]] = line.split("reason=", 1)[1].strip().strip('"')
    return cells, skips


def read_decisions(path):
    if not os.path.exists(path):
        return []
    return [d for d in map(json.loads, filter(str.strip, open(path))) if d.get("event") == "decision"]


class Run:
    def __init__(self, row):
        (self.fabric, self.placement, self.shape, ranks, self.collective, self.variant,
         self.seconds, self.dir) = row
        self.ranks = int(ranks)
        self.cells, self.skips = read_cells(os.path.join(self.dir, "cells.txt"))
        self.decisions = read_decisions(os.path.join(self.dir, "report.jsonl"))
        self.by_cell = collections.defaultdict(list)  # (mode, bytes) -> decisions
        for d in self.decisions:
            self.by_cell[(d["algorithm"], d["bytes"])].append(d)

    def label(self):
        return f"{self.fabric} {self.placement} {self.shape} {self.collective}"

    def sizes(self):
        return sorted({b for (_, b) in self.cells})

    def modes(self):
        seen = []
        for (m, _) in self.cells:
            if m not in seen:
                seen.append(m)
        return seen


def check_decisions(run, multilevel, errors):
    for (mode, b) in run.cells:
        if mode in ("mpi", "scotch") or mode.endswith(LAUNCH):  # no toporr decision
            continue
        ds = decisions_of(run, mode, b)
        where = f"{run.label()} {mode} {size_name(b)}"
        if len(ds) != 1:
            errors.append(f"{where}: {len(ds)} decisions recorded, expected 1 (the warm-up)")
            continue
        d = ds[0]
        if d["source"] == "fallback":
            errors.append(f"{where}: toporr fell back to the identity order: {d['fallback_reason']}")
        elif d["source"] != "file":
            errors.append(f"{where}: decision source {d['source']}, expected the cost file")
        if mode != "auto" and d["chosen_algorithm"] != mode:
            errors.append(f"{where}: forced {mode} but the decision chose {d['chosen_algorithm']}")
        if d["cached"]:
            errors.append(f"{where}: the warm-up decision came from a cache")


def decisions_of(run, mode, b):
    """The decisions made for cell (mode, b). In a `forced` run the library forced the
    algorithm from its environment, so the call asked for `auto`."""
    if run.variant == "forced":
        return run.by_cell.get(("auto", b), []) + run.by_cell.get((mode, b), [])
    return run.by_cell.get((mode, b), [])


def decision_of(run, mode, b):
    ds = decisions_of(run, mode, b)
    return ds[0] if len(ds) == 1 else None


def reordered(d):
    return d is not None and d["new_order"] != list(range(len(d["new_order"])))


def comparable(d):
    """The parts of a decision that must not depend on how temporaries are allocated."""
    return (d["collective"], d["algorithm"], d["bytes"], d["chosen_algorithm"],
            d["new_order"], d["predicted_before_ns"], d["predicted_after_ns"],
            [(c["algorithm"], c["mapping"], c["predicted_ns"]) for c in d["candidates"]])

#!/usr/bin/env python3
"""Prints the Markdown table of reorder_speed.md from the benchmark outputs in this folder.

after.json: Google Benchmark JSON with every repetition (--benchmark_repetitions=N, without
--benchmark_report_aggregates_only). before_console.txt: the console output of one run of
the code before the change (one repetition). Times are CPU ms; ratios divide a heuristic's
median by identity_and_copy's median at the same P in the same run.

Usage: python3 make_table.py [sizes...]   (default: 32768 1048576)
"""
import json
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def after_runs(path):
    """{(name, P): [cpu ms of each repetition]}"""
    with open(path) as f:
        data = json.load(f)
    runs = {}
    for b in data["benchmarks"]:
        if b.get("run_type") != "iteration" or b.get("error_occurred"):
            continue
        name, p = b["run_name"].split("/")[:-1], b["run_name"].split("/")[-1]
        key = ("/".join(name[:-1]) if name[-1] == p else "/".join(name), int(p))
        scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b["time_unit"]]
        runs.setdefault(key, []).append(b["cpu_time"] * scale)
    return runs, data.get("context", {})


def before_runs(path):
    """{(name, P): cpu ms} from a console log."""
    runs = {}
    line_re = re.compile(r"^(\S+)/(\d+)/\d+\s+([\d.]+) ms\s+([\d.]+) ms")
    with open(path) as f:
        for line in f:
            m = line_re.match(line)
            if m:
                runs[(m.group(1), int(m.group(2)))] = float(m.group(4))
    return runs


def main():
    sizes = [int(s) for s in sys.argv[1:]] or [32768, 1048576]
    after, context = after_runs(os.path.join(HERE, "after.json"))
    before = before_runs(os.path.join(HERE, "before_console.txt"))
    reps = max(len(v) for v in after.values())
    names = ["identity_and_copy"] + sorted(
        {n for (n, _) in after if n.startswith("reorder/")},
        key=lambda n: list(dict.fromkeys(k[0] for k in after)).index(n))
    print(f"CPU ms per call, after: {reps} repetitions (min / median / max); "
          f"before: one run. Ratio: median / identity_and_copy median, same run.")
    print()
    for p in sizes:
        base_after = statistics.median(after[("identity_and_copy", p)])
        base_before = before.get(("identity_and_copy", p))
        print(f"**P = {p:,}**")
        print()
        print("| benchmark | before ms | before ratio | after min | after median | after max "
              "| after ratio |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for n in names:
            xs = after.get((n, p))
            if not xs:
                continue
            b = before.get((n, p))
            b_ms = f"{b:.3f}" if b is not None else "-"
            b_ratio = f"{b / base_before:.1f}x" if b is not None and base_before else "-"
            med = statistics.median(xs)
            print(f"| {n} | {b_ms} | {b_ratio} | {min(xs):.3f} | {med:.3f} | {max(xs):.3f} "
                  f"| {med / base_after:.1f}x |")
        print()


if __name__ == "__main__":
    main()

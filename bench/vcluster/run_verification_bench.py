#!/usr/bin/env python3
"""The run-time check ("never slower", measured) on a real network: what libtoporr's drop-in
does when the ingested fabric dump is right, and when it lies about the fabric.

    bench/vcluster/run_verification_bench.py [--mpis openmpi,mpich] [--reps 10]
        [--sizes 1048576,16777216] [--cases honest:roundrobin,...] [--raw DIR]
        [--report-only]

On the virtual cluster (testing/vcluster; 8 hosts, two leaves of 4, host links 400 Mbit/s,
leaf uplinks 4:1 tapered), 16 ranks (2 per host), allreduce, in cases DUMP:PLACEMENT:
  - honest: toporrd holds the cluster's own dump;
  - lying:  toporrd holds the same dump with four host names swapped between the leaves
            (node02 <-> node05, node04 <-> node07), so what it calls a leaf is two hosts of
            each real leaf;
  - roundrobin: rank r on host r % 8 (the launch order crosses the leaves often: toporr's
            order helps); byslot: ranks 2h, 2h+1 on host h (the launch order is already
            leaf by leaf: with the lying dump toporr "repairs" it into an order that crosses
            the tapered uplinks at every host boundary).
Each case runs bench/vcluster/coll_bench.c (the MPI default, toporr's ring on the launch order
and on toporr's order, the PMPI drop-in) twice: TOPORR_VERIFY=1 (the default) and
TOPORR_VERIFY=0 (the model's choice unchecked), --reps repetitions after 1 + 2 x
TOPORR_VERIFY_CALLS warm-up repetitions (the drop-in's check completes in the warm-up: the
reported repetitions are its steady state). Ratios are the MPI default's time / the drop-in's,
per repetition and paired, median [q1, q3]; the check's own measurements and verdicts come
from the drop-in's TOPORR_REPORT "verified" lines. Writes bench/results/vcluster_verification.md.
Needs root (the cluster). Measured, not simulated.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_vcluster_bench as vb  # noqa: E402  (the cluster, the program, the job command)

vb.NAME = "vverify"
RESULTS = os.path.join(vb.REPO, "bench/results/vcluster_verification.md")
SWAPS = [("node02", "node05"), ("node04", "node07")]
VERIFY_CALLS = 3


def lying_dump(true_dump, out):
    """The dump with SWAPS applied to every host name (CA descriptions and the switch port
    lines that name their peers): the same switches, links and LIDs, hosts relabelled."""
    text = open(true_dump).read()
    for a, b in SWAPS:
        text = re.sub(rf"\b{a}\b", "\0", text)
        text = re.sub(rf"\b{b}\b", a, text)
        text = text.replace("\0", b)
    with open(out, "w") as f:
        f.write(text)


def measure(args, progs):
    state = os.path.join(os.environ.get("VCLUSTER_STATE_ROOT", "/run/toporr-vcluster"), vb.NAME)
    toporrd = os.path.join(args.binroot, "daemon/toporrd")
    toporrctl = os.path.join(args.binroot, "client/ctl/toporrctl")
    vb.run([sys.executable, vb.VC, "down", "--name", vb.NAME], check=False)
    vb.run([sys.executable, vb.VC, "up", "--name", vb.NAME, "--profile", "tapered",
            "--host-mbit", vb.HOST_MBIT, "--toporrd", toporrd, "--toporrctl", toporrctl])
    try:
        ctl = [toporrctl, "--socket", os.path.join(state, "toporrd.sock")]
        true_dump = os.path.join(state, "fabric/ibnetdiscover.txt")
        lie = os.path.join(args.raw, "lying.ibnetdiscover.txt")
        lying_dump(true_dump, lie)
        for dump, pl in args.cases:
            vb.run(ctl + ["ingest", "--format", "ibnetdiscover",
                          lie if dump == "lying" else true_dump])
            hosts = vb.placement(pl, 16)
            for mpi in args.mpis:
                for verify in ("1", "0"):
                    tag = f"{dump}-{pl}-{mpi}-verify{verify}"
                    report = os.path.join(args.raw, f"{tag}.report.jsonl")
                    if os.path.exists(report):
                        os.unlink(report)
                    env = {"TOPORR_CONFIG": os.path.join(state, "client.conf"),
                           "TOPORR_SOCKET": "/nonexistent", "TOPORR_REPORT": report,
                           "TOPORR_DEADLINE_MS": "5000", "TOPORR_VERIFY": verify,
                           "TOPORR_VERIFY_CALLS": str(VERIFY_CALLS)}
                    prog, pmpi = progs[mpi]
                    cmd = vb.job_cmd(mpi, hosts, args.work, tag, prog, pmpi, env) + [
                        "--collective", "allreduce", "--sizes", ",".join(map(str, args.sizes)),
                        "--algorithms", "ring", "--reps", str(args.reps),
                        "--warmup", str(1 + 2 * VERIFY_CALLS)]
                    t0 = time.monotonic()
                    p = vb.run(cmd, check=False, capture_output=True, text=True, timeout=3600,
                               cwd=args.work)
                    if p.returncode != 0:
                        raise RuntimeError(f"{tag}: exit {p.returncode}\n{p.stderr[-2000:]}")
                    lines = [l for l in p.stdout.splitlines() if l.startswith("{")]
                    with open(os.path.join(args.raw, f"{tag}.jsonl"), "w") as f:
                        f.write("\n".join(lines) + "\n")
                    vb.log(f"{tag}: {time.monotonic() - t0:.0f} s")
    finally:
        vb.run([sys.executable, vb.VC, "down", "--name", vb.NAME], check=False)


def report_lines(path, event):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [d for d in map(json.loads, filter(str.strip, f)) if d.get("event") == event]


def cell(times, base, var, size):
    r = vb.paired(times, base, var, size)
    if not r:
        return "n/a"
    q1, med, q3 = vb.quartiles(r)
    return f"{med:.2f} [{q1:.2f}, {q3:.2f}]"


def ms(times, variant, size):
    v = list(times.get((variant, size), {}).values())
    return f"{statistics.median(v) / 1000:.1f}" if v else "n/a"


def write_report(args):
    out = ["# The run-time check on a real network: an honest and a lying fabric dump", "",
           f"Generated by `bench/vcluster/run_verification_bench.py --reps {args.reps} --sizes "
           f"{','.join(map(str, args.sizes))} --mpis {','.join(args.mpis)}`; do not edit by "
           "hand.", "",
           "**Measured**, not simulated: the virtual cluster (8 hosts as namespace sets on one "
           "2-core machine, host links 400 Mbit/s, two leaves of 4 hosts with 4:1 tapered "
           "uplinks), 16 ranks (2 per host), allreduce. `honest`: toporrd holds "
           "the cluster's own dump. `lying`: the same dump with node02/node05 and "
           "node04/node07 swapped between the leaves. `roundrobin`: rank r on host r % 8; "
           "`byslot`: ranks 2h and 2h+1 on host h (the launch order is already leaf by leaf; "
           "with the lying dump toporr's order crosses the tapered uplinks at every host "
           "boundary). `selection` = MPI default time / "
           "drop-in time per repetition (> 1: the drop-in faster), median [q1, q3] over the "
           f"reported repetitions, which follow {1 + 2 * VERIFY_CALLS} warm-up repetitions "
           "(the drop-in's check, "
           f"{VERIFY_CALLS} calls of each path, completes in them). `ring@toporr` = MPI default "
           "/ toporr's ring on the order toporr chose (what the model's choice costs unchecked). "
           "The check's columns come from the drop-in's `verified` report line: the medians of "
           "its measured calls (the slowest rank's time) and what it kept.", "",
           "| dump | placement | MPI | size | verify | MPI default ms | drop-in ms | selection | "
           "ring@toporr | model chose | check: toporr / library ms | kept |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for dump, pl in args.cases:
        for mpi in args.mpis:
            for verify in ("1", "0"):
                tag = f"{dump}-{pl}-{mpi}-verify{verify}"
                path = os.path.join(args.raw, f"{tag}.jsonl")
                if not os.path.exists(path):
                    continue
                _, _, times, _ = vb.load_job(path)
                rep = os.path.join(args.raw, f"{tag}.report.jsonl")
                decisions = {d["bytes"]: d for d in report_lines(rep, "decision")
                             if d["algorithm"] == "auto"}
                verified = {d["bytes"]: d for d in report_lines(rep, "verified")}
                for size in args.sizes:
                    d = decisions.get(size, {})
                    v = verified.get(size)
                    check = (f"{v['toporr_median_us'] / 1000:.1f} / "
                             f"{v['library_median_us'] / 1000:.1f}" if v else "-")
                    kept = v["verdict"] if v else ("unchecked" if verify == "0" else "-")
                    out.append(
                        f"| {dump} | {pl} | {mpi} | {vb.human(size)} | {'on' if verify == '1' else 'off'} "
                        f"| {ms(times, 'default', size)} | {ms(times, 'dropin', size)} | "
                        f"{cell(times, 'default', 'dropin', size)} | "
                        f"{cell(times, 'default', 'ring@toporr', size)} | "
                        f"{d.get('chosen_algorithm', '?')} | {check} | {kept} |")
    out += ["", "Reading the table: in each pair of rows of one case, `off` is what the model's "
            "choice gives unchecked and `on` what the check keeps. Where toporr's path is faster "
            "(the honest dump) the check keeps it and the gain stays; where the dump lies so "
            "that toporr's path is slower (`lying`, `byslot`), `off` is slower than the MPI "
            "default and `on` keeps the library's call. Where the two paths are within the "
            "noise of a few calls (two slowest-rank times of 3 calls each on a shared 2-core "
            "machine), either verdict is a tie and costs or gains little.",
            "", "Cost of the check: its first 2 x %d calls of a decision alternate the two "
            "paths, each followed by one 8-byte MPI_MAX reduction; the library's calls cost "
            "what the job pays without toporr, toporr's what the model's choice costs (in the "
            "lying rows, the price of learning that it is slower), then nothing." % VERIFY_CALLS,
            ""]
    with open(args.results, "w") as f:
        f.write("\n".join(out))
    vb.log(f"wrote {args.results}")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--sizes", default="1048576,16777216")
    ap.add_argument("--mpis", default="openmpi,mpich")
    ap.add_argument("--cases", default="honest:roundrobin,lying:roundrobin,lying:byslot")
    ap.add_argument("--raw", default="/tmp/toporr-vcluster-verification")
    ap.add_argument("--results", default=RESULTS)
    ap.add_argument("--report-only", action="store_true")
    args = ap.parse_args()
    args.sizes = [int(s) for s in args.sizes.split(",")]
    args.mpis = args.mpis.split(",")
    args.cases = [tuple(c.split(":")) for c in args.cases.split(",")]
    os.makedirs(args.raw, exist_ok=True)
    args.work = args.raw
    if not args.report_only:
        if os.geteuid() != 0:
            sys.exit("run_verification_bench: must run as root (the virtual cluster)")
        args.binroot = vb.build()
        progs = vb.compile_bench(args.binroot, args.work)
        measure(args, progs)
    write_report(args)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Measured benefit of toporr's rank orders and collective selection on a real (emulated)
network: the virtual cluster of testing/vcluster (hosts as namespaces, tbf-shaped host links
and leaf uplinks, toporrd on the head node), real Open MPI and MPICH over TCP.

    bench/vcluster/run_vcluster_bench.py [--quick] [--reps 10] [--profiles tapered,full]
        [--mpis openmpi,mpich] [--sizes 65536,...] [--no-smpi] [--raw DIR]
    bench/vcluster/run_vcluster_bench.py --report-only --raw DIR

Runs, for each profile (4:1 tapered, full bisection), MPI library, job shape (16 ranks as
8 hosts x 2, 8 ranks as 8 x 1), placement (node round-robin, by slot, scheduler-fragmented:
hosts handed out alternating between the leaves, filled by slot) and collective (allreduce:
ring, Rabenseifner; bcast: binomial, scatter-allgather), one job of bench/vcluster/coll_bench.c
that interleaves every variant (the MPI default, each algorithm on the launch order and on
toporr's order, the PMPI drop-in) for --reps repetitions. Each run's JSON lines and toporr's
decision report are kept in the raw directory; then the report is written:
vcluster_measured.md (tables, targets, what the test bed cannot show), vcluster_measured.dat
and the plots vcluster_*.png (gnuplot) in bench/results (--results DIR elsewhere). Its
comparisons are against the launch order only; the committed table is the one of
run_baselines_bench.py, against the leaf-sorted order and the launch order. This module's
cluster, program and job helpers serve the other vcluster benchmarks.

Ratios are per repetition and paired (the two variants of one ratio ran in the same
repetition, in an order shuffled per repetition), summarised by their median and quartiles. Beside each: the cost model's
predicted ratio (libtoporr's own prediction in the same job: predicted_before/after of the
order, the "mpi_library" candidate against the chosen one for the drop-in) and SMPI's ratio
on a platform generated from the same fabric dump (bench/vcluster/smpi_cells.sh).
Needs root (the cluster), Debian's Open MPI and MPICH, gnuplot for the plots, SimGrid for
the SMPI column.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
VC = os.path.join(REPO, "testing/vcluster/vcluster.py")
SMPI_CELLS = os.path.join(HERE, "smpi_cells.sh")
RESULTS = os.path.join(REPO, "bench/results")
NAME = "vbench"
HOSTS = [f"node{i:02d}" for i in range(1, 9)]
# A scheduler that hands out free nodes alternating between the two leaves.
FRAGMENTED = ["node01", "node05", "node02", "node06", "node03", "node07", "node04", "node08"]
ALGORITHMS = {"allreduce": ["ring", "rabenseifner"], "bcast": ["binomial", "scatter_allgather"]}
SIZES = [65536, 262144, 1048576, 4194304, 16777216]
HOST_MBIT = 400  # --host-mbit
SHAPES = {16: 2, 8: 1}  # ranks: ranks per host
# The fabric dump describes a host link as 4x QDR (32 Gb/s of data): libtoporr's predictions
# are on that time scale, MODEL_SCALE times faster than the emulated links. Ratios need no
# scaling; predicted times are shown scaled, as the ideal time on the emulated network.
MODEL_SCALE = 32.0 / (HOST_MBIT / 1000.0)


os.environ.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


def log(msg):
    print(f"vcluster-bench: {msg}", file=sys.stderr, flush=True)


def run(cmd, **kw):
    kw.setdefault("check", True)
    return subprocess.run([str(c) for c in cmd], **kw)


def placement(name, ranks):
    """Host of each rank in launch order."""
    per = SHAPES[ranks]
    if name == "roundrobin":
        return [HOSTS[r % len(HOSTS)] for r in range(ranks)]
    if name == "byslot":
        return [HOSTS[r // per] for r in range(ranks)]
    if name == "fragmented":
        return [FRAGMENTED[r // per] for r in range(ranks)]
    raise ValueError(name)


def placements_for(ranks):
    # With one rank per host, round-robin and by slot are the same placement.
    return ["roundrobin", "byslot", "fragmented"] if SHAPES[ranks] > 1 else ["byslot",
                                                                          "fragmented"]


def build():
    targets = ["//daemon:toporrd", "//client/ctl:toporrctl"]
    for mpi in ("openmpi", "mpich"):
        targets += [f"//client/mpi/{mpi}:libtoporr.so", f"//client/mpi/{mpi}:libtoporr_pmpi.so"]
    # Inside a root of testing/stacks the checkout is the machine's: no convenience symlinks
    # into the root's output base.
    links = ["--symlink_prefix=/"] if os.path.exists("/.toporr-stack") else []
    run(["bazel", "build", "-c", "opt"] + links + targets, cwd=REPO)
    return run(["bazel", "info", "-c", "opt", "bazel-bin"], cwd=REPO, capture_output=True,
               text=True).stdout.strip()


def compile_bench(binroot, work):
    progs = {}
    for mpi in ("openmpi", "mpich"):
        lib = os.path.dirname(os.path.realpath(os.path.join(binroot, f"client/mpi/{mpi}/libtoporr.so")))
        out = os.path.join(work, f"coll_bench.{mpi}")
        run([f"mpicc.{mpi}", "-O2", "-I", REPO, "-o", out, os.path.join(HERE, "coll_bench.c"),
             "-L", lib, "-ltoporr", f"-Wl,-rpath,{lib}", "-ldl"])
        progs[mpi] = (out, os.path.join(lib, "libtoporr_pmpi.so"))
    return progs


def job_cmd(mpi, hosts, work, tag, prog, pmpi, env):
    hostfile = os.path.join(work, f"{tag}.hosts")
    with open(hostfile, "w") as f:
        if mpi == "openmpi":
            f.write("".join(h + "\n" for h in hosts))
        else:
            f.write("".join(h + ":1\n" for h in hosts))
    if mpi == "openmpi":
        args = ["--hostfile", hostfile, "--mca", "rmaps", "seq", "-np", str(len(hosts)),
                "--bind-to", "none", "-x", f"LD_PRELOAD={pmpi}"]
        for k, v in env.items():
            args += ["-x", f"{k}={v}"]
    else:
        args = ["-f", hostfile, "-n", str(len(hosts)), "-genv", "LD_PRELOAD", pmpi]
        for k, v in env.items():
            args += ["-genv", k, v]
    return [sys.executable, VC, "mpirun", "--name", NAME, mpi] + args + [prog]


def measure(args, binroot, progs, raw):
    """Every job of every profile; returns nothing, writes raw/*.jsonl."""
    toporrd = os.path.join(binroot, "daemon/toporrd")
    toporrctl = os.path.join(binroot, "client/ctl/toporrctl")
    jobs = [(mpi, ranks, pl, coll) for mpi in args.mpis for ranks in args.ranks
            for pl in placements_for(ranks) for coll in ("allreduce", "bcast")]
    total = len(jobs) * len(args.profiles) if not args.only else len(args.only)
    done, start, ran = 0, time.monotonic(), 0
    for profile in args.profiles:
        tags = {j: "{}-{}-{}-{}-{}".format(profile, *j) for j in jobs}
        pending = [j for j in jobs if not os.path.exists(os.path.join(raw, tags[j] + ".jsonl"))
                   and (not args.only or tags[j] in args.only)]
        done += 0 if args.only else len(jobs) - len(pending)
        if not pending:
            continue
        run([sys.executable, VC, "down", "--name", NAME], check=False)
        run([sys.executable, VC, "up", "--name", NAME, "--profile", profile, "--host-mbit",
             HOST_MBIT, "--toporrd", toporrd, "--toporrctl", toporrctl])
        try:
            state_dir = os.path.join(os.environ.get("VCLUSTER_STATE_ROOT", "/run/toporr-vcluster"),
                                     NAME)
            fabric = os.path.join(raw, f"fabric-{profile}")
            shutil.rmtree(fabric, ignore_errors=True)
            shutil.copytree(os.path.join(state_dir, "fabric"), fabric)
            for mpi, ranks, pl, coll in pending:
                tag = f"{profile}-{mpi}-{ranks}-{pl}-{coll}"
                hosts = placement(pl, ranks)
                report = os.path.join(raw, f"{tag}.report.jsonl")
                if os.path.exists(report):
                    os.unlink(report)
                env = {"TOPORR_CONFIG": os.path.join(state_dir, "client.conf"),
                       "TOPORR_SOCKET": "/nonexistent",
                       "TOPORR_REPORT": report, "TOPORR_DEADLINE_MS": "5000"}
                prog, pmpi = progs[mpi]
                cmd = job_cmd(mpi, hosts, args.work, tag, prog, pmpi, env) + [
                    "--collective", coll, "--sizes", ",".join(map(str, args.sizes)),
                    "--algorithms", ",".join(ALGORITHMS[coll]), "--reps", str(args.reps)]
                t0 = time.monotonic()
                p = run(cmd, check=False, capture_output=True, text=True, timeout=3600,
                        cwd=args.work)
                if p.returncode != 0:
                    raise RuntimeError(f"{tag}: exit {p.returncode}\n{p.stdout[-2000:]}\n"
                                       f"{p.stderr[-2000:]}")
                lines = [l for l in p.stdout.splitlines() if l.startswith("{")]
                setup = json.loads(lines[0])
                if setup["hosts"] != hosts or not setup["dropin"]:
                    raise RuntimeError(f"{tag}: ranks ran on {setup['hosts']} (asked {hosts}), "
                                       f"drop-in loaded: {setup['dropin']}")
                lines.append(json.dumps({"kind": "job", "wall_s": round(time.monotonic() - t0, 1)}))
                with open(os.path.join(raw, f"{tag}.jsonl"), "w") as f:
                    f.write("\n".join(lines) + "\n")
                done += 1
                ran += 1
                elapsed = time.monotonic() - start
                log(f"[{done}/{total}] {tag}: {time.monotonic() - t0:.0f} s (elapsed "
                    f"{elapsed / 60:.1f} min, left ~{elapsed / ran * (total - done) / 60:.0f} min)")
        finally:
            run([sys.executable, VC, "down", "--name", NAME], check=False)


def smpi(args, raw):
    if not os.path.exists(SMPI_CELLS) or shutil.which("smpirun") is None:
        log("SMPI column left empty: smpirun or bench/vcluster/smpi_cells.sh missing")
        return
    for profile in args.profiles:
        fabric = os.path.join(raw, f"fabric-{profile}")
        for ranks in args.ranks:
            for pl in placements_for(ranks):
                hostfile = os.path.join(args.work, f"smpi-{ranks}-{pl}.hosts")
                with open(hostfile, "w") as f:
                    f.write("".join(h + "\n" for h in placement(pl, ranks)))
                for coll in ("allreduce", "bcast"):
                    modes = ["mpi", "auto"]
                    for a in ALGORITHMS[coll]:
                        modes += [a, f"{a}@launch"]
                    for selector, mpi in (("ompi", "openmpi"), ("mpich", "mpich")):
                        if mpi not in args.mpis:
                            continue
                        out = os.path.join(raw, f"{profile}-{mpi}-{ranks}-{pl}-{coll}.smpi.txt")
                        if os.path.exists(out):
                            continue
                        log(f"SMPI {os.path.basename(out)}")
                        p = run(["bash", SMPI_CELLS, "--fabric-dir", fabric, "--hostfile",
                                 hostfile, "--collective", coll, "--sizes",
                                 ",".join(map(str, args.sizes)), "--modes", ",".join(modes),
                                 "--selector", selector, "--host-mbit", HOST_MBIT, "--out",
                                 out + ".tmp"], check=False, capture_output=True, text=True)
                        if p.returncode != 0:
                            log(f"SMPI failed for {out}: {p.stderr.strip()[-600:]}")
                            continue
                        os.replace(out + ".tmp", out)


# ---- report ----

def quartiles(v):
    v = sorted(v)
    if len(v) == 1:
        return v[0], v[0], v[0]
    q = statistics.quantiles(v, n=4, method="inclusive")
    return q[0], q[1], q[2]


def load_job(path):
    times, orders, setup, job = {}, {}, None, {}
    with open(path) as f:
        for line in f:
            o = json.loads(line)
            if o["kind"] == "setup":
                setup = o
            elif o["kind"] == "order":
                orders[(o["variant"], o["bytes"])] = o
            elif o["kind"] == "time":
                times.setdefault((o["variant"], o["bytes"]), {})[o["rep"]] = o["us"]
            elif o["kind"] == "job":
                job = o
    return setup, orders, times, job


def load_auto_predictions(path):
    """bytes -> (the mpi_library candidate's predicted ns, the chosen one's, the chosen
    algorithm), from the drop-in's auto decisions in TOPORR_REPORT."""
    out = {}
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            try:
                d = json.loads(line)
            except ValueError:
                continue
            if (d.get("event") != "decision" or d.get("algorithm") != "auto"
                    or d.get("source") == "fallback"):
                continue
            lib = [c for c in d.get("candidates") or [] if c.get("algorithm") == "mpi_library"]
            after = d.get("predicted_after_ns")
            if lib and after:
                out[d["bytes"]] = (lib[0]["predicted_ns"], after, d.get("chosen_algorithm"))
    return out


def load_smpi(path):
    out = {}
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            if not line.startswith("cell "):
                continue
            kv = dict(x.split("=", 1) for x in line.split()[1:])
            out[(kv["mode"], int(kv["bytes"]))] = float(kv["us"])
    return out


def paired(times, base, var, size):
    a, b = times.get((base, size), {}), times.get((var, size), {})
    reps = sorted(set(a) & set(b))
    return [a[r] / b[r] for r in reps if b[r] > 0]


def scaled_ms(ns):
    return None if ns is None else ns * MODEL_SCALE / 1e6


def human(b):
    return f"{b >> 20} MiB" if b >= 1 << 20 else f"{b >> 10} KiB"


def report(args, raw):
    rows = []  # one per (profile, mpi, ranks, placement, collective, comparison, size)
    jobs = []  # (tag, {"wall_s"})
    for profile in args.profiles:
        for mpi in args.mpis:
            for ranks in args.ranks:
                for pl in placements_for(ranks):
                    for coll in ("allreduce", "bcast"):
                        tag = f"{profile}-{mpi}-{ranks}-{pl}-{coll}"
                        path = os.path.join(raw, f"{tag}.jsonl")
                        if not os.path.exists(path):
                            continue
                        _, orders, times, job = load_job(path)
                        jobs.append((tag, job))
                        auto = load_auto_predictions(os.path.join(raw, f"{tag}.report.jsonl"))
                        sm = load_smpi(os.path.join(raw, f"{tag}.smpi.txt"))
                        for size in args.sizes:
                            comps = [(f"{a}@launch", f"{a}@toporr", a, f"{a}@launch", a)
                                     for a in ALGORITHMS[coll]]
                            comps.append(("default", "dropin", "selection", "mpi", "auto"))
                            for base, var, label, sbase, svar in comps:
                                r = paired(times, base, var, size)
                                if not r:
                                    continue
                                q1, med, q3 = quartiles(r)
                                before = after = chosen = None
                                aa = False
                                if label == "selection":
                                    before, after, chosen = auto.get(size, (None, None, None))
                                    # The drop-in ran the library's own call: the same code.
                                    aa = chosen == "mpi_library"
                                else:
                                    o = orders.get((var, size))
                                    aa = bool(o) and o["order"] == sorted(o["order"])
                                    if o and o["predicted_after_ns"] > 0 and not o["fallback"]:
                                        before = o["predicted_before_ns"]
                                        after = o["predicted_after_ns"]
                                pred = before / after if before and after else None
                                smr = (sm[(sbase, size)] / sm[(svar, size)]
                                       if (sbase, size) in sm and (svar, size) in sm and
                                       sm[(svar, size)] > 0 else None)
                                tb = quartiles(list(times[(base, size)].values()))
                                tv = quartiles(list(times[(var, size)].values()))
                                rows.append(dict(profile=profile, mpi=mpi, ranks=ranks,
                                                 placement=pl, collective=coll, comparison=label,
                                                 bytes=size, n=len(r), q1=q1, median=med, q3=q3,
                                                 base_ms=tb[1] / 1e3, var_ms=tv[1] / 1e3,
                                                 predicted=pred, smpi=smr, chosen=chosen, aa=aa,
                                                 model_base_ms=scaled_ms(before),
                                                 model_var_ms=scaled_ms(after)))
    write_report(args, rows, jobs)
    return rows


def fmt(x, digits=2):
    return "—" if x is None else f"{x:.{digits}f}"


def noise_bands(rows):
    """(mpi, bytes) -> the 90th percentile of |1 - median| over the A/A cells of that MPI and
    size (one odd cell in ten does not widen the band)."""
    devs = {}
    for r in rows:
        if r["aa"]:
            devs.setdefault((r["mpi"], r["bytes"]), []).append(abs(1 - r["median"]))
    return {k: sorted(v)[int(0.9 * (len(v) - 1))] for k, v in devs.items()}


def targets(rows):
    """The benchmark's targets, each as (description, met, detail)."""
    out = []
    big = [r for r in rows if r["bytes"] >= 1 << 20 and r["profile"] == "tapered" and
           r["placement"] == "roundrobin"]
    ring = [r for r in big if r["collective"] == "allreduce" and r["comparison"] == "ring"]
    sel = [r for r in big if r["comparison"] == "selection" and r["collective"] == "allreduce"]
    out.append(("4:1, round-robin, >= 1 MiB: ring allreduce >= 2x faster on toporr's order",
                bool(ring) and all(r["median"] >= 2 for r in ring),
                ", ".join(f"{r['mpi']} {human(r['bytes'])} {r['median']:.2f}x" for r in ring)))
    out.append(("4:1, round-robin, >= 1 MiB: the drop-in's allreduce >= 1.5x faster than the "
                "MPI default", bool(sel) and all(r["median"] >= 1.5 for r in sel),
                ", ".join(f"{r['mpi']} {human(r['bytes'])} {r['median']:.2f}x" for r in sel)))
    noise = noise_bands(rows)
    safe = [r for r in rows if (r["profile"] == "full" or r["placement"] == "byslot") and
            not r["aa"]]
    slower = [r for r in safe if r["median"] < 1 - noise.get((r["mpi"], r["bytes"]), 0)]
    out.append(("full profile and by-slot placement: never slower beyond the noise (the noise "
                "of an MPI library and size is the 90th percentile of the deviations from 1 of "
                "the A/A cells' medians: the same algorithm on the launch order and on toporr's order where "
                "toporr kept the launch order, or the drop-in where it ran the library's own "
                "call, i.e. the same code run twice; " +
                ", ".join(f"{m} {human(b)} ±{100 * v:.0f} %" for (m, b), v in
                          sorted(noise.items())) + ")",
                not slower, f"{len(slower)} of {len(safe)} cells slower: " + "; ".join(
                    f"{r['profile']} {r['mpi']} {r['ranks']}r {r['placement']} "
                    f"{r['collective']} {r['comparison']} {human(r['bytes'])} "
                    f"{r['median']:.2f}x [{r['q1']:.2f}, {r['q3']:.2f}]" for r in slower[:12])))
    with_pred = [r for r in rows if r["predicted"] is not None and not r["aa"]]
    within = [r for r in with_pred if abs(r["predicted"] / r["median"] - 1) <= 0.25]
    frac = len(within) / len(with_pred) if with_pred else 0
    out.append(("model's predicted ratio within 25 % of the measured one in >= 80 % of cells "
                "(A/A cells left out: there both are 1 by construction)",
                frac >= 0.8, f"{len(within)} of {len(with_pred)} cells ({100 * frac:.0f} %)"))
    return out


def write_report(args, rows, jobs):
    os.makedirs(RESULTS, exist_ok=True)
    dat = os.path.join(RESULTS, "vcluster_measured.dat")
    with open(dat, "w") as f:
        f.write("# profile mpi ranks placement collective comparison bytes n q1 median q3 "
                "base_ms variant_ms predicted smpi\n")
        for r in rows:
            f.write(f"{r['profile']} {r['mpi']} {r['ranks']} {r['placement']} {r['collective']} "
                    f"{r['comparison']} {r['bytes']} {r['n']} {r['q1']:.4f} {r['median']:.4f} "
                    f"{r['q3']:.4f} {r['base_ms']:.3f} {r['var_ms']:.3f} "
                    f"{fmt(r['predicted'], 4).replace('—', 'nan')} "
                    f"{fmt(r['smpi'], 4).replace('—', 'nan')}\n")
    md = os.path.join(RESULTS, "vcluster_measured.md")
    with open(md, "w") as f:
        w = lambda s="": f.write(s + "\n")
        w("# Measured on the virtual cluster: toporr's orders and selection over a real network")
        w()
        w("Generated by `bench/vcluster/run_vcluster_bench.py` "
          f"(reps {args.reps}, sizes {', '.join(human(s) for s in args.sizes)}); "
          "do not edit by hand.")
        w()
        w("**Measured**, not simulated: 8 hosts as Linux namespace sets on one 2-core machine, "
          f"host links shaped to {HOST_MBIT:g} Mbit/s with `tc tbf`, two leaves of 4 hosts whose "
          f"uplinks are 4:1 tapered (`tapered`: {HOST_MBIT:g} Mbit/s per leaf) or full "
          f"bisection (`full`: {4 * HOST_MBIT:g} Mbit/s), real Open MPI 4.1 (TCP BTL between hosts, shared memory "
          "inside) and MPICH 4.0 (ch4:ucx over TCP), toporrd on the head node answering "
          "over TCP. The SMPI column is simulated (SimGrid, a platform from the same fabric "
          "dump at the same rates); the model column is libtoporr's own prediction in the "
          "same job.")
        w()
        w("Each cell compares two variants run in every repetition (the variants' order "
          "shuffled per repetition, each call after 5 ms idle and a barrier): the ratio is baseline time / variant time (> 1: "
          "toporr faster), median of the per-repetition ratios with quartiles [q1, q3]. "
          "Comparisons: `ring`, `rabenseifner`, `binomial`, `scatter_allgather` = toporr's "
          "implementation of that algorithm on the launch order / on toporr's order for it; "
          "`selection` = the MPI library's default call on the launch order / the PMPI "
          "drop-in (toporr's algorithm and order, or the library's call when that is "
          "predicted fastest). Times are the slowest rank's, in ms (medians); in brackets "
          "libtoporr's predicted time of the same variant, scaled from the fabric dump's "
          f"InfiniBand rates to the emulated ones (x{MODEL_SCALE:g}): the ideal time on this "
          "network, which shows how far a measurement is from what the network alone allows.")
        w()
        w("## Targets")
        w()
        for desc, met, detail in targets(rows):
            w(f"- **{'met' if met else 'missed'}**: {desc}. {detail}")
        w()
        for profile in args.profiles:
            for mpi in args.mpis:
                sub = [r for r in rows if r["profile"] == profile and r["mpi"] == mpi]
                if not sub:
                    continue
                w(f"## {profile}, {mpi}")
                w()
                w("| ranks | placement | collective | comparison | size | ratio [q1, q3] | "
                  "base ms (model) | toporr ms (model) | model | SMPI |")
                w("|---|---|---|---|---|---|---|---|---|---|")
                for r in sub:
                    comp = r["comparison"] + (f" ({r['chosen']})" if r["chosen"] else "") + (
                        " (A/A)" if r["aa"] else "")
                    w(f"| {r['ranks']} | {r['placement']} | {r['collective']} | {comp} | "
                      f"{human(r['bytes'])} | {r['median']:.2f} [{r['q1']:.2f}, "
                      f"{r['q3']:.2f}] | {r['base_ms']:.1f} ({fmt(r['model_base_ms'], 1)}) | "
                      f"{r['var_ms']:.1f} ({fmt(r['model_var_ms'], 1)}) | "
                      f"{fmt(r['predicted'])} | {fmt(r['smpi'])} |")
                w()
        w("## Jobs")
        w()
        w("Wall time of each job (all its variants, sizes and repetitions). Both cores are busy "
          "throughout whatever bounds the collectives (waiting ranks poll), so CPU use is not "
          "reported per job; the CPU bound shows in the rate experiment of the explanations.")
        w()
        w("| job | wall s |")
        w("|---|---|")
        for tag, job in jobs:
            w(f"| {tag} | {job.get('wall_s', '—')} |")
        w()
        notes = os.path.join(HERE, "NOTES.md")
        if os.path.exists(notes):
            with open(notes) as n:
                f.write(n.read())
    plot(rows, args)
    log(f"wrote {md} and {dat}")


def gnuplot(cmds, png):
    """Runs gnuplot on the command lines cmds, which draw png; logs why when it cannot
    (gnuplot missing or failing) and returns whether png was drawn."""
    if shutil.which("gnuplot") is None:
        log(f"no plot {os.path.basename(png)}: gnuplot is not installed")
        return False
    p = run(["gnuplot"], input="\n".join(cmds) + "\n", text=True, check=False,
            capture_output=True)
    if p.returncode != 0:
        log(f"gnuplot failed for {png}: {p.stderr.strip()[:2000]}")
        return False
    log(f"wrote {png}")
    return True


def plot(rows, args):
    for profile in args.profiles:
        for ranks in args.ranks:
            pl = "roundrobin" if SHAPES[ranks] > 1 else "fragmented"
            series = []
            for mpi in args.mpis:
                for comp in ("ring", "selection"):
                    pts = [r for r in rows if r["profile"] == profile and r["ranks"] == ranks and
                           r["placement"] == pl and r["collective"] == "allreduce" and
                           r["mpi"] == mpi and r["comparison"] == comp]
                    if pts:
                        series.append((f"{mpi} {comp}", pts))
            if not series:
                continue
            png = os.path.join(RESULTS, f"vcluster_{profile}_{ranks}r_{pl}.png")
            data = os.path.join(args.work, f"plot-{profile}-{ranks}.dat")
            with open(data, "w") as f:
                for title, pts in series:
                    f.write(f"# {title}\n")
                    for r in pts:
                        f.write(f"{r['bytes']} {r['median']} {r['q1']} {r['q3']} "
                                f"{fmt(r['predicted'], 4).replace('—', 'nan')} "
                                f"{fmt(r['smpi'], 4).replace('—', 'nan')}\n")
                    f.write("\n\n")
            xtics = ", ".join(f"'{human(b).replace(' ', '')}' {b}" for b in args.sizes)
            cmds = ["set terminal pngcairo size 900,560 font ',10'", f"set output '{png}'",
                    f"set xtics ({xtics})", "set grid ytics",
                    f"set xrange [{min(args.sizes) * 0.7}:{max(args.sizes) * 1.4}]",
                    f"set title 'allreduce, {profile}, {ranks} ranks, {pl}: measured (points, "
                    "quartile bars), model (dashed), SMPI (dotted)'",
                    "set logscale x 2", "set xlabel 'bytes'", "set ylabel 'speedup (x)'",
                    "set key left top", "set yrange [0:*]"]
            plots = []
            for i, (title, _) in enumerate(series):
                plots.append(f"'{data}' index {i} using 1:2:3:4 with yerrorlines lc {i + 1} "
                             f"title '{title}'")
                plots.append(f"'{data}' index {i} using 1:5 with lines dt 2 lc {i + 1} notitle")
                plots.append(f"'{data}' index {i} using 1:6 with lines dt 3 lc {i + 1} notitle")
            cmds.append("plot 1 with lines lc rgb 'gray' notitle, " + ", ".join(plots))
            gnuplot(cmds, png)


def main():
    global HOST_MBIT, MODEL_SCALE, RESULTS
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)))
    ap.add_argument("--profiles", default="tapered,full")
    ap.add_argument("--mpis", default="openmpi,mpich")
    ap.add_argument("--ranks", default="16,8", help="job shapes: 16 (8 x 2) and/or 8 (8 x 1)")
    ap.add_argument("--quick", action="store_true",
                    help="a smoke run: 3 reps, 64 KiB and 1 MiB, tapered, 16 ranks")
    ap.add_argument("--raw", default="/tmp/toporr-vcluster-bench",
                    help="raw results (kept between runs: a finished job is not rerun)")
    ap.add_argument("--host-mbit", type=float, default=HOST_MBIT,
                    help="host link rate (default 400; uplinks follow the profile)")
    ap.add_argument("--results", default=RESULTS,
                    help="where the table and plots go (default bench/results)")
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--only", default="",
                    help="comma-separated job tags (PROFILE-MPI-RANKS-PLACEMENT-COLLECTIVE) "
                         "to measure, e.g. to measure a change on the cells it affects")
    ap.add_argument("--no-smpi", action="store_true")
    args = ap.parse_args()
    if args.quick:
        args.reps, args.sizes, args.profiles, args.ranks = 3, "65536,1048576", "tapered", "16"
    args.sizes = [int(s) for s in args.sizes.split(",")]
    args.only = [t for t in args.only.split(",") if t]
    HOST_MBIT = args.host_mbit
    RESULTS = args.results
    MODEL_SCALE = 32.0 / (HOST_MBIT / 1000.0)
    args.profiles = args.profiles.split(",")
    args.mpis = args.mpis.split(",")
    args.ranks = [int(r) for r in args.ranks.split(",")]
    if any(r not in SHAPES for r in args.ranks):
        ap.error("--ranks: 16 and/or 8")
    os.makedirs(args.raw, exist_ok=True)
    args.work = os.path.join(args.raw, "work")
    os.makedirs(args.work, exist_ok=True)
    if not args.report_only:
        if os.geteuid() != 0:
            sys.exit("vcluster-bench: must run as root (the virtual cluster)")
        binroot = build()
        progs = compile_bench(binroot, args.work)
        measure(args, binroot, progs, args.raw)
        if not args.no_smpi:
            smpi(args, args.raw)
    report(args, args.raw)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""PyTorch's Gloo collectives and a DDP training step on the virtual cluster (testing/vcluster),
in the launch order against toporr's order: what a PyTorch job gets from toporr's rank order
on a real (emulated) network.

    bench/vcluster/run_torch_bench.py [--profiles tapered[,tree3]] [--procs-per-host 1,2]
        [--rounds 5] [--reps 3] [--sizes 1048576,16777216,67108864] [--steps 3]
        [--rank-source order-file|toporr-torch] [--results DIR]
    bench/vcluster/run_torch_bench.py --report-only [--results DIR]   (from the raw data)

One job per (profile, processes per host, launch order): `torchrun` started on every host
with `vcluster exec HOST -- ...`, node rank k on the k-th host of the launch order, each host's
P ranks contiguous (torchrun numbers them so). Every rank runs
bench/vcluster/torch_gloo_worker.py: one Gloo process group per variant, `launch` (the
launcher's ranks) and `toporr`, variants interleaved per round; all_reduce of float32 tensors
and DDP training steps, each timed as the slowest rank; the weights each variant trained
compared. toporr's order is that of `toporrctl plan --collective allreduce --algorithm ring
--size 16M` (--plan-*; Gloo's CPU allreduce is a ring) on the head node from its toporrd,
passed to the ranks as an order file, or, with --rank-source toporr-torch, what
toporr.torch.new_rank (python/toporr/torch.py, through libtoporr_plan.so) gives every rank in
the job; the plan is made and kept either way, and the report shows where the two differ. In
that mode a job fails when toporr falls back to the launcher's ranks.

torch 1.13 (Debian 12's python3-torch) across the namespaces, as found:
- torchrun takes `--nproc_per_node`, `--node_rank`, `--master_addr`, `--master_port` (no
  dashed forms before torch 2). Its default rendezvous is static: the agent of node rank 0
  serves a TCPStore at --master_addr:--master_port (the node-rank-0 host's fabric address),
  the other agents connect to it, and the workers get MASTER_ADDR/MASTER_PORT = that store,
  RANK = node rank x P + local rank, and TORCHELASTIC_USE_AGENT_STORE=True: they connect to it
  as clients (its port is taken on that host). Each host is a network namespace of its own,
  so the fixed port collides with nothing on the machine.
- Under Python 3.11 torchrun fails on its own defaults `--redirects 0 --tee 0` (IntFlag no
  longer lists Std.NONE: AttributeError on None): TORCHRUN_STD below.
- When a worker fails, its agent exits only after its exit barrier times out (300 s), so the
  driver watches the agents' logs and ends every job's processes at once.
- GLOO_SOCKET_IFNAME=eth0 (the hosts' fabric port) and OMP_NUM_THREADS=1 (8-16 ranks on 2
  cores); a ProcessGroupGloo made directly needs no default process group, for
  torch.distributed.all_reduce(group=) or DDP(process_group=).

Launch orders (the host sequence; the definitions of run_baselines_bench.py at one slot per
host, since torchrun fills each host with contiguous ranks): `roundrobin` the hosts in name
order (which on these profiles is already leaf-sorted: `roundrobin=leafsorted`),
`fragmented` the hosts dealt round-robin over the leaves as a busy scheduler hands them out
(leaf1's first, leaf2's first, ..., then the second of each), `leafsorted` the leaf-sorted
order of round-robin. Orders that give the same host sequence are measured once.

Ratios (speedup = launch time / toporr time, > 1: toporr faster) are paired: the two variants'
measurements of the same round and repetition; summarised by median and quartiles. Where
toporr keeps the launch order the two variants run the same order (an A/A pair: the noise).

Raw data in RESULTS/raw (committed): TAG.jsonl per job (the worker's lines plus a "cell" line:
hosts, toporr's plan, load, wall time), TAG.plan.json (toporrctl plan's answer),
layout-PROFILE.json, meta.json (sessions: command, time, load, jobs not run). The report
RESULTS/torch_gloo.md is written from it, again with --report-only. A finished job is not
rerun: delete its TAG.jsonl (or the raw folder) to measure it again. A job whose ranks would
not fit in the machine's available memory is not run (tree3 with 2 ranks per host: 32 ranks
of ~0.7 GB) and the report says so. A failed job stops the run (its processes ended, the
cluster removed); torchrun's logs stay in --work. Needs root, Debian's python3-torch, the
Bazel outputs toporrd and toporrctl (and libtoporr_plan.so for toporr-torch).
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import time

import run_baselines_bench as bb
import run_vcluster_bench as vb

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "testing/vcluster"))
from torchrun_jobs import TORCHRUN_STD, kill_all  # noqa: E402

HERE = vb.HERE
REPO = vb.REPO
VC = vb.VC
WORKER = os.path.join(HERE, "torch_gloo_worker.py")
RESULTS = os.path.join(REPO, "bench/results/torch_gloo")
NAME = "vtorch"
PROFILES = ("tapered", "tree3")  # their `vcluster up` options and host rates: bb.PROFILES
SIZES = [1 << 20, 16 << 20, 64 << 20]
MASTER_PORT = 29500
# Where the variants' trained weights count as the same: the largest difference relative to
# the largest weight. The variants sum the gradients in different orders (float32 rounding).
WEIGHT_TOLERANCE = 1e-5
# What torchrun's agent logs at once when one of its workers fails; the agent itself exits
# only after its exit barrier's timeout (300 s), waiting for the other hosts' agents.
WORKER_FAILED = "elastic.multiprocessing.api:failed (exitcode"
# A rank's resident memory beyond its two models (torch, Gloo, the allreduce buffer): measured
# ~700 MB per rank in all with the default 25.2 M-parameter MLP, i.e. 16 ranks ~11 GB.
RANK_BASE_BYTES = 300 << 20


def log(msg):
    print(f"torch-gloo: {msg}", file=sys.stderr, flush=True)


class Stop(Exception):
    pass


def on_signal(signum, _frame):
    raise Stop(f"signal {signum}")


# ---- jobs ----------------------------------------------------------------------------------

def jobs_of(layout, profile, procs, placements):
    """(tag, placement names, host of each node rank) for a profile's layout."""
    out = []
    for pl, hosts, names in bb.cells_of(layout, 1, placements):
        out.append((f"{profile}-p{procs}-{pl}", names, hosts))
    return out


def params_of(dims):
    """Parameters of the worker's MLP of --dims widths (weights and biases)."""
    d = [int(x) for x in dims.split(",")]
    return sum(a * b + b for a, b in zip(d, d[1:]))


def memory_shortfall(args, ranks):
    """Why `ranks` ranks would not fit in the machine's available memory, or None. Each rank
    holds two models (parameters and DDP's gradient buckets) and the allreduce buffer."""
    need = ranks * (RANK_BASE_BYTES + 2 * 2 * 4 * params_of(args.dims) + max(args.sizes,
                                                                             default=0))
    with open("/proc/meminfo") as f:
        avail = next(int(l.split()[1]) << 10 for l in f if l.startswith("MemAvailable:"))
    if need > avail - (2 << 30):
        return (f"{ranks} ranks need ~{need / 2**30:.1f} GiB, {avail / 2**30:.1f} GiB available "
                "(2 GiB kept free)")
    return None


def toporr_plan(args, state_dir, binroot, tag, rank_hosts):
    """`toporrctl plan` for the job's ranks, on the head node from its toporrd: the JSON."""
    hostfile = os.path.join(args.work, f"{tag}.plan.hosts")
    ranksfile = os.path.join(args.work, f"{tag}.plan.ranks")
    with open(hostfile, "w") as f:
        f.write("".join(f"{h} slots={rank_hosts.count(h)}\n" for h in dict.fromkeys(rank_hosts)))
    with open(ranksfile, "w") as f:
        f.write("".join(h + "\n" for h in rank_hosts))
    cmd = [sys.executable, VC, "exec", "--name", NAME, "head", "--", "env",
           f"TOPORR_CONFIG={os.path.join(state_dir, 'client.conf')}",
           os.path.join(binroot, "client/ctl/toporrctl"), "--json", "plan", "--hostfile",
           hostfile, "--ranks", ranksfile, "--collective", "allreduce", "--size",
           str(args.plan_size)]
    if args.plan_algorithm != "auto":
        cmd += ["--algorithm", args.plan_algorithm]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        raise RuntimeError(f"{tag}: toporrctl plan failed: {p.stderr.strip()[-1000:]}")
    plan = json.loads(p.stdout)
    if sorted(plan["new_order"]) != list(range(len(rank_hosts))):
        raise RuntimeError(f"{tag}: toporrctl plan's order is not a permutation: "
                           f"{plan['new_order']}")
    return plan


def worker_failed(path):
    with open(path, errors="replace") as f:
        return WORKER_FAILED in f.read()


def log_excerpt(path, lines=12):
    """A torchrun log's last lines without traceback frames, and nothing from after the
    agent was told to stop."""
    with open(path, errors="replace") as f:
        text = f.read()
    text = text.split("SignalException", 1)[0]
    keep = [l for l in text.splitlines() if l.strip() and not l.startswith((" ", "\t"))]
    return "\n".join(keep[-lines:])


def run_job(args, st, binroot, raw, tag, names, hosts, procs_per_host, t_start):
    ip_of = {h["name"]: h["ip"] for h in st["layout"]["hosts"]}
    state_dir = st["state_dir"]
    rank_hosts = [h for h in hosts for _ in range(procs_per_host)]
    short = memory_shortfall(args, len(rank_hosts))
    if short:
        log(f"{tag}: not run: {short}")
        return short
    plan = toporr_plan(args, state_dir, binroot, tag, rank_hosts)
    with open(os.path.join(raw, f"{tag}.plan.json"), "w") as f:
        json.dump(plan, f, indent=1)
    jobdir = os.path.join(args.work, tag)
    os.makedirs(jobdir, exist_ok=True)
    order_file = os.path.join(jobdir, "order.json")
    with open(order_file, "w") as f:
        json.dump(plan["new_order"], f)
    out = os.path.join(jobdir, "rank0.jsonl")
    if os.path.exists(out):
        os.unlink(out)
    env = [f"GLOO_SOCKET_IFNAME={args.ifname}", "OMP_NUM_THREADS=1",
           f"TOPORR_CONFIG={os.path.join(state_dir, 'client.conf')}",
           f"PYTHONPATH={os.path.join(REPO, 'python')}",
           f"TOPORR_PLAN_LIBRARY={args.plan_library}"]
    worker_args = ["--out", out, "--rank-source", args.rank_source, "--order-file", order_file,
                   "--plan-size", str(args.plan_size), "--plan-algorithm", args.plan_algorithm,
                   "--tag", tag,
                   "--sizes", ",".join(map(str, args.sizes)), "--rounds", str(args.rounds),
                   "--reps", str(args.reps), "--steps", str(args.steps),
                   "--warmup", str(args.warmup), "--dims", args.dims,
                   "--batch", str(args.batch), "--timeout", str(args.collective_timeout)]
    procs, logs = [], []
    load0 = os.getloadavg()[0]
    t0 = time.monotonic()
    try:
        for node_rank, host in enumerate(hosts):
            cmd = [sys.executable, VC, "exec", "--name", NAME, host, "--", "env"] + env + [
                args.torchrun, "--nnodes", str(len(hosts)), "--nproc_per_node",
                str(procs_per_host), "--node_rank", str(node_rank), "--master_addr",
                ip_of[hosts[0]], "--master_port", str(args.master_port)] + TORCHRUN_STD + [
                "--log_dir", os.path.join(jobdir, f"torchrun-{host}"), WORKER] + worker_args
            logf = open(os.path.join(jobdir, f"{host}.log"), "w")
            logs.append(logf)
            procs.append(subprocess.Popen(cmd, stdout=logf, stderr=subprocess.STDOUT,
                                          stdin=subprocess.DEVNULL, cwd=jobdir,
                                          start_new_session=True))
        deadline = t0 + args.job_timeout
        failed = None
        while True:
            codes = [p.poll() for p in procs]
            bad = [(hosts[i], c) for i, c in enumerate(codes) if c not in (None, 0)]
            if bad:
                failed = f"torchrun exited {bad}"
                break
            bad = [h for h in hosts if worker_failed(os.path.join(jobdir, f"{h}.log"))]
            if bad:
                failed = f"a worker failed on {', '.join(bad)}"
                break
            if all(c == 0 for c in codes):
                break
            if time.monotonic() > deadline:
                failed = f"not finished after {args.job_timeout:.0f} s (--job-timeout)"
                break
            time.sleep(2)
    finally:
        kill_all(procs)
        for f in logs:
            f.close()
    wall = time.monotonic() - t0
    lines = open(out).read().splitlines() if os.path.exists(out) else []
    if failed or not lines or json.loads(lines[-1])["kind"] != "done":
        failing = [h for h in hosts if worker_failed(os.path.join(jobdir, f"{h}.log"))]
        tails = [f"--- {h}.log\n" + log_excerpt(os.path.join(jobdir, f"{h}.log"))
                 for h in dict.fromkeys(failing[:2] + hosts[:1])]
        raise RuntimeError(f"{tag}: {failed or 'no done line from rank 0'}; logs in {jobdir}\n"
                           + "\n".join(tails))
    setup = json.loads(lines[0])
    if setup["hosts"] != rank_hosts:
        raise RuntimeError(f"{tag}: ranks ran on {setup['hosts']}, asked {rank_hosts}")
    orders = {o["variant"]: o["order"] for o in map(json.loads, lines) if o["kind"] == "order"}
    if args.rank_source == "order-file" and orders.get("toporr") != plan["new_order"]:
        raise RuntimeError(f"{tag}: toporr's order in the job {orders['toporr']}, planned "
                           f"{plan['new_order']}")
    lines.append(json.dumps({
        "kind": "cell", "profile": tag.split("-")[0], "procs_per_host": procs_per_host,
        "placements": names, "hosts": hosts, "rank_hosts": rank_hosts,
        "host_mbit": bb.PROFILES[tag.split("-")[0]]["mbit"],
        "plan": {k: plan.get(k) for k in ("algorithm", "new_order", "speedup", "reordered",
                                          "cost_source", "leaf_sorted_order")},
        "plan_size": args.plan_size, "plan_algorithm": args.plan_algorithm,
        "rank_source": args.rank_source, "load1": [round(load0, 2), round(os.getloadavg()[0], 2)],
        "wall_s": round(wall, 1)}))
    with open(os.path.join(raw, f"{tag}.jsonl"), "w") as f:
        f.write("\n".join(lines) + "\n")
    log(f"{tag}: {wall:.0f} s, load {load0:.1f} (elapsed {(time.monotonic() - t_start) / 60:.1f} "
        "min)")
    return None


def measure(args, binroot, raw):
    toporrd = os.path.join(binroot, "daemon/toporrd")
    toporrctl = os.path.join(binroot, "client/ctl/toporrctl")
    meta_path = os.path.join(raw, "meta.json")
    meta = json.load(open(meta_path)) if os.path.exists(meta_path) else {"sessions": []}
    session = {"start": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
               "argv": sys.argv[1:], "load1_start": round(os.getloadavg()[0], 2),
               "torch_package": torch_package()}
    meta["sessions"].append(session)
    t_start = time.monotonic()
    stopped = None
    try:
        for profile in args.profiles:
            lp = os.path.join(raw, f"layout-{profile}.json")
            if os.path.exists(lp):
                layout = json.load(open(lp))["layout"]
                if all(os.path.exists(os.path.join(raw, f"{tag}.jsonl"))
                       for p in args.procs_per_host
                       for tag, _, _ in jobs_of(layout, profile, p, args.placements)):
                    continue
            with bb.profile_cluster(NAME, profile, toporrd, toporrctl, raw) as st:
                for procs in args.procs_per_host:
                    for tag, names, hosts in jobs_of(st["layout"], profile, procs,
                                                     args.placements):
                        if os.path.exists(os.path.join(raw, f"{tag}.jsonl")):
                            continue
                        short = run_job(args, st, binroot, raw, tag, names, hosts, procs,
                                        t_start)
                        if short:
                            session.setdefault("not_run", {})[tag] = short
    except (Stop, KeyboardInterrupt) as e:
        stopped = str(e) or "interrupted"
        log(f"stopped: {stopped}")
    except (RuntimeError, subprocess.SubprocessError) as e:
        # Every process of the job is ended and the cluster removed by now.
        stopped = f"failed: {str(e).splitlines()[0]}"
        log(f"{e}")
    finally:
        bb.close_session(meta_path, meta, session, t_start, stopped)
    return stopped


def torch_package():
    p = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "python3-torch"],
                       capture_output=True, text=True)
    return f"python3-torch {p.stdout.strip()}" if p.returncode == 0 else None


def build(rank_source):
    targets = ["//daemon:toporrd", "//client/ctl:toporrctl"]
    if rank_source == "toporr-torch":
        targets.append("//client/planapi:libtoporr_plan.so")  # toporr.torch's library
    subprocess.run(["bazel", "build"] + targets, cwd=REPO, check=True)
    return subprocess.run(["bazel", "info", "bazel-bin"], cwd=REPO, check=True,
                          capture_output=True, text=True).stdout.strip()


# ---- report --------------------------------------------------------------------------------

MEASUREMENTS = ("allreduce", "ddp_step")


def read_job(path):
    """A job's lines: setup, orders, weights, cell, and {(measurement, bytes): {variant:
    {(round, rep): s}}}."""
    job = {"orders": {}, "times": {}, "setup": None, "weights": None, "cell": None}
    for line in open(path):
        o = json.loads(line)
        k = o["kind"]
        if k in ("setup", "weights", "cell"):
            job[k] = o
        elif k == "order":
            job["orders"][o["variant"]] = o["order"]
        elif k == "time":
            job["times"].setdefault((o["measurement"], o["bytes"]), {}).setdefault(
                o["variant"], {})[(o["round"], o["rep"])] = o["s"]
    return job


def rows_of(raw):
    """One row per (job, measurement, size), jobs in file-name order."""
    rows, jobs = [], []
    for name in sorted(os.listdir(raw)):
        if not name.endswith(".jsonl"):
            continue
        job = read_job(os.path.join(raw, name))
        if not job["cell"]:
            continue
        job["tag"] = name[:-len(".jsonl")]
        jobs.append(job)
        same_order = job["orders"]["launch"] == job["orders"]["toporr"]
        for (meas, size), by_variant in sorted(job["times"].items(),
                                               key=lambda kv: (MEASUREMENTS.index(kv[0][0]),
                                                               kv[0][1])):
            a, b = by_variant.get("launch", {}), by_variant.get("toporr", {})
            keys = sorted(set(a) & set(b))
            ratios = [a[k] / b[k] for k in keys if b[k] > 0]
            if not ratios:
                continue
            rows.append(dict(tag=job["tag"], cell=job["cell"], measurement=meas, bytes=size,
                             n=len(ratios), ratio=vb.quartiles(ratios),
                             launch=vb.quartiles([v * 1e3 for v in a.values()]),
                             toporr=vb.quartiles([v * 1e3 for v in b.values()]),
                             aa=same_order))
    return rows, jobs


def weights_verdict(w):
    if not w:
        return "not trained (--steps 0)"
    if not all(w["ranks_agree"].values()):
        return ("**replicas disagree** (ranks' weights differ within a variant: " +
                ", ".join(v for v, ok in w["ranks_agree"].items() if not ok) + ")")
    if w["identical"]:
        return f"identical (bitwise, after {w['steps']} steps)"
    diff = (f"largest difference {w['max_abs_diff']:.2e}, {w['max_rel_diff']:.1e} of the "
            "largest weight")
    if w["max_rel_diff"] <= WEIGHT_TOLERANCE:
        return (f"equal within tolerance after {w['steps']} steps ({diff}; tolerance "
                f"{WEIGHT_TOLERANCE:.0e}: the summation order differs)")
    return f"**differ** after {w['steps']} steps ({diff} > {WEIGHT_TOLERANCE:.0e})"


def what(r):
    if r["measurement"] == "ddp_step":
        return f"DDP step ({r['bytes'] / 4e6:.1f} M params)"
    return f"allreduce {vb.human(r['bytes'])}"


def q3(q, digits):
    return f"{q[1]:.{digits}f} [{q[0]:.{digits}f}, {q[2]:.{digits}f}]"


def plan_source(cell):
    """How a job got toporr's order, in words."""
    cmd = f"`toporrctl plan --collective allreduce --size {cell['plan_size']}" + (
        "" if cell["plan_algorithm"] == "auto" else f" --algorithm {cell['plan_algorithm']}")
    if cell["rank_source"] == "order-file":
        return cmd + "` on the head node, passed to the ranks as an order file"
    return ("`toporr.torch.new_rank` in the job (" + cmd + "` on the head node for the "
            "prediction)")


def write_report(results, raw):
    rows, jobs = rows_of(raw)
    meta_path = os.path.join(raw, "meta.json")
    meta = json.load(open(meta_path)) if os.path.exists(meta_path) else {"sessions": []}
    md = os.path.join(results, "torch_gloo.md")
    setups = [j["setup"] for j in jobs if j["setup"]]
    versions = sorted({s["torch"] for s in setups})
    packages = sorted({s["torch_package"] for s in meta["sessions"] if s.get("torch_package")})
    with open(md, "w") as f:
        w = lambda s="": f.write(s + "\n")
        w("# PyTorch Gloo collectives and DDP: launch order against toporr's order, measured on "
          "the virtual cluster")
        w()
        w("Generated by `bench/vcluster/run_torch_bench.py` from the raw data in `raw/` "
          "(`bench/vcluster/run_torch_bench.py --report-only` regenerates it); do not edit by "
          "hand.")
        w()
        w("**Measured, not simulated**: real `torch.distributed` Gloo traffic over TCP on the "
          "emulated network of testing/vcluster (Linux network namespaces on one 2-core "
          "machine, every host link and switch uplink shaped with `tc tbf` in both directions, "
          "bridges as switches); all ranks share the machine's 2 cores. torch "
          + (", ".join(versions) or "?") + (f" ({', '.join(packages)}, Debian 12)"
                                            if packages else "") +
          ", Gloo over the hosts' `eth0` (its CPU allreduce is a ring).")
        w()
        not_run = {t: why for s in meta["sessions"] for t, why in s.get("not_run", {}).items()
                   if t not in {j["tag"] for j in jobs}}
        if not_run:
            w("**Not measured**: " + "; ".join(f"{t} ({why})" for t, why in not_run.items()) +
              ".")
            w()
        for s in meta["sessions"]:
            w(f"- Command: `bench/vcluster/run_torch_bench.py {' '.join(s['argv'])}`, "
              f"{s['start']} to {s.get('end', '?')}, {s.get('minutes', '?')} min wall time "
              f"(cluster set-up included), load {s.get('load1_start')} -> "
              f"{s.get('load1_end')}" + (f", stopped: {s['stopped']}" if s.get("stopped")
                                         else "") + ".")
        if setups:
            s = setups[0]
            w(f"- Per job: {s['rounds']} rounds, each with {s['reps']} timed allreduces per size "
              f"and variant and {s['steps']} timed DDP steps per variant; {s['warmup']} "
              "untimed warm-up call per size and step per variant first. Variants "
              "interleaved, their order alternating between rounds. A time is the slowest "
              "rank's, from a barrier (after 5 ms idle) to the end of the call.")
            w(f"- DDP: an MLP of widths {','.join(map(str, s['dims']))} "
              f"({s['params'] / 1e6:.1f} M float32 parameters, {s['params'] * 4 / 2**20:.0f} MiB "
              f"of gradients per step), batch {s['batch']} per rank, SGD, synthetic data from "
              f"seed {s['seed']}; both variants start from the same weights and see the same "
              "data, so their weights differ only by the gradient summation order.")
        if jobs:
            w("- toporr's order: " + "; ".join(sorted({plan_source(j["cell"]) for j in jobs}))
              + ".")
        w("- Speedup = launch time / toporr time, the median of the ratios paired by round and "
          "repetition, [quartiles]; times in ms, median [quartiles]. `A/A`: toporr kept the "
          "launch order, both variants ran the same order (the noise).")
        w()
        w("Launch orders: `roundrobin=leafsorted` the hosts in name order, leaf by leaf; "
          "`fragmented` the hosts dealt round-robin over the leaves (a busy scheduler's "
          "allocation). torchrun gives each host's ranks contiguously.")
        w()
        for p in sorted({j["cell"]["profile"] for j in jobs}):
            lp = os.path.join(raw, f"layout-{p}.json")
            if os.path.exists(lp):
                lay = json.load(open(lp))
                w(f"- `{p}` (`vcluster up {' '.join(lay['up'])} --host-mbit "
                  f"{lay['host_mbit']}`): {lay.get('describe') or ''}")
        w()
        w("## Speedups")
        w()
        w("| profile | ranks | launch order | measurement | launch ms | toporr ms | speedup | n |")
        w("|---|---|---|---|---|---|---|---|")
        for r in rows:
            c = r["cell"]
            w(f"| {c['profile']} | {len(c['rank_hosts'])} ({len(c['hosts'])} x "
              f"{c['procs_per_host']}) | {'='.join(c['placements'])} | {what(r)} | "
              f"{q3(r['launch'], 1)} | {q3(r['toporr'], 1)} | "
              f"{q3(r['ratio'], 2)}x{' (A/A)' if r['aa'] else ''} | {r['n']} |")
        w()
        w("## Jobs")
        w()
        w("| job | hosts by node rank | toporr's order (new rank: launch rank) | planned for, "
          "predicted speedup | trained weights, launch vs toporr | load before, after | "
          "wall s |")
        w("|---|---|---|---|---|---|---|")
        for j in jobs:
            c = j["cell"]
            pl = c["plan"]
            order = ",".join(map(str, j["orders"]["toporr"]))
            if j["orders"]["toporr"] != pl["new_order"]:
                order += f" (toporrctl plan: {','.join(map(str, pl['new_order']))})"
            for warning in (j["setup"] or {}).get("toporr_warnings") or []:
                order += f"; warning: {warning.replace('|', '/')}"
            w(f"| {j['tag']} | {','.join(h.replace('node', '') for h in c['hosts'])} | "
              f"{order} | {pl['algorithm']}, "
              f"{pl['speedup']:.2f}x | {weights_verdict(j['weights'])} | {c['load1'][0]}, "
              f"{c['load1'][1]} | {c['wall_s']} |")
        w()
    log(f"wrote {md}")


def main():
    global NAME
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--profiles", default="tapered", help=f"of {', '.join(PROFILES)}")
    ap.add_argument("--procs-per-host", default="1,2")
    ap.add_argument("--placements", default=",".join(bb.PLACEMENTS))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--reps", type=int, default=3, help="timed allreduces per round, size, variant")
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)), help="allreduce bytes")
    ap.add_argument("--steps", type=int, default=3, help="timed DDP steps per round and variant")
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--dims", default="1024,4096,4096,1024", help="the MLP's widths (25.2 M)")
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--rank-source", choices=("order-file", "toporr-torch"), default="order-file",
                    help="toporr's ranks: the order of toporrctl plan, or toporr.torch.new_rank")
    ap.add_argument("--plan-size", type=int, default=16 << 20,
                    help="the allreduce size toporr's order is planned for")
    ap.add_argument("--plan-algorithm", default="ring",
                    help="the algorithm toporr's order is planned for: Gloo's allreduce is a "
                         "ring, and ring is toporr.torch.new_rank's default; auto: toporr's "
                         "best predicted")
    ap.add_argument("--plan-library",
                    help="TOPORR_PLAN_LIBRARY for --rank-source toporr-torch (default: "
                         "BIN/client/planapi/libtoporr_plan.so)")
    ap.add_argument("--results", default=RESULTS)
    ap.add_argument("--work", default="/tmp/toporr-torch-gloo", help="torchrun logs, job files")
    ap.add_argument("--bin", help="the Bazel output root (default: build, bazel info bazel-bin)")
    ap.add_argument("--torchrun", default="/usr/bin/torchrun")
    ap.add_argument("--ifname", default="eth0", help="GLOO_SOCKET_IFNAME: the hosts' port")
    ap.add_argument("--master-port", type=int, default=MASTER_PORT)
    ap.add_argument("--job-timeout", type=float, default=10800, help="seconds per job")
    ap.add_argument("--collective-timeout", type=float, default=900,
                    help="seconds the workers wait on the store or a collective")
    ap.add_argument("--name", default=NAME, help="the virtual cluster's name")
    ap.add_argument("--report-only", action="store_true",
                    help="write the table from RESULTS/raw")
    args = ap.parse_args()
    args.sizes = [int(s) for s in args.sizes.split(",") if s]
    args.profiles = args.profiles.split(",")
    args.procs_per_host = [int(p) for p in args.procs_per_host.split(",")]
    args.placements = args.placements.split(",")
    if any(p not in PROFILES for p in args.profiles):
        ap.error(f"--profiles: of {', '.join(PROFILES)}")
    if any(p not in bb.PLACEMENTS for p in args.placements):
        ap.error(f"--placements: of {', '.join(bb.PLACEMENTS)}")
    NAME = args.name
    raw = os.path.join(args.results, "raw")
    if args.report_only:
        if not os.path.isdir(raw):
            sys.exit(f"torch-gloo: no raw data in {raw}")
        write_report(args.results, raw)
        return
    if os.geteuid() != 0:
        sys.exit("torch-gloo: must run as root (the virtual cluster)")
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)
    binroot = args.bin or build(args.rank_source)
    args.plan_library = args.plan_library or os.path.join(
        binroot, "client/planapi/libtoporr_plan.so")
    if args.rank_source == "toporr-torch" and not os.path.exists(args.plan_library):
        sys.exit(f"torch-gloo: --rank-source toporr-torch needs {args.plan_library} (build it)")
    os.makedirs(raw, exist_ok=True)
    os.makedirs(args.work, exist_ok=True)
    stopped = measure(args, binroot, raw)
    write_report(args.results, raw)
    if stopped:
        sys.exit(1)


if __name__ == "__main__":
    main()

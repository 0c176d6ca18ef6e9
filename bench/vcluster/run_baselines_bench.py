#!/usr/bin/env python3
"""toporr against the free baseline: the MPI library's default on the leaf-sorted order,
measured on the virtual cluster (testing/vcluster) beside the launch order, on fabrics whose
structure a leaf sort cannot see (a 3-level tree, a damaged uplink, leaves of uneven size)
and on the 2-level 4:1 tree.

    bench/vcluster/run_baselines_bench.py [--reps 5] [--profiles tree3,damaged,uneven,tapered]
        [--mpis openmpi] [--sizes 1048576,16777216] [--raw DIR] [--stop-by HH:MM]
        [--leaf-algorithms]
    bench/vcluster/run_baselines_bench.py --report-only     (from the committed raw archive)

Leaf-sorted order (the same as `toporrctl plan` reports, client/plan/plan.h LeafSortedMapping): the
launch order's hosts grouped by the leaf switch they hang off (from the cluster's layout,
`vcluster status --json`), groups in the order of their first host in the launch order, hosts
within a group in launch order, each host's ranks contiguous in launch order.

Cells: per profile (its host link rate in PROFILES), MPI library, starting order (placement:
`roundrobin` rank r on the r-th host of the name-sorted host list modulo the host count,
`fragmented` the hosts a scheduler hands out alternating between the leaves, each filled by
slot, `leafsorted` the leaf-sorted order of round-robin; placements that give the same rank
-> host list are measured once, under the first name) and collective (allreduce: ring,
Rabenseifner; bcast: binomial, scatter-allgather), one job of bench/vcluster/coll_bench.c with
--leaf-order, interleaving per repetition (order shuffled per repetition) the variants
`default` (the library's call on the launch order), `default@leafsorted` (the library's call
on the leaf-sorted order), `A@toporr` (toporr's algorithm A on toporr's order for it) and
`dropin` (the PMPI drop-in: toporr's selection of algorithm and order, or the library's call);
with --leaf-algorithms also `A@leafsorted` (toporr's algorithm A on the leaf-sorted order), so
that `A order vs leaf-sorted` rows give toporr's order alone, the algorithm the same.
Every toporr variant is compared with both baselines; ratios are paired per repetition
(baseline time / toporr time, > 1: toporr faster), summarised by median and quartiles. A/A
rows (the same code on the same order twice: `default` against `default@leafsorted` where the
launch order already is leaf-sorted, the drop-in where it ran the library's call) give the
noise band. Each job's 1-minute load average before and after is kept.

Raw data: DIR/*.jsonl (coll_bench's lines plus a "cell" line: hosts, leaf order, load, wall
time), DIR/layout-PROFILE.json, DIR/meta.json; packed into
bench/results/vcluster_baselines_raw.tar.gz after a measurement. The report
bench/results/vcluster_baselines.md and .dat are written from the raw directory, or with
--report-only from the archive. Needs root, Debian's Open MPI / MPICH, the Bazel outputs
(built -c opt as run_vcluster_bench.py does).
"""

import argparse
import contextlib
import json
import os
import signal
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time

import run_vcluster_bench as vb

HERE = vb.HERE
REPO = vb.REPO
VC = vb.VC
RESULTS = vb.RESULTS
ARCHIVE = os.path.join(RESULTS, "vcluster_baselines_raw.tar.gz")
NAME = "vbase"
ALGORITHMS = vb.ALGORITHMS
MPI_NAMES = {"openmpi": "Open MPI 4.1 (TCP BTL)", "mpich": "MPICH 4.0 (ch4:ucx over TCP)"}
SIZES = [1048576, 16777216]
PLACEMENTS = ["roundrobin", "fragmented", "leafsorted"]
# Per profile, in measuring order: `vcluster up` options, ranks per host, host link rate
# (Mbit/s). The rates keep what all host links move at once to 1.6-2.4 Gbit/s, where the jobs
# stay bound by the shaped links rather than by the host's CPU (NOTES.md has the figures),
# and the whole measurement under an hour.
PROFILES = {
    "tapered": dict(up=["--profile", "tapered"], per_host=2, mbit=200),
    "tree3": dict(up=["--profile", "tree3"], per_host=1, mbit=150),
    "damaged": dict(up=["--profile", "damaged"], per_host=1, mbit=200),
    "uneven": dict(up=["--profile", "uneven", "--leaf-hosts", "5,3,1"], per_host=1, mbit=200),
    "dragonfly": dict(up=["--profile", "dragonfly"], per_host=1, mbit=150),
}
# Profiles whose fabric has structure a leaf sort cannot see.
HIDDEN_STRUCTURE = ("tree3", "damaged", "uneven", "dragonfly")


def log(msg):
    print(f"vcluster-baselines: {msg}", file=sys.stderr, flush=True)


# ---- orders --------------------------------------------------------------------------------

def leaves_of(layout):
    """leaf name -> its hosts in name order, leaves in name order; host -> leaf."""
    leaf_of = {h["name"]: h["leaf"] for h in layout["hosts"]}
    leaves = {}
    for h in sorted(leaf_of):
        leaves.setdefault(leaf_of[h], []).append(h)
    number = lambda name: int("".join(c for c in name if c.isdigit()) or 0)
    # A dragonfly's groups stand for leaves (`group1`..).
    return dict(sorted(leaves.items(), key=lambda kv: number(kv[0]))), leaf_of


def leaf_sorted(hosts, leaf_of):
    """The leaf-sorted order of a launch (host of each launch rank): new rank i is launch rank
    order[i]."""
    groups = {}  # leaf -> host -> launch ranks, both in order of first appearance
    for r, h in enumerate(hosts):
        groups.setdefault(leaf_of[h], {}).setdefault(h, []).append(r)
    return [r for g in groups.values() for ranks in g.values() for r in ranks]


def placement(name, layout, per_host):
    """Host of each launch rank."""
    leaves, leaf_of = leaves_of(layout)
    names = sorted(leaf_of)
    n = len(names) * per_host
    if name == "roundrobin":
        return [names[r % len(names)] for r in range(n)]
    if name == "fragmented":
        dealt, lists = [], [list(v) for v in leaves.values()]
        while any(lists):
            for l in lists:
                if l:
                    dealt.append(l.pop(0))
        return [h for h in dealt for _ in range(per_host)]
    if name == "leafsorted":
        rr = placement("roundrobin", layout, per_host)
        return [rr[r] for r in leaf_sorted(rr, leaf_of)]
    raise ValueError(name)


def cells_of(layout, per_host, only=PLACEMENTS):
    """(placement name, hosts, names it stands for) with duplicates merged, those that stand
    for a placement in `only`."""
    out = []
    for pl in PLACEMENTS:
        hosts = placement(pl, layout, per_host)
        for c in out:
            if c[1] == hosts:
                c[2].append(pl)
                break
        else:
            out.append((pl, hosts, [pl]))
    return [c for c in out if set(c[2]) & set(only)]


def plan_files(work, tag, hosts):
    """`toporrctl plan`'s --hostfile and --ranks for a job whose rank r runs on hosts[r]: their
    paths in `work`."""
    hf, rf = os.path.join(work, f"{tag}.plan.hosts"), os.path.join(work, f"{tag}.plan.ranks")
    with open(hf, "w") as f:
        f.write("".join(f"{h} slots={hosts.count(h)}\n" for h in dict.fromkeys(hosts)))
    with open(rf, "w") as f:
        f.write("".join(h + "\n" for h in hosts))
    return hf, rf


def toporrctl_leaf_order(toporrctl, fabric_dir, hosts, work, tag):
    """The leaf-sorted order `toporrctl plan` reports for this launch, or None if it cannot be
    read (offline, from the cluster's fabric dump)."""
    dump = [f for f in sorted(os.listdir(fabric_dir)) if f == "ibnetdiscover.txt"]
    if not dump:
        log(f"{tag}: no ibnetdiscover dump in {fabric_dir}: leaf-sorted order not cross-checked")
        return None
    hf, rf = plan_files(work, tag, hosts)
    p = subprocess.run([toporrctl, "plan", "--fabric", os.path.join(fabric_dir, dump[0]),
                        "--format", "ibnetdiscover", "--hostfile", hf, "--ranks", rf,
                        "--collective", "allreduce", "--size", "1M", "--json"],
                       capture_output=True, text=True)
    for text in (p.stdout, p.stdout.replace("\n", " ")):
        i = text.find('"leaf_sorted_order":')
        if i >= 0:
            j = text.index("[", i)
            return json.loads(text[j:text.index("]", j) + 1])
    log(f"{tag}: toporrctl plan gave no leaf_sorted_order (rc {p.returncode}): "
        f"{(p.stderr or p.stdout).strip()[-300:]}")
    return None


# ---- measuring -----------------------------------------------------------------------------

class Stop(Exception):
    pass


def on_signal(signum, _frame):
    raise Stop(f"signal {signum}")


@contextlib.contextmanager
def profile_cluster(name, profile, toporrd, toporrctl, raw):
    """A virtual cluster `name` of PROFILES[profile], its toporrd on the head node with the
    fabric ingested, its layout written to raw/layout-PROFILE.json; yields its `vcluster status
    --json`. Any cluster of that name is removed first, and this one however the body ends."""
    spec = PROFILES[profile]
    subprocess.run([sys.executable, VC, "down", "--name", name], check=False)
    subprocess.run([sys.executable, VC, "up", "--name", name] + spec["up"] +
                   ["--host-mbit", str(spec["mbit"]), "--toporrd", toporrd,
                    "--toporrctl", toporrctl], check=True)
    try:
        st = json.loads(subprocess.run([sys.executable, VC, "status", "--name", name, "--json"],
                                       check=True, capture_output=True, text=True).stdout)
        with open(os.path.join(raw, f"layout-{profile}.json"), "w") as f:
            json.dump({"layout": st["layout"], "describe": st.get("describe"),
                       "host_mbit": spec["mbit"], "up": spec["up"]}, f, indent=1)
        yield st
    finally:
        subprocess.run([sys.executable, VC, "down", "--name", name], check=False)


def measure(args, binroot, progs, raw):
    toporrd = os.path.join(binroot, "daemon/toporrd")
    toporrctl = os.path.join(binroot, "client/ctl/toporrctl")
    vb.NAME = NAME
    meta_path = os.path.join(raw, "meta.json")
    meta = json.load(open(meta_path)) if os.path.exists(meta_path) else {"sessions": []}
    session = {"start": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
               "argv": sys.argv[1:], "load1_start": round(os.getloadavg()[0], 2)}
    meta["sessions"].append(session)
    t_start = time.monotonic()
    stopped = None
    try:
        for profile in args.profiles:
            spec = PROFILES[profile]
            pending = [(mpi, coll) for mpi in args.mpis for coll in ("allreduce", "bcast")]
            if all(os.path.exists(os.path.join(raw, f"{profile}-{m}-{pl}-{c}.jsonl"))
                   for m, c in pending for pl in ("roundrobin", "fragmented")) and \
                    os.path.exists(os.path.join(raw, f"layout-{profile}.json")):
                layout = json.load(open(os.path.join(raw, f"layout-{profile}.json")))["layout"]
                if all(os.path.exists(os.path.join(raw, f"{profile}-{m}-{pl}-{c}.jsonl"))
                       for m, c in pending for pl, _, _ in cells_of(layout, spec["per_host"], args.placements)):
                    continue
            with profile_cluster(NAME, profile, toporrd, toporrctl, raw) as st:
                layout = st["layout"]
                state_dir = st["state_dir"]
                _, leaf_of = leaves_of(layout)
                for pl, hosts, names in cells_of(layout, spec["per_host"], args.placements):
                    order = leaf_sorted(hosts, leaf_of)
                    ctl = toporrctl_leaf_order(toporrctl, os.path.join(state_dir, "fabric"),
                                               hosts, args.work, f"{profile}-{pl}")
                    if ctl is not None and ctl != order:
                        log(f"{profile} {pl}: leaf-sorted order {order}, toporrctl plan says "
                            f"{ctl} (kept in the raw data, reported)")
                    for mpi, coll in pending:
                        tag = f"{profile}-{mpi}-{pl}-{coll}"
                        if os.path.exists(os.path.join(raw, f"{tag}.jsonl")):
                            continue
                        if args.stop_by and time.time() > args.stop_by:
                            raise Stop(f"--stop-by reached before {tag}")
                        run_job(args, raw, progs, state_dir, tag, mpi, coll, hosts, order,
                                names, ctl, spec, t_start)
    except (Stop, KeyboardInterrupt) as e:
        stopped = str(e) or "interrupted"
        log(f"stopped: {stopped}")
    finally:
        close_session(meta_path, meta, session, t_start, stopped)
    return stopped


def close_session(meta_path, meta, session, t_start, stopped):
    """Ends `session` of the raw folder's meta.json (when, how long, the load, why it stopped
    early) and writes `meta` to `meta_path`."""
    session["end"] = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    session["minutes"] = round((time.monotonic() - t_start) / 60, 1)
    session["load1_end"] = round(os.getloadavg()[0], 2)
    if stopped:
        session["stopped"] = stopped
    with open(meta_path, "w") as f:
        json.dump(meta, f, indent=1)


def run_job(args, raw, progs, state_dir, tag, mpi, coll, hosts, order, names, ctl, spec,
            t_start):
    report = os.path.join(raw, f"{tag}.report.jsonl")
    if os.path.exists(report):
        os.unlink(report)
    env = {"TOPORR_CONFIG": os.path.join(state_dir, "client.conf"),
           "TOPORR_SOCKET": "/nonexistent", "TOPORR_REPORT": report,
           "TOPORR_DEADLINE_MS": "5000"}
    for setting in args.dropin_setting:
        key, value = setting.split("=", 1)
        env[f"TOPORR_{key.upper()}"] = value
    prog, pmpi = progs[mpi]
    cmd = vb.job_cmd(mpi, hosts, args.work, tag, prog, pmpi, env) + [
        "--collective", coll, "--sizes", ",".join(map(str, args.sizes)),
        "--algorithms", ",".join(ALGORITHMS[coll]), "--reps", str(args.reps),
        "--warmup", "1", "--warmup-max-bytes", str(min(args.sizes)),
        "--leaf-order", ",".join(map(str, order)), "--no-launch-algorithms", "1",
        "--leaf-algorithms", "1" if args.leaf_algorithms else "0", "--dropin-warmup", "6"]
    load0 = os.getloadavg()[0]
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, cwd=args.work)
    wall = time.monotonic() - t0
    if p.returncode != 0:
        raise RuntimeError(f"{tag}: exit {p.returncode}\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
    lines = [l for l in p.stdout.splitlines() if l.startswith("{")]
    setup = json.loads(lines[0])
    if setup["hosts"] != hosts or not setup["dropin"]:
        raise RuntimeError(f"{tag}: ranks ran on {setup['hosts']} (asked {hosts}), drop-in "
                           f"loaded: {setup['dropin']}")
    lines.append(json.dumps({"kind": "cell", "placements": names, "hosts": hosts,
                             "leaf_order": order, "toporrctl_leaf_order": ctl,
                             "host_mbit": spec["mbit"], "ranks_per_host": spec["per_host"],
                             "load1": [round(load0, 2), round(os.getloadavg()[0], 2)],
                             "wall_s": round(wall, 1)}))
    with open(os.path.join(raw, f"{tag}.jsonl"), "w") as f:
        f.write("\n".join(lines) + "\n")
    log(f"{tag}: {wall:.0f} s, load {load0:.1f} (elapsed {(time.monotonic() - t_start) / 60:.1f}"
        " min)")


def pack(raw):
    with tarfile.open(ARCHIVE, "w:gz") as t:
        for f in sorted(os.listdir(raw)):
            if f.endswith(".jsonl") or f.endswith(".json"):
                t.add(os.path.join(raw, f), arcname=f)
    log(f"wrote {ARCHIVE}")


def unpack(dest):
    with tarfile.open(ARCHIVE) as t:
        for m in t.getmembers():
            if m.isfile() and "/" not in m.name and not m.name.startswith("."):
                with open(os.path.join(dest, m.name), "wb") as f:
                    f.write(t.extractfile(m).read())


# ---- report --------------------------------------------------------------------------------

# (label, baseline variant, toporr variant): what each row of a cell compares.
def comparisons(coll):
    out = []
    for a in ALGORITHMS[coll]:
        out.append((f"{a} vs launch", "default", f"{a}@toporr", a))
        out.append((f"{a} vs leaf-sorted", "default@leafsorted", f"{a}@toporr", a))
        # Present where the job ran A@leafsorted (--leaf-algorithms): toporr's order alone,
        # the same implementation on both orders.
        out.append((f"{a} order vs leaf-sorted", f"{a}@leafsorted", f"{a}@toporr", "order"))
    out.append(("selection vs launch", "default", "dropin", "selection"))
    out.append(("selection vs leaf-sorted", "default@leafsorted", "dropin", "selection"))
    out.append(("leaf-sorted vs launch", "default", "default@leafsorted", "leafsort"))
    return out


def library_runs(path):
    """bytes -> where the drop-in runs the MPI library's own call, from its report: "launch"
    (the caller's order), "leaf-sorted" (a communicator in the leaf-sorted order: the decision
    `mpi_library` with a new order, or a verdict for the library whose `library_order` was
    leaf-sorted), or None where toporr's own path runs."""
    decided, checked = {}, {}
    if os.path.exists(path):
        for line in open(path):
            try:
                d = json.loads(line)
            except ValueError:
                continue
            if d.get("algorithm") != "auto":
                continue
            if d.get("event") == "decision" and not d.get("cached"):
                decided[d["bytes"]] = d
            elif d.get("event") == "verified":
                checked[d["bytes"]] = d
    out = {}
    for size, d in decided.items():
        if d.get("source") == "fallback":
            out[size] = "launch"
        elif d.get("chosen_algorithm") == "mpi_library":
            identity = d.get("new_order") == sorted(d.get("new_order") or [])
            out[size] = "launch" if identity else "leaf-sorted"
        elif checked.get(size, {}).get("verdict") == "mpi_library":
            out[size] = ("leaf-sorted" if checked[size].get("library_order") == "leaf-sorted"
                         else "launch")
        else:
            out[size] = None
    return out


def kept_leaf(order_line, cell):
    """True when toporr's order for a variant is the leaf-sorted order itself."""
    return bool(order_line) and order_line["order"] == cell["leaf_order"]


def read_job(path):
    """A job's raw lines: its "cell" line, {(variant, bytes): "order" line} and
    {(variant, bytes): {rep: us}}."""
    cell, orders, times = None, {}, {}
    for line in open(path):
        o = json.loads(line)
        if o["kind"] == "cell":
            cell = o
        elif o["kind"] == "order":
            orders[(o["variant"], o["bytes"])] = o
        elif o["kind"] == "time":
            times.setdefault((o["variant"], o["bytes"]), {})[o["rep"]] = o["us"]
    return cell, orders, times


def rows_of(raw, args):
    rows, cells = [], []
    for profile in args.profiles:
        lp = os.path.join(raw, f"layout-{profile}.json")
        if not os.path.exists(lp):
            continue
        lay = json.load(open(lp))
        per_host = PROFILES[profile]["per_host"]
        for mpi in args.mpis:
            for pl, _, names in cells_of(lay["layout"], per_host):
                for coll in ("allreduce", "bcast"):
                    tag = f"{profile}-{mpi}-{pl}-{coll}"
                    path = os.path.join(raw, f"{tag}.jsonl")
                    if not os.path.exists(path):
                        continue
                    cell, orders, times = read_job(path)
                    auto = vb.load_auto_predictions(os.path.join(raw, f"{tag}.report.jsonl"))
                    library = library_runs(os.path.join(raw, f"{tag}.report.jsonl"))
                    launch_is_leaf = cell["leaf_order"] == sorted(cell["leaf_order"])
                    cells.append(dict(tag=tag, profile=profile, mpi=mpi, placement="=".join(names),
                                      collective=coll, cell=cell, launch_is_leaf=launch_is_leaf))
                    for size in args.sizes:
                        chosen = auto.get(size, (None, None, None))[2]
                        lib_on = library.get(size)
                        if chosen and chosen != "mpi_library" and lib_on:
                            # Decided for toporr's path, measured slower by the drop-in's
                            # verification: it runs the library's call (on lib_on's order).
                            chosen = f"{chosen}, verified slower: mpi_library"
                        if chosen and chosen.endswith("mpi_library") and lib_on == "leaf-sorted":
                            chosen += " on leaf-sorted"
                        for label, base, var, kind in comparisons(coll):
                            r = vb.paired(times, base, var, size)
                            if not r:
                                continue
                            q1, med, q3 = vb.quartiles(r)
                            o = orders.get((var, size))
                            kept = bool(o) and o["order"] == sorted(o["order"])
                            # A/A: the same code on the same order twice.
                            # The drop-in's library call on the launch order is the
                            # baseline's code (the drop-in passes the call straight on) on the
                            # baseline's order. On the leaf-sorted order it is not: toporr's
                            # path adds its argument check (one small allreduce on the launch
                            # order per call), so those rows are comparisons, not noise.
                            aa = ((kind == "leafsort" and launch_is_leaf) or
                                  (kind == "order" and kept_leaf(o, cell)) or
                                  (kind == "selection" and lib_on == "launch" and
                                   (label.endswith("vs launch") or launch_is_leaf)))
                            model = None
                            if o and o.get("predicted_after_ns", 0) > 0 and not o["fallback"]:
                                model = o["predicted_after_ns"] * 32.0 / (
                                    cell["host_mbit"] / 1000.0) / 1e6
                            rows.append(dict(profile=profile, mpi=mpi,
                                             placement="=".join(names), collective=coll,
                                             comparison=label, kind=kind, bytes=size, n=len(r),
                                             q1=q1, median=med, q3=q3, aa=aa, kept=kept,
                                             chosen=chosen if kind == "selection" else None,
                                             base_ms=statistics.median(times[(base, size)].values()) / 1e3,
                                             var_ms=statistics.median(times[(var, size)].values()) / 1e3,
                                             model_ms=model))
    return rows, cells


def bands(rows):
    """bytes -> the A/A noise band: the 90th percentile of |1 - median| over the A/A rows of
    that size (every profile, placement and collective), at least the median A/A half
    interquartile width."""
    out = {}
    for size in sorted({r["bytes"] for r in rows}):
        aa = [r for r in rows if r["aa"] and r["bytes"] == size]
        if not aa:
            continue
        devs = sorted(abs(1 - r["median"]) for r in aa)
        iqr = statistics.median((r["q3"] - r["q1"]) / 2 for r in aa)
        out[size] = (max(devs[int(0.9 * (len(devs) - 1))], iqr), len(aa))
    return out


def say(x, band):
    """A ratio as the headline says it: 1.00x inside the A/A band."""
    return "1.00x" if abs(x - 1) <= band else f"{x:.2f}x"


def write_report(args, rows, cells, raw, stopped_note):
    meta_path = os.path.join(raw, "meta.json")
    meta = json.load(open(meta_path)) if os.path.exists(meta_path) else {"sessions": []}
    band = bands(rows)
    bandmax = {s: b for s, (b, _) in band.items()}
    dat = os.path.join(RESULTS, "vcluster_baselines.dat")
    with open(dat, "w") as f:
        f.write("# profile mpi placement collective comparison bytes n q1 median q3 base_ms "
                "toporr_ms aa\n")
        for r in rows:
            f.write(f"{r['profile']} {r['mpi']} {r['placement']} {r['collective']} "
                    f"{r['comparison'].replace(' ', '_')} {r['bytes']} {r['n']} {r['q1']:.4f} "
                    f"{r['median']:.4f} {r['q3']:.4f} {r['base_ms']:.3f} {r['var_ms']:.3f} "
                    f"{int(r['aa'])}\n")
    md = os.path.join(RESULTS, "vcluster_baselines.md")
    loads = [l for c in cells for l in c["cell"]["load1"]]
    walls = [c["cell"]["wall_s"] for c in cells]
    with open(md, "w") as f:
        w = lambda s="": f.write(s + "\n")
        w("# toporr against the leaf-sorted baseline, measured on the virtual cluster")
        w()
        w("Generated by `bench/vcluster/run_baselines_bench.py` from the raw data in "
          "`vcluster_baselines_raw.tar.gz` (`bench/vcluster/run_baselines_bench.py "
          "--report-only` regenerates it); do not edit by hand.")
        w()
        have = {c["tag"] for c in cells}
        missing = []
        for profile in args.profiles:
            lp = os.path.join(raw, f"layout-{profile}.json")
            if not os.path.exists(lp):
                missing.append(f"{profile} (every cell)")
                continue
            lay = json.load(open(lp))
            for mpi in args.mpis:
                for pl, _, names in cells_of(lay["layout"], PROFILES[profile]["per_host"]):
                    for coll in ("allreduce", "bcast"):
                        if f"{profile}-{mpi}-{pl}-{coll}" not in have:
                            missing.append(f"{profile} {mpi} {'='.join(names)} {coll}")
        if stopped_note or missing:
            w("**Partial**: " + (stopped_note + " " if stopped_note else "") +
              ("Not measured: " + "; ".join(missing) + "." if missing else ""))
            w()
        for s in meta["sessions"]:
            w(f"- Measured: `bench/vcluster/run_baselines_bench.py {' '.join(s['argv'])}`, "
              f"{s['start']} to {s.get('end', '?')}, {s.get('minutes', '?')} min wall time "
              f"(cluster set-up included)" + (f", stopped: {s['stopped']}" if s.get("stopped")
                                              else "") + ".")
        if loads:
            w(f"- Load: the machine's 1-minute load average before and after each job "
              f"{min(loads):.1f}-{max(loads):.1f} (median {statistics.median(loads):.1f}) on "
              f"2 cores (per job in the table of jobs); jobs' wall time {sum(walls) / 60:.1f} "
              "min in all.")
        w(f"- Repetitions {args.reps} per cell (one warm-up repetition at the smallest size "
          "first, not reported), sizes " + ", ".join(vb.human(s) for s in args.sizes) + ".")
        w()
        w("**Leaf-sorted order** (the baseline a site gets for free: Slurm "
          "`TopologyParam=SwitchAsNodeRank`, a by-slot launch on a host list sorted by leaf "
          "switch; `toporrctl plan` reports the same, and every cell checked that it does): the "
          "launch order's hosts grouped by the leaf switch they hang off (from the cluster's "
          "layout), groups in the order of their first host in the launch order, hosts within a "
          "group in launch order, each host's ranks contiguous in launch order.")
        w()
        ran = {c["mpi"] for c in cells}
        libs = " and ".join(MPI_NAMES[m] for m in ("openmpi", "mpich") if m in ran)
        w("**Measured**: a real network of Linux network namespaces on one 2-core machine: "
          "hosts' links and every switch uplink shaped with `tc tbf` in both directions, "
          f"bridges as switches, {libs or 'no MPI'} between hosts (shared memory inside a "
          "host), toporrd on the head node answering the ranks over TCP, real collective calls "
          "whose results are checked. **Not measured**: InfiniBand (RDMA latencies, adaptive "
          "routing, credit flow control), hosts with their own cores (all ranks share 2 cores "
          "with whatever else the machine runs), more than 16 hosts" +
          "".join(f", {MPI_NAMES[m].split(' (')[0]} (not run in this table)"
                  for m in ("openmpi", "mpich") if m not in ran) + ".")
        w()
        w("Profiles, one rank per host except `tapered` (8 hosts x 2 ranks):")
        w()
        for profile in args.profiles:
            lp = os.path.join(raw, f"layout-{profile}.json")
            if os.path.exists(lp):
                lay = json.load(open(lp))
                w(f"- `{profile}` (`vcluster up {' '.join(lay['up'])} --host-mbit "
                  f"{lay['host_mbit']}`): {lay.get('describe') or ''}")
        w()
        w("Starting orders: `roundrobin` rank r on host r mod H of the name-sorted host list "
          "(with one rank per host that is the leaf-sorted order itself, so those cells read "
          "`roundrobin=leafsorted`); `fragmented` the hosts handed out alternating between the "
          "leaves (leaf1's first, leaf2's first, ..., then the second of each), each filled by "
          "slot; `leafsorted` the leaf-sorted order of round-robin (8 x 2: by slot).")
        w()
        w("Comparisons (ratio = baseline time / toporr time, > 1: toporr faster; median of the "
          "per-repetition ratios of two variants of the same repetition, [quartiles]): "
          "`A vs launch|leaf-sorted` the MPI library's default call on the launch / leaf-sorted "
          "order against toporr's algorithm A on toporr's order for A; `selection vs "
          "launch|leaf-sorted` the same baselines against the PMPI drop-in (toporr's selection "
          "of algorithm and order, or the library's call when that is predicted best; its "
          "choice in brackets); `leaf-sorted vs launch` what the leaf sort alone gives the "
          "library's call; `A order vs leaf-sorted` (jobs run with --leaf-algorithms) toporr's "
          "algorithm A on the leaf-sorted order against the same on toporr's order: the order "
          "alone. A/A rows run the same code on the same order twice (a launch order "
          "that already is leaf-sorted; the drop-in where it ran the library's call; toporr's "
          "order where it is the leaf-sorted one) and give the noise band.")
        w()
        w("## A/A noise band")
        w()
        for s, (b, n) in sorted(band.items()):
            w(f"- {vb.human(s)}: ±{100 * b:.0f} % (90th percentile of |1 - median| over {n} "
              "A/A rows, at least their median half interquartile width)")
        w()
        headline(w, rows, bandmax, args)
        targets_section(w, rows, bandmax)
        for profile in args.profiles:
            sub = [r for r in rows if r["profile"] == profile]
            if not sub:
                continue
            w(f"## {profile}")
            w()
            w("| mpi | start | collective | comparison | size | ratio [q1, q3] | base ms | "
              "toporr ms (ideal) |")
            w("|---|---|---|---|---|---|---|---|")
            for r in sub:
                comp = r["comparison"] + (f" ({r['chosen']})" if r["chosen"] else "") + (
                    " (A/A)" if r["aa"] else "")
                w(f"| {r['mpi']} | {r['placement']} | {r['collective']} | {comp} | "
                  f"{vb.human(r['bytes'])} | {r['median']:.2f} [{r['q1']:.2f}, {r['q3']:.2f}] | "
                  f"{r['base_ms']:.1f} | {r['var_ms']:.1f} ({vb.fmt(r['model_ms'], 1)}) |")
            w()
        w("The ideal time in brackets: libtoporr's predicted time of that order at the emulated "
          "rates (its prediction on the fabric dump's 4x QDR links scaled by 32 Gbit/s / the host "
          "rate); how close a measurement comes to it shows whether the links bound it.")
        w()
        w("## Jobs")
        w()
        w("| job | hosts of the launch ranks | leaf-sorted order | load before, after | wall s |")
        w("|---|---|---|---|---|")
        for c in cells:
            x = c["cell"]
            w(f"| {c['tag']} | {','.join(h[4:] for h in x['hosts'])} | "
              f"{','.join(map(str, x['leaf_order']))} | {x['load1'][0]}, {x['load1'][1]} | "
              f"{x['wall_s']} |")
        w()
    log(f"wrote {md} and {dat}")
    plot(args, rows, bandmax)


def plot(args, rows, band):
    """vcluster_baselines_MPI.png per MPI library: the drop-in against the leaf-sorted order
    (top) and against the launch order (bottom), per profile, collective and size: the median
    over the starting orders of the per-cell medians, bars from the lowest to the highest
    starting order's median, the A/A band shaded around 1."""
    b = max(band.values(), default=0)
    for mpi in args.mpis:
        groups = [(p, c) for p in args.profiles for c in ("allreduce", "bcast")
                  if any(r["profile"] == p and r["collective"] == c and r["mpi"] == mpi
                         for r in rows)]
        if not groups:
            continue
        sizes = sorted({r["bytes"] for r in rows if r["mpi"] == mpi})
        blocks = []
        for comparison in ("selection vs leaf-sorted", "selection vs launch"):
            lines = []
            for gi, (profile, coll) in enumerate(groups):
                for si, size in enumerate(sizes):
                    ms = [r["median"] for r in rows if r["mpi"] == mpi and
                          r["profile"] == profile and r["collective"] == coll and
                          r["bytes"] == size and r["comparison"] == comparison]
                    if ms:
                        x = gi + (si - (len(sizes) - 1) / 2) * 0.25
                        lines.append(f"{x:.3f} {statistics.median(ms):.4f} {min(ms):.4f} "
                                     f"{max(ms):.4f} {si}")
            blocks.append(lines)
        png = os.path.join(RESULTS, f"vcluster_baselines_{mpi}.png")
        xtics = ", ".join(f'"{p}\\n{c}" {i}' for i, (p, c) in enumerate(groups))
        colours = ["'#1b9e77'", "'#d95f02'", "'#7570b3'", "'#e7298a'"]
        cmds = ["set terminal pngcairo size 1100,900 font ',10'", f"set output '{png}'",
                "set multiplot layout 2,1", f"set xtics ({xtics})", "set logscale y",
                "set grid ytics", f"set xrange [-0.6:{len(groups) - 0.4}]",
                "set ylabel 'speedup (x), log scale'", "set yrange [0.25:12]",
                "set key outside right top", "set style fill transparent solid 0.3 noborder"]
        titles = [f"{MPI_NAMES[mpi]}: the drop-in against the library's call on the "
                  "leaf-sorted order", "... and against the launch order (round-robin, "
                  "fragmented; leaf-sorted start: A/A)"]
        for k, lines in enumerate(blocks):
            cmds.append(f"$d{k} << EOD\n" + "\n".join(lines) + "\nEOD")
            cmds.append(f"set title \"{titles[k]}\"")
            plots = [f"{1 - b:.3f} with filledcurves y1={1 + b:.3f} lc rgb 'gray' "
                     f"title 'A/A band ±{100 * b:.0f} %'", "1 with lines lc rgb 'black' notitle"]
            for si, size in enumerate(sizes):
                plots.append(f"$d{k} using 1:($5=={si}?$2:1/0):3:4 with yerrorbars pt 7 ps 1.2 "
                             f"lc rgb {colours[si % len(colours)]} title '{vb.human(size)}'")
            cmds.append("plot " + ", ".join(plots))
        cmds.append("unset multiplot")
        vb.gnuplot(cmds, png)


def median_of(rs):
    return statistics.median(r["median"] for r in rs) if rs else None


def headline(w, rows, band, args):
    w("## Headline")
    w()
    w("Median over each profile's starting orders and sizes of the per-cell medians; `1.00x` "
      "where that median is within the A/A band of the sizes involved "
      f"(±{100 * max(band.values(), default=0):.0f} % at most). `selection` is what a job gets "
      "with the drop-in; `best order` is the best of toporr's algorithms on its order per cell.")
    w()
    w("| profile | MPI | collective | selection vs launch | selection vs leaf-sorted | best order "
      "vs leaf-sorted | leaf-sorted vs launch |")
    w("|---|---|---|---|---|---|---|")
    b = max(band.values(), default=0)
    lines = []
    for profile, mpi, coll in [(p, m, c) for p in args.profiles for m in args.mpis
                               for c in ("allreduce", "bcast")]:
            sub = [r for r in rows if r["profile"] == profile and r["collective"] == coll and
                   r["mpi"] == mpi]
            if not sub:
                continue
            sl = median_of([r for r in sub if r["comparison"] == "selection vs launch"])
            ss = median_of([r for r in sub if r["comparison"] == "selection vs leaf-sorted"])
            best = []
            for key in {(r["placement"], r["bytes"]) for r in sub}:
                c = [r["median"] for r in sub if (r["placement"], r["bytes"]) == key and
                     r["kind"] in ALGORITHMS[coll] and r["comparison"].endswith("leaf-sorted")]
                if c:
                    best.append(max(c))
            bo = statistics.median(best) if best else None
            ll = median_of([r for r in sub if r["comparison"] == "leaf-sorted vs launch"])
            f = lambda x: "—" if x is None else say(x, b)
            w(f"| {profile} | {mpi} | {coll} | {f(sl)} | {f(ss)} | {f(bo)} | {f(ll)} |")
            lines.append((f"{profile} {mpi}", coll, f(sl), f(ss), f(bo)))
    w()
    if lines:
        w("In words: with the drop-in, toporr against the MPI default on the leaf-sorted order "
          "(in brackets: against the launch order) is " + "; ".join(
              f"{p} {c} {ss} ({sl})" for p, c, sl, ss, _ in lines) +
          f". Within the A/A band (±{100 * b:.0f} %) a ratio reads 1.00x. The best of "
          "toporr's own algorithms on its order, against the same baseline: " + "; ".join(
              f"{p} {c} {bo}" for p, c, _, _, bo in lines) + ".")
        w()
    return lines


def targets_section(w, rows, band):
    w("## Targets")
    w()
    sel = [r for r in rows if r["comparison"] == "selection vs leaf-sorted"]
    # An A/A row runs the baseline's own code on its order: its spread is the noise itself.
    slower = [r for r in sel if not r["aa"] and r["median"] < 1 - band.get(r["bytes"], 0)]
    w(f"- **{'met' if sel and not slower else 'missed'}**: never slower than the leaf-sorted "
      "baseline beyond the A/A noise (the drop-in, what a job gets, against the library's call "
      f"on the leaf-sorted order, every cell but the A/A ones): {len(slower)} of "
      f"{len([r for r in sel if not r['aa']])} cells slower"
      + (": " + "; ".join(cell_name(r) for r in slower) if slower else "") + ".")
    forced = [r for r in rows if r["kind"] in ALGORITHMS[r["collective"]] and
              r["comparison"].endswith("leaf-sorted") and
              r["median"] < 1 - band.get(r["bytes"], 0)]
    n_forced = len([r for r in rows if r["kind"] in ALGORITHMS[r["collective"]] and
                    r["comparison"].endswith("leaf-sorted")])
    w(f"  For information, a forced algorithm on toporr's order (not what the drop-in chooses) "
      f"against the library's call on the leaf-sorted order: {len(forced)} of {n_forced} rows "
      "slower beyond the noise (" + (", ".join(sorted({f"{r['kind']}" for r in forced})) or
                                     "none") + ").")
    struct = [r for r in sel if r["profile"] in HIDDEN_STRUCTURE and
              r["bytes"] >= 1 << 20]
    ok = [r for r in struct if r["median"] >= 1.3]
    w(f"- **{'met' if struct and len(ok) == len(struct) else 'missed'}**: >= 1.3x faster than "
      "the leaf-sorted baseline where the fabric has structure a leaf sort cannot see ("
      + ", ".join(p for p in HIDDEN_STRUCTURE if any(r["profile"] == p for r in sel))
      + f"; the drop-in, >= 1 MiB): {len(ok)} of {len(struct)} cells"
      + (": met in " + "; ".join(cell_name(r) for r in ok) if ok else "") + ".")
    tree = [r for r in rows if r["collective"] == "bcast" and r["bytes"] >= 1 << 20 and
            (r["comparison"] == "selection vs leaf-sorted" or
             r["comparison"] == "binomial vs leaf-sorted")]
    ok = [r for r in tree if r["median"] >= 1.3]
    w(f"- **{'met' if tree and len(ok) == len(tree) else 'missed'}**: >= 1.3x faster than the "
      "leaf-sorted baseline for tree broadcasts at >= 1 MiB (the drop-in's bcast and toporr's "
      f"binomial tree on its order, every profile): {len(ok)} of {len(tree)} rows"
      + (": met in " + "; ".join(cell_name(r) for r in ok) if ok else "") + ".")
    w()


def cell_name(r):
    return (f"{r['profile']} {r['mpi']} {r['placement']} {r['collective']} {r['comparison']} "
            f"{vb.human(r['bytes'])} {r['median']:.2f}x [{r['q1']:.2f}, {r['q3']:.2f}]")


def parse_stop_by(text):
    if not text:
        return None
    hh, mm = map(int, text.split(":"))
    now = time.gmtime()
    t = time.mktime((now.tm_year, now.tm_mon, now.tm_mday, hh, mm, 0, 0, 0, 0)) - time.timezone
    return t if t > time.time() else t + 86400


def main():
    global RESULTS, ARCHIVE
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--sizes", default="",
                    help="message sizes in bytes (default: " + ",".join(map(str, SIZES)) +
                         "; the report: every size its measuring sessions ran)")
    ap.add_argument("--profiles", default=",".join(PROFILES))
    ap.add_argument("--mpis", default="",
                    help="openmpi, mpich or both (default: openmpi; the report: both, as far "
                         "as the raw data has them)")
    ap.add_argument("--raw", default="/tmp/toporr-vcluster-baselines",
                    help="raw results (kept between runs: a finished job is not rerun)")
    ap.add_argument("--results", default=RESULTS)
    ap.add_argument("--report-only", action="store_true",
                    help="write the table from the raw archive in --results")
    ap.add_argument("--placements", default=",".join(PLACEMENTS),
                    help="starting orders to measure (report: all that are in the raw data)")
    ap.add_argument("--leaf-algorithms", action="store_true",
                    help="also run toporr's algorithms on the leaf-sorted order (A@leafsorted): "
                         "splits order from algorithm; about 1.5x the time")
    ap.add_argument("--dropin-setting", action="append", default=[], metavar="KEY=VALUE",
                    help="a libtoporr setting for the drop-in (TOPORR_KEY=VALUE; repeatable), "
                         "e.g. check_arguments=0: measure with --results in a folder of its own")
    ap.add_argument("--stop-by", default="",
                    help="HH:MM UTC: start no job after it (the table says it is partial)")
    args = ap.parse_args()
    given_sizes = bool(args.sizes)
    args.sizes = [int(s) for s in (args.sizes or ",".join(map(str, SIZES))).split(",")]
    args.profiles = args.profiles.split(",")
    args.mpis = (args.mpis or ("openmpi,mpich" if args.report_only else "openmpi")).split(",")
    args.stop_by = parse_stop_by(args.stop_by)
    args.placements = args.placements.split(",")
    if any("=" not in s for s in args.dropin_setting):
        ap.error("--dropin-setting: KEY=VALUE")
    if any(p not in PROFILES for p in args.profiles):
        ap.error(f"--profiles: of {', '.join(PROFILES)}")
    RESULTS = vb.RESULTS = args.results
    ARCHIVE = os.path.join(RESULTS, "vcluster_baselines_raw.tar.gz")
    stopped = None
    if args.report_only:
        with tempfile.TemporaryDirectory() as raw:
            unpack(raw)
            mp = os.path.join(raw, "meta.json")
            meta = json.load(open(mp)) if os.path.exists(mp) else {"sessions": []}
            stopped = meta["sessions"][-1].get("stopped") if meta["sessions"] else None
            if not given_sizes:
                args.sizes = sessions_sizes(meta) or args.sizes
            rows, cells = rows_of(raw, args)
            write_report(args, rows, cells, raw, partial_note(stopped, args, raw))
        return
    if os.geteuid() != 0:
        sys.exit("vcluster-baselines: must run as root (the virtual cluster)")
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)
    os.makedirs(args.raw, exist_ok=True)
    args.work = os.path.join(args.raw, "work")
    os.makedirs(args.work, exist_ok=True)
    binroot = vb.build()
    progs = vb.compile_bench(binroot, args.work)
    stopped = measure(args, binroot, progs, args.raw)
    pack(args.raw)
    rows, cells = rows_of(args.raw, args)
    write_report(args, rows, cells, args.raw, partial_note(stopped, args, args.raw))


def sessions_sizes(meta):
    """The message sizes the measuring sessions in `meta` ran (their --sizes, else SIZES)."""
    sizes = set()
    for session in meta.get("sessions", []):
        argv = session.get("argv", [])
        given = argv[argv.index("--sizes") + 1] if "--sizes" in argv[:-1] else None
        sizes.update(int(x) for x in (given.split(",") if given else SIZES))
    return sorted(sizes)


def partial_note(stopped, args, raw):
    if not stopped:
        return None
    return (f"the measurement stopped ({stopped}) before every cell ran; the tables hold the "
            "cells that finished.")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Measured application time with toporr on the virtual cluster: real MPI applications from
Debian's packages (LAMMPS, HPCC), unchanged, under real Open MPI over the emulated network of
testing/vcluster (hosts as namespaces, tbf-shaped host links and leaf uplinks, toporrd on the
head node).

    bench/vcluster/run_apps_bench.py [--quick] [--reps 5] [--hpcc-reps 3]
        [--profiles tapered,full] [--placements roundrobin,fragmented,leafsorted] [--apps lammps]
        [--hpcc-cells tapered-roundrobin] [--host-mbit 100] [--raw DIR] [--results DIR]
    bench/vcluster/run_apps_bench.py --report-only --raw DIR

For each fabric profile (4:1 tapered, full bisection), placement (node round-robin,
scheduler-fragmented, leaf-sorted by slot: the order a site gets for free) and application, one cell: first a profiled run of the application in
the launch order (LD_PRELOAD=libtoporr_pmpi.so, TOPORR_PROFILE, toporr otherwise disabled),
then `toporrctl plan --traffic` on it with the costs of the cluster's toporrd, then --reps
repetitions of four variants in an order shuffled per repetition:

    default   the application in the launch order, nothing of toporr loaded
    profiled  the application in the order `toporrctl plan --traffic` wrote (--hostfile-out)
    dropin    the launch order under LD_PRELOAD=libtoporr_pmpi.so (toporr's topology
              functions and collectives, rows from toporrd over TCP)
    both      the planned order and the drop-in

Every run records where each rank ran (checked against the hostfile), the application's own
timers and output, which is compared with the default run of the same repetition. Ratios are
per repetition and paired (default time / variant time, > 1: the variant is faster), reported
as median [q1, q3]. Raw outputs go to --raw (a finished cell is not rerun); the report to
bench/results/apps_vcluster.md. Needs root (the cluster), Debian's Open MPI, lammps and hpcc.
"""

import argparse
import json
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tarfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from apps_report import (HPCC_RATES, HPCC_TIMES, THERMO_RTOL, VARIANTS, mb, med,  # noqa: E402
                         paired, report, targets)

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
VC = os.path.join(REPO, "testing/vcluster/vcluster.py")
RESULTS = os.path.join(REPO, "bench/results")
NAME = "vapps"
STATE_ROOT = os.environ.get("VCLUSTER_STATE_ROOT", "/run/toporr-vcluster")
HOSTS = [f"node{i:02d}" for i in range(1, 9)]
# A scheduler that hands out free nodes alternating between the two leaves.
FRAGMENTED = ["node01", "node05", "node02", "node06", "node03", "node07", "node04", "node08"]
# --host-mbit. At 100 Mbit/s the shaped links bound the applications' exchange; at 400 Mbit/s
# the ranks are bound by the host's CPU, the kernel's TCP work and the ranks' polling, instead
# (NOTES.md).
HOST_MBIT = 100
LMP = "/usr/bin/lmp"
HPCC = "/usr/bin/hpcc"
HPCC_EXAMPLE = "/usr/share/doc/hpcc/examples/_hpccinf.txt"

# The LJ benchmark of LAMMPS (bench/in.lj) on a smaller box: 8^3 fcc cells = 2,048 atoms,
# 128 per rank at 16 ranks, so that each step's halo exchange is large against its compute.
LAMMPS_INPUT = """# 3d Lennard-Jones melt: LAMMPS's bench/in.lj with a box of ${s}^3 fcc cells
variable        s index 8
variable        n index 500
units           lj
atom_style      atomic
lattice         fcc 0.8442
region          box block 0 ${s} 0 ${s} 0 ${s}
create_box      1 box
create_atoms    1 box
mass            1 1.0
velocity        all create 1.44 87287 loop geom
pair_style      lj/cut 2.5
pair_coeff      1 1 1.0 1.0 2.5
neighbor        0.3 bin
neigh_modify    delay 0 every 20 check no
fix             1 all nve
thermo          50
run             ${n}
"""
LAMMPS_STEPS = 500
HPCC_N = 800  # HPL's matrix order; HPCC sizes PTRANS, RandomAccess and FFT from it
HPCC_GRIDS = {16: (4, 4), 8: (2, 4)}

# Rank wrapper: records the host each rank runs on, then runs the application, preloaded
# when the variant asks (set here, not through mpirun, so that only the application loads it).
WRAPPER = """#!/bin/sh
hostname > "$APPS_WHERE.$OMPI_COMM_WORLD_RANK"
if [ -n "$APPS_PRELOAD" ]; then
    LD_PRELOAD="$APPS_PRELOAD"
    export LD_PRELOAD
fi
exec "$@"
"""

os.environ.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


def log(msg):
    print(f"apps-bench: {msg}", file=sys.stderr, flush=True)


def run(cmd, **kw):
    kw.setdefault("check", True)
    return subprocess.run([str(c) for c in cmd], **kw)


def placement(name, ranks):
    """Host of each rank in launch order."""
    per = ranks // len(HOSTS)
    if name == "roundrobin":
        return [HOSTS[r % len(HOSTS)] for r in range(ranks)]
    if name == "fragmented":
        return [FRAGMENTED[r // per] for r in range(ranks)]
    if name == "leafsorted":
        # The free baseline: a by-slot launch on the host list sorted by leaf switch (node01-04
        # on one leaf, node05-08 on the other), what Slurm's SwitchAsNodeRank hands out.
        return [HOSTS[r // per] for r in range(ranks)]
    raise ValueError(name)


def build():
    targets = ["//daemon:toporrd", "//client/ctl:toporrctl",
               "//client/mpi/openmpi:libtoporr.so", "//client/mpi/openmpi:libtoporr_pmpi.so"]
    run(["bazel", "build", "-c", "opt"] + targets, cwd=REPO)
    return run(["bazel", "info", "-c", "opt", "bazel-bin"], cwd=REPO, capture_output=True,
               text=True).stdout.strip()


def available_apps(wanted):
    """app -> None when it can run, else why it is skipped."""
    why = {}
    for app in wanted:
        if app == "lammps":
            why[app] = None if os.access(LMP, os.X_OK) else f"{LMP} not found"
        elif app == "hpcc":
            if not os.access(HPCC, os.X_OK):
                why[app] = f"{HPCC} not found"
            elif not os.path.exists(HPCC_EXAMPLE):
                why[app] = f"{HPCC_EXAMPLE} (the input template) not found"
            else:
                why[app] = None
        else:
            raise ValueError(app)
    return why


def hpcc_input(ranks):
    """Debian's example hpccinf.txt with the matrix order and process grid of this job."""
    p, q = HPCC_GRIDS[ranks]
    lines = open(HPCC_EXAMPLE).read().split("\n")
    # Lines 6, 11 and 12 (1-based) hold Ns, Ps and Qs.
    lines[5] = f"{HPCC_N:<12} Ns"
    lines[10] = f"{p:<12} Ps"
    lines[11] = f"{q:<12} Qs"
    return "\n".join(lines)


# ---- parsing the applications' output ----

def parse_lammps(text):
    out = {"thermo": [], "ok": False}
    m = re.search(r"^Loop time of ([0-9.eE+-]+) on (\d+) procs for (\d+) steps", text, re.M)
    if m:
        out["time_s"] = float(m.group(1))
        out["ok"] = True
    m = re.search(r"^Comm\s*\|\s*([0-9.eE+-]+)\s*\|\s*([0-9.eE+-]+)\s*\|\s*([0-9.eE+-]+)"
                  r"\s*\|\s*([0-9.eE+-]+)\s*\|\s*([0-9.eE+-]+)", text, re.M)
    if m:
        out["comm_s"] = float(m.group(2))
        out["comm_pct"] = float(m.group(5))
    inside = False
    for line in text.splitlines():
        if line.startswith("Step "):
            inside = True
            continue
        if line.startswith("Loop time"):
            inside = False
        if inside:
            f = line.split()
            try:
                out["thermo"].append([float(x) for x in f])
            except ValueError:
                pass
    return out


def parse_hpcc(text):
    kv = {}
    m = re.search(r"Begin of Summary section\.\n(.*?)End of Summary section", text, re.S)
    if m:
        for line in m.group(1).splitlines():
            if "=" in line:
                k, v = line.split("=", 1)
                try:
                    kv[k.strip()] = float(v)
                except ValueError:
                    kv[k.strip()] = v.strip()
    out = {"ok": bool(kv) and all(k in kv for k in HPCC_TIMES)}
    if out["ok"]:
        out["time_s"] = sum(kv[k] for k in HPCC_TIMES)
        for k in HPCC_TIMES + HPCC_RATES:
            out[k] = kv.get(k)
    # HPCC's own verdicts: RandomAccess's "(passed)", HPL's and PTRANS's "PASSED" rows, the
    # counts of runs that failed their residual checks, STREAM's validation.
    out["verdicts"] = ([w for w in re.findall(r"\((passed|failed)\)", text)] +
                       [w.lower() for w in re.findall(r"\b(PASSED|FAILED)\b", text)] +
                       ["failed" if int(n) else "passed" for n in
                        re.findall(r"(\d+) tests completed and failed residual checks", text)] +
                       ["passed" for _ in re.findall(r"Solution Validates", text)] +
                       ["failed" for _ in re.findall(r"Failed Validation", text)])
    out["success"] = kv.get("Success")
    return out


def thermo_diff(a, b):
    """Largest relative difference between two runs' thermo tables; None if their shapes
    differ (another number of lines or columns: a mismatch)."""
    if len(a) != len(b) or not a:
        return None
    worst = 0.0
    for ra, rb in zip(a, b):
        if len(ra) != len(rb):
            return None
        for x, y in zip(ra, rb):
            scale = max(abs(x), abs(y))
            if scale > 0:
                worst = max(worst, abs(x - y) / scale)
    return worst


def check_output(app, run_out, default_out):
    """(correct, detail) of a run against the default run of the same repetition."""
    if not run_out.get("ok"):
        return False, "no result"
    if app == "lammps":
        d = thermo_diff(run_out["thermo"], default_out["thermo"]) if default_out.get("ok") \
            else None
        if d is None:
            return False, "thermo lines differ in shape"
        return d <= THERMO_RTOL, f"max rel diff {d:.1e}"
    ok = run_out["success"] == 1 and "failed" not in run_out["verdicts"]
    same = run_out["verdicts"] == default_out.get("verdicts")
    return ok and same, ("" if ok else "HPCC reports a failure; ") + (
        "" if same else "verdicts differ from the default run's")


def profile_bytes(path):
    """p2p, rma and collective bytes of a traffic profile."""
    p2p = rma = coll = 0
    with open(path) as f:
        for line in f:
            w = line.split()
            if w and w[0] == "p2p":
                p2p += int(w[3])
            elif w and w[0] == "rma":
                rma += int(w[3]) + int(w[4])
            elif w and w[0] == "coll":
                coll += int(w[4])
    return {"p2p": p2p, "rma": rma, "coll": coll}


# ---- running ----

class Cell:
    def __init__(self, profile, app, ranks, pl, reps):
        self.profile, self.app, self.ranks, self.pl, self.reps = profile, app, ranks, pl, reps
        self.tag = f"{profile}-{app}-{ranks}-{pl}"


def app_argv(app, workdir):
    if app == "lammps":
        return [LMP, "-in", os.path.join(workdir, "in.lj"), "-log", "none", "-var", "n",
                str(LAMMPS_STEPS)]
    return [HPCC]


def run_app(cell, rundir, hosts, env, preload, binroot, wrapper, args):
    """One launch of the application; returns its parsed output and the run's record."""
    shutil.rmtree(rundir, ignore_errors=True)
    os.makedirs(rundir)
    hostfile = os.path.join(rundir, "hosts")
    with open(hostfile, "w") as f:
        f.write("".join(h + "\n" for h in hosts))
    if cell.app == "lammps":
        with open(os.path.join(rundir, "in.lj"), "w") as f:
            f.write(LAMMPS_INPUT)
    else:
        with open(os.path.join(rundir, "hpccinf.txt"), "w") as f:
            f.write(hpcc_input(cell.ranks))
    where = os.path.join(rundir, "where")
    # One-sided components as client/mpi/testing/profile_test.py uses them, for every variant.
    env = dict(env, APPS_WHERE=where, OMPI_MCA_osc="sm,pt2pt")
    if preload:
        env["APPS_PRELOAD"] = os.path.join(binroot, "client/mpi/openmpi/libtoporr_pmpi.so")
    cmd = [sys.executable, VC, "mpirun", "--name", NAME, "openmpi", "--hostfile", hostfile,
           "--mca", "rmaps", "seq", "-np", str(cell.ranks), "--bind-to", "none"]
    for k, v in sorted(env.items()):
        cmd += ["-x", f"{k}={v}"]
    cmd += [wrapper] + app_argv(cell.app, rundir)
    load0 = os.getloadavg()[0]
    t0 = time.monotonic()
    p = run(cmd, check=False, capture_output=True, text=True, cwd=rundir,
            timeout=args.run_timeout)
    wall = time.monotonic() - t0
    with open(os.path.join(rundir, "stdout"), "w") as f:
        f.write(p.stdout)
    with open(os.path.join(rundir, "stderr"), "w") as f:
        f.write(p.stderr)
    if p.returncode != 0:
        raise RuntimeError(f"{cell.tag} {rundir}: exit {p.returncode}\n{p.stdout[-1500:]}\n"
                           f"{p.stderr[-1500:]}")
    if "cannot be preloaded" in p.stderr:
        raise RuntimeError(f"{cell.tag} {rundir}: the drop-in was not loaded\n{p.stderr[-800:]}")
    ran = []
    for r in range(cell.ranks):
        try:
            with open(f"{where}.{r}") as f:
                ran.append(f.read().strip())
        except OSError:
            ran.append(None)
    if ran != hosts:
        raise RuntimeError(f"{cell.tag} {rundir}: ranks ran on {ran}, asked {hosts}")
    if cell.app == "lammps":
        out = parse_lammps(p.stdout)
    else:
        path = os.path.join(rundir, "hpccoutf.txt")
        out = parse_hpcc(open(path).read() if os.path.exists(path) else "")
    rec = {"wall_s": round(wall, 2), "load1": [round(load0, 2), round(os.getloadavg()[0], 2)]}
    return out, rec


def plan(cell, state_dir, binroot, cdir, hosts, prof):
    """toporrctl plan --traffic from the daemon on the head node; the planned hosts."""
    distinct = list(dict.fromkeys(hosts))
    hostfile = os.path.join(cdir, "plan.hosts")
    ranksfile = os.path.join(cdir, "plan.ranks")
    out = os.path.join(cdir, "planned.hosts")
    with open(hostfile, "w") as f:
        f.write("".join(f"{h} slots={hosts.count(h)}\n" for h in distinct))
    with open(ranksfile, "w") as f:
        f.write("".join(h + "\n" for h in hosts))
    p = run([sys.executable, VC, "exec", "--name", NAME, "head", "--", "env",
             f"TOPORR_CONFIG={os.path.join(state_dir, 'client.conf')}",
             os.path.join(binroot, "client/ctl/toporrctl"), "--json", "plan", "--hostfile",
             hostfile, "--ranks", ranksfile, "--traffic", prof, "--hostfile-out", out],
            capture_output=True, text=True, check=False, timeout=120)
    if p.returncode != 0:
        raise RuntimeError(f"{cell.tag}: toporrctl plan failed: {p.stderr.strip()[-1000:]}")
    with open(os.path.join(cdir, "plan.json"), "w") as f:
        f.write(p.stdout)
    with open(out) as f:
        planned = [l.strip() for l in f if l.strip() and not l.startswith("#")]
    if sorted(planned) != sorted(hosts):
        raise RuntimeError(f"{cell.tag}: planned hosts {planned} are not the job's {hosts}")
    return planned


def measure_cell(cell, args, binroot, wrapper, state_dir):
    cdir = os.path.join(args.raw, cell.tag)
    shutil.rmtree(cdir, ignore_errors=True)
    os.makedirs(cdir)
    hosts = placement(cell.pl, cell.ranks)
    records = []
    # The profiled run (also the cell's warm-up; not reported as a variant).
    prof = os.path.join(cdir, "traffic.prof")
    out, rec = run_app(cell, os.path.join(cdir, "run-profile"), hosts,
                       {"TOPORR_PROFILE": prof, "TOPORR_DISABLE": "1"}, True, binroot, wrapper,
                       args)
    if not os.path.exists(prof):
        raise RuntimeError(f"{cell.tag}: the profiled run wrote no {prof}")
    records.append(dict(kind="profile_run", **rec, time_s=out.get("time_s"),
                        bytes=profile_bytes(prof)))
    planned = plan(cell, state_dir, binroot, cdir, hosts, prof)
    pj = json.load(open(os.path.join(cdir, "plan.json")))
    records.append({"kind": "plan", "launch": hosts, "planned": planned,
                    "new_order": pj.get("new_order"), "speedup": pj.get("speedup"),
                    "reordered": pj.get("reordered"),
                    "before_ns": (pj.get("before") or {}).get("time_ns"),
                    "after_ns": (pj.get("after") or {}).get("time_ns")})
    dropin_env = {"TOPORR_CONFIG": os.path.join(state_dir, "client.conf"),
                  "TOPORR_SOCKET": "/nonexistent", "TOPORR_DEADLINE_MS": "5000"}
    rng = random.Random(cell.tag)
    for rep in range(cell.reps):
        order = VARIANTS[:]
        rng.shuffle(order)
        outs = {}
        for v in order:
            env = dict(dropin_env, TOPORR_REPORT=os.path.join(cdir, f"report-{v}.jsonl")) \
                if v in ("dropin", "both") else {}
            h = planned if v in ("profiled", "both") else hosts
            outs[v], rec = run_app(cell, os.path.join(cdir, f"run-{rep}-{v}"), h, env,
                                   v in ("dropin", "both"), binroot, wrapper, args)
            rec.update(kind="run", rep=rep, variant=v, position=order.index(v))
            rec.update({k: x for k, x in outs[v].items() if k not in ("thermo", "verdicts")})
            records.append(rec)
            log(f"  {cell.tag} rep {rep} {v}: {outs[v].get('time_s')} s (wall {rec['wall_s']} s,"
                f" load {rec['load1'][0]})")
        for r in records:
            if r.get("kind") == "run" and r["rep"] == rep:
                ok, detail = check_output(cell.app, outs[r["variant"]], outs["default"])
                r["correct"], r["check"] = ok, detail
    with open(os.path.join(cdir, "cell.jsonl.tmp"), "w") as f:
        f.write("".join(json.dumps(r) + "\n" for r in records))
    os.replace(os.path.join(cdir, "cell.jsonl.tmp"), os.path.join(cdir, "cell.jsonl"))


def cells_of(args, skipped):
    cells = []
    for profile in args.profiles:
        for pl in args.placements:
            for app in args.apps:
                if skipped.get(app):
                    continue
                if app == "hpcc" and args.hpcc_cells and f"{profile}-{pl}" not in args.hpcc_cells:
                    continue
                cells.append(Cell(profile, app, args.ranks, pl,
                                  args.hpcc_reps if app == "hpcc" else args.reps))
    return cells


def measure(args, binroot, cells):
    toporrd = os.path.join(binroot, "daemon/toporrd")
    toporrctl = os.path.join(binroot, "client/ctl/toporrctl")
    wrapper = os.path.join(args.work, "rank.sh")
    with open(wrapper, "w") as f:
        f.write(WRAPPER)
    os.chmod(wrapper, 0o755)
    state_dir = os.path.join(STATE_ROOT, NAME)
    start, done = time.monotonic(), 0
    for profile in args.profiles:
        pending = [c for c in cells if c.profile == profile and
                   not os.path.exists(os.path.join(args.raw, c.tag, "cell.jsonl"))]
        done += len([c for c in cells if c.profile == profile]) - len(pending)
        if not pending:
            continue
        run([sys.executable, VC, "down", "--name", NAME], check=False)
        try:
            run([sys.executable, VC, "up", "--name", NAME, "--profile", profile, "--host-mbit",
                 HOST_MBIT, "--toporrd", toporrd, "--toporrctl", toporrctl])
            for cell in pending:
                t0 = time.monotonic()
                measure_cell(cell, args, binroot, wrapper, state_dir)
                done += 1
                log(f"[{done}/{len(cells)}] {cell.tag}: {time.monotonic() - t0:.0f} s (elapsed "
                    f"{(time.monotonic() - start) / 60:.1f} min)")
        finally:
            run([sys.executable, VC, "down", "--name", NAME], check=False)


# What the report reads of a cell's raw folder (the runs' own outputs stay out of the archive).
RAW_FILES = ("cell.jsonl", "report-dropin.jsonl", "report-both.jsonl", "traffic.prof")


def pack_raw(raw, cells, archive):
    """The raw results the report reads (bench.json, each measured cell's RAW_FILES) into
    `archive` (tar.xz), so that the table regenerates from the checkout."""
    with tarfile.open(archive, "w:xz") as t:
        t.add(os.path.join(raw, "bench.json"), arcname="bench.json")
        for cell in cells:
            for name in RAW_FILES:
                path = os.path.join(raw, cell.tag, name)
                if os.path.exists(path):
                    t.add(path, arcname=f"{cell.tag}/{name}")
    log(f"wrote {archive}")


def unpack_raw(archive, raw):
    """pack_raw's archive into the folder `raw` (regular files of the expected names only)."""
    with tarfile.open(archive) as t:
        for m in t.getmembers():
            parts = m.name.split("/")
            ok = (m.isfile() and ".." not in parts and
                  (parts == ["bench.json"] or (len(parts) == 2 and parts[1] in RAW_FILES)))
            if not ok:
                continue
            dest = os.path.join(raw, *parts)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            with open(dest, "wb") as f:
                f.write(t.extractfile(m).read())


def raw_rate_agrees(args):
    """A raw folder holds runs at one host rate: it is written to DIR/bench.json by the first
    measuring run, a later run at another rate is refused, and --report-only takes it."""
    meta_path = os.path.join(args.raw, "bench.json")
    if os.path.exists(meta_path):
        with open(meta_path) as f:
            meta = json.load(f)
        rate = float(meta["host_mbit"])
        if args.report_only:
            args.host_mbit = rate
            # The table names the command that measured it.
            args.command = meta.get("command", args.command)
        elif rate != args.host_mbit:
            print(f"apps-bench: {meta_path}: the runs there were measured at {rate:g} Mbit/s, "
                  f"not {args.host_mbit:g}: pass --host-mbit {rate:g} or another --raw",
                  file=sys.stderr)
            return False
    elif not args.report_only:
        with open(meta_path, "w") as f:
            json.dump({"host_mbit": args.host_mbit, "command": args.command}, f)
            f.write("\n")
    return True


# ---- report ----

def main():
    global HOST_MBIT, LAMMPS_STEPS
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=5, help="repetitions per cell (LAMMPS)")
    ap.add_argument("--hpcc-reps", type=int, default=3,
                    help="repetitions per HPCC cell (a run takes ~2 min: b_eff runs for a "
                         "fixed time)")
    ap.add_argument("--profiles", default="tapered,full")
    ap.add_argument("--placements", default="roundrobin,fragmented,leafsorted")
    ap.add_argument("--apps", default="lammps",
                    help="lammps and/or hpcc (HPCC: about 2.5 min a run at 400 Mbit/s, over "
                         "8 min at 100: its table is measured with --apps hpcc --host-mbit 400)")
    ap.add_argument("--hpcc-cells", default="tapered-roundrobin",
                    help="PROFILE-PLACEMENT cells HPCC runs in ('' = all)")
    ap.add_argument("--ranks", type=int, default=16, help="16 (8 hosts x 2) or 8 (8 x 1)")
    ap.add_argument("--lammps-steps", type=int, default=LAMMPS_STEPS)
    ap.add_argument("--quick", action="store_true",
                    help="a smoke run: tapered, round-robin, 2 reps of LAMMPS, 1 of HPCC")
    ap.add_argument("--raw", default="/tmp/toporr-apps-bench",
                    help="raw results (kept between runs: a finished cell is not rerun)")
    ap.add_argument("--host-mbit", type=float, default=HOST_MBIT,
                    help="host link rate (default 100; uplinks follow the profile)")
    ap.add_argument("--results", default=RESULTS, help="where the table goes")
    ap.add_argument("--run-timeout", type=int, default=900, help="seconds per application run")
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--archive", default="",
                    help="after measuring, pack the raw results the report reads into this "
                         "tar.xz (commit it beside the table); with --report-only, unpack it "
                         "into --raw first")
    args = ap.parse_args()
    # The command that measures (a report made again from its raw data names it too).
    args.command = " ".join(["bench/vcluster/run_apps_bench.py"] +
                            [a for a in sys.argv[1:] if a != "--report-only"])
    if args.quick:
        args.reps, args.hpcc_reps, args.profiles, args.placements = 2, 1, "tapered", "roundrobin"
    LAMMPS_STEPS = args.lammps_steps
    args.profiles = args.profiles.split(",")
    args.placements = args.placements.split(",")
    args.apps = [a for a in args.apps.split(",") if a]
    args.hpcc_cells = [c for c in args.hpcc_cells.split(",") if c]
    if args.ranks not in (16, 8):
        ap.error("--ranks: 16 or 8")
    if any(a not in ("lammps", "hpcc") for a in args.apps):
        ap.error("--apps: lammps and/or hpcc")
    skipped = available_apps(args.apps)
    for app, why in skipped.items():
        if why:
            print(f"apps-bench: {app} SKIPPED: {why}", flush=True)
    os.makedirs(args.raw, exist_ok=True)
    if args.report_only and args.archive:
        unpack_raw(args.archive, args.raw)
    if not raw_rate_agrees(args):
        sys.exit(1)
    args.work = os.path.join(args.raw, "work")
    os.makedirs(args.work, exist_ok=True)
    HOST_MBIT = args.host_mbit
    cells = cells_of(args, skipped)

    def on_signal(signum, _frame):
        raise KeyboardInterrupt(f"signal {signum}")

    # Stopped runs take the cluster down (the finally in measure); SIGKILL leaves it to
    # `vcluster.py down --name vapps`.
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)
    if not args.report_only:
        if os.geteuid() != 0:
            sys.exit("apps-bench: must run as root (the virtual cluster)")
        t0 = time.monotonic()
        binroot = build()
        measure(args, binroot, cells)
        log(f"measured in {(time.monotonic() - t0) / 60:.1f} min")
        if args.archive:
            pack_raw(args.raw, cells, args.archive)
    report(args, cells, skipped)


if __name__ == "__main__":
    main()

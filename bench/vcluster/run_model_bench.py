#!/usr/bin/env python3
"""The cost model against the virtual cluster's measurements: the InfiniBand preset and the
model `toporrctl calibrate` fits to a `toporr-probe` run on each fabric profile.

    bench/vcluster/run_model_bench.py [--profiles tapered,tree3,damaged,uneven,dragonfly]
        [--raw DIR]                   (measure: root, ~2 min per profile)
    bench/vcluster/run_model_bench.py --report-only   (from the committed raw archives)

Measure: per profile of run_baselines_bench.py (the same `vcluster up` options and host link
rate), `toporr-probe` over every host (one rank each, Open MPI, sizes 0, 64 KiB and 1 MiB,
3 repetitions); the cluster's fabric dump and the probe's probe.json are kept.

Report: per profile, `toporrctl calibrate --kind tcp` on its probe and dump (the fit is shown),
then every measured comparison of run_baselines_bench.py's raw data (its archive) that is not
the drop-in's selection -- `A@toporr` against `default` and `default@leafsorted`, and
`default@leafsorted` against `default` -- predicted by `toporrctl plan --fabric DUMP --ranks`
on the orders that ran (the library's call: the `mpi_library` candidate of `--mpi-library`;
toporr's algorithm A: `--algorithm A` on the order toporr gave it), once with the preset and
once with `--cost-model` the fitted model. A cell is within when the predicted ratio (baseline
time / variant time) is within 25 % of the measured median of paired ratios. A/A cells (the
same order twice) are left out: both are 1 there by construction.

Raw data: DIR/fabric-PROFILE.txt, DIR/probe-PROFILE.json, DIR/meta.json, packed into
bench/results/model_calibration_raw.tar.gz. Writes bench/results/model_quality_vcluster.md.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time

import run_baselines_bench as rb
import run_vcluster_bench as vb

RESULTS = vb.RESULTS
ARCHIVE = os.path.join(RESULTS, "model_calibration_raw.tar.gz")
REPORT = os.path.join(RESULTS, "model_quality_vcluster.md")
NAME = "vmodel"
SIZES = "0,65536,1048576"
WITHIN = 0.25
TARGET = 0.85


def log(msg):
    print(f"model-bench: {msg}", file=sys.stderr, flush=True)


def binaries(root=""):
    """toporrd, toporrctl and the Open MPI probe: under `root` (a bazel-bin), else built -c
    opt."""
    if not root:
        vb.run(["bazel", "build", "-c", "opt", "//daemon:toporrd", "//client/ctl:toporrctl",
                "//probe:toporr-probe"], cwd=vb.REPO)
        root = vb.run(["bazel", "info", "-c", "opt", "bazel-bin"], cwd=vb.REPO,
                      capture_output=True, text=True).stdout.strip()
    return {k: os.path.join(root, v) for k, v in (("toporrd", "daemon/toporrd"),
                                                  ("toporrctl", "client/ctl/toporrctl"),
                                                  ("probe", "probe/toporr-probe"))}


def measure(args, bins):
    meta_path = os.path.join(args.raw, "meta.json")
    meta = json.load(open(meta_path)) if os.path.exists(meta_path) else {"sessions": []}
    session = {"start": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
               "argv": sys.argv[1:], "profiles": {}}
    meta["sessions"].append(session)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    try:
        for profile in args.profiles:
            probe = os.path.join(args.raw, f"probe-{profile}.json")
            if os.path.exists(probe):
                continue
            spec = rb.PROFILES[profile]
            subprocess.run([sys.executable, vb.VC, "down", "--name", NAME], check=False)
            subprocess.run([sys.executable, vb.VC, "up", "--name", NAME] + spec["up"] +
                           ["--host-mbit", str(spec["mbit"]), "--toporrd", bins["toporrd"],
                            "--toporrctl", bins["toporrctl"]], check=True)
            try:
                st = json.loads(subprocess.run([sys.executable, vb.VC, "status", "--name", NAME,
                                                "--json"], check=True, capture_output=True,
                                               text=True).stdout)
                shutil.copy(os.path.join(st["state_dir"], "fabric", "ibnetdiscover.txt"),
                            os.path.join(args.raw, f"fabric-{profile}.txt"))
                hosts = [h["name"] for h in st["layout"]["hosts"]]
                t0 = time.monotonic()
                work = tempfile.mkdtemp(prefix="model-bench.")
                p = subprocess.run([sys.executable, vb.VC, "mpirun", "--name", NAME, "openmpi",
                                    "--host", ",".join(hosts), "--map-by", "node", "-np",
                                    str(len(hosts)), bins["probe"], "--out", probe, "--sizes",
                                    SIZES, "--repetitions", "3"], capture_output=True,
                                   text=True, timeout=1800, env=env, cwd=work)
                shutil.rmtree(work, ignore_errors=True)
                if p.returncode != 0:
                    raise RuntimeError(f"{profile}: probe exit {p.returncode}\n{p.stderr[-2000:]}")
                session["profiles"][profile] = {"hosts": len(hosts), "host_mbit": spec["mbit"],
                                                "probe_s": round(time.monotonic() - t0, 1),
                                                "describe": st.get("describe")}
                log(f"{profile}: probe of {len(hosts)} hosts in "
                    f"{time.monotonic() - t0:.0f} s")
            finally:
                subprocess.run([sys.executable, vb.VC, "down", "--name", NAME], check=False)
    finally:
        session["end"] = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
        with open(meta_path, "w") as f:
            json.dump(meta, f, indent=1)
    with tarfile.open(ARCHIVE, "w:gz") as t:
        for f in sorted(os.listdir(args.raw)):
            if f.startswith(("fabric-", "probe-")) or f == "meta.json":
                t.add(os.path.join(args.raw, f), arcname=f)
    log(f"wrote {ARCHIVE}")


def unpack(archive, dest):
    with tarfile.open(archive) as t:
        for m in t.getmembers():
            if m.isfile() and "/" not in m.name and not m.name.startswith("."):
                with open(os.path.join(dest, m.name), "wb") as f:
                    f.write(t.extractfile(m).read())


class Planner:
    """Predicted times from `toporrctl plan` offline, cached per question."""

    def __init__(self, toporrctl, work):
        self.toporrctl, self.work, self.cache, self.calls = toporrctl, work, {}, 0

    def time_ns(self, dump, model, mpi, coll, size, rank_hosts, algorithm):
        key = (dump, model, mpi, coll, size, tuple(rank_hosts), algorithm)
        if key in self.cache:
            return self.cache[key]
        hf, rf = rb.plan_files(self.work, "model", rank_hosts)
        cmd = [self.toporrctl, "--json", "plan", "--fabric", dump, "--hostfile", hf, "--ranks",
               rf, "--collective", coll, "--size", str(size)]
        if model:
            cmd += ["--cost-model", model]
        cmd += (["--mpi-library", mpi] if algorithm is None else ["--algorithm", algorithm])
        p = subprocess.run(cmd, capture_output=True, text=True)
        self.calls += 1
        if p.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)}: {p.stderr}")
        d = json.loads(p.stdout)
        if algorithm is None:
            t = next(c["time_ns"] for c in d["candidates"]
                     if c["algorithm"] == "mpi_library" and c["mapping"] == "identity")
        else:
            t = d["before"]["time_ns"]
        self.cache[key] = t
        return t


def calibrate(toporrctl, dump, probe, out_conf):
    p = subprocess.run([toporrctl, "--json", "calibrate", "--kind", "tcp", "--fabric", dump,
                        "--output", out_conf, probe], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"calibrate {probe}: {p.stderr}")
    return json.loads(p.stdout)


def cells(baselines_raw, profile):
    """Every measured (mpi, placement, collective) job of the profile: its hosts, leaf order,
    orders of toporr's variants and times."""
    out = []
    for f in sorted(os.listdir(baselines_raw)):
        if not (f.startswith(profile + "-") and f.endswith(".jsonl")) or f.endswith(
                ".report.jsonl"):
            continue
        _, mpi, placement, coll = f[:-len(".jsonl")].split("-")
        cell, orders, times = rb.read_job(os.path.join(baselines_raw, f))
        if cell:
            out.append(dict(mpi=mpi, placement=placement, coll=coll, cell=cell, orders=orders,
                            times=times))
    return out


def rows_for(planner, dump, models, job, sizes):
    hosts, leaf = job["cell"]["hosts"], job["cell"]["leaf_order"]
    leaf_hosts = [hosts[r] for r in leaf]
    rows = []
    for size in sizes:
        def t(model, variant):
            if variant == "default":
                return planner.time_ns(dump, model, job["mpi"], job["coll"], size, hosts, None)
            if variant == "default@leafsorted":
                return planner.time_ns(dump, model, job["mpi"], job["coll"], size, leaf_hosts,
                                       None)
            o = job["orders"].get((variant, size))
            if not o or o["fallback"]:
                return None
            algorithm = variant.split("@")[0]
            return planner.time_ns(dump, model, job["mpi"], job["coll"], size,
                                   [hosts[r] for r in o["order"]], algorithm)

        for label, base, var, kind in rb.comparisons(job["coll"]):
            if kind == "selection":
                continue
            r = vb.paired(job["times"], base, var, size)
            if not r:
                continue
            o = job["orders"].get((var, size))
            if kind == "leafsort" and leaf == sorted(leaf):
                continue  # A/A
            if kind != "leafsort" and (not o or o["fallback"]):
                continue
            row = dict(mpi=job["mpi"], placement=job["placement"], coll=job["coll"],
                       comparison=label, bytes=size, measured=statistics.median(r))
            for name, model in models.items():
                tb, tv = t(model, base), t(model, var)
                row[name] = tb / tv if tb and tv else None
            rows.append(row)
    return rows


def within(row, name):
    return row.get(name) is not None and abs(row[name] / row["measured"] - 1) <= WITHIN


def report(args):
    bins = binaries(args.bin_root)
    with tempfile.TemporaryDirectory() as tmp:
        raw = os.path.join(tmp, "model")
        base = os.path.join(tmp, "baselines")
        os.makedirs(raw)
        os.makedirs(base)
        unpack(ARCHIVE, raw)
        unpack(rb.ARCHIVE, base)
        bmeta = json.load(open(os.path.join(base, "meta.json")))
        sizes = rb.sessions_sizes(bmeta) or rb.SIZES
        planner = Planner(bins["toporrctl"], tmp)
        fits, rows = {}, {}
        for profile in args.profiles:
            dump = os.path.join(raw, f"fabric-{profile}.txt")
            probe = os.path.join(raw, f"probe-{profile}.json")
            if not (os.path.exists(dump) and os.path.exists(probe)):
                continue
            conf = os.path.join(RESULTS, f"model_calibration_{profile}.conf")
            fits[profile] = calibrate(bins["toporrctl"], dump, probe, conf)
            models = {"preset": None, "fitted": conf}
            rows[profile] = [r for job in cells(base, profile)
                             for r in rows_for(planner, dump, models, job, sizes)]
            log(f"{profile}: {len(rows[profile])} cells ({planner.calls} plans so far)")
        write_report(fits, rows, sizes)


def share(rows, name):
    n = [r for r in rows if r.get(name) is not None and r.get("measured")]
    k = sum(within(r, name) for r in n)
    return k, len(n)


def pct(k, n):
    return f"{k}/{n} ({100 * k / n:.0f} %)" if n else "-"


def write_report(fits, rows, sizes):
    out = ["# The cost model on the virtual cluster: preset and calibrated", "",
           "Written by `bench/vcluster/run_model_bench.py --report-only` from "
           "`bench/results/model_calibration_raw.tar.gz` (each profile's fabric dump and "
           "`toporr-probe` measurement) and `vcluster_baselines_raw.tar.gz` (the measured "
           "collectives); do not edit by hand. The fitted models are committed beside it as "
           "`model_calibration_PROFILE.conf`.", "",
           "Per cell (profile, MPI, starting order, collective, comparison, size): the "
           "measured median of paired ratios (baseline time / variant time) against the "
           "ratio `toporrctl plan` predicts for the same orders, with the InfiniBand HDR "
           "preset (the constants toporrd serves by default) and with the model "
           "`toporrctl calibrate --kind tcp` fitted to the profile's probe. Within: "
           f"|predicted / measured - 1| <= {int(WITHIN * 100)} %. Target: within in >= "
           f"{int(TARGET * 100)} % of the cells at every size, on every profile.", "",
           "## The fits", "",
           "| profile | per-message us | switch us | host rate scale | switch rate scale | "
           "probe points within 25 %: preset | fitted |", "|---|---|---|---|---|---|---|"]
    for profile, f in fits.items():
        m = f["fitted"]
        out.append(f"| {profile} | {m['per_message_ns'] / 1e3:.1f} | "
                   f"{m['switch_latency_ns'] / 1e3:.2f} | {m['host_rate_scale']:.5f} | "
                   f"{m['switch_rate_scale']:.5f} | "
                   f"{pct(f['within_25_percent_preset'], f['points'])} | "
                   f"{pct(f['within_25_percent_fitted'], f['points'])} |")
    out += ["", "## Cells within 25 % of the measured ratio", "",
            "| profile | " + " | ".join(f"{vb.human(s)}: preset | fitted" for s in sizes) +
            " | all: preset | fitted | target |",
            "|---|" + "---|---|" * len(sizes) + "---|---|---|"]
    every = []
    met_all = True
    for profile, rs in rows.items():
        every += rs
        line = f"| {profile} |"
        met = True
        for s in sizes:
            at = [r for r in rs if r["bytes"] == s]
            kp, n = share(at, "preset")
            kf, nf = share(at, "fitted")
            met &= nf > 0 and kf >= TARGET * nf
            line += f" {pct(kp, n)} | {pct(kf, nf)} |"
        kp, n = share(rs, "preset")
        kf, nf = share(rs, "fitted")
        met_all &= met
        out.append(line + f" {pct(kp, n)} | {pct(kf, nf)} | {'met' if met else 'missed'} |")
    kp, n = share(every, "preset")
    kf, nf = share(every, "fitted")
    out += ["", f"All cells: preset {pct(kp, n)}, fitted {pct(kf, nf)}; the target "
            f"(>= {int(TARGET * 100)} % at every size on every profile) is "
            f"**{'met' if met_all and rows else 'missed'}**.", "",
            "## Every cell", "",
            "| profile | MPI | start | collective | comparison | size | measured | preset | "
            "fitted |", "|---|---|---|---|---|---|---|---|---|"]
    for profile, rs in rows.items():
        for r in rs:
            fmt = lambda name: ("-" if r.get(name) is None else
                                f"{r[name]:.2f}{'' if within(r, name) else ' (off)'}")
            out.append(f"| {profile} | {r['mpi']} | {r['placement']} | {r['coll']} | "
                       f"{r['comparison']} | {vb.human(r['bytes'])} | {r['measured']:.2f} | "
                       f"{fmt('preset')} | {fmt('fitted')} |")
    with open(REPORT, "w") as f:
        f.write("\n".join(out) + "\n")
    log(f"wrote {REPORT}")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--profiles", default=",".join(rb.PROFILES))
    ap.add_argument("--raw", default="/tmp/toporr-model-bench")
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--bin-root", default="",
                    help="a bazel-bin holding the binaries (default: build them -c opt)")
    args = ap.parse_args()
    args.profiles = args.profiles.split(",")
    if any(p not in rb.PROFILES for p in args.profiles):
        ap.error(f"--profiles: of {', '.join(rb.PROFILES)}")
    if not args.report_only:
        if os.geteuid() != 0:
            sys.exit("model-bench: must run as root (the virtual cluster)")
        os.makedirs(args.raw, exist_ok=True)
        measure(args, binaries(args.bin_root))
    report(args)


if __name__ == "__main__":
    main()

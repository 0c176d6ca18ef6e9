#!/bin/bash
# Scale benchmark: from the real tools' dumps to routes, at 2,048 and 10,240 hosts.
#
#   bazel --output_base=... run -c opt //bench:run_scale_bench -- [CACHE_DIR] [SIZES...]
#
# 1. For each size (default: 2048 10240 hosts) bench/make_fattree.sh makes, or reuses from
#    CACHE_DIR (default /tmp/toporr-bench; never committed), a 3-level fat tree dumped by
#    ibsim + opensm + ibnetdiscover + dump_fts with OpenSM's opensm-lfts.dump (10,240 hosts:
#    ~90 s and ~1.5 GB the first time).
# 2. Runs bench/scale_bench on it, one process per group of benchmarks so that each group's
#    peak_rss_MB is its own (inputs it needs included): ibnetdiscover parse; opensm-lfts.dump
#    parse; dump_fts parse; SQLite store (ingest fabric + LFTs into a fresh file, unchanged
#    re-ingest, load); LftRoutes::Create and the per-pair route walk; DiffFabrics (topology,
#    one changed LFT entry, one unplugged host). 3 repetitions, medians.
# 3. Prints figures as ratios against baselines of the same run: parsers against a memchr
#    line scan of the same buffer, LFT route walks against graph (shortest-path) route walks.
#    JSON: CACHE_DIR/scale_bench-<hosts>-<group>.json.
# Exit status: 0 when every LFT parse reaches 150 MB/s, 3 when not, 1 on errors.
set -u -o pipefail

SCRIPT=run_scale_bench
. "$0.runfiles/toporr/bench/bench_env.sh" 2>/dev/null ||
  . "${RUNFILES_DIR:-/nonexistent}/toporr/bench/bench_env.sh" 2>/dev/null ||
  . "$(dirname "$0")/bench_env.sh" || exit 1

SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(2048 10240)

BENCH=${SCALE_BENCH:-$ROOT/bench/scale_bench}
[ -x "$BENCH" ] || die "no benchmark binary at $BENCH; use 'bazel run //bench:run_scale_bench'" \
  "or set SCALE_BENCH=/path/to/scale_bench"

GROUPS_=(
  "ibnetdiscover:^BM_LineScan/0\$|^BM_ParseIbnetdiscover"
  "opensm_lfts:^BM_LineScan/1\$|^BM_ParseLfts/1\$"
  "dump_fts:^BM_LineScan/2\$|^BM_ParseLfts/2\$"
  "store:^BM_Store"
  "routes:^BM_LftRoutesCreate|^BM_RouteWalk"
  "diff:^BM_DiffFabrics"
)
STATUS=0
for HOSTS in "${SIZES[@]}"; do
  OUT=$(/bin/bash "$ROOT/bench/make_fattree.sh" "$ROOT/collectors/sim" "$CACHE" "$HOSTS") ||
    die "cannot make the $HOSTS-host fat tree"
  JSONS=()
  for G in "${GROUPS_[@]}"; do
    JSON="$CACHE/scale_bench-$HOSTS-${G%%:*}.json"
    echo "run_scale_bench: $HOSTS hosts, ${G%%:*}" >&2
    "$BENCH" --benchmark_filter="${G#*:}" --benchmark_repetitions=3 \
      --benchmark_out="$JSON" --benchmark_out_format=json "$OUT" >&2 ||
      die "scale_bench failed on $OUT (${G%%:*})"
    JSONS+=("$JSON")
  done
  /usr/bin/python3 - "$HOSTS" "$OUT" "${JSONS[@]}" <<'PY'
import json, os, sys

# Medians of the repetitions. Parsers and route walks are compared with their baselines in
# CPU time, which a busy shared machine disturbs less than wall time; the store steps (fsync,
# I/O) are wall time.
hosts, out, files = sys.argv[1], sys.argv[2], sys.argv[3:]
runs = [r for f in files for r in json.load(open(f))["benchmarks"]
        if r.get("run_type") == "iteration"]
SCALE = {"ms": 1e-3, "us": 1e-6, "ns": 1e-9, "s": 1}

def med(name, key="cpu_time"):
    rows = [r for r in runs if r["run_name"] in (name, name + "/real_time")]
    if not rows:
        print(f"run_scale_bench: no results for {name}", file=sys.stderr)
        sys.exit(2)
    vals = sorted(r[key] * (SCALE[r["time_unit"]] if key.endswith("_time") else 1) for r in rows)
    return vals[len(vals) // 2], rows[-1]

print(f"\n=== {hosts} hosts ({out})")
size = lambda f: os.path.getsize(os.path.join(out, f)) / 1e6
ok = True
for idx, f, parse in ((0, "ibnetdiscover.txt", "BM_ParseIbnetdiscover"),
                      (1, "opensm-lfts.dump", "BM_ParseLfts/1"),
                      (2, "dump_fts.txt", "BM_ParseLfts/2")):
    scan, _ = med(f"BM_LineScan/{idx}")
    t, row = med(parse)
    wall, _ = med(parse, "real_time")
    rate, scan_rate = size(f) / t, size(f) / scan
    extra = (f"{int(row['hosts'])} hosts" if idx == 0 else
             f"{int(row['switches'])} switches, tables {row['tables_MB']:.1f} MB")
    target = ""
    if idx > 0:
        target = "; target >= 150 MB/s " + ("met" if rate >= 150 else "MISSED")
        ok = ok and rate >= 150
    print(f"parse {f:17s} {size(f):6.1f} MB: {t*1e3:7.1f} ms CPU ({wall*1e3:.1f} wall), "
          f"{rate:5.0f} MB/s = {t/scan:.2f}x the line scan ({scan_rate:.0f} MB/s); "
          f"peak RSS {row['peak_rss_MB']:.0f} MB incl. the text [{extra}]{target}")
ing, r = med("BM_StoreIngest", "real_time")
unch, _ = med("BM_StoreIngestUnchanged", "real_time")
load, _ = med("BM_StoreLoad", "real_time")
print(f"store (wall): ingest fabric + LFTs into a fresh SQLite file {ing*1e3:.0f} ms; unchanged "
      f"re-ingest {unch*1e3:.0f} ms ({unch/ing:.2f}x); load back {load*1e3:.0f} ms "
      f"({load/ing:.2f}x); RSS {r['rss_MB']:.0f} MB after, peak {r['peak_rss_MB']:.0f} MB "
      f"(the peak includes reading the LFT dump text)")
c0, _ = med("BM_LftRoutesCreate/check:0")
c1, r = med("BM_LftRoutesCreate/check:1")
print(f"LftRoutes::Create (CPU): {c0*1e3:.1f} ms index only, {c1*1e3:.1f} ms with the all-pairs "
      f"route check (= {c1/c0:.1f}x); RSS {r['rss_MB']:.0f} MB after")
lft, r1 = med("BM_RouteWalkLft", "items_per_second")
graph, r2 = med("BM_RouteWalkGraph", "items_per_second")
print(f"route walk per host pair (CPU): LFT {1e9/lft:.0f} ns ({r1['links_per_route']:.1f} links), "
      f"graph {1e9/graph:.0f} ns ({r2['links_per_route']:.1f} links): LFT = {graph/lft:.2f}x "
      f"the graph walk's time")
parse_t, _ = med("BM_ParseIbnetdiscover")
diffs = [med(f"BM_DiffFabrics/what:{w}")[0] for w in range(3)]
print(f"DiffFabrics (CPU): topology only {diffs[0]*1e3:.1f} ms, with LFTs + one changed entry "
      f"{diffs[1]*1e3:.1f} ms, with LFTs + one host unplugged (worst case) {diffs[2]*1e3:.1f} ms "
      f"= {diffs[0]/parse_t:.2f}x / {diffs[1]/parse_t:.2f}x / {diffs[2]/parse_t:.2f}x the "
      f"ibnetdiscover parse")
sys.exit(0 if ok else 1)
PY
  RC=$?
  [ $RC -le 1 ] || die "cannot summarise the results in $CACHE"
  [ $RC -eq 0 ] || STATUS=3
done
exit $STATUS

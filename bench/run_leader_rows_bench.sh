#!/bin/bash
# A 10,000-host job start against a running toporrd (target: all 10,000 leaders' rows served
# within 1 s).
#
#   bazel run //bench:run_leader_rows_bench -- [CACHE_DIR] [flags]
#
# Makes or reuses a 10,000-host 3-level fat tree dumped by the real tools (bench/make_fattree.sh
# --topology-only: ibsim + opensm + ibnetdiscover; CACHE_DIR default /tmp/toporr-bench, never
# committed), then runs bench/leader_rows_bench on it: a real toporrd, one RegisterHostList
# of all 10,000 hosts, then bursts of 10,000 concurrent compact GetCostRow requests by token,
# one per host (what the node leaders of one job send at once), against a same-run
# baseline burst of 10,000 GetStats. With TOPORR_BENCH_LFTS=1 the fat tree is made with its
# forwarding tables (dump_fts; ~1 min more, ~1.5 GB), which the daemon ingests and follows.
# JSON: CACHE_DIR/leader_rows_bench.json.
# Exit status: 0 when the warm burst of rows takes <= 1 s (wall, every lap), 3 when missed,
# 1 on errors.
set -u -o pipefail

SCRIPT=run_leader_rows_bench
. "$0.runfiles/toporr/bench/bench_env.sh" 2>/dev/null ||
  . "${RUNFILES_DIR:-/nonexistent}/toporr/bench/bench_env.sh" 2>/dev/null ||
  . "$(dirname "$0")/bench_env.sh" || exit 1

BENCH=$ROOT/bench/leader_rows_bench
[ -x "$BENCH" ] || die "no benchmark binary at $BENCH; use 'bazel run //bench:run_leader_rows_bench'"

if [ -n "${TOPORR_BENCH_LFTS:-}" ]; then
  OUT=$(/bin/bash "$ROOT/bench/make_fattree.sh" "$ROOT/collectors/sim" "$CACHE" 10000) ||
    die "cannot make the 10,000-host fat tree"
  export TOPORR_BENCH_LFTS="$OUT/dump_fts.txt"
else
  OUT=$(/bin/bash "$ROOT/bench/make_fattree.sh" "$ROOT/collectors/sim" "$CACHE" 10000 \
    --topology-only) || die "cannot make the 10,000-host fat tree"
fi
JSON="$CACHE/leader_rows_bench.json"
# The benchmark finds toporrd / toporrctl in its own runfiles.
RUNFILES_DIR="$(dirname "$ROOT")" "$BENCH" --benchmark_out="$JSON" --benchmark_out_format=json \
  "$@" "$OUT/ibnetdiscover.txt" || die "leader_rows_bench failed"

/usr/bin/python3 - "$JSON" <<'PY'
import json, sys

runs = [r for r in json.load(open(sys.argv[1]))["benchmarks"] if r.get("run_type") == "iteration"]
def get(name):  # names carry suffixes such as /iterations:3/real_time
    for r in runs:
        if r["run_name"] == name or r["run_name"].startswith(name + "/"):
            return r
    sys.exit(f"run_leader_rows_bench: no results for {name}")
reg, stats, cold, warm = (get(f"BM_{n}") for n in ("RegisterHostList", "GetStatsBurst",
                                                   "LeaderRowsColdBurst", "LeaderRowsBurst"))
n = int(warm["requests"])
print()
print(f"RegisterHostList of {n} hosts ({reg['request_KB']:.0f} KB): {reg['p50_ms']:.1f} ms")
for label, r in ((f"{n} x GetStats (baseline)", stats),
                 (f"{n} x GetCostRow, first burst", cold),
                 (f"{n} x GetCostRow", warm)):
    print(f"{label:32s} wall {r['wall_ms']:7.1f} ms (max {r['max_wall_ms']:7.1f})  "
          f"per request p50 {r['p50_ms']:7.1f} ms  p99 {r['p99_ms']:7.1f} ms  "
          f"daemon CPU {r['server_cpu_ms']:6.0f} ms  reply {r['response_KB']:.1f} KB  "
          f"= {r['wall_ms'] / stats['wall_ms']:.1f}x the baseline's wall")
ok = warm["max_wall_ms"] <= 1000.0 and cold["wall_ms"] <= 1000.0
print(f"target: all {n} rows served in <= 1 s: " + ("met" if ok else "MISSED"))
sys.exit(0 if ok else 3)
PY

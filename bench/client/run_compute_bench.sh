#!/usr/bin/env bash
# libtoporr's compute step at 1,024 and 16,384 hosts, each case in its own process for its
# peak RSS, against the same binary doing nothing (Baseline) in the same run.
#
#   bench/client/run_compute_bench.sh
# Prints one line per case: time per plan, cost form size, peak RSS and RSS over baseline.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../deploy/common.sh"
toporr_build //bench/client:compute_bench
BENCH="$(toporr_bazel_bin)/bench/client/compute_bench"
base=$("$BENCH" --benchmark_filter='^Baseline$' --benchmark_format=json |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["benchmarks"][0]["peak_rss_mb"])')
echo "baseline peak RSS (binary + libraries): ${base} MB"
TMP="$(mktemp)"
trap 'rm -f "$TMP"' EXIT
for c in 'Plan/Dense/1024' 'Plan/Hier/1024' 'Plan/Dense/4096' 'Plan/Hier/16384'; do
  "$BENCH" --benchmark_filter="^$c\$" --benchmark_format=json >"$TMP"
  python3 - "$TMP" "$base" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))["benchmarks"][0]
base = float(sys.argv[2])
print("%-18s %9.2f ms/plan  costs %7.2f MB  peak RSS %7.1f MB (+%.1f MB over baseline)  "
      "predicted gain %.2fx" % (b["name"], b["real_time"], b["costs_mb"], b["peak_rss_mb"],
                                b["peak_rss_mb"] - base, b["gain"]))
PY
done

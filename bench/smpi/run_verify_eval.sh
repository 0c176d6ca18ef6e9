#!/bin/bash
# The run-time check of toporr's choices (TOPORR_VERIFY, client/report/verification.h) in SimGrid
# SMPI, where the model is wrong and what the check costs -> bench/results/verification_smpi.md.
#
#   run_verify_eval.sh
#
# Per cell two runs of bench/smpi/toporr_collective_time (collectives_eval_lib.sh's `run`),
# each timing one call after 1 + 2 x TOPORR_VERIFY_CALLS warm-up calls: the `warmups` variant
# (TOPORR_VERIFY=0, modes mpi and auto: the MPI default and the model's choice) and the
# `verified` variant (TOPORR_VERIFY=1: the check completes in the warm-up calls, the timed
# call is the steady state after the verdict); bench/smpi/collectives_verified_report.py
# pairs them.
#
# Cells where the platform disagrees with what toporr's model knows (its cost file and the
# intra-host costs it assumes), so that the model picks something slower than the MPI default:
#   bundled16-slowshm  bundled16's fabric and cost file, 16 hosts x 4 ranks by node; in the
#                      platform every host moves its intra-host messages at 1 GB/s shared by
#                      all its ranks (fabric_to_platform.py --loopback-bw 1GBps
#                      --loopback-shared), a quarter of its 32 Gb/s cable, where the model
#                      counts on shared memory. toporr's reordered orders put 3 of every 4
#                      messages on a host's internal path; the by-node launch order has the
#                      MPI default's ring neighbours on different hosts.
#   ft256t-fullcosts   the platform of the 4:1 tapered tree ft256t with the cost file of the
#                      full-bisection tree ft256 (the same hosts on the same leaves): the
#                      costs say every leaf has 16 uplinks, the platform has 4; 64 random
#                      hosts, one rank each (the full table's frag 64x1 placement).
#   torus256-slowring  the torus's cost file (every cable 4xHDR); in the platform the links
#                      that toporr's 16 MiB choice (its ring on its order) crosses and the MPI
#                      library's own algorithm on the launch order does not run at a tenth of
#                      their rate (degrade_platform.py, from the decision of a run on the honest
#                      platform: decisions depend on the costs, not on the platform); frag 64x1.
# And the cost of the check, allreduce and bcast at 8 B and 16 MiB on the CI gate's cell
# (bundled16 by node 16x4; the model picks its own bcast at 8 B) and allreduce on ft256t frag
# 64x1: the total time of the first 1 + 2K calls with the check and without it (the
# `warmups` run).
#
# Environment: as collectives_eval_lib.sh (TOPORR_SMPI_CACHE, TOPORR_SMPI_BAZEL_BASE,
# TOPORR_VERIFY_CALLS). Exit status: 0 ok, 1 a check of the report or a step failed.
set -euo pipefail

(($# == 0)) || { echo "usage: $0" >&2; exit 2; }
# shellcheck source=bench/smpi/collectives_eval_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/collectives_eval_lib.sh"
START=$EPOCHREALTIME
start_runs "$CACHE/runs-verify-eval"
build_tools
for fab in bundled16 ft256 ft256t torus256; do fabric "$fab"; done

# lie NAME COSTS_OF PLATFORM: fabric NAME = the SimGrid platform PLATFORM with fabric
# COSTS_OF's cost file and hosts (the platform must have those hosts).
lie() {
  local name=$1 costs_of=$2 platform=$3 f=$CACHE/fabrics
  cmp -s <(sed -n 's/.*<host id="\([^"]*\)".*/\1/p' "$platform" | sort) "$f/$costs_of.hosts" ||
    die "$name: $platform and $costs_of name other hosts"
  [[ $platform == "$f/$name.xml" ]] || cp "$platform" "$f/$name.xml"
  cp "$f/$costs_of.costs" "$f/$name.costs"
  cp "$f/$costs_of.hosts" "$f/$name.hosts"
}
to_platform bundled16 "$CACHE/fabrics/bundled16-slowshm.xml" --loopback-bw 1GBps --loopback-shared
lie bundled16-slowshm bundled16 "$CACHE/fabrics/bundled16-slowshm.xml"
lie ft256t-fullcosts ft256 "$CACHE/fabrics/ft256t.xml"
# torus256-slowring: the links toporr's 16 MiB choice (its decision on the honest torus, which
# the platform does not change) crosses and the library's own algorithm on the launch order
# does not, at a tenth of their rate.
run torus256 frag 64 1 allreduce "$SIZES" mpi,auto
python3 "$REPO/bench/smpi/degrade_platform.py" --platform "$CACHE/fabrics/torus256.xml" \
  --hostfile "$LAST_RUN.hostfile" --report "$LAST_RUN/report.jsonl" --collective allreduce \
  --bytes 16777216 --factor 10 --out "$CACHE/fabrics/torus256-slowring.xml" \
  2>"$CACHE/fabrics/torus256-slowring.log" || die "degrade_platform.py failed: see $CACHE/fabrics/torus256-slowring.log"
lie torus256-slowring torus256 "$CACHE/fabrics/torus256-slowring.xml"

for cell in "bundled16-slowshm bynode 16 4 allreduce" "bundled16-slowshm bynode 16 4 bcast" \
            "ft256t-fullcosts frag 64 1 allreduce" "ft256t-fullcosts frag 64 1 bcast" \
            "torus256-slowring frag 64 1 allreduce"; do
  # shellcheck disable=SC2086
  run $cell "$SIZES" mpi,auto warmups
  # shellcheck disable=SC2086
  run $cell "$SIZES" auto verified
done
# The cost: the gate's cell (the model picks its own bcast at 8 B, the library's allreduce),
# and the tapered tree's frag 64x1.
for cell in "bundled16 bynode 16 4 allreduce" "bundled16 bynode 16 4 bcast" \
            "ft256t frag 64 1 allreduce"; do
  # shellcheck disable=SC2086
  run $cell 8,16777216 mpi,auto warmups
  # shellcheck disable=SC2086
  run $cell 8,16777216 auto verified
done

elapsed=$(awk -v a="$START" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }')
python3 "$REPO/bench/smpi/collectives_verified_report.py" --runs "$RUNS" \
  --title "The run-time check where the model is wrong, and what it costs (SimGrid SMPI)" \
  --command "bench/smpi/run_verify_eval.sh" --verify-calls "$VERIFY_CALLS" \
  --intro "$(cat <<'EOF'
Fabrics: `bundled16-slowshm` = bundled16's cost file and fabric, but in the platform every
host moves its intra-host messages at 1 GB/s shared by all its ranks (a quarter of its 32 Gb/s
cable) where toporr's model counts on shared memory; `ft256t-fullcosts` = the 4:1 tapered
platform with the full-bisection tree's cost file (the costs say 16 uplinks per leaf, the
platform has 4); `torus256-slowring` = the torus's cost file (every cable 4xHDR), but in the
platform the links that toporr's 16 MiB choice (its ring on its order) crosses and the MPI
library's own algorithm on the launch order does not run at a tenth of their rate
(bench/smpi/degrade_platform.py). The honest fabrics (8 B and 16
MiB only) are the controls and the cells of the cost section.
EOF
)" --elapsed "$elapsed" --commit "$(commit_id)" \
  --output "$REPO/bench/results/verification_smpi.md" >/dev/null

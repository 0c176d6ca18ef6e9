#!/bin/bash
# Measures toporr's rank reorderings in SimGrid SMPI (simulated, deterministic time).
#
#   run_smpi_eval.sh [--smpi-factors]
#                               full table: 64 and 256 ranks, 8 KiB / 1 MiB / 16 MiB,
#                               allreduce ring / rabenseifner / recursive doubling, bcast binomial
#   run_smpi_eval.sh --check    regression gate: ring allreduce, 1 MiB, 64 ranks on 16 hosts
#                               placed round-robin; fails unless the reordered time <= identity
#
# Pipeline (everything generated is cached under $TOPORR_SMPI_CACHE, default /tmp/toporr-smpi,
# or $TEST_TMPDIR/toporr-smpi under `bazel test //bench/smpi:smpi_check_test`):
#   1. fabric   collectors/sim/gen_fattree.py: 2-level fat tree, 32 hosts (node00001..32),
#               8 per leaf, 4 leaves x 8 uplinks spread over 4 spines (full bisection, 4xHDR);
#               collectors/sim/run_ibsim.sh routes it with OpenSM's ftree engine and keeps the
#               real ibnetdiscover and dump_fts outputs.
#   2. platform bench/smpi/fabric_to_platform.py turns those dumps into a SimGrid platform whose
#               routes are the LFTs' routes (one link per cable direction, 8 cores per host).
#   3. plan     `toporrctl plan --fabric ibnetdiscover.txt --map-by node ...` on a hostfile of
#               H hosts x k slots gives the reordered hostfile (one host per new rank).
#   4. simulate bench/smpi/collective_time.cc (built with smpicxx) under smpirun, once with the
#               round-robin hostfile (rank r on host r % H) and once with the reordered one; SMPI
#               puts rank i on hostfile line i. Every run prints its rank -> host list and the
#               script checks it equals the hostfile, so the placement is what was asked for.
#
# SMPI settings (same for both runs of a pair): smpi/simulate-computation:no (only communication
# is timed, so the result does not depend on this machine's speed), network/crosstraffic:0
# (InfiniBand has no TCP acknowledgements competing on the reverse direction), -no-privatize
# (the benchmark has no mutable globals), smpi/bw-factor:0:1 and smpi/lat-factor:0:1: a message of
# m bytes costs the sum of its links' latencies plus m over its max-min share of bandwidth.
# SMPI's default piecewise factors were calibrated on a TCP cluster (they multiply the latency
# of messages >= 64 KiB by 11.6); --smpi-factors keeps them instead.
# Environment: TOPORRCTL (use this binary instead of building //client/ctl:toporrctl),
# TOPORR_SMPI_BAZEL_BASE (Bazel output base, default /root/.cache/bazel_smpi), TOPORR_SMPI_CACHE.
# Peak memory: SMPI allocates the collectives' temporary buffers for real, ~8 GiB for 256 ranks
# x 16 MiB; runs are sequential. Exit status: 0 ok, 1 failure (check failed, a step failed).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CACHE=${TOPORR_SMPI_CACHE:-${TEST_TMPDIR:-/tmp}/toporr-smpi}
BAZEL_BASE=${TOPORR_SMPI_BAZEL_BASE:-/root/.cache/bazel_smpi}
CHECK=0
FACTORS=(--cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1)  # "size:factor" pieces
for arg in "$@"; do
  case "$arg" in
    --check) CHECK=1 ;;
    --smpi-factors) FACTORS=() ;;
    *) echo "usage: $0 [--check] [--smpi-factors]" >&2; exit 2 ;;
  esac
done

die() { echo "run_smpi_eval: $*" >&2; exit 1; }
log() { echo "run_smpi_eval: $*" >&2; }
START=$EPOCHREALTIME

for tool in smpicxx smpirun python3; do
  command -v "$tool" >/dev/null || die "missing $tool (apt-get install libsimgrid-dev python3)"
done
mkdir -p "$CACHE"

# --- 1. fabric (ibsim + OpenSM ftree + ibnetdiscover + dump_fts) -------------------------------
FABRIC=ft2l-32h-8pl-4sp
NET=$CACHE/$FABRIC.net
DUMPS=$CACHE/$FABRIC
if [[ ! -s $DUMPS/ibnetdiscover.txt || ! -s $DUMPS/dump_fts.txt ||
      $REPO/collectors/sim/gen_fattree.py -nt $DUMPS/ibnetdiscover.txt ]]; then
  log "generating fabric $FABRIC"
  python3 "$REPO/collectors/sim/gen_fattree.py" --hosts 32 --hosts-per-leaf 8 --spines 4 \
    --out "$NET" >/dev/null 2>&1 || die "gen_fattree.py failed"
  bash "$REPO/collectors/sim/run_ibsim.sh" "$NET" "$DUMPS" --routing-engine ftree \
    >"$CACHE/run_ibsim.log" 2>&1 || die "run_ibsim.sh failed: see $CACHE/run_ibsim.log"
fi

# --- 2. SimGrid platform -----------------------------------------------------------------------
PLATFORM=$CACHE/$FABRIC.xml
HOSTS=$CACHE/$FABRIC.hosts
if [[ ! -s $PLATFORM || $REPO/bench/smpi/fabric_to_platform.py -nt $PLATFORM ||
      $DUMPS/dump_fts.txt -nt $PLATFORM ]]; then
  python3 "$REPO/bench/smpi/fabric_to_platform.py" --ibnetdiscover "$DUMPS/ibnetdiscover.txt" \
    --lfts "$DUMPS/dump_fts.txt" --cores 8 --out "$PLATFORM" --hosts-out "$HOSTS" \
    || die "fabric_to_platform.py failed"
fi

# --- 3. toporrctl and the SMPI benchmark -------------------------------------------------------
if [[ -z ${TOPORRCTL:-} ]]; then
  log "building //client/ctl:toporrctl (output base $BAZEL_BASE)"
  (cd "$REPO" && bazel --output_base="$BAZEL_BASE" build //client/ctl:toporrctl) \
    >"$CACHE/bazel.log" 2>&1 || die "bazel build //client/ctl:toporrctl failed: see $CACHE/bazel.log"
  TOPORRCTL=$(cd "$REPO" && bazel --output_base="$BAZEL_BASE" info bazel-bin 2>/dev/null)/client/ctl/toporrctl
fi
[[ -x $TOPORRCTL ]] || die "no toporrctl at $TOPORRCTL"
BENCH=$CACHE/collective_time
if [[ ! -x $BENCH || $REPO/bench/smpi/collective_time.cc -nt $BENCH ]]; then
  smpicxx -O2 -std=c++17 -o "$BENCH" "$REPO/bench/smpi/collective_time.cc" \
    >"$CACHE/smpicxx.log" 2>&1 || die "smpicxx failed: see $CACHE/smpicxx.log"
fi

# --- helpers -----------------------------------------------------------------------------------
# job_files P H: writes $CACHE/job-<P>.txt (H hosts, P/H slots each) and $CACHE/rr-<P>.txt
# (round-robin: rank r on host r % H, one line per rank).
job_files() {
  local p=$1 h=$2 k=$(($1 / $2))
  head -n "$h" "$HOSTS" | sed "s/\$/ slots=$k/" >"$CACHE/job-$p.txt"
  mapfile -t hs < <(head -n "$h" "$HOSTS")
  for ((r = 0; r < p; r++)); do echo "${hs[r % h]}"; done >"$CACHE/rr-$p.txt"
}

# simulate HOSTFILE P OP SMPI_ALGO BYTES -> prints microseconds per call. Fails unless the
# realised rank -> host list equals the hostfile.
simulate() {
  local hostfile=$1 p=$2 op=$3 algo=$4 bytes=$5 out
  out=$(smpirun -no-privatize -np "$p" -platform "$PLATFORM" -hostfile "$hostfile" \
        "$BENCH" --op "$op" --bytes "$bytes" --iters 1 --print-hosts \
        --cfg=smpi/"$op":"$algo" --cfg=smpi/simulate-computation:no \
        --cfg=network/crosstraffic:0 ${FACTORS[@]+"${FACTORS[@]}"} --log=root.thres:warning \
        2>"$CACHE/smpirun.err") \
    || die "smpirun failed ($op $algo $bytes B, $hostfile): see $CACHE/smpirun.err"
  diff <(echo "$out" | awk '$1 == "rank" { print $3 }') "$hostfile" >/dev/null \
    || die "SMPI did not place ranks as $hostfile says"
  echo "$out" | sed -n 's/.*time_per_call_s=\([^ ]*\).*/\1/p' | awk '{ printf "%.3f", $1 * 1e6 }'
}

# plan P COLLECTIVE ALGO SIZE -> writes the reordered hostfile, prints "before_us after_us".
plan() {
  local p=$1 coll=$2 algo=$3 size=$4 out
  out=$("$TOPORRCTL" plan --hostfile "$CACHE/job-$p.txt" --map-by node --collective "$coll" \
        --algorithm "$algo" --size "$size" --fabric "$DUMPS/ibnetdiscover.txt" \
        --hostfile-out "$CACHE/ro-$p-$coll-$algo-$size.txt" 2>"$CACHE/plan.err") \
    || die "toporrctl plan failed ($p ranks $coll $algo $size): see $CACHE/plan.err"
  echo "$out" | sed -n 's/^predicted time: before \([0-9.]*\) us.*after \([0-9.]*\) us.*/\1 \2/p'
}

bytes_of() {
  case $1 in *K) echo $((${1%K} * 1024)) ;; *M) echo $((${1%M} * 1048576)) ;; *) echo "$1" ;; esac
}

# --- 4. the comparison -------------------------------------------------------------------------
RESULTS=$CACHE/results.tsv
printf "ranks\thosts_x_ppn\tcollective\ttoporr_algorithm\tsmpi_algorithm\tsize\tidentity_us\treordered_us\tsimulated_speedup\tpredicted_speedup\n" >"$RESULTS"

run_case() {  # P H COLLECTIVE TOPORR_ALGO SMPI_ALGO SIZE
  local p=$1 h=$2 coll=$3 talgo=$4 salgo=$5 size=$6 bytes pred ident reord
  bytes=$(bytes_of "$size")
  read -r pb pa <<<"$(plan "$p" "$coll" "$talgo" "$size")"
  ident=$(simulate "$CACHE/rr-$p.txt" "$p" "$coll" "$salgo" "$bytes")
  reord=$(simulate "$CACHE/ro-$p-$coll-$talgo-$size.txt" "$p" "$coll" "$salgo" "$bytes")
  printf "%d\t%dx%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n" "$p" "$h" $((p / h)) "$coll" "$talgo" \
    "$salgo" "$size" "$ident" "$reord" \
    "$(awk -v a="$ident" -v b="$reord" 'BEGIN { printf "%.2f", a / b }')" \
    "$(awk -v a="$pb" -v b="$pa" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')" \
    >>"$RESULTS"
}

if ((CHECK)); then
  job_files 64 16
  run_case 64 16 allreduce ring lr 1M
  IFS=$'\t' read -r _ _ _ _ _ _ ident reord speedup _ < <(tail -n 1 "$RESULTS")
  elapsed=$(awk -v a="$START" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
  if awk -v a="$ident" -v b="$reord" 'BEGIN { exit !(b <= a) }'; then
    echo "smpi check passed: ring allreduce 1 MiB, 64 ranks round-robin on 16 hosts:" \
         "identity $ident us, reordered $reord us (${speedup}x) in ${elapsed} s"
    echo "1 passed, 0 failed"
    exit 0
  fi
  echo "smpi check FAILED: reordered $reord us > identity $ident us (ring allreduce 1 MiB, 64 ranks)"
  echo "0 passed, 1 failed"
  exit 1
fi

for shape in "64 16" "256 32"; do
  read -r P H <<<"$shape"
  job_files "$P" "$H"
  for size in 8K 1M 16M; do
    log "$P ranks, $size"
    run_case "$P" "$H" allreduce ring lr "$size"
    run_case "$P" "$H" allreduce rabenseifner rab_rdb "$size"
    # recursive doubling sends the whole buffer every step: at 256 ranks x 16 MiB SMPI needs
    # ~12 GiB of real buffers, more than a machine shared with builds can be expected to spare.
    if [[ ! ($P == 256 && $size == 16M) ]]; then
      run_case "$P" "$H" allreduce recursive_doubling rdb "$size"
    fi
    run_case "$P" "$H" bcast binomial binomial_tree "$size"
  done
done

# Aligned columns (util-linux `column` is not installed everywhere).
awk -F '\t' '{ for (i = 1; i <= NF; i++) { cell[NR, i] = $i; if (length($i) > w[i]) w[i] = length($i) } }
  END { for (r = 1; r <= NR; r++) { line = ""
          for (i = 1; i <= NF; i++) line = line sprintf("%-" w[i] + 2 "s", cell[r, i])
          sub(/ +$/, "", line); print line } }' "$RESULTS"
echo "(simulated time per call; speedup = identity / reordered; predicted = toporrctl's model;" \
     "results in $RESULTS; $(awk -v a="$START" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }') s)"

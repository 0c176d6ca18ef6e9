#!/bin/bash
# The profile -> plan -> run loop on communication skeletons of three application classes, on
# the SMPI evaluation's large fabrics:
#
#   run_skeleton_eval.sh [--ranks 64|64,256]   -> bench/results/skeletons_smpi.md
#
# Skeletons (bench/smpi/skeleton.c): halo3d (a 27-point stencil's halo on a 3-D periodic
# process grid, 64 KiB per face), cg (a 7-point halo of 64 KiB per face and two 8-byte
# allreduces per iteration), fft2d (2-D FFT transposes: alltoall of 16 KiB per pair within the
# rows, then the columns of a 2-D process grid). Each is
#   1. profiled, measured: run once under the real Open MPI on this machine (ranks
#      oversubscribed, the network irrelevant) with LD_PRELOAD=libtoporr_pmpi.so and
#      TOPORR_PROFILE (the PMPI layer's traffic profile; TOPORR_DISABLE=1: record only);
#   2. planned per cell: `toporrctl plan --traffic PROFILE --fabric DUMP` for the cell's hosts
#      and placement (the placements and fabrics of run_collectives_eval.sh), which writes the
#      new order as a host per rank;
#   3. simulated per cell, twice: the same skeleton under SMPI on the fabric's platform with the
#      launch order's hostfile and with the planned one (rank i on the host of the planned
#      order's line i), the settings of the collective tables (ompi selector, no computation).
# The table: simulated time per iteration in both orders, the ratio, and the plan's own
# predicted times before and after. Cells are cached like the collective tables' runs.
# Environment: as collectives_eval_lib.sh (TOPORR_SMPI_CACHE, TOPORR_SMPI_BAZEL_BASE).
set -euo pipefail
RANKS=64
usage() { echo "usage: $0 [--ranks 64|64,256]" >&2; exit 2; }
while (($#)); do
  case "$1" in
    --ranks) [[ ${2:-} == 64 || ${2:-} == 64,256 ]] || usage; RANKS=$2; shift ;;
    *) usage ;;
  esac
  shift
done
# shellcheck source=bench/smpi/collectives_eval_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/collectives_eval_lib.sh"
START=$EPOCHREALTIME
command -v mpirun.openmpi >/dev/null || die "missing Open MPI (deploy/install-deps.sh)"
build_tools
log "building //client/mpi/openmpi:libtoporr_pmpi.so (output base $BAZEL_BASE)"
(cd "$REPO" && bazel --output_base="$BAZEL_BASE" build //client/mpi/openmpi:libtoporr_pmpi.so) \
  >>"$CACHE/bazel.log" 2>&1 || die "bazel build failed: see $CACHE/bazel.log"
PMPI=$BIN/client/mpi/openmpi/libtoporr_pmpi.so
WORK=$CACHE/skeletons
mkdir -p "$WORK"
mpicc.openmpi -O2 -o "$WORK/skeleton" "$REPO/bench/smpi/skeleton.c"
smpicc -O2 -o "$WORK/skeleton_smpi" "$REPO/bench/smpi/skeleton.c" 2>"$WORK/smpicc.log" \
  || die "smpicc failed: see $WORK/smpicc.log"
SKELETONS=("halo3d 65536" "cg 65536" "fft2d 16384")
ITERS=5
# The 64-rank cells of the collective tables (run_collectives_eval.sh), by-core twins included.
CELLS=("bundled16 bynode 16 1" "bundled16 bynode 16 4" "ft256t frag 64 1" "torus256 frag 64 1"
       "torus256 random 16 4" "dfly288 frag 64 1" "dfly288 random 16 4" "ft1024x3 frag 64 1"
       "bundled16 bycore 16 4" "torus256 bycore 16 4" "dfly288 bycore 16 4")
[[ $RANKS == 64,256 ]] && CELLS+=("ft256t bynode 64 4" "ft1024x3 frag 64 4")
RESULTS=$WORK/results.tsv
: >"$RESULTS"

# profile SKELETON BYTES P: the skeleton's traffic profile at P ranks (cached).
profile() {
  local out=$WORK/$1-$2-$3.prof
  if [[ ! -s $out || $WORK/skeleton -nt $out ]]; then
    log "profile: $1 at $3 ranks (Open MPI, PMPI layer)"
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 900 \
      mpirun.openmpi --oversubscribe --bind-to none -np "$3" -x LD_PRELOAD="$PMPI" \
      -x TOPORR_PROFILE="$out" -x TOPORR_DISABLE=1 "$WORK/skeleton" "$1" 2 "$2" \
      >"$out.log" 2>&1 || die "profiling $1 at $3 ranks failed: see $out.log"
    [[ -s $out ]] || die "no profile written: see $out.log"
  fi
  echo "$out"
}

# simulate SKELETON BYTES FABRIC HOSTFILE: the skeleton's time per iteration under SMPI (us).
simulate() {
  local p key out
  p=$(wc -l <"$4")
  key=$(cat "$WORK/skeleton_smpi" "$CACHE/fabrics/$3.xml" "$4" <(echo "$1 $2 $ITERS ${CFG[*]}") |
        sha256sum | cut -c1-16)
  out=$WORK/sim-$key.txt
  if [[ ! -s $out ]]; then
    local tmp
    tmp=$(mktemp -d /dev/shm/toporr-skeleton.XXXXXX)
    TMPDIR=$tmp smpirun -np "$p" -platform "$CACHE/fabrics/$3.xml" -hostfile "$4" \
      "$WORK/skeleton_smpi" "$1" "$ITERS" "$2" "${CFG[@]}" >"$out.tmp" 2>"$out.err" \
      || { rm -rf "$tmp"; die "smpirun $1 on $3 failed: see $out.err"; }
    rm -rf "$tmp"
    mv "$out.tmp" "$out"
  fi
  awk '$1 == "skeleton" { print $8 }' "$out"
}

for cell in "${CELLS[@]}"; do
  read -r fab placement h k <<<"$cell"
  fabric "$fab"
  p=$((h * k))
  name=$fab-$placement-${h}x$k
  launch=$WORK/$name.hosts
  placement_hosts "$fab" "$placement" "$h" "$k" >"$launch"
  awk '{ n[$1]++; if (!($1 in first)) { first[$1] = NR; order[++m] = $1 } }
       END { for (i = 1; i <= m; i++) print order[i] " slots=" n[order[i]] }' "$launch" \
    >"$WORK/$name.job"
  for skeleton in "${SKELETONS[@]}"; do
    read -r sk bytes <<<"$skeleton"
    prof=$(profile "$sk" "$bytes" "$p")
    planned=$WORK/$name-$sk.planned
    "$TOPORRCTL" --json plan --hostfile "$WORK/$name.job" --ranks "$launch" --traffic "$prof" \
      --fabric "$CACHE/fabrics/$fab/ibnetdiscover.txt" --hostfile-out "$planned" \
      >"$planned.json" 2>"$planned.err" || die "plan for $name $sk failed: see $planned.err"
    log "$name $sk: simulating the launch and the planned order"
    before=$(simulate "$sk" "$bytes" "$fab" "$launch")
    after=$(simulate "$sk" "$bytes" "$fab" "$planned")
    printf "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n" "$fab" "$placement" "${h}x$k" "$p" "$sk" \
      "$before" "$after" "$planned.json" >>"$RESULTS"
  done
done
elapsed=$(awk -v a="$START" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }')
python3 "$REPO/bench/smpi/skeleton_report.py" --results "$RESULTS" --elapsed "$elapsed" \
  --commit "$(commit_id)" --command "bench/smpi/run_skeleton_eval.sh${RANKS:+ --ranks $RANKS}" \
  --output "$REPO/bench/results/skeletons_smpi.md"

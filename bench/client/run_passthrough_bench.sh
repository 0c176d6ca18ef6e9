#!/usr/bin/env bash
# The PMPI layer's cost for calls it passes through (8-byte MPI_Allreduce / MPI_Bcast, below
# TOPORR_MIN_BYTES), against the same program without LD_PRELOAD, alternating the two
# ROUNDS times in one session (the machine is shared and noisy: read the medians).
#   bench/client/run_passthrough_bench.sh [openmpi|mpich] [ROUNDS] [CALLS]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../deploy/common.sh"
MPI=${1:-openmpi}
ROUNDS=${2:-5}
CALLS=${3:-100000}
toporr_build "//client/mpi/$MPI:libtoporr_pmpi.so"
LIB="$(dirname "$(readlink -f "$(toporr_bazel_bin)/client/mpi/$MPI/libtoporr.so")")"
SCRATCH="$(mktemp -d /tmp/toporr-passthrough.XXXXXX)"
"mpicc.$MPI" -O2 -o "$SCRATCH/bench" "$TOPORR_ROOT/bench/client/passthrough_bench.c"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
run() {  # run [preload]
  if [[ $MPI == openmpi ]]; then
    mpirun.openmpi --oversubscribe -np 2 ${1:+-x LD_PRELOAD="$1"} -x TOPORR_SOCKET=/nonexistent \
      "$SCRATCH/bench" "$CALLS"
  else
    mpirun.mpich -np 2 ${1:+-genv LD_PRELOAD "$1"} -genv TOPORR_SOCKET /nonexistent \
      "$SCRATCH/bench" "$CALLS"
  fi
}
for _ in $(seq "$ROUNDS"); do
  echo "plain   $(run)"
  echo "preload $(run "$LIB/libtoporr_pmpi.so")"
done | python3 -c '
import json, statistics, sys
rows = {"plain": [], "preload": []}
for line in sys.stdin:
    kind, data = line.split(None, 1)
    rows[kind].append(json.loads(data))
for key in ("allreduce_ns", "bcast_ns"):
    p = statistics.median(r[key] for r in rows["plain"])
    q = statistics.median(r[key] for r in rows["preload"])
    print(f"{key[:-3]:10s} plain {p:8.1f} ns  preloaded {q:8.1f} ns  ratio {q / p:.3f}")
'

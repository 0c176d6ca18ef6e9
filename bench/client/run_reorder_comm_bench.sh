#!/usr/bin/env bash
# Creation of a reordered communicator in a real 16-rank job vs MPI_Comm_dup, same run.
#
#   bench/client/run_reorder_comm_bench.sh [openmpi|mpich] [ITERATIONS]
# Builds toporrd, toporrctl and libtoporr for that MPI, starts toporrd on a scratch socket
# with the bundled 16-host fat tree, compiles bench/client/reorder_comm_bench.c with the
# MPI library's mpicc, and runs it on 16 ranks placed round-robin on 4 fabric hosts (one
# per leaf) through TOPORR_HOSTMAP. Prints the benchmark's JSON line (medians, ratios).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../deploy/common.sh"
MPI=${1:-openmpi}
ITER=${2:-20}
toporr_build //daemon:toporrd //client/ctl:toporrctl "//client/mpi/$MPI:libtoporr.so"
BIN="$(toporr_bazel_bin)"
SCRATCH="$(mktemp -d /tmp/toporr-reorder-bench.XXXXXX)"
"$BIN/daemon/toporrd" --config= --db "$SCRATCH/db" --socket "$SCRATCH/sock" 2>"$SCRATCH/log" &
DAEMON=$!
trap 'kill $DAEMON; wait $DAEMON 2>/dev/null || true' EXIT
ctl() { "$BIN/client/ctl/toporrctl" --socket "$SCRATCH/sock" "$@"; }
for _ in $(seq 100); do ctl health >/dev/null 2>&1 && break; sleep 0.1; done
ctl ingest --format ibnetdiscover "$TOPORR_ROOT/deploy/demo/fattree-2l-16h.ibnet" >/dev/null
for i in $(seq 0 15); do echo "node$(printf %02d $(((i % 4) * 4 + 1)))"; done >"$SCRATCH/hostmap"
LIB="$(dirname "$(readlink -f "$BIN/client/mpi/$MPI/libtoporr.so")")"
"mpicc.$MPI" -O2 -I "$TOPORR_ROOT" -o "$SCRATCH/bench" "$TOPORR_ROOT/bench/client/reorder_comm_bench.c" \
  -L "$LIB" -ltoporr -Wl,-rpath,"$LIB"
export TOPORR_SOCKET="$SCRATCH/sock" TOPORR_HOSTMAP="$SCRATCH/hostmap"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
if [[ $MPI == openmpi ]]; then
  mpirun.openmpi --oversubscribe --bind-to none -np 16 "$SCRATCH/bench" "$ITER"
else
  mpirun.mpich -np 16 "$SCRATCH/bench" "$ITER"
fi
echo "requests served: $(ctl --json stats)"

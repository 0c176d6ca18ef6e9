#!/usr/bin/env bash
# Creation of a reordered communicator in a real 16-rank job vs MPI_Comm_dup and one round
# trip to toporrd, same run.
#
#   bench/client/run_reorder_comm_bench.sh [openmpi|mpich] [ITERATIONS] [RUNS] [OUT] [LABEL]
# Builds toporrd, toporrctl and libtoporr for that MPI, starts toporrd on a scratch socket
# with the bundled 16-host fat tree, compiles bench/client/reorder_comm_bench.c with the
# MPI library's mpicc, and runs it RUNS times (default 1; one job each) on 16 ranks placed
# round-robin on 4 fabric hosts (one per leaf) through TOPORR_HOSTMAP. Prints each run's JSON
# line (medians, quartiles, every iteration) and, with OUT, appends it there with "mpi" and
# "label" (e.g. before/after) added. LIBTOPORR=/path/libtoporr.so runs that build of the
# library (built for the same MPI) instead of the workspace's; TOPORR_BENCH_BIN=DIR (a bazel-bin
# holding daemon/toporrd and client/ctl/toporrctl) skips the build.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../deploy/common.sh"
MPI=${1:-openmpi}
ITER=${2:-20}
RUNS=${3:-1}
OUT=${4:-}
LABEL=${5:-}
if [[ -z ${TOPORR_BENCH_BIN:-} ]]; then
  toporr_build --test_env=TOPORR_SHARED_DIR="$TOPORR_SHARED_DIR" //daemon:toporrd \
    //client/ctl:toporrctl "//client/mpi/$MPI:libtoporr.so"
fi
BIN="${TOPORR_BENCH_BIN:-$(toporr_bazel_bin)}"
SCRATCH="$(mktemp -d /tmp/toporr-reorder-bench.XXXXXX)"
"$BIN/daemon/toporrd" --config= --db "$SCRATCH/db" --socket "$SCRATCH/sock" 2>"$SCRATCH/log" &
DAEMON=$!
trap 'kill $DAEMON; wait $DAEMON 2>/dev/null || true; rm -rf "$SCRATCH"' EXIT
ctl() { "$BIN/client/ctl/toporrctl" --socket "$SCRATCH/sock" "$@"; }
for _ in $(seq 100); do ctl health >/dev/null 2>&1 && break; sleep 0.1; done
ctl ingest --format ibnetdiscover "$TOPORR_ROOT/deploy/demo/fattree-2l-16h.ibnet" >/dev/null
for i in $(seq 0 15); do echo "node$(printf %02d $(((i % 4) * 4 + 1)))"; done >"$SCRATCH/hostmap"
# A private copy of the library: a later build of the workspace cannot change it mid-run.
cp "${LIBTOPORR:-$(readlink -f "$BIN/client/mpi/$MPI/libtoporr.so")}" "$SCRATCH/libtoporr.so"
"mpicc.$MPI" -O2 -I "$TOPORR_ROOT" -o "$SCRATCH/bench" "$TOPORR_ROOT/bench/client/reorder_comm_bench.c" \
  -L "$SCRATCH" -ltoporr -Wl,-rpath,"$SCRATCH"
export TOPORR_SOCKET="$SCRATCH/sock" TOPORR_HOSTMAP="$SCRATCH/hostmap"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for run in $(seq "$RUNS"); do
  if [[ $MPI == openmpi ]]; then
    line=$(mpirun.openmpi --oversubscribe --bind-to none -np 16 "$SCRATCH/bench" "$ITER" "$run")
  else
    line=$(mpirun.mpich -np 16 "$SCRATCH/bench" "$ITER" "$run")
  fi
  line=$(grep '^{' <<<"$line")
  echo "$line"
  if [[ -n $OUT ]]; then
    echo "{\"mpi\":\"$MPI\",\"label\":\"$LABEL\",\"when\":\"$(date -u +%FT%TZ)\",${line#\{}" >>"$OUT"
  fi
done
echo "requests served: $(ctl --json stats)"

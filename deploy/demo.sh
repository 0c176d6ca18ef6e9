#!/usr/bin/env bash
# The toporr demo, end to end on embedded defaults: builds toporrd and toporrctl, starts the
# daemon on a fresh SQLite file in a scratch directory, ingests the bundled 16-host fat tree
# (ibnetdiscover output of deploy/demo/fattree-2l-16h.net under ibsim + opensm), prints the
# hosts, the cost and the path between two hosts, plans a topology-aware rank order for a
# 16-rank allreduce, runs a 16-rank Open MPI job with toporr's components (its communicators
# reordered from the daemon's costs; then with the daemon stopped: identity, one warning), and
# stops the daemon.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

"$TOPORR_ROOT/deploy/install-deps.sh"
echo "== building toporrd and toporrctl"
toporr_build //daemon:toporrd //client/ctl:toporrctl
BIN="$(toporr_bazel_bin)"

SCRATCH="$(mktemp -d /tmp/toporr-demo.XXXXXX)"
SOCK="$SCRATCH/toporrd.sock"
echo "== starting toporrd (database $SCRATCH/toporr.db, socket $SOCK)"
"$BIN/daemon/toporrd" --config= --db "$SCRATCH/toporr.db" --socket "$SOCK" \
  2> "$SCRATCH/toporrd.log" &
DAEMON=$!
cleanup() {
  kill -TERM "$DAEMON" 2>/dev/null && wait "$DAEMON" || true
  echo "== toporrd stopped; its log and database are in $SCRATCH"
}
trap cleanup EXIT

ctl() { "$BIN/client/ctl/toporrctl" --socket "$SOCK" "$@"; }
for _ in $(seq 100); do
  ctl health >/dev/null 2>&1 && break
  sleep 0.1
done
ctl health

FABRIC="$TOPORR_ROOT/deploy/demo/fattree-2l-16h.ibnet"
echo; echo "== toporrctl ingest --format ibnetdiscover $(basename "$FABRIC")"
ctl ingest --format ibnetdiscover "$FABRIC"
echo; echo "== toporrctl hosts"
ctl hosts
echo; echo "== toporrctl cost node01 node02   (same leaf switch)"
ctl cost node01 node02
echo; echo "== toporrctl cost node01 node09   (across the spine)"
ctl cost node01 node09
echo; echo "== toporrctl --json cost node01 node09"
ctl --json cost node01 node09
echo; echo "== toporrctl path node01 node09"
ctl path node01 node09
echo; echo "== toporrctl row node01"
ctl row node01
echo; echo "== toporrctl snapshots"
ctl snapshots

# A 16-rank job on one host per leaf switch, launched round-robin (--map-by node): the ring
# allreduce crosses the spine on every edge. toporrctl plan renumbers the ranks and writes a
# hostfile that realises the new order with `mpirun --map-by seq`.
printf 'node01 slots=4\nnode05 slots=4\nnode09 slots=4\nnode13 slots=4\n' > "$SCRATCH/job.hosts"
echo; echo "== toporrctl plan --hostfile job.hosts --map-by node --collective allreduce --algorithm ring --size 1M"
ctl plan --hostfile "$SCRATCH/job.hosts" --map-by node --collective allreduce \
  --algorithm ring --size 1M --fabric "$FABRIC" --hostfile-out "$SCRATCH/job.hosts.reordered"
echo; echo "== the same job, best algorithm (auto), costs from the daemon"
ctl plan --hostfile "$SCRATCH/job.hosts" --map-by node --collective allreduce --size 1M

# libtoporr in a real MPI job. All 16 ranks run on this machine; TOPORR_HOSTMAP says which
# fabric host each one stands for: round-robin over 8 hosts, one per leaf switch first
# (node01 node05 node09 node13 node02 ...), the poor order a scheduler's round-robin gives.
# toporr runs inside Open MPI as its coll and topo components, found on
# mca_base_component_path (a directory of their own here; the .deb installs them in Open MPI's
# component directory): no LD_PRELOAD.
echo; echo "== building libtoporr and toporr's Open MPI components, and the demo program (mpicc)"
toporr_build //client/mpi/openmpi:libtoporr.so //client/mpi/openmpi:libtoporr_pmpi.so \
  //client/mpi/openmpi_component:mca_coll_toporr.so //client/mpi/openmpi_component:mca_topo_toporr.so
LIB="$(dirname "$(readlink -f "$BIN/client/mpi/openmpi/libtoporr.so")")"
mkdir "$SCRATCH/components"
for so in "$LIB/libtoporr.so" "$BIN/client/mpi/openmpi_component/mca_coll_toporr.so" \
  "$BIN/client/mpi/openmpi_component/mca_topo_toporr.so"; do
  ln -s "$(readlink -f "$so")" "$SCRATCH/components/$(basename "$so")"
done
mpicc.openmpi -O2 -I "$TOPORR_ROOT" -o "$SCRATCH/reorder_demo" \
  "$TOPORR_ROOT/deploy/demo/reorder_demo.c" -L "$LIB" -ltoporr -Wl,-rpath,"$LIB"
for i in $(seq 0 15); do
  echo "node$(printf %02d $(((i % 4) * 4 + (i / 4) % 2 + 1)))"
done >"$SCRATCH/hostmap"
# mpi_job [mpirun options]: the demo program with toporr's components on the path.
mpi_job() {
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    mpirun.openmpi --oversubscribe --bind-to none -np 16 "$@" \
    --mca mca_base_component_path "$SCRATCH/components:/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3" \
    -x TOPORR_SOCKET="$SOCK" \
    -x TOPORR_HOSTMAP="$SCRATCH/hostmap" -x TOPORR_REPORT="$SCRATCH/report.jsonl" \
    -x TOPORR_DEADLINE_MS="${TOPORR_DEADLINE_MS:-2000}" "$SCRATCH/reorder_demo"
}
echo; echo "== mpirun -np 16 with toporr's coll and topo components, TOPORR_HOSTMAP: $(paste -sd' ' "$SCRATCH/hostmap")"
mpi_job
# Open MPI answers MPI_Cart_map on MPI_COMM_WORLD itself (each process's own rank), so the topo
# component builds that grid in MPI_COMM_WORLD's order, as the map function says; the PMPI
# layer answers both calls and reorders the grid.
echo; echo "== the same job with the PMPI layer preloaded: the Cartesian grid reordered too"
mpi_job -x LD_PRELOAD="$LIB/libtoporr_pmpi.so"
echo; echo "== the same job with toporrd stopped (SIGSTOP), TOPORR_DEADLINE_MS=500: identity, one warning"
kill -STOP "$DAEMON"
TOPORR_DEADLINE_MS=500 mpi_job
kill -CONT "$DAEMON"
echo; echo "== TOPORR_REPORT ($SCRATCH/report.jsonl): the first job's decisions"
head -3 "$SCRATCH/report.jsonl"

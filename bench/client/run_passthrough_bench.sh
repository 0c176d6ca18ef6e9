#!/usr/bin/env bash
# What toporr costs calls it passes through (8-byte MPI_Allreduce / MPI_Bcast, below
# TOPORR_MIN_BYTES): the same program plain, under the PMPI layer (LD_PRELOAD) and, for Open
# MPI, with toporr's coll and topo components (mca_base_component_path, no preload),
# alternating the variants ROUNDS times in one session (the machine is shared and noisy: read
# the per-round ratios: median and quartiles).
#   bench/client/run_passthrough_bench.sh [openmpi|mpich] [ROUNDS] [CALLS]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../deploy/common.sh"
MPI=${1:-openmpi}
ROUNDS=${2:-5}
CALLS=${3:-100000}
TARGETS=("//client/mpi/$MPI:libtoporr_pmpi.so")
[[ $MPI == openmpi ]] && TARGETS+=(//client/mpi/openmpi_component:mca_coll_toporr.so
  //client/mpi/openmpi_component:mca_topo_toporr.so)
toporr_build "${TARGETS[@]}"
BIN="$(toporr_bazel_bin)"
LIB="$(dirname "$(readlink -f "$BIN/client/mpi/$MPI/libtoporr.so")")"
SCRATCH="$(mktemp -d /tmp/toporr-passthrough.XXXXXX)"
trap 'rm -rf "$SCRATCH"' EXIT
VARIANTS=(plain preload)
if [[ $MPI == openmpi ]]; then
  mkdir "$SCRATCH/mca"
  for so in "$LIB/libtoporr.so" "$BIN"/client/mpi/openmpi_component/mca_{coll,topo}_toporr.so; do
    ln -s "$(readlink -f "$so")" "$SCRATCH/mca/"
  done
  VARIANTS+=(component)
fi
"mpicc.$MPI" -O2 -o "$SCRATCH/bench" "$TOPORR_ROOT/bench/client/passthrough_bench.c"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
run() {  # run plain|preload|component
  local preload="" components=""
  [[ $1 == preload ]] && preload="$LIB/libtoporr_pmpi.so"
  [[ $1 == component ]] && components="$SCRATCH/mca:/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3"
  if [[ $MPI == openmpi ]]; then
    mpirun.openmpi --oversubscribe -np 2 ${preload:+-x LD_PRELOAD="$preload"} \
      ${components:+-x OMPI_MCA_mca_base_component_path="$components"} \
      -x TOPORR_SOCKET=/nonexistent "$SCRATCH/bench" "$CALLS"
  else
    mpirun.mpich -np 2 ${preload:+-genv LD_PRELOAD "$preload"} -genv TOPORR_SOCKET /nonexistent \
      "$SCRATCH/bench" "$CALLS"
  fi
}
for _ in $(seq "$ROUNDS"); do
  for v in "${VARIANTS[@]}"; do echo "$v $(run "$v")"; done
done | python3 -c '
import json, statistics, sys
rows = {}
for line in sys.stdin:
    kind, data = line.split(None, 1)
    rows.setdefault(kind, []).append(json.loads(data))
rounds = len(rows["plain"])
print(f"{rounds} rounds per variant; per call: median [min-max] over rounds; ratio to plain:")
print("median [q1, q3] of the per-round ratios (each round runs every variant back to back)")


def quartiles(values):
    q = statistics.quantiles(values, n=4) if len(values) > 1 else values * 3
    return q[0], statistics.median(values), q[2]


for key in ("allreduce_ns", "bcast_ns"):
    cells = []
    for kind, runs in rows.items():
        values = [r[key] for r in runs]
        ratios = [r[key] / p[key] for r, p in zip(runs, rows["plain"])]
        q1, med, q3 = quartiles(ratios)
        cells.append(f"{kind} {statistics.median(values):7.1f} ns [{min(values):.0f}-"
                     f"{max(values):.0f}] x{med:.3f} [{q1:.3f}, {q3:.3f}]")
    print(f"{key[:-3]:10s} " + "  ".join(cells))

'

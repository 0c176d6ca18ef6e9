#!/usr/bin/env bash
# What the traffic profile costs (TOPORR_PROFILE): an 8-byte message-rate ring
# (message_rate_bench.c: windows of MPI_Isend/MPI_Irecv, on MPI_COMM_WORLD and on a duplicate)
# run plain, under the PMPI layer (LD_PRELOAD, no profile: one branch per call) and under the
# PMPI layer with TOPORR_PROFILE, alternating the three ROUNDS times in one session (the
# machine is shared and noisy: read the medians and the spread). The profiled runs also
# compare in-process, in rotating blocks, direct calls, the layer, counting without time records
# and recording with them (BLOCKS rotations; message_rate_bench.c),
# the figure least disturbed by the machine's load. Each profiled run's file is checked to
# hold exactly the messages rank 0 sent while recording.
# NP=2 (default): a ring of two ranks, in wall time; NP=1: one process's ring to itself in
# CPU time, the per-call cost with no other process in the loop (the harshest ratio: the
# cheapest send there is).
#   bench/client/run_message_rate_bench.sh [openmpi|mpich] [ROUNDS] [N] [WINDOW] [BLOCKS] [NP]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../deploy/common.sh"
MPI=${1:-openmpi}
ROUNDS=${2:-5}
N=${3:-20000}
WINDOW=${4:-16}
BLOCKS=${5:-200}
NP=${6:-2}
toporr_build "//client/mpi/$MPI:libtoporr_pmpi.so"
BIN="$(toporr_bazel_bin)"
PMPI="$(readlink -f "$BIN/client/mpi/$MPI/libtoporr_pmpi.so")"
SCRATCH="$(mktemp -d /tmp/toporr-message-rate.XXXXXX)"
trap 'rm -rf "$SCRATCH"' EXIT
# (-Wno-stringop-overflow: MPICH's MPI_Waitall prototype makes GCC 12 warn on MPI_STATUSES_IGNORE)
"mpicc.$MPI" -O2 -Wno-stringop-overflow -o "$SCRATCH/bench" \
  -I "$TOPORR_ROOT" "$TOPORR_ROOT/bench/client/message_rate_bench.c" -ldl
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
run() {  # run plain|preload|profile
  local preload="" profile=""
  [[ $1 != plain ]] && preload="$PMPI"
  [[ $1 == profile ]] && profile="$SCRATCH/ring.prof"
  if [[ $MPI == openmpi ]]; then
    mpirun.openmpi -np "$NP" ${preload:+-x LD_PRELOAD="$preload"} \
      ${profile:+-x TOPORR_PROFILE="$profile"} -x TOPORR_SOCKET=/nonexistent \
      "$SCRATCH/bench" "$N" "$WINDOW" "$BLOCKS" >"$SCRATCH/out"
  else
    mpirun.mpich -np "$NP" ${preload:+-genv LD_PRELOAD "$preload"} \
      ${profile:+-genv TOPORR_PROFILE "$profile"} -genv TOPORR_SOCKET /nonexistent \
      "$SCRATCH/bench" "$N" "$WINDOW" "$BLOCKS" >"$SCRATCH/out"
  fi
  cat "$SCRATCH/out"
  if [[ -n $profile ]]; then
    local want
    want=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["counted"])' <"$SCRATCH/out")
    grep -q "^p2p 0 $((1 % NP)) $((want * 8)) $want\$" "$profile" ||
      { echo "unexpected profile:" >&2; cat "$profile" >&2; exit 1; }
    rm -f "$profile"
  fi
}
for _ in $(seq "$ROUNDS"); do
  for v in plain preload profile; do echo "$v $(run "$v")"; done
done | python3 -c "$(cat <<'PY'
import json, statistics, sys
rows = {}
for line in sys.stdin:
    kind, data = line.split(None, 1)
    rows.setdefault(kind, []).append(json.loads(data))
print(f"{len(rows['plain'])} rounds per variant, {sys.argv[1]} rank(s); per message: median [min-max], ratio of "
      "medians to plain, and of profile to preload")
for key in ("world_ns", "dup_ns"):
    med = {k: statistics.median(r[key] for r in runs) for k, runs in rows.items()}
    cells = []
    for kind, runs in rows.items():
        values = [r[key] for r in runs]
        cell = (f"{kind} {med[kind]:6.1f} ns [{min(values):.1f}-{max(values):.1f}] "
                f"x{med[kind] / med['plain']:.3f}")
        if kind == "profile":
            cell += f" (x{med[kind] / med['preload']:.3f} of preload)"
        cells.append(cell)
    print(f"{key[:-3]:6s} " + "  ".join(cells))
variants = ("direct", "layer", "counting", "recording")
print("in-process, rotating blocks (direct: PMPI_Isend/PMPI_Waitall; layer: through the PMPI "
      "layer, not recording; counting: TOPORR_PROFILE with TOPORR_PROFILE_TIME=0; recording: "
      "TOPORR_PROFILE, the waits timed): per message, median over runs of the medians "
      "over rotations [min-max], and ratio to direct")
for key in ("world", "dup"):
    runs = rows["profile"]
    cells = []
    for v in variants:
        ns = statistics.median(r[f"{key}_{v}_ns"] for r in runs)
        fastest = min(r[f"{key}_{v}_min_ns"] for r in runs)
        ratios = [r[f"{key}_{v}_ratio"] for r in runs]
        cells.append(f"{v} {ns:6.1f} ns (fastest block {fastest:.1f}) "
                     f"x{statistics.median(ratios):.4f} [{min(ratios):.4f}-{max(ratios):.4f}]")
    print(f"{key:6s} " + "  ".join(cells))
PY
)" "$NP"

#!/bin/bash
# libtoporr's real collectives and selection vs the MPI library's default, in SimGrid SMPI.
#
#   run_collectives_eval.sh           the full table -> bench/results/collectives_smpi.md, and
#                                     its runs' raw data -> bench/results/collectives_smpi_runs.tar.xz
#     --fabrics LIST                  the full table's cells on these fabrics only (comma-
#                                     separated names below; the table says which are left out)
#     --collectives LIST              the full table's collectives (default
#                                     allreduce,bcast,allgather; the table says which are left out)
#     --cells-256 LIST                of the 256-rank cells only these ("FABRIC PLACEMENT H K",
#                                     `;`-separated, e.g. "ft256 bynode 64 4;ft256t bynode 64 4";
#                                     the table says which are left out)
#   run_collectives_eval.sh --tabulate   simulate nothing: the table (and its plots) again from
#                                     bench/results/collectives_smpi_runs.tar.xz
#   run_collectives_eval.sh --quick   CI gate: bundled 16-host fat tree, 64 ranks, 64 KiB and
#                                     16 MiB; fails on a fallback, on toporr slower than the
#                                     MPI default, on the 16 MiB allreduce gain vanishing, on
#                                     decisions that change when temporaries are shared, or on
#                                     a simulated time more than 2 % above
#                                     bench/smpi/quick_baseline.tsv (which also holds the MPI
#                                     default on the cell's leaf-sorted order)
#   run_collectives_eval.sh --quick --write-baseline   the gate, then its times become the
#                                     baseline (after a change meant to move them)
#   run_collectives_eval.sh --verify  the full table's cells with the run-time check on
#                                     (TOPORR_VERIFY=1, run variant `verified`) against the
#                                     same cells without it -> bench/results/
#                                     collectives_smpi_verified.md (collectives_verified_report.py)
#     --max-ranks N                   only the cells of at most N ranks
#     --large-sizes LIST              the cells of more than 64 ranks at these sizes only
#     --cached-only                   simulate nothing: the cells whose runs are cached (what
#                                     a stopped --verify finished)
#   run_collectives_eval.sh --allgather   MPI_Allgather (SMPI's ompi selector: Open MPI 4's
#                                     rules, ring / recursive doubling / Bruck / neighbour
#                                     exchange by size) against toporr_allgather (ring or
#                                     recursive doubling on toporr's order) on the full table's
#                                     64-rank cells (8 B .. 1 MiB per rank) and four 256-rank
#                                     cells (8 B .. 64 KiB per rank) -> bench/results/
#                                     allgather_smpi.md (allgather_report.py)
#
# What runs: bench/smpi/toporr_collective_time.cc linked with libtoporr's own sources
# (bench/smpi/build_libtoporr_smpi.sh), under smpirun, once per (fabric, placement,
# collective). In every run, per size 8 B .. 64 MiB: MPI_Allreduce / MPI_Bcast with SMPI's
# `ompi` selector (Open MPI 4's fixed decision rules: "the MPI default") on the launch order;
# toporr_allreduce / toporr_bcast with automatic selection (TOPORR_ALG_AUTO); every algorithm
# that selection chose among, forced; and `multilevel` when the library has it. The first
# call of each size is the decision (warm-up, not timed). Costs come from the file source
# (TOPORR_COSTS = `toporrctl export --format costs` of the same fabric, ingested with its
# forwarding tables), ranks name their hosts through TOPORR_HOSTMAP, every decision is
# recorded (TOPORR_REPORT) and bench/smpi/collectives_report.py fails the run if one fell
# back to the identity order or did not run the algorithm asked for.
# The leaf-sorted baseline: per cell, the MPI default (ompi selector, and mpich where the cell
# has that baseline) once more on the leaf-sorted order of the launch order
# (bench/smpi/leaf_sorted.py: hosts grouped by leaf switch, groups and hosts in launch order,
# each host's ranks contiguous), the order a site gets from its resource manager without
# toporr; where the launch order is leaf-sorted already, its launch-order run stands for it.
#
# Fabrics (cached under $TOPORR_SMPI_CACHE/fabrics, default /tmp/toporr-smpi):
#   bundled16   deploy/demo/fattree-2l-16h.net through ibsim + OpenSM: the fabric of the
#               bundled dump deploy/demo/fattree-2l-16h.ibnet (checked identical), 4xQDR
#   ft256       collectors/sim/gen_fattree.py: 16 leaves x 16 hosts, 16 uplinks per leaf over
#               4 spines (full bisection), 4xHDR
#   ft256t      the same with 4 uplinks per leaf: 4:1 tapered
#   torus256    collectors/sim/gen_direct.py: 3-D torus of 4x4x4 switches, 4 hosts each, 4xHDR,
#               routed by OpenSM dor (dimension order)
#   ft1024x3    gen_fattree.py --levels 3: 1,024 hosts, 32 per leaf, 8 uplinks per leaf (4:1
#               tapered), pods of 8 leaves, routed by OpenSM ftree; the platform and the cost
#               file cover a job's allocation of 256 random hosts (seed 11), see fabric()
#   dfly288     gen_direct.py: dragonfly of 9 groups x 4 all-to-all switches, 2 global cables
#               per switch, 8 hosts each, routed by OpenSM updn
# the fat trees routed by OpenSM (ftree), each turned into a platform whose routes are the
# LFTs' and whose latencies are the cost model's (fabric_to_platform.py --nic-latency 300: a
# path takes 300 ns per HCA, 130 ns per switch and 15 ns per cable, as mapping/costs/host_costs.h
# models an HDR fabric), and into a cost file by toporrd + `toporrctl ingest` (dump and LFTs)
# + `toporrctl export --format costs`.
# Placements: `bynode HxK`: the first H hosts (name order), rank r on host r % H (the
# by-node default); `bycore HxK`: the first H hosts, K consecutive ranks each (Open MPI's
# default); `frag HxK`: H hosts drawn at random (seed 7) as a scheduler fragments a fabric, in
# name order, K consecutive ranks per host; `random HxK`: H random hosts, the H*K ranks in
# random order (seed 7).
# Ranks per host: 1 and 4 in most cells; 8 (tapered tree frag 32x8, dragonfly random 32x8)
# and 16 (torus frag 16x16) in three 256-rank cells.
# Baselines: Scotch's mapping (every default run's `scotch` mode: the MPI default on the order
# Scotch gives the library's algorithm's communication graph), the MPI default under SMPI's
# `mpich` selector (MPICH's own rules, the 64-rank
# cells; toporr still predicts the library's call with the ompi rules it was built for), and
# SMPI's own hierarchical algorithms (allreduce smp_rsag, smp_rsag_lr, smp_rsag_rab,
# mvapich2_two_level; bcast SMP_binomial, mvapich2 = MVAPICH2's two-level selection) at 16 MiB
# on the tapered tree with 4 ranks per host by node and fragmented, with 8 fragmented, and on
# the 3-level tree (`best SMPI hierarchical`;
# at 64 MiB they hold up to 21 GiB of real temporaries at 256 ranks). The pipelined ones (smp_binomial_pipeline, SMP_binary, SMP_linear: 8 KiB
# segments) take SMPI minutes per call at 64 ranks and are left out.
# With the table: per fabric a PNG of the speedup against message size, one line per
# placement (bench/results/speedup_FABRIC.png, gnuplot). After it: bench/smpi/model_quality.py (the model's predicted times against the
# simulated ones, -> bench/results/model_quality_smpi.md and model_vs_smpi.png).
#
# SMPI settings: see bench/smpi/README.md ("toporr's own collectives"). Results are cached
# per run (keyed by the program, platform, costs, hostfile and arguments), so a rerun after
# a change rebuilds and re-simulates only what the change touches.
# Environment: TOPORR_SMPI_CACHE, TOPORR_SMPI_BAZEL_BASE (Bazel output base, default
# /root/.cache/bazel_smpi), TOPORR_SMPI_MULTILEVEL (the multi-level algorithm's name,
# default multilevel). Exit status: 0 ok, 1 a check failed or a step failed.
set -euo pipefail

QUICK=0
WRITE_BASELINE=0
VERIFY=0
MAX_RANKS=
LARGE_SIZES=
CACHED=0
ALLGATHER=0
FABRICS=
CELLS_256_ONLY=
COLLECTIVES=allreduce,bcast,allgather
COLLECTIVES_SET=0
TABULATE=0
ALL_FABRICS=(bundled16 ft256 ft256t torus256 dfly288 ft1024x3)
ARCHIVE_REL=bench/results/collectives_smpi_runs.tar.xz
usage() {
  echo "usage: $0 [--fabrics LIST] | --tabulate | --quick [--write-baseline] | [--verify [--max-ranks N] [--large-sizes LIST] [--cached-only]] | --allgather" >&2
  exit 2
}
while (($#)); do
  case "$1" in
    --quick) QUICK=1 ;;
    --write-baseline) WRITE_BASELINE=1 ;;
    --verify) VERIFY=1 ;;
    --max-ranks) [[ ${2:-} =~ ^[0-9]+$ ]] || usage; MAX_RANKS=$2; shift ;;
    --large-sizes) [[ ${2:-} =~ ^[0-9]+(,[0-9]+)*$ ]] || usage; LARGE_SIZES=$2; shift ;;
    --cached-only) CACHED=1 ;;
    --allgather) ALLGATHER=1 ;;
    --fabrics) [[ ${2:-} =~ ^[a-z0-9]+(,[a-z0-9]+)*$ ]] || usage; FABRICS=$2; shift ;;
    --cells-256) [[ -n ${2:-} ]] || usage; CELLS_256_ONLY=$2; shift ;;
    --collectives) [[ ${2:-} =~ ^(allreduce|bcast|allgather)(,(allreduce|bcast|allgather))*$ ]] || usage
                   COLLECTIVES=$2; COLLECTIVES_SET=1; shift ;;
    --tabulate) TABULATE=1 ;;
    *) usage ;;
  esac
  shift
done
((WRITE_BASELINE && !QUICK)) && { echo "usage: --write-baseline goes with --quick" >&2; exit 2; }
((VERIFY && QUICK)) && usage
[[ -n $MAX_RANKS || -n $LARGE_SIZES ]] && ((!VERIFY)) && usage
((CACHED && !VERIFY)) && usage
((ALLGATHER && (QUICK || VERIFY))) && usage
[[ -n $FABRICS || -n $CELLS_256_ONLY ]] || ((COLLECTIVES_SET)) && ((QUICK || VERIFY || ALLGATHER || TABULATE)) && usage
((TABULATE && (QUICK || VERIFY || ALLGATHER))) && usage
for f in ${FABRICS//,/ }; do
  [[ " ${ALL_FABRICS[*]} " == *" $f "* ]] || { echo "unknown fabric $f (${ALL_FABRICS[*]})" >&2; exit 2; }
done
if ((TABULATE)); then
  # The committed raw data of the table: its runs TSV (run directories relative to the
  # archive's root), each run's cells.txt, report.jsonl and seconds, sources.txt and the
  # report's arguments (args.txt, one per line).
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  tar -xJf "$here/$ARCHIVE_REL" -C "$tmp" || exit 1
  awk -v root="$tmp/" 'BEGIN { FS = OFS = "\t" } { $8 = root $8; print }' "$tmp/runs.tsv" >"$tmp/runs.abs.tsv"
  mapfile -t saved <"$tmp/args.txt"
  python3 "$here/bench/smpi/collectives_report.py" --runs "$tmp/runs.abs.tsv" \
    --sources "$tmp/sources.txt" "${saved[@]}" \
    --output "$here/bench/results/collectives_smpi.md" --plots "$here/bench/results" >/dev/null
  exit $?
fi
# shellcheck source=bench/smpi/collectives_eval_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/collectives_eval_lib.sh"
START=$EPOCHREALTIME
# Runs of the gate and of the full table are kept apart (the same names, other sizes), and
# the list of this invocation's runs is its own, so a gate (e.g. the test suite) can run
# while a full table is being made.
# The verified table's runs have other modes under the same names: a directory of their own.
if ((QUICK)); then
  start_runs "$CACHE/runs-quick"
elif ((ALLGATHER)); then
  start_runs "$CACHE/runs-allgather"
elif ((VERIFY)); then
  start_runs "$CACHE/runs-verify"
else
  start_runs "$CACHE/runs"
fi
build_tools
CACHED_ONLY=$CACHED

REPORT_ARGS=()
if ((QUICK)); then
  fabric bundled16
  for coll in allreduce bcast; do
    run bundled16 bynode 16 4 "$coll" 65536,16777216
    # The same decisions with every C++ allocation private: folding the collectives'
    # temporaries (smpi_shared_new.cc) must not touch what the planner computes.
    run bundled16 bynode 16 4 "$coll" 65536,16777216 mpi,auto private
    # The MPI default on the leaf-sorted order (the baseline of the table's "vs leaf-sorted").
    run bundled16 bynode 16 4 "$coll" 65536,16777216 mpi leafsorted
  done
  REPORT_ARGS=(--quick --output "$CACHE/collectives_quick.md")
  if ((WRITE_BASELINE)); then
    REPORT_ARGS+=(--write-baseline "$REPO/bench/smpi/quick_baseline.tsv")
  else
    REPORT_ARGS+=(--baseline "$REPO/bench/smpi/quick_baseline.tsv")
  fi
else
  USE_FABRICS=("${ALL_FABRICS[@]}")
  if [[ -n $FABRICS ]]; then IFS=, read -r -a USE_FABRICS <<<"$FABRICS"; fi
  if ((ALLGATHER)); then USE_FABRICS=("${ALL_FABRICS[@]}"); fi
  for fab in "${USE_FABRICS[@]}"; do fabric "$fab"; done
  # The cells (FABRIC PLACEMENT H K): 64 ranks, then 256 (~16 GiB peak: SMPI's own allreduce
  # allocates its temporaries for real, 64 MiB per rank); the reports order the tables.
  CELLS_64=("bundled16 bynode 16 1" "bundled16 bynode 16 4" "ft256t frag 64 1"
            "torus256 frag 64 1" "torus256 random 16 4" "dfly288 frag 64 1"
            "dfly288 random 16 4" "ft1024x3 frag 64 1"
            # Contiguous (by-core) twins of the by-node and random cells: the contiguous optimum.
            "bundled16 bycore 16 4" "torus256 bycore 16 4" "dfly288 bycore 16 4")
  CELLS_256=("ft256 bynode 64 4" "ft256t bynode 64 4" "ft256t frag 64 4" "ft256 bycore 64 4"
             "ft256t bycore 64 4" "ft1024x3 frag 64 4"
             # 8 and 16 ranks per host: where intra-host stages and SMPI's SMP-aware
             # algorithms have the most to work with.
             "ft256t frag 32 8" "torus256 frag 16 16" "dfly288 random 32 8")
  # SMPI's hierarchical algorithms are baselines of these 256-rank cells.
  HIER_CELLS=" ft256t bynode 64 4 | ft256t frag 64 4 | ft1024x3 frag 64 4 | ft256t frag 32 8 "
  ALLGATHER_256=("ft256 bynode 64 4" "ft256t bynode 64 4" "ft256t frag 64 4" "ft1024x3 frag 64 4")
  if ((ALLGATHER)); then
    # Sizes are per rank (the receive buffer is the job's size times one): 1 MiB per rank at
    # 256 ranks would be 256 MiB per call and hours of SMPI.
    for cell in "${CELLS_64[@]}"; do
      # shellcheck disable=SC2086
      run $cell allgather 8,1024,65536,1048576
    done
    for cell in "${ALLGATHER_256[@]}"; do
      # shellcheck disable=SC2086
      run $cell allgather 8,1024,65536
    done
    elapsed=$(awk -v a="$START" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }')
    python3 "$REPO/bench/smpi/allgather_report.py" --runs "$RUNS" --elapsed "$elapsed" \
      --commit "$(commit_id)" --output "$REPO/bench/results/allgather_smpi.md" || exit 1
    exit 0
  elif ((VERIFY)); then
    # Per cell the MPI default and the model's choice unverified (mpi and auto) and verified,
    # all after the same warm-up calls; --max-ranks N leaves out the cells of more ranks,
    # --large-sizes LIST simulates the cells of more than 64 ranks at those sizes only (their
    # 64 MiB runs take SMPI the longest), --cached-only the runs not simulated yet (subsets,
    # said in the table).
    for cell in "${CELLS_64[@]}" "${CELLS_256[@]}"; do
      read -r _ _ h k <<<"$cell"
      [[ -n $MAX_RANKS ]] && ((h * k > MAX_RANKS)) && continue
      sizes=$SIZES
      [[ -n $LARGE_SIZES ]] && ((h * k > 64)) && sizes=$LARGE_SIZES
      for coll in allreduce bcast; do
        # shellcheck disable=SC2086
        run $cell "$coll" "$sizes" mpi,auto warmups
        # shellcheck disable=SC2086
        run $cell "$coll" "$sizes" auto verified
      done
    done
  else
    # wanted CELL: the cell's fabric is one of this invocation's (--fabrics) and, for a cell of
    # more than 64 ranks, it is one of --cells-256 when that is given.
    IFS=';' read -r -a ONLY_256 <<<"$CELLS_256_ONLY"
    for cell in "${ONLY_256[@]}"; do
      [[ " | ${CELLS_256[*]/%/ |} " == *" | $cell | "* ]] \
        || die "--cells-256: \"$cell\" is not a 256-rank cell (${CELLS_256[*]/%/;})"
    done
    wanted() {
      local h k
      [[ " ${USE_FABRICS[*]} " == *" ${1%% *} "* ]] || return 1
      read -r _ _ h k <<<"$1"
      ((h * k <= 64)) || [[ -z $CELLS_256_ONLY || ";$CELLS_256_ONLY;" == *";$1;"* ]]
    }
    # has COLLECTIVE: the collective is one of this invocation's (--collectives).
    has() { [[ ",$COLLECTIVES," == *",$1,"* ]]; }
    for coll in allreduce bcast; do
      has "$coll" || continue
      for cell in "${CELLS_64[@]}"; do
        wanted "$cell" || continue
        # shellcheck disable=SC2086
        run_all $cell "$coll"
        # shellcheck disable=SC2086
        run $cell "$coll" "$SIZES" mpi leafsorted
      done
    done
    # The MPI default under SMPI's mpich selector (MPICH's rules) for the 64-rank cells but
    # the by-core twins, on the launch order and on the leaf-sorted order.
    for coll in allreduce bcast; do
      has "$coll" || continue
      for cell in "${CELLS_64[@]:0:7}"; do
        wanted "$cell" || continue
        # shellcheck disable=SC2086
        run $cell "$coll" "$SIZES" mpi selector:mpich
        # shellcheck disable=SC2086
        run $cell "$coll" "$SIZES" mpi leafsorted:mpich
      done
    done
    for coll in allreduce bcast; do
      has "$coll" || continue
      for cell in "${CELLS_256[@]}"; do
        wanted "$cell" || continue
        # shellcheck disable=SC2086
        run_all $cell "$coll"
        # shellcheck disable=SC2086
        run $cell "$coll" "$SIZES" mpi leafsorted
        if [[ $HIER_CELLS == *" $cell "* ]]; then
          # shellcheck disable=SC2086
          baselines $cell "$coll"
        fi
      done
    done
    # Allgather: the MPI default and toporr's selection only (the algorithms one by one are
    # --allgather's table), on the cells and sizes per rank of --allgather, and the MPI default
    # on the leaf-sorted order.
    for cell in "${CELLS_64[@]}" "${ALLGATHER_256[@]}"; do
      has allgather || break
      wanted "$cell" || continue
      read -r _ _ h k <<<"$cell"
      sizes=8,1024,65536,1048576
      ((h * k > 64)) && sizes=8,1024,65536
      # shellcheck disable=SC2086
      run $cell allgather "$sizes" mpi,auto
      # shellcheck disable=SC2086
      run $cell allgather "$sizes" mpi leafsorted
    done
  fi
  LEFT=()
  for f in "${ALL_FABRICS[@]}"; do [[ " ${USE_FABRICS[*]} " == *" $f "* ]] || LEFT+=("$f"); done
  LEFT_FABRICS=("${LEFT[@]}")
  NOTE=
  ((${#LEFT[@]})) && NOTE="A subset: the cells of fabric(s) ${LEFT[*]} are left out (--fabrics)."
  if [[ -n $CELLS_256_ONLY ]]; then
    LEFT=()
    for cell in "${CELLS_256[@]}"; do
      [[ " ${LEFT_FABRICS[*]} " == *" ${cell%% *} "* ]] || wanted "$cell" || LEFT+=("$cell")
    done
    ((${#LEFT[@]})) && NOTE+="${NOTE:+ }A subset: of the 256-rank cells only $CELLS_256_ONLY (--cells-256); left out: $(IFS=';'; echo "${LEFT[*]}")."
  fi
  ((COLLECTIVES_SET)) && NOTE+="${NOTE:+ }A subset: collectives $COLLECTIVES only (--collectives)."
  TABLE_ARGS=(--command "bench/smpi/run_collectives_eval.sh${FABRICS:+ --fabrics $FABRICS}$( ((COLLECTIVES_SET)) && echo " --collectives $COLLECTIVES")${CELLS_256_ONLY:+ --cells-256 \"$CELLS_256_ONLY\"}"
              --note "$NOTE")
  REPORT_ARGS=(--output "$REPO/bench/results/collectives_smpi.md" --plots "$REPO/bench/results"
               "${TABLE_ARGS[@]}")
fi
elapsed=$(awk -v a="$START" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }')
if ((VERIFY)); then
  subset=
  [[ -n $MAX_RANKS ]] && subset="A subset: the full table's cells of at most $MAX_RANKS ranks."
  [[ -n $LARGE_SIZES ]] && subset+=" A subset: the cells of more than 64 ranks at sizes $LARGE_SIZES (bytes) only."
  if ((${#LEFT_OUT[@]})); then
    subset+=" A subset: ${#LEFT_OUT[@]} runs had not been simulated (--cached-only) and their"
    subset+=" cells are left out: ${LEFT_OUT[*]}."
  fi
  python3 "$REPO/bench/smpi/collectives_verified_report.py" --runs "$RUNS" \
    --command "bench/smpi/run_collectives_eval.sh --verify${MAX_RANKS:+ --max-ranks $MAX_RANKS}${LARGE_SIZES:+ --large-sizes $LARGE_SIZES}$( ((CACHED)) && echo " --cached-only")" \
    --intro "$subset" --verify-calls "$VERIFY_CALLS" --elapsed "$elapsed" --commit "$(commit_id)" \
    --output "$REPO/bench/results/collectives_smpi_verified.md" >/dev/null || status=1
  exit "${status:-0}"
fi
COMMIT=$(commit_id)
python3 "$REPO/bench/smpi/collectives_report.py" --runs "$RUNS" --multilevel "$MULTILEVEL" \
  --sources "$CACHE/libtoporr-smpi/sources.txt" --elapsed "$elapsed" --commit "$COMMIT" \
  "${REPORT_ARGS[@]}" || status=1
if ((!QUICK)); then
  # The table's raw data (what --tabulate reads): each run's cells, decisions, seconds and
  # hostfile, the runs TSV with directories relative to the archive, the report's arguments.
  stage=$(mktemp -d)
  mkdir -p "$stage/runs"
  while IFS=$'\t' read -r -a row; do
    base=$(basename "${row[7]}")
    if [[ ! -d $stage/runs/$base ]]; then
      mkdir -p "$stage/runs/$base"
      for f in cells.txt report.jsonl seconds; do
        if [[ -f ${row[7]}/$f ]]; then cp "${row[7]}/$f" "$stage/runs/$base/"; fi
      done
      if [[ -f ${row[7]}.hostfile ]]; then cp "${row[7]}.hostfile" "$stage/runs/$base.hostfile"; fi
    fi
    row[7]=runs/$base
    (IFS=$'\t'; echo "${row[*]}") >>"$stage/runs.tsv"
  done <"$RUNS"
  cp "$CACHE/libtoporr-smpi/sources.txt" "$stage/sources.txt"
  printf '%s\n' --multilevel "$MULTILEVEL" --elapsed "$elapsed" --commit "$COMMIT" \
    "${TABLE_ARGS[@]}" >"$stage/args.txt"
  tar -cJf "$REPO/$ARCHIVE_REL" -C "$stage" --sort=name --owner=0 --group=0 --mtime=@0 . \
    || status=1
  rm -rf "$stage"
  python3 "$REPO/bench/smpi/model_quality.py" --runs "$RUNS" --multilevel "$MULTILEVEL" \
    --output "$REPO/bench/results/model_quality_smpi.md" \
    --plot "$REPO/bench/results/model_vs_smpi.png" >/dev/null || status=1
fi
exit "${status:-0}"

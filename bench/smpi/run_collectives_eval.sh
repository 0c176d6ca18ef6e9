#!/bin/bash
# libtoporr's real collectives and selection vs the MPI library's default, in SimGrid SMPI.
#
#   run_collectives_eval.sh           the full table -> bench/results/collectives_smpi.md
#   run_collectives_eval.sh --quick   CI gate: bundled 16-host fat tree, 64 ranks, 64 KiB and
#                                     16 MiB; fails on a fallback, on toporr slower than the
#                                     MPI default, on the 16 MiB allreduce gain vanishing, on
#                                     decisions that change when temporaries are shared, or on
#                                     a simulated time more than 2 % above
#                                     bench/smpi/quick_baseline.tsv
#   run_collectives_eval.sh --quick --write-baseline   the gate, then its times become the
#                                     baseline (after a change meant to move them)
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
# path takes 300 ns per HCA, 130 ns per switch and 15 ns per cable, as mapping/host_costs.h
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

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CACHE=${TOPORR_SMPI_CACHE:-${TEST_TMPDIR:-/tmp}/toporr-smpi}
BAZEL_BASE=${TOPORR_SMPI_BAZEL_BASE:-/root/.cache/bazel_smpi}
MULTILEVEL=${TOPORR_SMPI_MULTILEVEL:-multilevel}
QUICK=0
WRITE_BASELINE=0
for arg in "$@"; do
  case "$arg" in
    --quick) QUICK=1 ;;
    --write-baseline) WRITE_BASELINE=1 ;;
    *) echo "usage: $0 [--quick [--write-baseline]]" >&2; exit 2 ;;
  esac
done
((WRITE_BASELINE && !QUICK)) && { echo "usage: --write-baseline goes with --quick" >&2; exit 2; }
die() { echo "run_collectives_eval: $*" >&2; exit 1; }
log() { echo "run_collectives_eval: $*" >&2; }
START=$EPOCHREALTIME
for tool in smpicxx smpirun python3 bazel; do
  command -v "$tool" >/dev/null || die "missing $tool (deploy/install-deps.sh)"
done
# Runs of the gate and of the full table are kept apart (the same names, other sizes), and
# the list of this invocation's runs is its own, so a gate (e.g. the test suite) can run
# while a full table is being made.
if ((QUICK)); then RUNDIR=$CACHE/runs-quick; else RUNDIR=$CACHE/runs; fi
mkdir -p "$CACHE/fabrics" "$RUNDIR"

# --- tools: toporrd + toporrctl (the cost file), the SMPI program --------------------------------
log "building //daemon:toporrd //client/ctl:toporrctl (output base $BAZEL_BASE)"
(cd "$REPO" && bazel --output_base="$BAZEL_BASE" build //daemon:toporrd //client/ctl:toporrctl) \
  >"$CACHE/bazel.log" 2>&1 || die "bazel build failed: see $CACHE/bazel.log"
BIN=$(cd "$REPO" && bazel --output_base="$BAZEL_BASE" info bazel-bin 2>/dev/null)
TOPORRD=$BIN/daemon/toporrd
TOPORRCTL=$BIN/client/ctl/toporrctl
log "building libtoporr + toporr_collective_time with smpicxx"
BENCH=$("$REPO/bench/smpi/build_libtoporr_smpi.sh" "$CACHE/libtoporr-smpi") || exit 1
# Shared libraries with per-process state that SMPI must load once per simulated rank:
# protobuf (each copy of the program registers its generated messages in it).
PRIVATE_LIBS=$(readelf -d "$BENCH" | sed -n 's/.*Shared library: \[\(libprotobuf[^]]*\)\].*/\1/p' |
               paste -sd ';')

# --- fabrics --------------------------------------------------------------------------------------
# fabric NAME: $CACHE/fabrics/NAME/{ibnetdiscover.txt,dump_fts.txt}, NAME.xml, NAME.hosts and
# NAME.costs, each rebuilt when missing or older than what it comes from.
fabric() {
  local name=$1 dir=$CACHE/fabrics/$1 net=$CACHE/fabrics/$1.net
  # lfts: the forwarding tables the cost file and the platform follow. dump_fts (infiniband-diags
  # 44) leaves out the top LID when it starts a new 64-LID block (0x140 on torus256: 256 CAs +
  # 64 switches; toporrctl ingest refuses such tables: "no forwarding entry for LID 320"), so
  # the direct networks use OpenSM's own dump of the same tables.
  local generator=gen_fattree.py engine=ftree lfts=dump_fts.txt lfts_format=lft
  case $name in
    bundled16) net=$REPO/deploy/demo/fattree-2l-16h.net ;;
    ft256) gen=(--hosts 256 --hosts-per-leaf 16 --spines 4) ;;
    ft256t) gen=(--hosts 256 --hosts-per-leaf 16 --leaf-uplinks 4 --spines 4) ;;
    torus256) generator=gen_direct.py engine=dor lfts=opensm-lfts.dump lfts_format=opensm-lfts
              gen=(--shape torus --dims 4x4x4 --hosts-per-switch 4) ;;
    ft1024x3) gen=(--hosts 1024 --levels 3 --hosts-per-leaf 32 --leaves-per-pod 8
                   --leaf-uplinks 8) ;;
    dfly288) generator=gen_direct.py engine=updn lfts=opensm-lfts.dump lfts_format=opensm-lfts
             gen=(--shape dragonfly --groups 9 --switches-per-group 4 --global-per-switch 2
                  --hosts-per-switch 8) ;;
    *) die "unknown fabric $name" ;;
  esac
  if [[ $name != bundled16 && (! -s $net || $REPO/collectors/sim/$generator -nt $net) ]]; then
    python3 "$REPO/collectors/sim/$generator" "${gen[@]}" --out "$net" >/dev/null 2>&1 \
      || die "$generator ${gen[*]} failed"
  fi
  if [[ ! -s $dir/dump_fts.txt || $net -nt $dir/dump_fts.txt ]]; then
    log "fabric $name: ibsim + OpenSM ($engine)"
    bash "$REPO/collectors/sim/run_ibsim.sh" "$net" "$dir" --routing-engine $engine \
      >"$dir.ibsim.log" 2>&1 || die "run_ibsim.sh $net failed: see $dir.ibsim.log"
  fi
  if [[ $name == bundled16 ]]; then  # the simulated fabric is the bundled dump's
    local shape='/^(Switch|Hca|Ca|\[)/ { sub(/#.*/, ""); gsub(/\([0-9a-f]+\)/, ""); gsub(/[ \t]+/, " "); print }'
    cmp -s <(awk "$shape" "$dir/ibnetdiscover.txt") \
           <(awk "$shape" "$REPO/deploy/demo/fattree-2l-16h.ibnet") \
      || die "ibsim's bundled16 differs from deploy/demo/fattree-2l-16h.ibnet"
  fi
  local xml=$CACHE/fabrics/$name.xml hosts=$CACHE/fabrics/$name.hosts only=()
  if [[ $name == ft1024x3 ]]; then
    # The job's allocation on the large fabric: 256 of its 1,024 hosts at random (seed 11),
    # scattered over every pod. The platform and the cost file cover those hosts only (all
    # pairs of 1,024 hosts would be 1 M routes); the placements below draw from them.
    python3 -c "import random; print('\n'.join(sorted('node%05d' % (i + 1)
                for i in random.Random(11).sample(range(1024), 256))))" >"$dir.alloc"
    only=(--only-hosts "$dir.alloc")
  fi
  if [[ ! -s $xml || $dir/$lfts -nt $xml || $REPO/bench/smpi/fabric_to_platform.py -nt $xml ]]; then
    python3 "$REPO/bench/smpi/fabric_to_platform.py" --ibnetdiscover "$dir/ibnetdiscover.txt" \
      --lfts "$dir/$lfts" --cores 16 --nic-latency 300 "${only[@]}" --out "$xml" \
      --hosts-out "$hosts" >/dev/null || die "fabric_to_platform.py ($name) failed"
  fi
  local costs=$CACHE/fabrics/$name.costs
  # Rebuilt also when toporrctl changed (what the file holds: TOPORRC2 carries the routes).
  if [[ ! -s $costs || $dir/$lfts -nt $costs || $TOPORRCTL -nt $costs ]]; then
    log "fabric $name: cost file (toporrd ingest + toporrctl export --format costs)"
    local work=$CACHE/fabrics/$name.toporrd
    rm -rf "$work" && mkdir -p "$work"
    "$TOPORRD" --config= --db "$work/toporr.db" --socket "$work/sock" 2>"$work/toporrd.log" &
    local pid=$! ctl=("$TOPORRCTL" --socket "$work/sock") ok=0
    for _ in $(seq 100); do
      if "${ctl[@]}" health >/dev/null 2>&1; then ok=1; break; fi
      sleep 0.05
    done
    if ((ok)) && "${ctl[@]}" ingest --format ibnetdiscover "$dir/ibnetdiscover.txt" >"$work/ctl.log" 2>&1 &&
       "${ctl[@]}" ingest --format "$lfts_format" "$dir/$lfts" >>"$work/ctl.log" 2>&1 &&
       "${ctl[@]}" export --format costs --output "$costs" --hosts "$(paste -sd, "$hosts")" \
         >>"$work/ctl.log" 2>&1; then
      ok=1
    else
      ok=0
    fi
    kill "$pid" && wait "$pid" || true
    ((ok)) || die "cost file for $name failed: see $work/"
  fi
}

# --- runs -----------------------------------------------------------------------------------------
SIZES=8,1024,65536,1048576,16777216,67108864
CFG=(--cfg=smpi/coll-selector:ompi --cfg=smpi/simulate-computation:no --cfg=network/crosstraffic:0
     --cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1 --log=root.thres:warning)
RUNS=$(mktemp "$CACHE/runs.XXXXXX.tsv")
trap 'rm -f "$RUNS"' EXIT
: >"$RUNS"

# The algorithms also timed on the launch order (toporr_collective_time's NAME@launch), against
# the same algorithm on toporr's order: what the reordering heuristics alone are worth.
declare -A LAUNCH_MODES=(
  [allreduce]=ring@launch,rabenseifner@launch
  [bcast]=binomial@launch,binary_tree@launch,knomial@launch,scatter_allgather@launch)

# run FABRIC PLACEMENT H K COLLECTIVE [SIZES [MODES [VARIANT]]]: one smpirun; its directory
# (cells.txt, report.jsonl) goes to $RUNS with the run's description. VARIANT `private`
# turns the folding of large C++ allocations off (smpi_shared_new.cc); `forced` runs with
# TOPORR_ALGORITHM=$MULTILEVEL (the multi-level version is forced through the library's
# environment, not the C API's algorithm argument).
run() {
  local fab=$1 placement=$2 h=$3 k=$4 coll=$5 sizes=${6:-$SIZES}
  local modes=${7:-mpi,auto,candidates,scotch,${LAUNCH_MODES[$5]}} variant=${8:-} p=$(($3 * $4))
  local fold=4194304 force=
  local cfg=("${CFG[@]}")
  [[ $variant == private ]] && fold=0
  [[ $variant == forced ]] && force=$MULTILEVEL
  # smpi:ALG: a baseline, SMPI's own algorithm ALG (e.g. smp_rsag_lr) for MPI_Allreduce/MPI_Bcast
  [[ $variant == smpi:* ]] && cfg+=(--cfg=smpi/$coll:${variant#smpi:})
  # selector:NAME: the MPI default under another of SMPI's selectors (mpich: MPICH's rules)
  [[ $variant == selector:* ]] && cfg=("${cfg[@]/coll-selector:ompi/coll-selector:${variant#selector:}}")
  local name=$fab-$placement-${h}x$k-$coll${variant:+-${variant/:/-}}
  local dir=$RUNDIR/$name hostfile=$RUNDIR/$name.hostfile
  mkdir -p "$dir"
  python3 - "$CACHE/fabrics/$fab.hosts" "$placement" "$h" "$k" >"$hostfile" <<'PY'
import random, sys
hosts = [l.strip() for l in open(sys.argv[1]) if l.strip()]
placement, h, k = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
if placement == "bynode":  # the first h hosts, rank r on host r % h
    chosen = hosts[:h]
    ranks = [chosen[r % h] for r in range(h * k)]
elif placement == "bycore":  # the first h hosts, k consecutive ranks each (Open MPI's default)
    ranks = [hosts[r // k] for r in range(h * k)]
elif placement == "random":  # h random hosts, the ranks in random order (seed 7)
    rng = random.Random(7)
    ranks = [host for host in rng.sample(hosts, h) for _ in range(k)]
    rng.shuffle(ranks)
else:  # frag: h random hosts in name order, k consecutive ranks each
    chosen = sorted(random.Random(7).sample(hosts, h))
    ranks = [chosen[r // k] for r in range(h * k)]
print("\n".join(ranks))
PY
  local key
  key=$(cat "$BENCH" "$CACHE/fabrics/$fab.xml" "$CACHE/fabrics/$fab.costs" "$hostfile" \
        <(echo "$coll $sizes $modes ${cfg[*]} $fold $force $PRIVATE_LIBS") | sha256sum | cut -c1-16)
  if [[ ! -f $dir/key || $(cat "$dir/key") != "$key" ]]; then
    log "$name: $p ranks, $coll, $modes"
    # SMPI's own collectives allocate their temporaries for real: the MPI default's 64 MiB
    # allreduce holds ~64 MiB per rank at once (16 GiB at 256 ranks).
    local need=$((p * 64 + 1024)) avail
    avail=$(awk '/^MemAvailable:/ { printf "%d", $2 / 1024 }' /proc/meminfo)
    if [[ $sizes == *67108864* && $modes == *mpi* && $avail -lt $need ]]; then
      log "warning: $name needs ~$need MiB of memory, $avail MiB available: the kernel may kill it"
    fi
    rm -f "$dir/key" "$dir/report.jsonl"
    local t0=$EPOCHREALTIME tmp
    tmp=$(mktemp -d /dev/shm/toporr-eval.XXXXXX)
    # TMPDIR: smpirun copies the program and the privatized libraries once per rank (~1 GB at
    # 256 ranks) into its temporary directory; tmpfs keeps that off the disk (its -tmpdir
    # option is broken in 3.32: it shifts one argument instead of two). One directory per
    # run: the copies' names are per rank, so two smpiruns sharing one collide.
    # TOPORR_VERIFY=0: the table shows what the model chooses; the run-time check of the
    # choices against the MPI library's call is evaluated on its own.
    TMPDIR=$tmp TOPORR_VERIFY=0 TOPORR_SMPI_FOLD_BYTES=$fold TOPORR_ALGORITHM=$force TOPORR_COSTS=$CACHE/fabrics/$fab.costs TOPORR_HOSTMAP=$hostfile \
      TOPORR_REPORT=$dir/report.jsonl \
      smpirun -np "$p" -platform "$CACHE/fabrics/$fab.xml" -hostfile "$hostfile" "$BENCH" \
        --collective "$coll" --sizes "$sizes" --modes "$modes" --print-hosts \
        --cfg=smpi/privatize-libs:"$PRIVATE_LIBS" "${cfg[@]}" \
        >"$dir/stdout.txt" 2>"$dir/stderr.txt" \
      || { rm -rf "$tmp"; die "smpirun failed ($name): see $dir/stderr.txt"; }
    rm -rf "$tmp"
    diff <(awk '$1 == "rank" { print $3 }' "$dir/stdout.txt") "$hostfile" >/dev/null \
      || die "SMPI did not place the ranks as $hostfile says ($name)"
    grep -E '^(cell|skip) ' "$dir/stdout.txt" >"$dir/cells.txt" || true
    awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f\n", b - a }' >"$dir/seconds"
    echo "$key" >"$dir/key"
  fi
  printf "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n" "$fab" "$placement" "${h}x$k" "$p" "$coll" \
    "${variant:-default}" "$(cat "$dir/seconds")" "$dir" >>"$RUNS"
  LAST_RUN=$dir
}

# run_all ARGS...: `run ARGS` with all the modes, then the multi-level version forced when the
# library's decisions in that run listed it among their candidates (else it is not in the
# library that was built, and the table says so).
run_all() {
  run "$@"
  if grep -q "\"algorithm\":\"$MULTILEVEL\"\|\"chosen_algorithm\":\"$MULTILEVEL\"" \
       "$LAST_RUN/report.jsonl" 2>/dev/null; then
    run "$@" "$SIZES" "$MULTILEVEL" forced
  fi
}

# baselines FABRIC PLACEMENT H K COLLECTIVE: SMPI's hierarchical (SMP-aware / two-level)
# algorithms at the large sizes, each one run of MPI_Allreduce / MPI_Bcast on the launch order.
HIER_ALLREDUCE=(smp_rsag smp_rsag_lr smp_rsag_rab mvapich2_two_level)
HIER_BCAST=(SMP_binomial mvapich2)
baselines() {
  local coll=$5 algs
  if [[ $coll == allreduce ]]; then algs=("${HIER_ALLREDUCE[@]}"); else algs=("${HIER_BCAST[@]}"); fi
  for alg in "${algs[@]}"; do
    # mvapich2_two_level with 8 ranks per host: SMPI still on its one 16 MiB call after 18
    # minutes of CPU (its intra-node stage); left out there.
    [[ $alg == mvapich2_two_level && $4 -ge 8 ]] && continue
    run "$@" 16777216 mpi "smpi:$alg"
  done
}

REPORT_ARGS=()
if ((QUICK)); then
  fabric bundled16
  for coll in allreduce bcast; do
    run bundled16 bynode 16 4 "$coll" 65536,16777216
    # The same decisions with every C++ allocation private: folding the collectives'
    # temporaries (smpi_shared_new.cc) must not touch what the planner computes.
    run bundled16 bynode 16 4 "$coll" 65536,16777216 mpi,auto private
  done
  REPORT_ARGS=(--quick --output "$CACHE/collectives_quick.md")
  if ((WRITE_BASELINE)); then
    REPORT_ARGS+=(--write-baseline "$REPO/bench/smpi/quick_baseline.tsv")
  else
    REPORT_ARGS+=(--baseline "$REPO/bench/smpi/quick_baseline.tsv")
  fi
else
  for fab in bundled16 ft256 ft256t torus256 dfly288 ft1024x3; do fabric "$fab"; done
  # The 64-rank runs first, then the 256-rank ones (~16 GiB peak: SMPI's own allreduce
  # allocates its temporaries for real, 64 MiB per rank); the report orders the table.
  for coll in allreduce bcast; do
    run_all bundled16 bynode 16 1 "$coll"
    run_all bundled16 bynode 16 4 "$coll"
    run_all ft256t frag 64 1 "$coll"
    run_all torus256 frag 64 1 "$coll"
    run_all torus256 random 16 4 "$coll"
    run_all dfly288 frag 64 1 "$coll"
    run_all dfly288 random 16 4 "$coll"
    run_all ft1024x3 frag 64 1 "$coll"
    # Contiguous (by-core) twins of the by-node and random cells: the contiguous optimum.
    run_all bundled16 bycore 16 4 "$coll"
    run_all torus256 bycore 16 4 "$coll"
    run_all dfly288 bycore 16 4 "$coll"
  done
  # The MPI default under SMPI's mpich selector (MPICH's rules) for the 64-rank cells.
  for coll in allreduce bcast; do
    for cell in "bundled16 bynode 16 1" "bundled16 bynode 16 4" "ft256t frag 64 1" \
                "torus256 frag 64 1" "torus256 random 16 4" "dfly288 frag 64 1" \
                "dfly288 random 16 4"; do
      # shellcheck disable=SC2086
      run $cell "$coll" "$SIZES" mpi selector:mpich
    done
  done
  for coll in allreduce bcast; do
    run_all ft256 bynode 64 4 "$coll"
    run_all ft256t bynode 64 4 "$coll"
    run_all ft256t frag 64 4 "$coll"
    baselines ft256t bynode 64 4 "$coll"
    baselines ft256t frag 64 4 "$coll"
    run_all ft256 bycore 64 4 "$coll"
    run_all ft256t bycore 64 4 "$coll"
    run_all ft1024x3 frag 64 4 "$coll"
    baselines ft1024x3 frag 64 4 "$coll"
    # 8 and 16 ranks per host (256 ranks): where intra-host stages and SMPI's SMP-aware
    # algorithms have the most to work with.
    run_all ft256t frag 32 8 "$coll"
    baselines ft256t frag 32 8 "$coll"
    run_all torus256 frag 16 16 "$coll"
    run_all dfly288 random 32 8 "$coll"
  done
  REPORT_ARGS=(--output "$REPO/bench/results/collectives_smpi.md" --plots "$REPO/bench/results")
fi
elapsed=$(awk -v a="$START" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }')
python3 "$REPO/bench/smpi/collectives_report.py" --runs "$RUNS" --multilevel "$MULTILEVEL" \
  --sources "$CACHE/libtoporr-smpi/sources.txt" --elapsed "$elapsed" \
  --commit "$(cd "$REPO" && git rev-parse --short HEAD)$(cd "$REPO" && git diff --quiet HEAD -- client mapping common collectors bench/smpi || echo +changes)" \
  "${REPORT_ARGS[@]}" || status=1
if ((!QUICK)); then
  python3 "$REPO/bench/smpi/model_quality.py" --runs "$RUNS" --multilevel "$MULTILEVEL" \
    --output "$REPO/bench/results/model_quality_smpi.md" \
    --plot "$REPO/bench/results/model_vs_smpi.png" >/dev/null || status=1
fi
exit "${status:-0}"

# The machinery of bench/smpi/run_collectives_eval.sh, sourced by it and by the scripts that
# evaluate other settings of the same runs (bench/smpi/run_verify_eval.sh): building the tools
# and the SMPI program, the fabrics (platform, hosts, cost file) and one smpirun per run.
#
# The sourcing script sets `set -euo pipefail` and then calls, in order:
#   build_tools         toporrd, toporrctl (Bazel) and the SMPI program ($BENCH)
#   start_runs DIR      runs are cached under DIR; $RUNS lists this invocation's runs (TSV, the
#                       input of collectives_report.py), removed on exit
#   fabric NAME         once per fabric used
#   run / run_all / baselines   the runs
# Environment: TOPORR_SMPI_CACHE (default /tmp/toporr-smpi), TOPORR_SMPI_BAZEL_BASE (Bazel
# output base, default /root/.cache/bazel_smpi), TOPORR_SMPI_MULTILEVEL (the multi-level
# algorithm's name, default multilevel), TOPORR_VERIFY_CALLS (the measured calls per path of
# the `verified` runs, default 3).

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CACHE=${TOPORR_SMPI_CACHE:-${TEST_TMPDIR:-/tmp}/toporr-smpi}
BAZEL_BASE=${TOPORR_SMPI_BAZEL_BASE:-/root/.cache/bazel_smpi}
MULTILEVEL=${TOPORR_SMPI_MULTILEVEL:-multilevel}
VERIFY_CALLS=${TOPORR_VERIFY_CALLS:-3}
EVAL_NAME=$(basename "$0" .sh)
die() { echo "$EVAL_NAME: $*" >&2; exit 1; }
log() { echo "$EVAL_NAME: $*" >&2; }
for tool in smpicxx smpirun python3 bazel; do
  command -v "$tool" >/dev/null || die "missing $tool (deploy/install-deps.sh)"
done
mkdir -p "$CACHE/fabrics"

# commit_id: the commit the runs are of, `+changes` when the tree differs from it where the
# program or the scripts come from.
commit_id() {
  echo "$(cd "$REPO" && git rev-parse --short HEAD)$(cd "$REPO" &&
    git diff --quiet HEAD -- client mapping common collectors bench/smpi || echo +changes)"
}

# build_tools: $TOPORRD, $TOPORRCTL (the cost file), $BENCH (the SMPI program), $PRIVATE_LIBS.
build_tools() {
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
}

# to_platform NAME OUT [ARGS...]: fabric NAME's SimGrid platform (after `fabric NAME`), with
# fabric_to_platform.py's ARGS added (e.g. other intra-host links).
declare -A FABRIC_LFTS=() FABRIC_PLATFORM_ARGS=()
to_platform() {
  local name=$1 out=$2
  shift 2
  # shellcheck disable=SC2086
  python3 "$REPO/bench/smpi/fabric_to_platform.py" \
    --ibnetdiscover "$CACHE/fabrics/$name/ibnetdiscover.txt" --lfts "${FABRIC_LFTS[$name]}" \
    --cores 16 --nic-latency 300 ${FABRIC_PLATFORM_ARGS[$name]} --out "$out" "$@" >/dev/null \
    || die "fabric_to_platform.py ($name) failed"
}

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
  FABRIC_LFTS[$name]=$dir/$lfts
  FABRIC_PLATFORM_ARGS[$name]="${only[*]}"
  if [[ ! -s $xml || $dir/$lfts -nt $xml || $REPO/bench/smpi/fabric_to_platform.py -nt $xml ]]; then
    to_platform "$name" "$xml" --hosts-out "$hosts"
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

# start_runs DIR: runs are cached in DIR (one directory per run); $RUNS is this invocation's
# list of them. With CACHED_ONLY=1 `run` simulates nothing: a run whose result is not cached
# is left out of $RUNS and its name added to LEFT_OUT (tabulating what a stopped invocation
# finished).
CACHED_ONLY=0
LEFT_OUT=()
start_runs() {
  RUNDIR=$1
  mkdir -p "$RUNDIR"
  RUNS=$(mktemp "$CACHE/runs.XXXXXX.tsv")
  trap 'rm -f "$RUNS"' EXIT
  : >"$RUNS"
}


# The algorithms also timed on the launch order (toporr_collective_time's NAME@launch), against
# the same algorithm on toporr's order: what the reordering heuristics alone are worth.
declare -A LAUNCH_MODES=(
  [allreduce]=ring@launch,rabenseifner@launch
  [bcast]=binomial@launch,binary_tree@launch,knomial@launch,scatter_allgather@launch
  [allgather]=ring@launch,recursive_doubling@launch)

# placement_hosts FABRIC PLACEMENT H K: the host of every rank, one per line (the placements
# of run_collectives_eval.sh's header) from the fabric's platform hosts.
placement_hosts() {
  python3 - "$CACHE/fabrics/$1.hosts" "$2" "$3" "$4" <<'PY'
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
}

# run FABRIC PLACEMENT H K COLLECTIVE [SIZES [MODES [VARIANT]]]: one smpirun; its directory
# (cells.txt, report.jsonl) goes to $RUNS with the run's description. VARIANT `private`
# turns the folding of large C++ allocations off (smpi_shared_new.cc); `forced` runs with
# TOPORR_ALGORITHM=$MULTILEVEL (the multi-level version is forced through the library's
# environment, not the C API's algorithm argument). Every other variant runs with
# TOPORR_VERIFY=0 (the model's choices as they are); `verified` with TOPORR_VERIFY=1 and
# 1 + 2 x $VERIFY_CALLS warm-up calls per cell (the run-time check completes in them, the
# timed call runs what it kept); `warmups` with TOPORR_VERIFY=0 and as many warm-up calls
# (the unverified twin of `verified`). Both print the warm-up calls' total time.
# `leafsorted` runs on the leaf-sorted order of the placement (bench/smpi/leaf_sorted.py), with
# the `ompi` selector, `leafsorted:NAME` with SMPI's selector NAME; where that order is the
# launch order itself nothing is simulated and the run's row names the directory of its
# launch-order twin (`run` with the same cell and no variant, resp. `selector:NAME`), which
# must have run before in this invocation.
run() {
  local fab=$1 placement=$2 h=$3 k=$4 coll=$5 sizes=${6:-$SIZES}
  local modes=${7:-mpi,auto,candidates,scotch,${LAUNCH_MODES[$5]}} variant=${8:-} p=$(($3 * $4))
  local fold=4194304 force=
  local cfg=("${CFG[@]}")
  [[ $variant == private ]] && fold=0
  [[ $variant == forced ]] && force=$MULTILEVEL
  local verify=0 warmups=()
  [[ $variant == verified ]] && verify=1
  [[ $variant == verified || $variant == warmups ]] && warmups=(--warmups $((1 + 2 * VERIFY_CALLS)))
  # smpi:ALG: a baseline, SMPI's own algorithm ALG (e.g. smp_rsag_lr) for MPI_Allreduce/MPI_Bcast
  [[ $variant == smpi:* ]] && cfg+=(--cfg=smpi/$coll:${variant#smpi:})
  # selector:NAME: the MPI default under another of SMPI's selectors (mpich: MPICH's rules)
  [[ $variant == selector:* ]] && cfg=("${cfg[@]/coll-selector:ompi/coll-selector:${variant#selector:}}")
  [[ $variant == leafsorted:* ]] && cfg=("${cfg[@]/coll-selector:ompi/coll-selector:${variant#leafsorted:}}")
  local name=$fab-$placement-${h}x$k-$coll${variant:+-${variant/:/-}}
  local dir=$RUNDIR/$name hostfile=$RUNDIR/$name.hostfile
  placement_hosts "$fab" "$placement" "$h" "$k" >"$hostfile"
  if [[ $variant == leafsorted* ]]; then
    local launch_order=$RUNDIR/$name.launch
    mv "$hostfile" "$launch_order"
    python3 "$REPO/bench/smpi/leaf_sorted.py" --ibnetdiscover "$CACHE/fabrics/$fab/ibnetdiscover.txt" \
      "$launch_order" >"$hostfile" || die "leaf_sorted.py failed ($name)"
    if cmp -s "$launch_order" "$hostfile"; then
      local twin=$RUNDIR/$fab-$placement-${h}x$k-$coll
      [[ $variant == leafsorted:* ]] && twin+=-selector-${variant#leafsorted:}
      [[ -f $twin/key ]] || die "$name: the launch order is leaf-sorted, but its twin $twin has not run"
      LAST_RUN=$twin
      printf "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n" "$fab" "$placement" "${h}x$k" "$p" "$coll" \
        "$variant" 0.0 "$twin" >>"$RUNS"
      return 0
    fi
  fi
  local key
  key=$(cat "$BENCH" "$CACHE/fabrics/$fab.xml" "$CACHE/fabrics/$fab.costs" "$hostfile" \
        <(echo "$coll $sizes $modes ${cfg[*]} $fold $force $PRIVATE_LIBS${warmups[*]:+ verify=$verify calls=$VERIFY_CALLS ${warmups[*]}}") | sha256sum | cut -c1-16)
  LAST_RUN=$dir
  if [[ ! -f $dir/key || $(cat "$dir/key") != "$key" ]] && ((CACHED_ONLY)); then
    LEFT_OUT+=("$name")
    return 0
  fi
  if [[ ! -f $dir/key || $(cat "$dir/key") != "$key" ]]; then
    log "$name: $p ranks, $coll, $modes"
    mkdir -p "$dir"
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
    # TOPORR_VERIFY=0 but in `verified` runs: the table shows what the model chooses; the
    # run-time check of the choices against the MPI library's call is evaluated on its own.
    TMPDIR=$tmp TOPORR_VERIFY=$verify TOPORR_VERIFY_CALLS=$VERIFY_CALLS TOPORR_SMPI_FOLD_BYTES=$fold TOPORR_ALGORITHM=$force TOPORR_COSTS=$CACHE/fabrics/$fab.costs TOPORR_HOSTMAP=$hostfile \
      TOPORR_REPORT=$dir/report.jsonl \
      smpirun -np "$p" -platform "$CACHE/fabrics/$fab.xml" -hostfile "$hostfile" "$BENCH" \
        --collective "$coll" --sizes "$sizes" --modes "$modes" "${warmups[@]}" --print-hosts \
        --cfg=smpi/privatize-libs:"$PRIVATE_LIBS" "${cfg[@]}" \
        >"$dir/stdout.txt" 2>"$dir/stderr.txt" \
      || { rm -rf "$tmp"; die "smpirun failed ($name): see $dir/stderr.txt"; }
    rm -rf "$tmp"
    diff <(awk '$1 == "rank" { print $3 }' "$dir/stdout.txt") "$hostfile" >/dev/null \
      || die "SMPI did not place the ranks as $hostfile says ($name)"
    grep -E '^(cell|skip|warmup) ' "$dir/stdout.txt" >"$dir/cells.txt" || true
    awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f\n", b - a }' >"$dir/seconds"
    echo "$key" >"$dir/key"
  fi
  printf "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n" "$fab" "$placement" "${h}x$k" "$p" "$coll" \
    "${variant:-default}" "$(cat "$dir/seconds")" "$dir" >>"$RUNS"
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

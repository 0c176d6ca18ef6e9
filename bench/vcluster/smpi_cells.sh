#!/bin/bash
# The cells of a virtual-cluster benchmark, simulated in SimGrid SMPI: libtoporr's own
# collectives and selection (bench/smpi/toporr_collective_time.cc) on a platform generated
# from the cluster's fabric dump and rescaled to its emulated network, so that each measured
# ratio can be put beside SMPI's.
#
#   smpi_cells.sh --fabric-dir DIR --hostfile FILE --collective allreduce|bcast \
#       --sizes B1,B2,... --modes M1,M2,... --selector ompi|mpich --host-mbit R \
#       [--link-latency-us L] [--loopback-bw BW] [--loopback-lat LAT] [--iters K] --out FILE
#
#   --fabric-dir DIR    ibnetdiscover.txt and dump_fts.txt of the cluster's fabric (ibsim +
#                       OpenSM, as testing/vcluster writes them)
#   --hostfile FILE     one host name per line: line i is the host of MPI rank i
#   --sizes             message sizes in bytes (multiples of 8)
#   --modes             toporr_collective_time modes: mpi, auto, scotch, an algorithm name
#                       (forced, on toporr's order) or NAME@launch (toporr's implementation on
#                       the launch order); `candidates` is not accepted (its cells are not
#                       known in advance)
#   --selector          SMPI's collective selector for `mpi` (smpi/coll-selector); toporr's
#                       `auto` compares against the same library's rules: ompi -> the SMPI
#                       build's own rules (SMPI's ompi selector, Open MPI 4's tables), mpich ->
#                       a build of libtoporr whose linked-library rules are MPICH's
#   --host-mbit R       the emulated host link rate; every other link keeps its ratio to the
#                       host links in the dump (fabric_to_platform.py --host-mbit)
#   --link-latency-us L latency of each link direction (default 25)
#   --loopback-bw/-lat  intra-host (shared-memory) messages: rate and latency, each flow at
#                       the full rate (default 2GBps, 5us; SimGrid units)
#   --iters K           timed calls per cell after the untimed warm-up (default 1)
#   --out FILE          the cells, written only on success (removed first)
#
# Contract: FILE holds exactly the `cell collective=C mode=M bytes=B iters=K us=T` lines of
# the run (simulated microseconds per call), one per mode and size, in the order the program
# timed them. Exit status 0 on success; 2 on bad usage; 1, with the reason on stderr, when a
# tool is missing, a build or a step fails, a mode is skipped, a cell is missing, a toporr
# decision fell back to the launch order or came from elsewhere than the cost file, a forced
# algorithm was not the one chosen, or SMPI placed the ranks otherwise than the hostfile.
#
# How: toporrd ingests the dump and its forwarding tables and `toporrctl export --format
# costs` writes the cost file libtoporr reads in the simulation (TOPORR_COSTS), as
# bench/smpi/run_collectives_eval.sh does; TOPORR_HOSTMAP is the hostfile, so toporr plans for
# the same placement, and TOPORR_REPORT records every decision for the checks above. The
# caller's other TOPORR_* variables are not passed to the simulation. SMPI runs with the
# settings of bench/smpi/README.md: only communication is timed, bandwidth and latency
# factors 1, no cross-traffic.
#
# Builds: toporrd and toporrctl with Bazel in its own output base $TOPORR_SMPI_BAZEL_BASE
# (default /root/.cache/bazel_smpi, as bench/smpi's scripts: never the main Bazel server's);
# libtoporr with smpicxx by bench/smpi/build_libtoporr_smpi.sh, incrementally, in
# $TOPORR_SMPI_CACHE/libtoporr-smpi (shared with bench/smpi/run_collectives_eval.sh) and, for
# --selector mpich, $TOPORR_SMPI_CACHE/libtoporr-smpi-mpich (a second full compile the first
# time). Cost files are cached in $TOPORR_SMPI_CACHE/vcluster (default cache /tmp/toporr-smpi).
# Needs smpicxx and smpirun (Debian's libsimgrid-dev), bazel, python3, readelf and flock.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CACHE=${TOPORR_SMPI_CACHE:-/tmp/toporr-smpi}
BAZEL_BASE=${TOPORR_SMPI_BAZEL_BASE:-/root/.cache/bazel_smpi}

die() { echo "smpi_cells: $*" >&2; exit 1; }
usage() {
  echo "usage: $0 --fabric-dir DIR --hostfile FILE --collective allreduce|bcast" \
       "--sizes B1,B2,... --modes M1,M2,... --selector ompi|mpich --host-mbit R" \
       "[--link-latency-us L] [--loopback-bw 2GBps] [--loopback-lat 5us] [--iters K]" \
       "--out FILE" >&2
  [[ $# -gt 0 ]] && echo "smpi_cells: $*" >&2
  exit 2
}

# --- arguments ------------------------------------------------------------------------------------
FABRIC_DIR='' HOSTFILE='' COLLECTIVE='' SIZES='' MODES='' SELECTOR='' HOST_MBIT='' OUT=''
LINK_LATENCY_US=25 LOOPBACK_BW=2GBps LOOPBACK_LAT=5us ITERS=1
while [[ $# -gt 0 ]]; do
  opt=$1
  [[ $# -ge 2 ]] || usage "$opt needs a value"
  case $opt in
    --fabric-dir) FABRIC_DIR=$2 ;;
    --hostfile) HOSTFILE=$2 ;;
    --collective) COLLECTIVE=$2 ;;
    --sizes) SIZES=$2 ;;
    --modes) MODES=$2 ;;
    --selector) SELECTOR=$2 ;;
    --host-mbit) HOST_MBIT=$2 ;;
    --link-latency-us) LINK_LATENCY_US=$2 ;;
    --loopback-bw) LOOPBACK_BW=$2 ;;
    --loopback-lat) LOOPBACK_LAT=$2 ;;
    --iters) ITERS=$2 ;;
    --out) OUT=$2 ;;
    *) usage "unknown option $opt" ;;
  esac
  shift 2
done
for required in FABRIC_DIR HOSTFILE COLLECTIVE SIZES MODES SELECTOR HOST_MBIT OUT; do
  [[ -n ${!required} ]] || usage "missing --$(tr 'A-Z_' 'a-z-' <<<"$required")"
done
[[ $COLLECTIVE == allreduce || $COLLECTIVE == bcast ]] || usage "--collective: allreduce or bcast"
[[ $SELECTOR == ompi || $SELECTOR == mpich ]] || usage "--selector: ompi or mpich"
number='^([0-9]+([.][0-9]+)?|[.][0-9]+)$'
if ! [[ $HOST_MBIT =~ $number ]] || ! awk -v r="$HOST_MBIT" 'BEGIN { exit !(r > 0) }'; then
  usage "--host-mbit: a positive number of Mbit/s, got '$HOST_MBIT'"
fi
[[ $LINK_LATENCY_US =~ $number ]] ||
  usage "--link-latency-us: a number >= 0, got '$LINK_LATENCY_US'"
[[ $ITERS =~ ^[1-9][0-9]*$ ]] || usage "--iters: a positive integer, got '$ITERS'"
unit='^([0-9]+([.][0-9]+)?|[.][0-9]+)([eE][-+]?[0-9]+)?[A-Za-z]+$'
[[ $LOOPBACK_BW =~ $unit ]] || usage "--loopback-bw: a SimGrid bandwidth such as 2GBps"
[[ $LOOPBACK_LAT =~ $unit ]] || usage "--loopback-lat: a SimGrid latency such as 5us"
IFS=, read -r -a size_list <<<"$SIZES"
((${#size_list[@]} > 0)) || usage "--sizes: no size"
for b in "${size_list[@]}"; do
  if ! [[ $b =~ ^[1-9][0-9]*$ ]] || ((b % 8 != 0)); then
    usage "--sizes: '$b' is not a positive multiple of 8"
  fi
done
IFS=, read -r -a mode_list <<<"$MODES"
((${#mode_list[@]} > 0)) || usage "--modes: no mode"
for m in "${mode_list[@]}"; do
  [[ $m =~ ^[a-z0-9_]+(@launch)?$ ]] || usage "--modes: '$m' is not a mode"
  [[ $m != candidates ]] || usage "--modes: candidates is not accepted (name the algorithms)"
done
[[ -s $FABRIC_DIR/ibnetdiscover.txt ]] || die "$FABRIC_DIR/ibnetdiscover.txt is missing or empty"
[[ -s $FABRIC_DIR/dump_fts.txt ]] || die "$FABRIC_DIR/dump_fts.txt is missing or empty"
[[ -r $HOSTFILE ]] || die "cannot read the hostfile $HOSTFILE"
[[ -d $(dirname "$OUT") ]] || die "no directory $(dirname "$OUT") for --out"
for tool in smpicxx smpirun bazel python3 readelf flock sha256sum; do
  command -v "$tool" >/dev/null || die "missing $tool (deploy/install-deps.sh installs it)"
done
rm -f "$OUT"

# --- scratch space, removed on exit ---------------------------------------------------------------
WORK=$(mktemp -d "${TMPDIR:-/tmp}/smpi_cells.XXXXXX")
SMPI_TMP=
DAEMON_PID=
cleanup() {
  if [[ -n $DAEMON_PID ]]; then
    kill "$DAEMON_PID" 2>/dev/null || true
    wait "$DAEMON_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
  if [[ -n $SMPI_TMP ]]; then rm -rf "$SMPI_TMP"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir -p "$CACHE/vcluster/costs"

# --- builds (one at a time per cache) -------------------------------------------------------------
exec {lock_fd}>"$CACHE/vcluster/build.lock"
flock "$lock_fd"
(cd "$REPO" && bazel --output_base="$BAZEL_BASE" build //daemon:toporrd //client/ctl:toporrctl) \
  >"$CACHE/vcluster/bazel.log" 2>&1 \
  || die "bazel build //daemon:toporrd //client/ctl:toporrctl failed: see $CACHE/vcluster/bazel.log"
BIN=$(cd "$REPO" && bazel --output_base="$BAZEL_BASE" info bazel-bin 2>/dev/null) \
  || die "bazel info bazel-bin failed (output base $BAZEL_BASE)"
TOPORRD=$BIN/daemon/toporrd
TOPORRCTL=$BIN/client/ctl/toporrctl
[[ -x $TOPORRD && -x $TOPORRCTL ]] || die "toporrd/toporrctl not found under $BIN"
if [[ $SELECTOR == ompi ]]; then
  # The SMPI build's own rules (client/mpi/library.cc: SMPI's ompi selector).
  BENCH=$("$REPO/bench/smpi/build_libtoporr_smpi.sh" "$CACHE/libtoporr-smpi") \
    || die "building libtoporr with smpicxx failed (see the message above)"
else
  # The same sources with MPICH's rules for the "MPI library's own call" candidate: the
  # library picks its rules from the MPI header it is compiled against (MPICH_VERSION), so
  # client/mpi/library.cc is compiled with it defined, through an smpicxx wrapper first on
  # PATH; every other file compiles as in the ompi build.
  variant=$CACHE/libtoporr-smpi-mpich
  smpicxx=$(command -v smpicxx)
  mkdir -p "$variant/wrapper"
  cat >"$WORK/smpicxx" <<EOF
#!/bin/sh
# smpicxx for the libtoporr SMPI build with MPICH's library rules (bench/vcluster/smpi_cells.sh)
for arg in "\$@"; do
  case \$arg in
    */client/mpi/library.cc) exec "$smpicxx" -DMPICH_VERSION=4 "\$@" ;;
  esac
done
exec "$smpicxx" "\$@"
EOF
  if ! cmp -s "$WORK/smpicxx" "$variant/wrapper/smpicxx"; then
    rm -rf "$variant/obj" "$variant/toporr_collective_time"  # compiled by another wrapper
    install -m 755 "$WORK/smpicxx" "$variant/wrapper/smpicxx"
  fi
  BENCH=$(PATH=$variant/wrapper:$PATH "$REPO/bench/smpi/build_libtoporr_smpi.sh" "$variant") \
    || die "building libtoporr (MPICH rules) with smpicxx failed (see the message above)"
fi
# Shared libraries with per-process state that SMPI must load once per simulated rank.
PRIVATE_LIBS=$(readelf -d "$BENCH" | sed -n 's/.*Shared library: \[\(libprotobuf[^]]*\)\].*/\1/p' |
               paste -sd ';')

# --- platform: the dump's fabric at the emulated rates --------------------------------------------
# The hostfile without blank lines or surrounding spaces: rank i on line i.
awk 'NF { print $1 }' "$HOSTFILE" >"$WORK/hostfile"
[[ -s $WORK/hostfile ]] || die "$HOSTFILE lists no host"
RANKS=$(wc -l <"$WORK/hostfile")
CORES=$(sort "$WORK/hostfile" | uniq -c | awk '$1 > m { m = $1 } END { print m }')
python3 "$REPO/bench/smpi/fabric_to_platform.py" --ibnetdiscover "$FABRIC_DIR/ibnetdiscover.txt" \
  --lfts "$FABRIC_DIR/dump_fts.txt" --cores "$CORES" --host-mbit "$HOST_MBIT" \
  --link-latency "${LINK_LATENCY_US}us" --loopback-bw "$LOOPBACK_BW" \
  --loopback-lat "$LOOPBACK_LAT" --out "$WORK/platform.xml" --hosts-out "$WORK/fabric.hosts" \
  2>"$WORK/platform.log" || die "fabric_to_platform.py failed: $(tail -n 3 "$WORK/platform.log")"
unknown=$(grep -vxF -f "$WORK/fabric.hosts" "$WORK/hostfile" | sort -u | paste -sd ' ' || true)
[[ -z $unknown ]] || die "hosts of $HOSTFILE not in $FABRIC_DIR/ibnetdiscover.txt: $unknown"

# --- cost file: toporrd ingests the dump and its forwarding tables --------------------------------
key=$(cat "$FABRIC_DIR/ibnetdiscover.txt" "$FABRIC_DIR/dump_fts.txt" "$WORK/fabric.hosts" \
      "$TOPORRD" "$TOPORRCTL" | sha256sum | cut -c1-16)
COSTS=$CACHE/vcluster/costs/$key.costs
if [[ ! -s $COSTS ]]; then
  daemon=$WORK/toporrd
  mkdir -p "$daemon"
  "$TOPORRD" --config= --db "$daemon/toporr.db" --socket "$daemon/sock" 2>"$daemon/toporrd.log" &
  DAEMON_PID=$!
  ctl=("$TOPORRCTL" --socket "$daemon/sock")
  up=0
  for _ in $(seq 100); do
    if "${ctl[@]}" health >/dev/null 2>&1; then up=1; break; fi
    sleep 0.05
  done
  ((up)) || die "toporrd did not start: $(tail -n 3 "$daemon/toporrd.log")"
  { "${ctl[@]}" ingest --format ibnetdiscover "$FABRIC_DIR/ibnetdiscover.txt" &&
    "${ctl[@]}" ingest --format lft "$FABRIC_DIR/dump_fts.txt" &&
    "${ctl[@]}" export --format costs --output "$WORK/costs" \
      --hosts "$(paste -sd, "$WORK/fabric.hosts")"; } >"$daemon/ctl.log" 2>&1 \
    || die "cost file (toporrctl ingest/export) failed: $(tail -n 3 "$daemon/ctl.log")"
  kill "$DAEMON_PID" 2>/dev/null || true
  wait "$DAEMON_PID" 2>/dev/null || true
  DAEMON_PID=
  cp "$WORK/costs" "$COSTS.$$.tmp"
  mv -f "$COSTS.$$.tmp" "$COSTS"
fi
flock -u "$lock_fd"
exec {lock_fd}>&-

# --- the simulation -------------------------------------------------------------------------------
# smpirun copies the program and the privatized libraries once per rank into TMPDIR (tmpfs
# when there is one).
if [[ -d /dev/shm && -w /dev/shm ]]; then
  SMPI_TMP=$(mktemp -d /dev/shm/smpi_cells.XXXXXX)
else
  SMPI_TMP=$WORK/smpi
  mkdir -p "$SMPI_TMP"
fi
unset_env=()
while IFS= read -r name; do
  [[ $name == TOPORR_SMPI_* ]] || unset_env+=(-u "$name")
done < <(compgen -e | grep '^TOPORR_' || true)
cfg=(--cfg=smpi/coll-selector:"$SELECTOR" --cfg=smpi/simulate-computation:no
     --cfg=network/crosstraffic:0 --cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1
     --log=root.thres:warning)
env "${unset_env[@]}" TMPDIR="$SMPI_TMP" TOPORR_VERIFY=0 TOPORR_COSTS="$COSTS" TOPORR_HOSTMAP="$WORK/hostfile" \
  TOPORR_REPORT="$WORK/report.jsonl" \
  smpirun -np "$RANKS" -platform "$WORK/platform.xml" -hostfile "$WORK/hostfile" "$BENCH" \
    --collective "$COLLECTIVE" --sizes "$SIZES" --modes "$MODES" --iters "$ITERS" --print-hosts \
    --cfg=smpi/privatize-libs:"$PRIVATE_LIBS" "${cfg[@]}" \
    >"$WORK/stdout.txt" 2>"$WORK/stderr.txt" \
  || die "smpirun failed: $(tail -n 5 "$WORK/stderr.txt")"

awk '$1 == "rank" { print $3 }' "$WORK/stdout.txt" >"$WORK/realised"
cmp -s "$WORK/realised" "$WORK/hostfile" \
  || die "SMPI placed the ranks on $(paste -sd, "$WORK/realised"), not as $HOSTFILE says"
skipped=$(grep '^skip ' "$WORK/stdout.txt" || true)
[[ -z $skipped ]] || die "modes not run: $skipped"
grep '^cell ' "$WORK/stdout.txt" >"$WORK/cells.txt" || true
python3 - "$WORK/cells.txt" "$WORK/report.jsonl" "$COLLECTIVE" "$MODES" "$SIZES" "$ITERS" <<'PY' \
  || exit 1
import json, os, sys

cells_path, report_path, collective, modes, sizes, iters = sys.argv[1:]
modes, sizes = modes.split(","), [int(b) for b in sizes.split(",")]
errors = []
cells = {}
for line in open(cells_path):
    kv = dict(f.split("=", 1) for f in line.split()[1:])
    key = (kv["mode"], int(kv["bytes"]))
    if kv["collective"] != collective or kv["iters"] != iters or key in cells:
        errors.append(f"unexpected cell: {line.strip()}")
    cells[key] = kv
for m in dict.fromkeys(modes):
    for b in sizes:
        if (m, b) not in cells:
            errors.append(f"no cell for mode {m} at {b} B")

decisions = []
if os.path.exists(report_path):
    decisions = [d for d in map(json.loads, filter(str.strip, open(report_path)))
                 if d.get("event") == "decision"]


def size_class(b):  # libtoporr caches decisions per floor(log2(bytes))
    return max(int(b), 1).bit_length() - 1


for m in dict.fromkeys(modes):
    if m in ("mpi", "scotch") or m.endswith("@launch"):  # no toporr decision
        continue
    for b in sizes:
        ds = [d for d in decisions
              if d["algorithm"] == m and size_class(d["bytes"]) == size_class(b)]
        where = f"{collective} {m} {b} B"
        if not ds:
            errors.append(f"{where}: no toporr decision recorded")
        for d in ds:
            if d["source"] == "fallback":
                errors.append(f"{where}: toporr fell back to the launch order: "
                              f"{d['fallback_reason']}")
            elif d["source"] != "file":
                errors.append(f"{where}: decision source {d['source']}, expected the cost file")
            if m != "auto" and d["chosen_algorithm"] != m:
                errors.append(f"{where}: forced {m} but the decision chose {d['chosen_algorithm']}")
for e in dict.fromkeys(errors):
    print(f"smpi_cells: {e}", file=sys.stderr)
sys.exit(1 if errors else 0)
PY
cp "$WORK/cells.txt" "$OUT" || die "cannot write $OUT"

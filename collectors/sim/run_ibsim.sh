#!/bin/bash
# Runs the real InfiniBand tools against a simulated fabric and keeps their outputs.
#
#   run_ibsim.sh NETFILE OUTDIR [--lmc N] [--routing-engine minhop|updn|ftree|...]
#                [--sim-host NODEID] [--timeout SECONDS] [--topology-only]
#                [-- COMMAND [ARGS...]]
#
# Steps:
#   1. ibsim simulates NETFILE (an ibsim .net file; `#@` sample headers are ignored by ibsim)
#      on a socket name unique to this run (IBSIM_SOCKNAME), so parallel runs never collide;
#      its node/switch/port limits are raised to what NETFILE needs.
#   2. opensm runs through umad2sim attached to --sim-host (default: the first Hca/Ca record),
#      assigns LIDs and routes; we poll its log for "SUBNET UP" (no fixed sleep).
#   3. ibnetdiscover, ibnetdiscover -p and dump_fts run through umad2sim.
# OUTDIR receives: ibnetdiscover.txt, ibnetdiscover_p.txt, dump_fts.txt, opensm-lfts.dump
# (OpenSM's own LFT dump, written because the log mask includes 0x40 ROUTING), osm.log,
# ibsim.log and the tools' stderr (*.err). opensm and ibsim are stopped on every exit path.
# With `-- COMMAND ARGS...`, COMMAND runs last, while ibsim and opensm are still up, through
# umad2sim like the tools (LD_PRELOAD, SIM_HOST and IBSIM_SOCKNAME set; working directory
# OUTDIR), with its stdout in OUTDIR/command.out and stderr in OUTDIR/command.err; a failing
# COMMAND fails the run (e.g. a live-discovery binary compared against the tools' dumps).
# --topology-only skips the forwarding tables (dump_fts and OpenSM's dumps): on a 10,240-host
# fat tree they are ~1.5 GB and half of the run time, and ingest benchmarks do not need them.
# Exit status: 0 on success, 1 with a message naming the failed step, 2 on bad usage.
set -u -o pipefail

UMAD2SIM=${UMAD2SIM:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}
IBSIM=${IBSIM:-/usr/bin/ibsim}
OPENSM=${OPENSM:-/usr/sbin/opensm}
IBNETDISCOVER=${IBNETDISCOVER:-/usr/sbin/ibnetdiscover}
DUMP_FTS=${DUMP_FTS:-/usr/sbin/dump_fts}

usage() {
  echo "usage: $0 NETFILE OUTDIR [--lmc N] [--routing-engine ENGINE] [--sim-host NODEID]" \
       "[--timeout SECONDS] [--topology-only] [-- COMMAND [ARGS...]]" >&2
  exit 2
}
die() { echo "run_ibsim: $*" >&2; exit 1; }
now() { echo "${EPOCHREALTIME}"; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

[ $# -ge 2 ] || usage
NETFILE=$1
OUTDIR=$2
shift 2
LMC=0
ENGINE=minhop
SIM_NODE=
TIMEOUT=900
LFTS=1
COMMAND=()
while [ $# -gt 0 ]; do
  case "$1" in
    --) shift; COMMAND=("$@"); [ ${#COMMAND[@]} -gt 0 ] || usage; break ;;
    --lmc) LMC=${2:?}; shift 2 ;;
    --routing-engine) ENGINE=${2:?}; shift 2 ;;
    --sim-host) SIM_NODE=${2:?}; shift 2 ;;
    --timeout) TIMEOUT=${2:?}; shift 2 ;;
    --topology-only) LFTS=0; shift ;;
    *) usage ;;
  esac
done
[ -r "$NETFILE" ] || die "cannot read net file '$NETFILE'"
for tool in "$UMAD2SIM" "$IBSIM" "$OPENSM" "$IBNETDISCOVER" "$DUMP_FTS"; do
  [ -e "$tool" ] || die "missing $tool (install ibsim-utils, libumad2sim0, opensm, infiniband-diags)"
done
mkdir -p "$OUTDIR" || die "cannot create $OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
NETFILE=$(cd "$(dirname "$NETFILE")" && pwd)/$(basename "$NETFILE")
# umad2sim builds a fake sysfs tree (sys-<pid>) in the working directory.
cd "$OUTDIR" || die "cannot enter $OUTDIR"
rm -f osm.log ibnetdiscover.txt ibnetdiscover_p.txt dump_fts.txt opensm-lfts.dump \
  command.out command.err

# What the fabric needs: nodes, switches, ports (a switch has ports 0..N, a CA/router 1..N),
# LIDs (every CA/router port may own 2^LMC LIDs, every switch one).
read -r NODES SWITCHES PORTS LIDS FIRST_CA < <(awk -v lmc="$LMC" '
  /^(Switch|Hca|Ca|Rt)[ \t]/ {
    n = $2 + 0; nodes++
    if ($1 == "Switch") { switches++; ports += n + 1; lids++ }
    else { ports += n; lids += n * 2 ^ lmc
           if (first == "") { split($0, q, "\""); first = q[2] } }
  }
  END { printf "%d %d %d %d %s\n", nodes, switches, ports, lids, first }' "$NETFILE")
[ "${NODES:-0}" -gt 0 ] || die "$NETFILE has no Switch/Hca/Ca/Rt records"
SIM_NODE=${SIM_NODE:-$FIRST_CA}
[ -n "$SIM_NODE" ] || die "$NETFILE has no CA to attach opensm to; pass --sim-host"
max() { [ "$1" -gt "$2" ] && echo "$1" || echo "$2"; }
LIMITS=(-N "$(max "$NODES" 2048)" -S "$(max "$SWITCHES" 256)" -P "$(max "$PORTS" 13312)")
if [ "$LIDS" -ge 30000 ]; then LIMITS+=(-L 49152); fi

export IBSIM_SOCKNAME="toporr-$$-${RANDOM}${RANDOM}"
IBSIM_PID=
OPENSM_PID=
stop() {  # stop PID NAME: TERM, then KILL after 5 s
  local pid=$1
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
}
cleanup() {
  stop "$OPENSM_PID"
  stop "$IBSIM_PID"
  rm -rf "$OUTDIR"/sys-[0-9]*
}
trap cleanup EXIT
trap 'exit 1' INT TERM

T0=$(now)
echo "run_ibsim: $NODES nodes ($SWITCHES switches, $PORTS ports) from $(basename "$NETFILE");" \
     "socket $IBSIM_SOCKNAME"
"$IBSIM" -s -n "${LIMITS[@]}" "$NETFILE" >ibsim.log 2>&1 &
IBSIM_PID=$!
until grep -q 'Network simulator ready' ibsim.log 2>/dev/null; do
  kill -0 "$IBSIM_PID" 2>/dev/null ||
    die "ibsim exited while loading $NETFILE; last lines of $OUTDIR/ibsim.log:
$(grep -v 'cannot parse remote lid' ibsim.log | tail -5)"
  [ "$(since "$T0" | cut -d. -f1)" -lt "$TIMEOUT" ] || die "ibsim not ready after ${TIMEOUT} s"
  sleep 0.1
done
echo "run_ibsim: ibsim up after $(since "$T0") s"

sim() { LD_PRELOAD="$UMAD2SIM" SIM_HOST="$SIM_NODE" "$@"; }

T1=$(now)
# -s 0: one sweep only, so nothing reroutes while we dump. -d2: flush the log per message so
# the poll below sees "SUBNET UP" at once. -D 0x43: errors, info and ROUTING (the last makes
# opensm write opensm-lfts.dump into OSM_TMP_DIR before it logs SUBNET UP).
OSM_MASK=0x43
[ "$LFTS" = 1 ] || OSM_MASK=0x03
# (Started directly, not through sim(), so that $! is opensm itself.)
LD_PRELOAD="$UMAD2SIM" SIM_HOST="$SIM_NODE" OSM_TMP_DIR="$OUTDIR" OSM_CACHE_DIR="$OUTDIR" \
  "$OPENSM" -F /dev/null -f "$OUTDIR/osm.log" \
  -s 0 -d2 -D "$OSM_MASK" -l "$LMC" -R "$ENGINE" >opensm.err 2>&1 &
OPENSM_PID=$!
until grep -q 'SUBNET UP' osm.log 2>/dev/null; do
  kill -0 "$OPENSM_PID" 2>/dev/null ||
    die "opensm exited before SUBNET UP; see $OUTDIR/osm.log and $OUTDIR/opensm.err:
$(tail -5 opensm.err)"
  kill -0 "$IBSIM_PID" 2>/dev/null || die "ibsim died while opensm was sweeping (ibsim.log)"
  [ "$(since "$T1" | cut -d. -f1)" -lt "$TIMEOUT" ] ||
    die "no SUBNET UP in $OUTDIR/osm.log after ${TIMEOUT} s"
  sleep 0.1
done
if grep -q -i -E 'falling back|cannot build|routing engine .* failed' osm.log; then
  echo "run_ibsim: WARNING: opensm fell back from '$ENGINE':" \
       "$(grep -i -E 'not supported|cannot|failed|falling back' osm.log | head -2 | cut -c30- |
          tr '\n' ' ')"
fi
echo "run_ibsim: subnet up after $(since "$T1") s (opensm -R $ENGINE -l $LMC," \
     "attached at \"$SIM_NODE\")"

run_tool() {  # run_tool OUTFILE TOOL ARGS...
  local out=$1 t
  shift
  t=$(now)
  sim timeout "$TIMEOUT" "$@" >"$out" 2>"${out%.txt}.err" ||
    die "'$(basename "$1") ${*:2}' failed (exit $?); see $OUTDIR/${out%.txt}.err:
$(grep -v sim_connect "${out%.txt}.err" | tail -5)"
  echo "run_ibsim: $(basename "$1")${2:+ ${*:2}} -> $out ($(wc -l <"$out") lines, $(since "$t") s)"
}
run_tool ibnetdiscover.txt "$IBNETDISCOVER"
run_tool ibnetdiscover_p.txt "$IBNETDISCOVER" -p
if [ "$LFTS" = 1 ]; then
  run_tool dump_fts.txt "$DUMP_FTS"
  [ -s opensm-lfts.dump ] || echo "run_ibsim: note: opensm wrote no opensm-lfts.dump"
fi
if [ ${#COMMAND[@]} -gt 0 ]; then
  T2=$(now)
  sim timeout "$TIMEOUT" "${COMMAND[@]}" >command.out 2>command.err ||
    die "'${COMMAND[*]}' failed (exit $?); see $OUTDIR/command.err:
$(grep -v sim_connect command.err | tail -5)"
  echo "run_ibsim: $(basename "${COMMAND[0]}") -> command.out ($(wc -l <command.out) lines," \
       "$(since "$T2") s)"
fi
echo "run_ibsim: done in $(since "$T0") s; outputs in $OUTDIR"

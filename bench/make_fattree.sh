#!/bin/bash
# Makes (or reuses) a 3-level fat tree dumped by the real tools, for the benchmarks.
#
#   make_fattree.sh SIM_DIR CACHE HOSTS [--topology-only]
#
# SIM_DIR holds collectors/sim/gen_fattree.py and run_ibsim.sh. Writes CACHE/<name>.net with
# gen_fattree.py (32 hosts per leaf, 32 leaves per pod; 10,240 hosts = 320 leaves, 10 pods,
# 896 switches, 30,720 cables) and runs ibsim + opensm + ibnetdiscover (+ dump_fts and
# OpenSM's LFT dump unless --topology-only) with run_ibsim.sh into CACHE/<name>/, where
# <name> is fattree-3l-<HOSTS>h, with a -lft suffix when the forwarding tables are dumped
# (10,240 hosts: ~1 min topology only, ~1.5 min more and ~1.5 GB with the LFTs).
# A directory whose `shape` file matches is reused. Prints the directory on stdout (progress
# goes to stderr). Exit status 1 on errors. CACHE is for /tmp, never committed.
set -u -o pipefail

die() { echo "make_fattree: $*" >&2; exit 1; }
[ $# -ge 3 ] || die "usage: make_fattree.sh SIM_DIR CACHE HOSTS [--topology-only]"
SIM=$1 CACHE=$2 HOSTS=$3
MODE=${4:-}
GEN="$SIM/gen_fattree.py"
RUN="$SIM/run_ibsim.sh"
[ -r "$GEN" ] && [ -r "$RUN" ] || die "cannot find gen_fattree.py and run_ibsim.sh in $SIM"

SHAPE="--hosts $HOSTS --levels 3 --hosts-per-leaf 32 --leaves-per-pod 32"
NAME=fattree-3l-${HOSTS}h
RUN_ARGS=()
if [ "$MODE" = "--topology-only" ]; then
  RUN_ARGS=(--topology-only)
else
  NAME=$NAME-lft
fi
NET="$CACHE/$NAME.net"
OUT="$CACHE/$NAME"
mkdir -p "$CACHE" || die "cannot create $CACHE"

if [ -s "$OUT/ibnetdiscover.txt" ] && [ "$(cat "$OUT/shape" 2>/dev/null)" = "$SHAPE" ]; then
  echo "make_fattree: reusing $OUT" >&2
else
  echo "make_fattree: generating $NAME in $CACHE (ibsim + opensm + ibnetdiscover)" >&2
  rm -rf "$OUT"
  /usr/bin/python3 "$GEN" $SHAPE --out "$NET" >&2 || die "gen_fattree.py failed"
  START=$EPOCHREALTIME
  /bin/bash "$RUN" "$NET" "$OUT" "${RUN_ARGS[@]}" >&2 || die "run_ibsim.sh failed (see $OUT)"
  awk -v a="$START" -v b="$EPOCHREALTIME" \
    'BEGIN { printf "make_fattree: dumps generated in %.1f s\n", b - a }' >&2
  echo "$SHAPE" >"$OUT/shape"
fi
echo "$OUT"

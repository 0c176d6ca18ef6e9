#!/bin/bash
# Runs every benchmark binary of bench/ once (one iteration per benchmark) on the small
# shared fat tree, so that they keep building, starting and finding their inputs. It checks
# that they run, not how fast: the figures come from the run_*.sh scripts.
set -u -o pipefail

die() { echo "bench_smoke_test: $*" >&2; exit 1; }
SHARED=${TOPORR_SHARED_DIR:-/work/shared}/fabrics
[ -r "$SHARED/ibnetdiscover_fattree_default.txt" ] ||
  die "no shared fabrics at $SHARED (set TOPORR_SHARED_DIR)"
BIN="$TEST_SRCDIR/$TEST_WORKSPACE/bench"
DIR=$(mktemp -d "${TEST_TMPDIR:-/tmp}/bench-smoke.XXXXXX") || die "mktemp failed"

# One fabric in the three formats scale_bench reads (ibsim run fattree-2l-16h).
grep -v '^#@' "$SHARED/ibnetdiscover_fattree_default.txt" >"$DIR/ibnetdiscover.txt"
grep -v '^#@' "$SHARED/dump_fts_fattree.txt" >"$DIR/dump_fts.txt"
cp "$TEST_SRCDIR/$TEST_WORKSPACE/collectors/testdata/opensm-lfts_fattree-2l-16h.dump" \
  "$DIR/opensm-lfts.dump"

ONCE=(--benchmark_min_time=0 --benchmark_format=json)
run() {
  local name=$1
  shift
  echo "--- $name" >&2
  "$BIN/$name" "${ONCE[@]}" "$@" >"$DIR/$name.json" || die "$name failed"
  # A benchmark that skipped with an error still exits 0: look for error_occurred.
  if grep -q '"error_occurred": true' "$DIR/$name.json"; then
    grep -B2 -A2 '"error_message"' "$DIR/$name.json" >&2
    die "$name reported an error"
  fi
  grep -q '"run_type": "iteration"' "$DIR/$name.json" || die "$name ran no benchmark"
}

run ingest_bench "$DIR/ibnetdiscover.txt"
run scale_bench "$DIR"
run mapping_bench
run reorder_bench '--benchmark_filter=/1024(/process_time)?$'
run daemon_matrix_bench "$DIR/ibnetdiscover.txt" 8
run leader_rows_bench "$DIR/ibnetdiscover.txt"
echo "bench_smoke_test: all benchmarks ran" >&2

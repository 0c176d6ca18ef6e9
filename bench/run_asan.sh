#!/usr/bin/env bash
# Runs the test suite built with AddressSanitizer + UndefinedBehaviorSanitizer
# (`--config=asan`, .bazelrc) in an output base of its own, so that the normal build's cache
# stays as it is:
#
#   bench/run_asan.sh [TARGET...]        default //...; prints bazel's summary
#
# $TOPORR_ASAN_OUTPUT_BASE (default ~/.cache/bazel-asan-<checkout name>) keeps the
# instrumented build between runs (a cold instrumented build is long). A test fails on
# the first sanitizer report. The suppressions name only what is not toporr's
# (fuzz/asan_suppressions.txt, fuzz/lsan_suppressions.txt: ibsim's umad2sim shim, gRPC's
# state at an MPI rank's exit); they are passed here because a .bazelrc cannot name their
# absolute paths.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SHARED=${TOPORR_SHARED_DIR:-$(cd "$ROOT/.." && pwd)/shared}
BASE=${TOPORR_ASAN_OUTPUT_BASE:-${XDG_CACHE_HOME:-$HOME/.cache}/bazel-asan-$(basename "$ROOT")}
targets=("$@")
((${#targets[@]})) || targets=(//...)
exec bazel --output_base="$BASE" test --config=asan -k \
  --test_env=TOPORR_SHARED_DIR="$SHARED" \
  --test_env=ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:strict_string_checks=1:verify_asan_link_order=0:suppressions=$ROOT/fuzz/asan_suppressions.txt" \
  --test_env=LSAN_OPTIONS="suppressions=$ROOT/fuzz/lsan_suppressions.txt:print_suppressions=0" \
  "${targets[@]}"

#!/usr/bin/env bash
# Runs every toporr test: installs the Debian packages, builds, runs `bazel test //...`
# (unit tests, real-SQLite store tests, ibsim + opensm golden tests, a real toporrd driven
# by toporrctl, real mpirun of Open MPI and MPICH), then the SimGrid SMPI gate of the client
# library and 30 s of each parser's fuzzer, and prints a one-line summary "N passed, N
# failed".
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

"$TOPORR_ROOT/deploy/install-deps.sh" || exit 1
if [[ ! -d "$TOPORR_SHARED_DIR/fabrics" ]]; then
  echo "run-tests: $TOPORR_SHARED_DIR/fabrics not found; set TOPORR_SHARED_DIR" >&2
  exit 1
fi
LOG="$(mktemp /tmp/toporr-tests.XXXXXX.log)"
cd "$TOPORR_ROOT"
"${BAZEL[@]}" test //... --test_env=TOPORR_SHARED_DIR="$TOPORR_SHARED_DIR" "$@" 2>&1 | tee "$LOG"
rc=${PIPESTATUS[0]}
passed=$(grep -cE '^//[^ ]+ +(\(cached\) )?PASSED' "$LOG")
failed=$(grep -cE '^//[^ ]+ +(FAILED|TIMEOUT|NO STATUS|FAILED TO BUILD|INCOMPLETE)' "$LOG")
# One more check after `bazel test`, counted like a test: "<name>  PASSED|FAILED".
gate_skipped=0
gate() {
  local name=$1 out
  shift
  echo "run-tests: $name"
  out=$(mktemp)
  if "$@" >"$out" 2>&1; then
    cat "$out" >>"$LOG"
    if grep -q '^SKIPPED:' "$out"; then
      printf '%-72s %s\n' "$name" "$(grep -m1 '^SKIPPED:' "$out")"
      gate_skipped=$((gate_skipped + 1))
    else
      printf '%-72s PASSED\n' "$name"
      passed=$((passed + 1))
    fi
    rm -f "$out"
  else
    cat "$out" >>"$LOG"
    rm -f "$out"
    printf '%-72s FAILED (see %s)\n' "$name" "$LOG"
    failed=$((failed + 1))
    [[ $rc -eq 0 ]] && rc=1
  fi
}
# With no arguments (the whole suite), after `bazel test` and with the same output base:
# - the SimGrid SMPI gate of libtoporr's real collectives and selection
#   (bench/smpi/run_collectives_eval.sh --quick, ~1 min). It compiles the library from the
#   sources `bazel query` lists, so it runs after `bazel test` rather than inside it.
# - every parser's libFuzzer harness for 30 s (bench/run_fuzz.sh 30, fuzz/README.md; ~5 min
#   with a cold $TOPORR_FUZZ_DIR): a crash fails it and leaves its input under
#   fuzz/regressions/.
if [[ $# -eq 0 ]]; then
  gate "bench/smpi/run_collectives_eval.sh --quick" \
    env TOPORR_SMPI_BAZEL_BASE="$("${BAZEL[@]}" info output_base 2>/dev/null)" \
    bench/smpi/run_collectives_eval.sh --quick
  gate "bench/run_fuzz.sh 30" bench/run_fuzz.sh 30
  # - the second software stack: Debian 13's Open MPI 5.0 (testing/stacks/README.md; the root
  #   is made once per machine, ~2 min and ~3 GB, then toporr is built and tested inside it).
  gate "testing/stacks/run_stack_tests.sh trixie" \
    env TOPORR_SHARED_DIR="$TOPORR_SHARED_DIR" testing/stacks/run_stack_tests.sh trixie
fi
# A test that cannot run here prints "SKIPPED: <why>" and exits 0 (e.g. the virtual cluster
# where namespaces cannot be created): counted as skipped, not passed.
skipped=$gate_skipped
testlogs="$("${BAZEL[@]}" info bazel-testlogs 2>/dev/null)"
if [[ -d "$testlogs" ]]; then
  while read -r log; do
    name=${log#"$testlogs"/}
    echo "run-tests: //${name%/test.log} $(grep -m1 '^SKIPPED:' "$log")"
    skipped=$((skipped + 1))
    passed=$((passed - 1))
  done < <(grep -lr --include=test.log '^SKIPPED:' "$testlogs" 2>/dev/null)
fi
echo
echo "$passed passed, $failed failed, $skipped skipped"
if [[ $rc -ne 0 && $failed -eq 0 ]]; then
  echo "run-tests: bazel exited with $rc (build failure?); see $LOG" >&2
fi
exit $rc

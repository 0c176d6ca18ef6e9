#!/usr/bin/env bash
# Runs every toporr test: installs the Debian packages, builds, runs `bazel test //...`
# (unit tests, real-SQLite store tests, ibsim + opensm golden tests, a real toporrd driven
# by toporrctl, real mpirun of Open MPI and MPICH), then the SimGrid SMPI gate of the client
# library, and prints a one-line summary "N passed, N failed".
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
# With no arguments (the whole suite): the SimGrid SMPI gate of libtoporr's real collectives
# and selection (bench/smpi/run_collectives_eval.sh --quick, ~1 min). It compiles the library
# from the sources `bazel query` lists, so it runs after `bazel test`, with the same output
# base, rather than inside it.
if [[ $# -eq 0 ]]; then
  echo "run-tests: bench/smpi/run_collectives_eval.sh --quick"
  if TOPORR_SMPI_BAZEL_BASE="$("${BAZEL[@]}" info output_base 2>/dev/null)" \
      bench/smpi/run_collectives_eval.sh --quick >>"$LOG" 2>&1; then
    echo "bench/smpi/run_collectives_eval.sh --quick                PASSED"
    passed=$((passed + 1))
  else
    echo "bench/smpi/run_collectives_eval.sh --quick                FAILED (see $LOG)"
    failed=$((failed + 1))
    [[ $rc -eq 0 ]] && rc=1
  fi
fi
echo
echo "$passed passed, $failed failed"
if [[ $rc -ne 0 && $failed -eq 0 ]]; then
  echo "run-tests: bazel exited with $rc (build failure?); see $LOG" >&2
fi
exit $rc

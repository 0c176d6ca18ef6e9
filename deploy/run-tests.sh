#!/usr/bin/env bash
# Runs every toporr test: installs the Debian packages, builds, runs `bazel test //...`
# (unit tests, real-SQLite store tests, ibsim + opensm golden tests, a real toporrd driven
# by toporrctl) and prints a one-line summary "N passed, N failed".
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
echo
echo "$passed passed, $failed failed"
if [[ $rc -ne 0 && $failed -eq 0 ]]; then
  echo "run-tests: bazel exited with $rc (build failure?); see $LOG" >&2
fi
exit $rc

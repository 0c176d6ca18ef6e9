#!/usr/bin/env bash
# The alert rules pass `promtool check rules` (syntax, templates) and the unit tests of
# toporr-alerts.test.yml (each alert fires on its input series when it should and not
# before). Without promtool (Debian: prometheus) the test prints SKIPPED and passes.
set -euo pipefail
DIR=deploy/prometheus
[[ -f $DIR/toporr-alerts.yml ]] || { echo "run under bazel test ($DIR/toporr-alerts.yml missing)" >&2; exit 1; }
PROMTOOL=${PROMTOOL:-/usr/bin/promtool}
if [[ ! -x $PROMTOOL ]]; then
  echo "SKIPPED: $PROMTOOL not found (install Debian's prometheus package)"
  exit 0
fi
"$PROMTOOL" check rules "$DIR/toporr-alerts.yml"
# promtool resolves rule_files against the test file's folder.
"$PROMTOOL" test rules "$DIR/toporr-alerts.test.yml"
# A broken rule must fail: the test above is not vacuous.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
sed 's/> 0.2$/> 0.9/' "$DIR/toporr-alerts.yml" >"$scratch/toporr-alerts.yml"
cp "$DIR/toporr-alerts.test.yml" "$scratch/"
if "$PROMTOOL" test rules "$scratch/toporr-alerts.test.yml" >/dev/null 2>&1; then
  echo "FAIL: the unit tests pass with the fallback-rate threshold raised to 90%" >&2
  exit 1
fi
echo "PASS"

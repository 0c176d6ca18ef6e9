# Sourced by the bench/run_*.sh scripts after they set SCRIPT (their name, for messages).
# Defines:
#   die MESSAGE...   print "SCRIPT: MESSAGE" on stderr and exit 1;
#   ROOT             the workspace root holding bench/ and collectors/sim/ (the runfiles tree
#                    under `bazel run`, else the source tree this file sits in);
#   CACHE            where generated fabrics and JSON results go: the script's first argument
#                    when it is neither a flag (-...) nor a number (it is then shifted off
#                    the script's arguments), else /tmp/toporr-bench; never committed.
#                    Relative paths mean the caller's directory (`bazel run` starts scripts
#                    inside the runfiles tree).
die() { echo "$SCRIPT: $*" >&2; exit 1; }

if [ -d "$0.runfiles/toporr" ]; then
  ROOT="$0.runfiles/toporr"
elif [ -n "${RUNFILES_DIR:-}" ] && [ -d "$RUNFILES_DIR/toporr" ]; then
  ROOT="$RUNFILES_DIR/toporr"
else
  ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
fi

CACHE=/tmp/toporr-bench
case "${1:-}" in
  "" | -*) ;;
  *[!0-9]*) CACHE=$1; shift ;;
esac
case "$CACHE" in /*) ;; *) CACHE="${BUILD_WORKING_DIRECTORY:-$PWD}/$CACHE" ;; esac

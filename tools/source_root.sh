# Sourced by the tools/ tests: sets SOURCE_ROOT to the real source tree. The runfile
# //:README.md is a symlink into it, so its resolved path names the tree these tests walk.
readme="${TEST_SRCDIR:-$0.runfiles}/${TEST_WORKSPACE:-toporr}/README.md"
if [[ ! -e "$readme" ]]; then
  echo "cannot find the runfile README.md at $readme" >&2
  exit 1
fi
SOURCE_ROOT="$(dirname "$(readlink -f "$readme")")"
runfile() { echo "${TEST_SRCDIR:-$0.runfiles}/${TEST_WORKSPACE:-toporr}/$1"; }

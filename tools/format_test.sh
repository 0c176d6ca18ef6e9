#!/usr/bin/env bash
# Fails when a tracked .h/.hpp/.cc/.c file under the source root is not clang-format clean
# (.clang-format at the root). Tracked = `git ls-files` in a git checkout, else every such
# file outside the .bazel/ output and third_party/ folders.
set -euo pipefail
source "$(dirname "$0")/source_root.sh"
cd "$SOURCE_ROOT"
if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
  mapfile -t files < <(git ls-files -- '*.h' '*.hpp' '*.cc' '*.c' | grep -v -e '^\.bazel/' -e '/bazel-')
else
  mapfile -t files < <(find . \( -name .bazel -o -name 'bazel-*' -o -name .git \) -prune -o \
    -type f \( -name '*.h' -o -name '*.hpp' -o -name '*.cc' -o -name '*.c' \) -print | sed 's#^\./##' | sort)
fi
existing=()
for f in "${files[@]}"; do [[ -f "$f" ]] && existing+=("$f"); done
if ((${#existing[@]} == 0)); then
  echo "no C/C++ sources found under $SOURCE_ROOT" >&2
  exit 1
fi
clang-format --dry-run -Werror "${existing[@]}"
echo "${#existing[@]} files are clang-format clean"

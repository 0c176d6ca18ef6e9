#!/usr/bin/env bash
# Replays fuzz/regressions/<parser>/* and fuzz/seeds/<parser>/* through the gcc-built
# <parser>_replay harnesses (fuzz/BUILD.bazel). Arguments: the parser names. Fails when a
# harness aborts on an input (a broken invariant) or when a parser has no input at all.
set -euo pipefail
here="${TEST_SRCDIR:-$PWD}/${TEST_WORKSPACE:-__main__}/fuzz"
[[ -d "$here" ]] || here="$(cd "$(dirname "$0")" && pwd)"
status=0
for parser in "$@"; do
  inputs=()
  for dir in "$here/regressions/$parser" "$here/seeds/$parser"; do
    [[ -d "$dir" ]] || continue
    while IFS= read -r -d '' f; do inputs+=("$f"); done < <(find -L "$dir" -type f -print0 | sort -z)
  done
  if ((${#inputs[@]} == 0)); then
    echo "FAIL $parser: no input under fuzz/regressions/$parser or fuzz/seeds/$parser"
    status=1
    continue
  fi
  if out=$("$here/${parser}_replay" "${inputs[@]}" 2>&1); then
    echo "ok   $parser: $out"
  else
    echo "FAIL $parser:"
    echo "$out" | tail -5
    status=1
  fi
done
exit $status

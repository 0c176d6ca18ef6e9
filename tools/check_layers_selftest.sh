#!/usr/bin/env bash
# tools/check_layers.py on tiny fake trees: a clean one passes; a back edge, an edge to a
# folder not allowed (from a .cc or a .c file, or to the code generated from proto/), a folder
# cycle and a generated proto included by its path from the source root each fail naming
# file:line.
set -uo pipefail
source "$(dirname "$0")/source_root.sh"
checker="$(runfile tools/check_layers.py)"
tmp="$(mktemp -d "${TEST_TMPDIR:-/tmp}/layers.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

tree() {
  rm -rf "$tmp/t"
  mkdir -p "$tmp/t"/{common,fabric,mapping,client,daemon} "$tmp/t/proto/toporr/v1"
  printf 'syntax = "proto3";\n' > "$tmp/t/proto/toporr/v1/api.proto"
}
put() { mkdir -p "$(dirname "$tmp/t/$1")"; printf '%s\n' "${@:2}" > "$tmp/t/$1"; }

# Clean: every arrow points down the table.
tree
put common/status.h '#pragma once'
put fabric/fabric.h '#include "common/status.h"'
put mapping/costs.h '#include <vector>' '#include "fabric/fabric.h"' '#include "mapping/x.h"'
put client/plan/plan.cc '#include "mapping/costs.h"'
put mapping/costs_test.cc '#include "mapping/costs.h"'
put client/costs/rows.cc '#include "toporr/v1/api.grpc.pb.h"' '#include "grpcpp/grpcpp.h"'
put client/mpi/app.c '#include "client/api.h"' '#include "client/plan/plan.h"' '#include "common/status.h"'
if ! python3 "$checker" "$tmp/t" > "$tmp/out" 2>&1; then
  fail "clean tree rejected: $(cat "$tmp/out")"
fi

# Back edge: fabric/ includes mapping/.
put fabric/model.cc '// the model' '#include "fabric/fabric.h"' '#include "mapping/costs.h"'
if python3 "$checker" "$tmp/t" > "$tmp/out" 2>&1; then
  fail "back edge fabric -> mapping accepted"
fi
grep -q 'fabric/model.cc:3: fabric/ may not include mapping/' "$tmp/out" ||
  fail "back edge not named by file:line: $(cat "$tmp/out")"
grep -q 'folder cycle: ' "$tmp/out" || fail "cycle fabric -> mapping -> fabric not reported"

# client/ must never include daemon/ (also in a subfolder such as client/ctl/).
tree
put daemon/state.h '#include "mapping/costs.h"'
put client/ctl/main.cc '#include "daemon/state.h"'
if python3 "$checker" "$tmp/t" > "$tmp/out" 2>&1; then
  fail "client -> daemon accepted"
fi
grep -q 'client/ctl/main.cc:1: client/ctl/ may not include daemon/' "$tmp/out" ||
  fail "client -> daemon not named by file:line: $(cat "$tmp/out")"

# Rooms of client/ are layers too: the planner may not include the MPI side.
tree
put client/mpi/library.h '#include "client/plan/plan.h"'
put client/plan/plan.cc '#include "client/mpi/library.h"'
if python3 "$checker" "$tmp/t" > "$tmp/out" 2>&1; then
  fail "client/plan -> client/mpi accepted"
fi
grep -q 'client/plan/plan.cc:1: client/plan/ may not include client/mpi/' "$tmp/out" ||
  fail "client/plan -> client/mpi not named by file:line: $(cat "$tmp/out")"

# A .c file is read like a .cc file.
tree
put fabric/model.c '#include "mapping/costs.h"'
if python3 "$checker" "$tmp/t" > "$tmp/out" 2>&1; then
  fail "fabric/model.c -> mapping accepted"
fi
grep -q 'fabric/model.c:1: fabric/ may not include mapping/' "$tmp/out" ||
  fail ".c back edge not named by file:line: $(cat "$tmp/out")"

# The code generated from proto/ is proto/: fabric/ may not include it.
tree
put fabric/wire.h '#include "common/status.h"' '#include "toporr/v1/api.pb.h"'
if python3 "$checker" "$tmp/t" > "$tmp/out" 2>&1; then
  fail "fabric -> generated proto accepted"
fi
grep -q 'fabric/wire.h:2: fabric/ may not include proto/' "$tmp/out" ||
  fail "fabric -> proto not named by file:line: $(cat "$tmp/out")"

# One spelling for generated protos: by their path below proto/.
tree
put client/costs/rows.cc '#include "proto/toporr/v1/api.grpc.pb.h"'
if python3 "$checker" "$tmp/t" > "$tmp/out" 2>&1; then
  fail '"proto/toporr/v1/..." accepted'
fi
grep -q 'client/costs/rows.cc:1: include "proto/toporr/v1/api.grpc.pb.h" by its path below proto/' \
  "$tmp/out" || fail "proto/ spelling not named by file:line: $(cat "$tmp/out")"

# The real tree it is run on in check_layers_test must be a tree this script can read.
[[ -f "$SOURCE_ROOT/tools/check_layers.py" ]] || fail "source root $SOURCE_ROOT not found"

if ((failures > 0)); then
  echo "$failures failure(s)" >&2
  exit 1
fi
echo "check_layers self-test passed"

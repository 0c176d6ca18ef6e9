#!/bin/bash
# Builds libtoporr's own code into an SMPI program: the client library (C API, collectives,
# selection, file cost source) compiled with `smpicxx` and linked, as static objects, into
# bench/smpi/toporr_collective_time.cc, so that SimGrid runs the real collectives and the real
# decision protocol inside its simulated ranks.
#
#   build_libtoporr_smpi.sh OUTDIR      -> OUTDIR/toporr_collective_time (prints its path)
#
# Sources: every C++ source file of //client/mpi/openmpi:core's dependency closure as Bazel
# sees it (`bazel query 'kind("source file", deps(...))'`), so files other engineers add to
# the library are compiled too, minus the files that include gRPC, themselves or through their
# own header (the daemon row source and its channel):
# the SMPI program reads its costs from a TOPORR_COSTS file only. When the remaining objects
# do not define the row-source factory (NewRowSource, defined beside the daemon source
# today), bench/smpi/smpi_row_source.cc supplies a file-only one. Protos in the closure are
# compiled with Debian's protoc (messages only, no gRPC stubs).
#
# Why static objects in the program: SMPI (3.32, default smpi/privatization:dlopen) loads one
# copy of the program per simulated rank, so every global of the library - the Library
# singleton, its keyvals, the decision-cache registry, thread_local flags - is per rank, as
# in a real MPI process. System libraries (abseil, protobuf, hwloc, scotch: Debian's shared libraries)
# are loaded once and shared by all ranks; they hold no per-rank state of toporr's.
# bench/smpi/smpi_shared_new.cc routes large C++ allocations (the collectives' temporary
# buffers) through SMPI's shared malloc (see there).
#
# Incremental: a generated Makefile (with -MMD header dependencies) under OUTDIR rebuilds only
# what changed; `make -j2`. Environment: TOPORR_SMPI_BAZEL_BASE (Bazel output base for the
# query, default /root/.cache/bazel_smpi). Exit status 0 ok, 1 a step failed (its log named).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BAZEL_BASE=${TOPORR_SMPI_BAZEL_BASE:-/root/.cache/bazel_smpi}
OUT=${1:?usage: build_libtoporr_smpi.sh OUTDIR}
TARGET=//client/mpi/openmpi:core
die() { echo "build_libtoporr_smpi: $*" >&2; exit 1; }

for tool in smpicxx protoc python3 make bazel; do
  command -v "$tool" >/dev/null || die "missing $tool"
done
# Objects and their .d files name absolute source paths: a build from another checkout
# (worktree or clone) starts from scratch rather than chase sources that moved.
if [[ "$(cat "$OUT/checkout" 2>/dev/null)" != "$REPO" ]]; then rm -rf "$OUT/obj"; fi
mkdir -p "$OUT/obj" "$OUT/gen"
echo "$REPO" >"$OUT/checkout"
OUT=$(cd "$OUT" && pwd)

# --- 1. the library's sources, from Bazel -------------------------------------------------------
# Labels //pkg:path/file -> pkg/path/file; external repositories (@system, @openmpi) are the
# system libraries linked below.
(cd "$REPO" && bazel --output_base="$BAZEL_BASE" query --noshow_progress \
   "kind(\"source file\", deps($TARGET))") 2>"$OUT/query.log" >"$OUT/labels.txt" \
  || die "bazel query deps($TARGET) failed: see $OUT/query.log"
mapfile -t files < <(grep '^//' "$OUT/labels.txt" | sed -e 's|^//||' -e 's|:|/|' | sort)
sources=() protos=() skipped=()
for f in "${files[@]}"; do
  case $f in
    *.proto) protos+=("$f") ;;
    *.cc)
      # gRPC (C++ or C core) in the file or in its own header: the daemon transport.
      header=$REPO/${f%.cc}.h
      [[ -f $header ]] || header=
      if grep -q '#include ["<]grpc\(pp\)\?/\|\.grpc\.pb\.h"' "$REPO/$f" $header; then
        skipped+=("$f")
      else
        sources+=("$f")
      fi
      ;;
  esac
done
((${#sources[@]} > 0)) || die "bazel query returned no C++ sources for $TARGET"

# --- 2. protos (messages only) ------------------------------------------------------------------
gen_sources=()
for p in "${protos[@]}"; do
  rel=${p#proto/}  # the protos' import root is proto/ (proto/BUILD.bazel)
  out_cc=$OUT/gen/${rel%.proto}.pb.cc
  if [[ ! -s $out_cc || $REPO/$p -nt $out_cc ]]; then
    protoc --proto_path="$REPO/proto" --cpp_out="$OUT/gen" "$REPO/$p" 2>"$OUT/protoc.log" \
      || die "protoc $p failed: see $OUT/protoc.log"
  fi
  gen_sources+=("$out_cc")
done

# --- 3. the daemon source ------------------------------------------------------------------------
# The gRPC one (client/costs/daemon_rows.cc) was left out above; a stand-in takes its place
# unless a compiled file defines it.
extra=("$REPO/bench/smpi/toporr_collective_time.cc" "$REPO/bench/smpi/smpi_shared_new.cc")
if ! grep -lq 'std::unique_ptr<RowSource> NewDaemonRowSource(const ClientOptions&' \
     $(printf "$REPO/%s\n" "${sources[@]}"); then
  extra+=("$REPO/bench/smpi/smpi_row_source.cc")
fi

# --- 4. system libraries, from Bazel --------------------------------------------------------------
# The linkopts of the @system//:* libraries in the closure (Debian's libraries as
# third_party/system_libs.bzl wraps them: abseil, protobuf, hwloc, scotch...), except gRPC,
# whose only user was left out above.
(cd "$REPO" && bazel --output_base="$BAZEL_BASE" query --noshow_progress --output=build \
   "kind(cc_library, deps($TARGET)) intersect @system//...") 2>>"$OUT/query.log" \
  >"$OUT/system_libs.txt" || die "bazel query of $TARGET's system libraries failed: see $OUT/query.log"
LIBS=$(python3 - "$OUT/system_libs.txt" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
opts = []
for name, body in re.findall(r'name = "([^"]+)",\s*linkopts = \[([^\]]*)\]', text):
    if name != "grpc":
        opts += re.findall(r'"([^"]+)"', body)
print(" ".join(opts))
PY
)

# --- 5. compile and link (generated Makefile) ---------------------------------------------------
# smpicxx force-includes smpi_helpers.h, whose malloc()/free() macros would also rename
# identifiers such as a local variable called `free` (mapping/embedding/graph_embed.cc): the library is
# compiled with SMPI_NO_OVERRIDE_MALLOC, and its allocations reach SMPI through
# smpi_shared_new.cc instead. SMPI's other helpers (sleep, gettimeofday, getpid...) stay.
CXXFLAGS="-std=c++17 -O2 -g0 -fPIC -DSMPI_NO_OVERRIDE_MALLOC -Wall -Wno-unused-parameter \
-Wno-sign-compare -Wno-missing-field-initializers -I$REPO -I$OUT/gen"
{
  echo "# generated by bench/smpi/build_libtoporr_smpi.sh; do not edit"
  echo "CXX := smpicxx"
  echo "CXXFLAGS := $CXXFLAGS"
  echo "LIBS := $LIBS"
  objs=()
  for src in $(printf "$REPO/%s\n" "${sources[@]}") "${gen_sources[@]}" "${extra[@]}"; do
    obj=$OUT/obj/$(echo "${src#"$REPO"/}" | sed -e "s|^${OUT#/}/||" -e 's|/|_|g' -e 's|\.cc$|.o|')
    objs+=("$obj")
    echo "$obj: $src"
    printf '\t$(CXX) $(CXXFLAGS) -MMD -MP -c -o $@ $<\n'
  done
  echo "$OUT/toporr_collective_time: ${objs[*]}"
  printf '\t$(CXX) -o $@ $^ $(LIBS)\n'
  echo "-include \$(wildcard $OUT/obj/*.d)"
} >"$OUT/Makefile.new"
if ! cmp -s "$OUT/Makefile.new" "$OUT/Makefile"; then
  mv "$OUT/Makefile.new" "$OUT/Makefile"
  rm -f "$OUT/toporr_collective_time"  # the source list or flags changed: relink
else
  rm "$OUT/Makefile.new"
fi
make -s -j2 -f "$OUT/Makefile" "$OUT/toporr_collective_time" >"$OUT/make.log" 2>&1 \
  || die "compiling libtoporr with smpicxx failed: see $OUT/make.log"
{
  echo "sources (${#sources[@]} from bazel query deps($TARGET)): ${sources[*]}"
  echo "protos: ${protos[*]:-none}"
  echo "left out (include gRPC): ${skipped[*]:-none}"
  echo "added: ${extra[*]#"$REPO"/}"
} >"$OUT/sources.txt"
echo "$OUT/toporr_collective_time"

#!/usr/bin/env bash
# Builds libtoporr (the C API, libtoporr.so, and the PMPI layer, libtoporr_pmpi.so) against
# the MPI library behind a compiler wrapper, and installs it under a prefix with a
# pkg-config file and an Environment Modules / Lmod modulefile (docs/site-build.md).
#
#   build-libtoporr.sh --mpicc WRAPPER --prefix DIR [--kit DIR] [--cxx COMPILER]
#                      [--jobs N] [--version V] [--modulefiles DIR] [--module-name NAME]
#
#   --mpicc WRAPPER    the MPI's C compiler wrapper (name on PATH or path). Asked for its
#                      flags: `--showme:compile` / `--showme:link` (Open MPI), else `-show`
#                      (MPICH, Intel MPI, MVAPICH2: the MPICH family). A wrapper answering
#                      neither is refused unless MPI_CFLAGS and MPI_LIBS give the flags.
#   --prefix DIR       install root: lib/libtoporr.so, lib/libtoporr_pmpi.so,
#                      lib/pkgconfig/toporr.pc and toporr-pmpi.pc, include/toporr/client/
#                      toporr.h and toporr.hpp, share/toporr/toporr_f.f90 and toporr_f08.f90
#                      (the Fortran modules' sources, the second for `use mpi_f08` over the
#                      first: compile them with the site's mpif90) and
#                      share/toporr/build-info.txt (which MPI, which wrapper, which flags)
#   --kit DIR          libtoporr's MPI-neutral core (//client/mpi:site_kit, see
#                      client/mpi/defs.bzl) built beforehand; default: built now with Bazel
#   --cxx COMPILER     the C++17 compiler for toporr's sources (default: $CXX, else g++);
#                      it must be ABI-compatible with the compiler that built the kit
#   --jobs N           parallel compilations (default: the number of CPUs)
#   --version V        version in the pkg-config file and the module (default: $TOPORR_VERSION,
#                      else the library's own, toporr_version())
#   --modulefiles DIR  where the modulefile goes (default PREFIX/modulefiles); it is written
#                      as DIR/NAME, NAME defaulting to toporr/VERSION-FAMILY (openmpi4 or
#                      mpich), and is plain Tcl, read by Environment Modules and by Lmod
#
# Every MPI source is compiled with the wrapper's compile flags and linked with its link
# flags; the MPI-neutral core and the system libraries it needs come from the kit. Both
# libraries export what Bazel's do (client/mpi/exports.map). The result serves the MPI's
# ABI family (client/mpi/mpi_abi_guard.h); a process running another MPI refuses it at load
# time with one line. Exit status: 0 installed, 1 a step failed (the step and its log
# named), 2 usage.
set -euo pipefail

SELF=build-libtoporr
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
log() { echo "$SELF: $*" >&2; }
die() { echo "$SELF: error: $*" >&2; exit 1; }
usage() { sed -n '6,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }

MPICC="" PREFIX="" KIT="" CXX_BIN="${CXX:-g++}" JOBS="$(nproc 2>/dev/null || echo 2)"
VERSION="${TOPORR_VERSION:-}" MODULEFILES="" MODULE_NAME=""
while (($#)); do
  case $1 in
    --mpicc) MPICC=${2:?--mpicc needs a value}; shift 2 ;;
    --mpicc=*) MPICC=${1#*=}; shift ;;
    --prefix) PREFIX=${2:?--prefix needs a value}; shift 2 ;;
    --prefix=*) PREFIX=${1#*=}; shift ;;
    --kit) KIT=${2:?--kit needs a value}; shift 2 ;;
    --cxx) CXX_BIN=${2:?--cxx needs a value}; shift 2 ;;
    --jobs) JOBS=${2:?--jobs needs a value}; shift 2 ;;
    --version) VERSION=${2:?--version needs a value}; shift 2 ;;
    --modulefiles) MODULEFILES=${2:?--modulefiles needs a value}; shift 2 ;;
    --module-name) MODULE_NAME=${2:?--module-name needs a value}; shift 2 ;;
    MPICC=*) MPICC=${1#*=}; shift ;;
    -h | --help) usage ;;
    *) echo "$SELF: unknown argument '$1'" >&2; usage ;;
  esac
done
[[ -n $MPICC && -n $PREFIX ]] || usage
[[ $JOBS =~ ^[1-9][0-9]*$ ]] || die "--jobs wants a positive number, not '$JOBS'"

# --- 1. the MPI: flags from its wrapper -----------------------------------------------------
WRAPPER=$(command -v "$MPICC" 2>/dev/null) || die "MPI compiler wrapper '$MPICC' not found" \
  "(on PATH: $PATH); load the site's MPI module or pass its full path"
read_wrapper() {
  if [[ -n ${MPI_CFLAGS:-} && -n ${MPI_LIBS:-} ]]; then
    STYLE="MPI_CFLAGS/MPI_LIBS"
    CFLAGS_MPI=$MPI_CFLAGS LIBS_MPI=$MPI_LIBS
  elif CFLAGS_MPI=$("$WRAPPER" --showme:compile 2>/dev/null) &&
    LIBS_MPI=$("$WRAPPER" --showme:link 2>/dev/null); then
    STYLE="Open MPI (--showme)"
  elif SHOW=$("$WRAPPER" -show 2>/dev/null) && [[ -n $SHOW ]]; then
    # MPICH family: the whole command line; the first word is the wrapper's compiler.
    STYLE="MPICH family (-show)"
    CFLAGS_MPI="" LIBS_MPI=""
    local words w take_next=""
    read -r -a words <<<"$SHOW"
    for w in "${words[@]:1}"; do
      if [[ -n $take_next ]]; then
        CFLAGS_MPI+=" $w"; take_next=""
        continue
      fi
      case $w in
        -I* | -D* | -U*) CFLAGS_MPI+=" $w" ;;
        -isystem | -include) CFLAGS_MPI+=" $w"; take_next=1 ;;
        -pthread) CFLAGS_MPI+=" $w"; LIBS_MPI+=" $w" ;;
        -L* | -l* | -Wl,* | -Xlinker | *.so | *.so.* | *.a) LIBS_MPI+=" $w" ;;
        *) ;;  # the wrapper's own optimisation/warning options are not the MPI's
      esac
    done
  else
    die "'$WRAPPER' answers neither --showme:compile/--showme:link (Open MPI) nor -show" \
      "(MPICH family): is it an MPI compiler wrapper? For another kind of MPI, give its" \
      "flags as MPI_CFLAGS='-I...' MPI_LIBS='-L... -lmpi'"
  fi
}
read_wrapper
# Open MPI's C++ bindings (mpicxx.h) and MPICH's are not used by toporr.
CFLAGS_MPI="$CFLAGS_MPI -DOMPI_SKIP_MPICXX=1 -DMPICH_SKIP_MPICXX=1"
command -v "$CXX_BIN" >/dev/null || die "C++ compiler '$CXX_BIN' not found (--cxx)"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/toporr-site-build.XXXXXX")
trap '[[ -n ${KEEP_WORK:-} ]] || rm -rf "$WORK"' EXIT

# What mpi.h says it is (the same macros mpi_abi_guard.cc reads).
# shellcheck disable=SC2086
MPI_ID=$(printf '#include <mpi.h>\n%s\n' \
  'toporr_mpi OMPI_MAJOR_VERSION OMPI_MINOR_VERSION OMPI_RELEASE_VERSION MPICH_VERSION' |
  "$CXX_BIN" -E -P -x c++ $CFLAGS_MPI - 2>"$WORK/mpi_h.log" | grep '^toporr_mpi ') ||
  die "cannot compile '#include <mpi.h>' with $CXX_BIN and the flags of $WRAPPER" \
    "($CFLAGS_MPI): see the compiler's message below"$'\n'"$(head -5 "$WORK/mpi_h.log")"
read -r _ omajor ominor orelease mpich <<<"$MPI_ID"
if [[ $omajor =~ ^[0-9]+$ ]]; then
  FAMILY=openmpi$omajor MPI_NAME="Open MPI $omajor.$ominor.$orelease (Open MPI $omajor.x ABI)"
elif [[ $mpich == \"*\" ]]; then
  FAMILY=mpich MPI_NAME="MPICH ${mpich//\"/} (MPICH ABI family)"
else
  FAMILY=mpi MPI_NAME="an MPI whose mpi.h names neither Open MPI nor MPICH (no ABI check)"
fi
log "MPI: $MPI_NAME, flags from $WRAPPER ($STYLE)"
log "  compile:$CFLAGS_MPI"
log "  link:   $LIBS_MPI"

# --- 2. the MPI-neutral core -----------------------------------------------------------------
if [[ -z $KIT ]]; then
  # shellcheck source=deploy/common.sh
  source "$REPO/deploy/common.sh"
  log "core: bazel build //client/mpi:site_kit (log: $WORK/bazel.log)"
  toporr_build //client/mpi:site_kit >"$WORK/bazel.log" 2>&1 ||
    die "bazel build //client/mpi:site_kit failed:"$'\n'"$(tail -20 "$WORK/bazel.log")"
  KIT="$(toporr_bazel_bin)/client/mpi/site_kit"
fi
KIT=$(cd "$KIT" 2>/dev/null && pwd) || die "kit directory '$KIT' not found"
for f in lib/libtoporr_core.a copts.txt link_flags.txt mpi_sources.txt pmpi_sources.txt \
  share/exports.map; do
  [[ -f $KIT/$f ]] || die "$KIT is not a libtoporr site kit: $f missing"
done
log "core: $KIT"

# --- 3. compile the MPI sources with the wrapper's flags --------------------------------------
mapfile -t COPTS < <(sed "s|{KIT}|$KIT|g" "$KIT/copts.txt")
mapfile -t SOURCES <"$KIT/mpi_sources.txt"
mapfile -t PMPI_SOURCES <"$KIT/pmpi_sources.txt"
mkdir -p "$WORK/obj"
log "compiling ${#SOURCES[@]} + ${#PMPI_SOURCES[@]} sources with $CXX_BIN ($JOBS at a time)"
compile() {  # compile SRC: $WORK/obj/<name>.o, its messages in <name>.log
  local name
  name=$(basename "${1%.cc}")
  # shellcheck disable=SC2086
  "$CXX_BIN" -std=c++17 -O2 -g -fPIC "${COPTS[@]}" $CFLAGS_MPI -c "$KIT/$1" \
    -o "$WORK/obj/$name.o" >"$WORK/obj/$name.log" 2>&1 || {
    echo "$1" >>"$WORK/failed"
    return 1
  }
}
for src in "${SOURCES[@]}" "${PMPI_SOURCES[@]}"; do
  while (($(jobs -rp | wc -l) >= JOBS)); do wait -n || true; done
  compile "$src" &
done
wait || true
if [[ -s $WORK/failed ]]; then
  first=$(head -1 "$WORK/failed")
  die "compiling $first failed (with $CXX_BIN and the flags of $WRAPPER):"$'\n'"$(head -15 \
    "$WORK/obj/$(basename "${first%.cc}").log")"
fi
objects() { local s; for s in "$@"; do echo "$WORK/obj/$(basename "${s%.cc}").o"; done; }
mapfile -t OBJS < <(objects "${SOURCES[@]}")
mapfile -t PMPI_OBJS < <(objects "${PMPI_SOURCES[@]}")

# --- 4. link, as Bazel links its own (client/mpi/defs.bzl) ------------------------------------
mapfile -t SYSTEM_LIBS <"$KIT/link_flags.txt"
WHOLE=()
if [[ $(ar t "$KIT/lib/libtoporr_core_whole.a" 2>/dev/null | wc -l) -gt 0 ]]; then
  # shellcheck disable=SC2054
  WHOLE=(-Wl,--whole-archive "$KIT/lib/libtoporr_core_whole.a" -Wl,--no-whole-archive)
fi
STAGE=$WORK/stage
mkdir -p "$STAGE/lib"
log "linking libtoporr.so"
# shellcheck disable=SC2086
"$CXX_BIN" -shared -o "$STAGE/lib/libtoporr.so" "${OBJS[@]}" "${WHOLE[@]}" \
  "$KIT/lib/libtoporr_core.a" "${SYSTEM_LIBS[@]}" $LIBS_MPI -ldl -pthread \
  -Wl,-soname,libtoporr.so -Wl,--version-script="$KIT/share/exports.map" -Wl,--no-undefined \
  >"$WORK/link.log" 2>&1 || die "linking libtoporr.so failed:"$'\n'"$(head -20 "$WORK/link.log")"
log "linking libtoporr_pmpi.so"
# shellcheck disable=SC2016,SC2086  # $ORIGIN is the loader's
"$CXX_BIN" -shared -o "$STAGE/lib/libtoporr_pmpi.so" "${PMPI_OBJS[@]}" -L"$STAGE/lib" -ltoporr \
  $LIBS_MPI -ldl -Wl,-soname,libtoporr_pmpi.so -Wl,-rpath,'$ORIGIN' \
  -Wl,--version-script="$KIT/share/exports.map" -Wl,--no-undefined >"$WORK/link.log" 2>&1 ||
  die "linking libtoporr_pmpi.so failed:"$'\n'"$(head -20 "$WORK/link.log")"

# --- 5. check: a program built with the wrapper links against the libraries and runs ---------
cat >"$WORK/check.c" <<'C'
#include <stdio.h>
#include "client/toporr.h"
int main(void) {
  toporr_context c = 0;
  printf("%s\n", toporr_version());
  return toporr_context_free(&c);
}
C
"$WRAPPER" "$WORK/check.c" -o "$WORK/check" -I"$KIT/include" -L"$STAGE/lib" -ltoporr \
  >"$WORK/check.log" 2>&1 ||
  die "a C program built with $WRAPPER does not link against libtoporr.so:"$'\n'"$(head -10 "$WORK/check.log")"
LIB_VERSION=$(LD_LIBRARY_PATH="$STAGE/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$WORK/check" 2>"$WORK/check.log") ||
  die "a C program linked with libtoporr.so does not run:"$'\n'"$(head -10 "$WORK/check.log")"
: "${VERSION:=$LIB_VERSION}"
log "libtoporr $LIB_VERSION links and loads"

# --- 6. install --------------------------------------------------------------------------------
mkdir -p "$PREFIX" || die "cannot create $PREFIX"
PREFIX=$(cd "$PREFIX" && pwd)
: "${MODULEFILES:=$PREFIX/modulefiles}"
: "${MODULE_NAME:=toporr/$VERSION-$FAMILY}"
install -D -m 0755 "$STAGE/lib/libtoporr.so" "$PREFIX/lib/libtoporr.so"
install -D -m 0755 "$STAGE/lib/libtoporr_pmpi.so" "$PREFIX/lib/libtoporr_pmpi.so"
install -D -m 0644 "$KIT/include/client/toporr.h" "$PREFIX/include/toporr/client/toporr.h"
install -D -m 0644 "$KIT/share/toporr.hpp" "$PREFIX/include/toporr/client/toporr.hpp"
install -D -m 0644 "$KIT/share/toporr_f.f90" "$PREFIX/share/toporr/toporr_f.f90"
install -D -m 0644 "$KIT/share/toporr_f08.f90" "$PREFIX/share/toporr/toporr_f08.f90"
pc() {  # pc NAME DESCRIPTION LIBS
  install -d "$PREFIX/lib/pkgconfig"
  cat >"$PREFIX/lib/pkgconfig/$1.pc" <<PC
prefix=$PREFIX
libdir=\${prefix}/lib
includedir=\${prefix}/include/toporr
# The MPI this build serves (docs/site-build.md) and the library to LD_PRELOAD.
mpi=$MPI_NAME
mpicc=$WRAPPER
pmpi_library=\${libdir}/libtoporr_pmpi.so

Name: $1
Description: toporr topology-aware MPI communicators: $2 (for $MPI_NAME)
Version: $VERSION
Cflags: -I\${includedir}
Libs: -L\${libdir} -Wl,-rpath,\${libdir} $3
PC
}
pc toporr "C API" "-ltoporr"
pc toporr-pmpi "PMPI layer linked at build time (before the MPI library)" \
  "-ltoporr_pmpi -ltoporr"
install -d "$(dirname "$MODULEFILES/$MODULE_NAME")"
cat >"$MODULEFILES/$MODULE_NAME" <<MODULE
#%Module1.0
## toporr $VERSION for $MPI_NAME, built with $WRAPPER by deploy/site-mpi/build-libtoporr.sh.
## Load it with the MPI it was built for: another MPI refuses it at load time.
proc ModulesHelp { } {
  puts stderr "toporr $VERSION: topology-aware MPI communicators for $MPI_NAME."
  puts stderr "  C API:       mpicc prog.c \\\$(pkg-config --cflags --libs toporr)"
  puts stderr "  PMPI, link:  mpicc prog.c -ltoporr_pmpi -ltoporr  (before the MPI library)"
  puts stderr "  PMPI, run:   mpirun -x LD_PRELOAD=\\\$TOPORR_PMPI_LIBRARY ...  (Open MPI)"
  puts stderr "               mpirun -genv LD_PRELOAD \\\$TOPORR_PMPI_LIBRARY ...  (MPICH)"
}
module-whatis "toporr $VERSION: topology-aware MPI communicators (libtoporr for $MPI_NAME)"
conflict toporr
set root $PREFIX
setenv TOPORR_ROOT \$root
setenv TOPORR_PMPI_LIBRARY \$root/lib/libtoporr_pmpi.so
prepend-path LD_LIBRARY_PATH \$root/lib
prepend-path LIBRARY_PATH \$root/lib
prepend-path CPATH \$root/include/toporr
prepend-path PKG_CONFIG_PATH \$root/lib/pkgconfig
MODULE
{
  echo "toporr $VERSION built $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "mpi: $MPI_NAME"
  echo "wrapper: $WRAPPER ($STYLE)"
  echo "compile flags:$CFLAGS_MPI"
  echo "link flags: $LIBS_MPI"
  echo "compiler: $("$CXX_BIN" --version | head -1)"
  echo "kit: $KIT"
} >"$WORK/build-info.txt"
install -D -m 0644 "$WORK/build-info.txt" "$PREFIX/share/toporr/build-info.txt"

log "installed in $PREFIX: lib/libtoporr.so, lib/libtoporr_pmpi.so, lib/pkgconfig/toporr.pc,"
log "  lib/pkgconfig/toporr-pmpi.pc, include/toporr/client/toporr.h(.hpp), share/toporr/"
log "modulefile: $MODULEFILES/$MODULE_NAME (module use $MODULEFILES; module load $MODULE_NAME)"

#!/bin/bash
# Builds toporr-probe (probe/) as an SMPI program with `smpicxx`, so that SimGrid runs the
# real probe -- its schedule, PLogP measurement, clustering and probe.json writer -- inside
# simulated ranks.
#
#   build_probe_smpi.sh OUTDIR [REPO]   -> OUTDIR/toporr-probe-smpi (prints its path)
#
# REPO (default: this script's checkout) holds the sources; a Bazel test passes its runfiles
# tree (//probe:smpi_sources lists the same files). Sources: SOURCES below, the closure of
# //probe:toporr-probe without MPI and without its hwloc parts (probe/hwloc_ranks.h: all
# simulated ranks share this one real process, so hwloc would describe the wrong machine;
# probe_main.cc leaves them out without TOPORR_PROBE_HWLOC). Keep them in sync: a missing
# file fails the link, and //bench/smpi:probe_smpi_test builds from the filegroup. System libraries: Debian's abseil
# through pkg-config. Incremental: an object is rebuilt when its source or any header of the
# repository is newer. Exit status 0 ok, 1 a step failed (its log named).
set -euo pipefail

OUT=${1:?usage: build_probe_smpi.sh OUTDIR [REPO]}
REPO=${2:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
SOURCES=(
  probe/probe_main.cc probe/run.cc probe/plogp_measure.cc probe/schedule.cc probe/analysis.cc
  mapping/levels/measured_levels.cc mapping/levels/levels.cc
  collectors/plogp.cc collectors/json_value.cc
  common/json_writer.cc common/text_scan.cc common/printable.cc
  fabric/fabric.cc
)
die() { echo "build_probe_smpi: $*" >&2; exit 1; }
command -v smpicxx >/dev/null || die "missing smpicxx (apt-get install libsimgrid-dev)"
mkdir -p "$OUT/obj"
OUT=$(cd "$OUT" && pwd)
# SMPI_NO_OVERRIDE_MALLOC: smpicxx's malloc macros would rename identifiers; the probe's
# buffers are small.
CXXFLAGS=(-std=c++17 -O2 -g0 -DSMPI_NO_OVERRIDE_MALLOC -I"$REPO")
newest_header=$(find -L "$REPO/probe" "$REPO/mapping" "$REPO/collectors" "$REPO/common" \
  "$REPO/fabric" -name '*.h' -newer "$OUT/toporr-probe-smpi" 2>/dev/null | head -1 || true)
objs=()
for src in "${SOURCES[@]}"; do
  [[ -f $REPO/$src ]] || die "missing $REPO/$src"
  obj=$OUT/obj/${src//\//_}.o
  objs+=("$obj")
  if [[ ! -s $obj || $REPO/$src -nt $obj || -n $newest_header ]]; then
    smpicxx "${CXXFLAGS[@]}" -c "$REPO/$src" -o "$obj" >>"$OUT/build.log" 2>&1 \
      || die "smpicxx $src failed: see $OUT/build.log"
  fi
done
# shellcheck disable=SC2046
smpicxx -o "$OUT/toporr-probe-smpi" "${objs[@]}" \
  $(pkg-config --libs absl_status absl_statusor absl_strings) >>"$OUT/build.log" 2>&1 \
  || die "linking failed: see $OUT/build.log"
echo "$OUT/toporr-probe-smpi"

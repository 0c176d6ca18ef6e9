#!/usr/bin/env bash
# Regenerates the hwloc golden topologies in this folder with the real hwloc tools
# (Debian package `hwloc`: lstopo-no-graphics, hwloc-annotate). Deterministic: run it and
# `git diff` must be empty except for the hwloc version line if hwloc was upgraded.
#
# File names encode the machine's shape as whole-machine counts:
#   <packages>pack-<numa>numa-<l3>l3-<cores>core[-smt<pus per core>][-<distances>]
# `slit` = an OS-style (FROM_OS) relative NUMA latency matrix named NUMALatency, as Linux
# reports the ACPI SLIT; `userlat` / `userbw` = user-provided (FROM_USER) latency in ns /
# bandwidth in MB/s. HwlocTopology::ShapeName() must reproduce the part before the suffix.
#
# 1pack-1numa-1l3-2core-vm.xml is not generated here: it is `lstopo-no-graphics --no-io
# --of xml` captured once on a real 2-core virtual machine (one package, one L3, no distances).
set -euo pipefail
cd "$(dirname "$0")"

# Writes a hwloc-annotate distances file: name, kind, the NUMA nodes 0..n-1, then n*n
# values row-major (row = initiator NUMA node, column = target NUMA node).
distances_file() {
  local out=$1 name=$2 kind=$3 n=$4; shift 4
  {
    echo "name=$name"
    echo "$kind"
    echo "$n"
    for ((i = 0; i < n; i++)); do echo "numa:$i"; done
    for v in "$@"; do echo "$v"; done
  } >"$out"
}

synthetic() {  # <synthetic description> <output.xml>
  lstopo-no-graphics --no-io -i "$1" --of xml --force "$2"
}

# hwloc-annotate exits 0 even when it cannot use a distances file, so check the result.
annotate_distances() {  # <input.xml> <output.xml> <distances file> <matrix name>
  hwloc-annotate "$1" "$2" -- none -- distances "$3"
  if ! lstopo-no-graphics -i "$2" --distances | grep -q "name $4 "; then
    echo "generate.sh: $2 lacks the distance matrix $4" >&2
    exit 1
  fi
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# hwloc_distances_kind_e: FROM_OS=1 FROM_USER=2 MEANS_LATENCY=4 MEANS_BANDWIDTH=8.
OS_LATENCY=5
USER_LATENCY=6
USER_BANDWIDTH=10

# Two sockets, sub-NUMA clustering 2 (one L3 slice per NUMA node), 4 cores per NUMA node,
# 2 hyperthreads numbered like Linux on Intel: first threads of all cores are P#0-15, second
# threads P#16-31 (core L#0 = P#0,P#16).
intel_pus=$(for c in $(seq 0 15); do printf '%d,%d,' "$c" $((c + 16)); done)
intel="pack:2 numa:2 l3:1 core:4 pu:2(indexes=${intel_pus%,})"
synthetic "$intel" "$tmp/intel.xml"
distances_file "$tmp/slit4" NUMALatency $OS_LATENCY 4 \
  10 11 21 21 \
  11 10 21 21 \
  21 21 10 11 \
  21 21 11 10
annotate_distances "$tmp/intel.xml" 2pack-4numa-4l3-16core-smt2-slit.xml "$tmp/slit4" NUMALatency
# Same machine with a measured (user) latency matrix in ns besides the SLIT: the user one wins.
distances_file "$tmp/userlat4" MeasuredLatency $USER_LATENCY 4 \
  100 130 250 250 \
  130 100 250 250 \
  250 250 100 130 \
  250 250 130 100
annotate_distances 2pack-4numa-4l3-16core-smt2-slit.xml \
  2pack-4numa-4l3-16core-smt2-slit-userlat.xml "$tmp/userlat4" MeasuredLatency

# One socket, NPS2-like: 2 NUMA nodes, each with 2 L3 (CCX) of 4 cores, SMT2 numbered
# consecutively (core L#0 = P#0,P#1).
synthetic "pack:1 numa:2 l3:2 core:4 pu:2" "$tmp/amd.xml"
distances_file "$tmp/slit2" NUMALatency $OS_LATENCY 2 \
  10 12 \
  12 10
annotate_distances "$tmp/amd.xml" 1pack-2numa-4l3-16core-smt2-slit.xml "$tmp/slit2" NUMALatency

# Two sockets, one NUMA node and one L3 each, 4 cores, no SMT; user latency (ns) and
# bandwidth (MB/s) matrices, no OS one. The bandwidth matrix is asymmetric on purpose (from
# NUMA 0 to NUMA 1: 16000, from 1 to 0: 18000) so tests can check the row-major direction.
synthetic "pack:2 numa:1 l3:1 core:4 pu:1" "$tmp/small.xml"
distances_file "$tmp/userlat2" MeasuredLatency $USER_LATENCY 2 \
  90 150 \
  150 90
distances_file "$tmp/userbw2" MeasuredBandwidth $USER_BANDWIDTH 2 \
  40000 16000 \
  18000 40000
annotate_distances "$tmp/small.xml" "$tmp/small-lat.xml" "$tmp/userlat2" MeasuredLatency
annotate_distances "$tmp/small-lat.xml" 2pack-2numa-2l3-8core-userlat-userbw.xml "$tmp/userbw2" MeasuredBandwidth

# The same two-socket shape without any distance matrix.
cp "$tmp/small.xml" 2pack-2numa-2l3-8core.xml

# Two sockets of one core each (PU P#0 and P#1, as a 2-core VM numbers them) with a SLIT:
# what a 2-core machine shows under HWLOC_XMLFILE=<this> HWLOC_THISSYSTEM=1, so that ranks
# bound to its two cores sit in two packages (client/mpi/testing/buffers_threads_test.py).
synthetic "pack:2 numa:1 l3:1 core:1 pu:1" "$tmp/two.xml"
distances_file "$tmp/slit-two" NUMALatency $OS_LATENCY 2 \
  10 21 \
  21 10
annotate_distances "$tmp/two.xml" 2pack-2numa-2l3-2core-slit.xml "$tmp/slit-two" NUMALatency

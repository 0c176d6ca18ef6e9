#!/usr/bin/env bash
# Installs every Debian 12 package toporr needs to build, test and run its demo.
# Idempotent: packages already present are skipped; `apt-get update` runs at most once.
set -euo pipefail

PACKAGES=(
  # build
  bazel-bootstrap bazel-rules-java build-essential pkg-config git ca-certificates
  # libraries
  libgrpc++-dev libgrpc-dev protobuf-compiler-grpc protobuf-compiler libprotobuf-dev
  libabsl-dev libsqlite3-dev sqlite3 libhwloc-dev libibnetdisc-dev libibmad-dev
  libibumad-dev libscotch-dev libgtest-dev libgmock-dev libbenchmark-dev
  # real fabric tools for tests: simulator, subnet manager, diagnostics
  ibsim-utils libumad2sim0 opensm infiniband-diags
  # Omni-Path: libxml2 for the topology XML parser, opa-fastfabric tools for test inputs
  libxml2-dev opa-fastfabric
  # MPI
  openmpi-bin libopenmpi-dev libsimgrid-dev  # libsimgrid-dev: SimGrid SMPI, bench/smpi
  python3-mpi4py  # an unchanged mpi4py program under the drop-in (testing/vcluster)
  mpich libmpich-dev gfortran  # MPICH build of libtoporr, Fortran tests
  # PyTorch 1.13 (torch.distributed, Gloo) for toporr.torch: the torch cases of
  # //python:toporr_test and the bench/vcluster torch benchmarks. Big: installed without
  # recommends like everything here (about 170 packages on a bare system, 230 with them).
  python3-torch
  # the modulefile of deploy/site-mpi/build-libtoporr.sh, loaded by its test (Lmod reads Tcl
  # modulefiles; Debian's environment-modules conflicts with it)
  lmod tcl
  # operations: sd_notify, the metrics HTTP endpoint, and the real tools their tests run
  libsystemd-dev libcivetweb-dev systemd prometheus openssl
  # exports and packaging: the tools their tests run (slurmctld + scontrol read the Slurm
  # topology, Graphviz renders the dot export, lintian/dpkg-dev/man-db check the .deb)
  slurmctld slurm-client graphviz lintian dpkg-dev man-db xz-utils
  # the SPANK plugin: spank.h to build it, slurmd (with slurmctld) to run jobs through it
  libslurm-dev slurmd
  # fuzzing: clang-14 and libFuzzer for the fuzz/ harnesses (bench/run_fuzz.sh)
  clang-14 libfuzzer-14-dev
  # plots of the SMPI evaluation (bench/smpi/model_quality.py)
  gnuplot-nox
  # misc tools used by scripts and tests
  python3 procps
  # the second software stack's root (testing/stacks: Debian 13 made with debootstrap)
  debootstrap
  # the virtual cluster (testing/vcluster): namespaces, bridges, tc shapers, reachability
  iproute2 util-linux iputils-ping
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
echo "install-deps: installing ${#missing[@]} packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"

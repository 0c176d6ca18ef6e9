#!/usr/bin/env bash
# Builds toporr_<version>+deb<release>_amd64.deb with dpkg-deb, for the Debian release it runs
# on (12 or 13; build it on each, or in testing/stacks' Debian 13 root):
#   /usr/sbin/toporrd, /usr/sbin/toporr-discover (the live collector: toporrd's helper, or
#   run by a toporrd running as root), /usr/bin/toporrctl, /usr/bin/toporr-probe (Open MPI) and
#   /usr/bin/toporr-probe-mpich;
#   libtoporr for Open MPI in /usr/lib/x86_64-linux-gnu/toporr/openmpi/ and for MPICH in
#   /usr/lib/x86_64-linux-gnu/toporr/mpich/ (libtoporr.so and libtoporr_pmpi.so each), with
#   pkg-config files toporr.pc (Open MPI) and toporr-mpich.pc;
#   libtoporr_plan.so (rank orders for programs that are not MPI jobs; no MPI) in
#   /usr/lib/x86_64-linux-gnu/toporr/, and the pure-Python package toporr over it (ctypes;
#   toporr and toporr.torch) in /usr/lib/python3/dist-packages/toporr/, which finds the
#   library there (`_INSTALLED` of python/toporr/__init__.py): the package Provides
#   python3-toporr and byte-compiles it as dh_python3 would (py3compile, py3clean);
#   Open MPI's components mca_coll_toporr.so and mca_topo_toporr.so in Debian's Open MPI
#   component directory (/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/ on Debian 12,
#   openmpi40/ on Debian 13: `ompi_info --path pkglibdir` of the building system), where every Open MPI
#   job finds them (each finds libtoporr.so through its RUNPATH, $ORIGIN/../../../toporr/openmpi);
#   the headers as /usr/include/toporr/client/toporr.h(.hpp) and toporr_plan.h
#   (`#include "client/toporr.h"` as in the sources; `pkg-config --cflags toporr` gives
#   -I/usr/include/toporr);
#   the Slurm SPANK plugin in Slurm's plugin directory,
#   /usr/lib/x86_64-linux-gnu/slurm-wlm/spank_toporr.so (plugstack.conf names it);
#   the systemd units toporrd.service (the daemon, as the system user toporr, no
#   capabilities), toporr-discover.socket and toporr-discover@.service (the live-discovery
#   helper toporrd asks for sweeps, with the umad devices) in /lib/systemd/system on Debian 12,
#   /usr/lib/systemd/system from Debian 13 (whose merged /usr makes /lib an alias); the
#   maintainer scripts of deploy/debian/ (the toporr user and group, /var/lib/toporr given to
#   it on upgrade, removed on purge: docs/admin-guide.md "Privileges"), /etc/toporr/toporrd.conf
#   (conffile), man pages toporrd(8), toporr-discover(8), spank_toporr(8), toporrctl(1),
#   toporr-probe(1), toporr(7) and libtoporr(3) (with a link per C API function), bash
#   completion, copyright and changelog.
# Usage: deploy/build-deb.sh [OUTDIR]   (default: the repository root; version from
# TOPORR_VERSION, default the C API's: TOPORR_VERSION_MAJOR.MINOR.PATCH of client/toporr.h). With TOPORR_DEB_BIN=DIR the built files are taken from
# DIR (Bazel's layout, e.g. a test's runfiles) instead of running bazel build.
set -euo pipefail
SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:-$SRC}"
api_version() {  # MAJOR.MINOR.PATCH from client/toporr.h
  local header=$SRC/client/toporr.h
  [[ -f $header ]] || header=$(find "${TOPORR_DEB_BIN:-$SRC}" -path '*client/toporr.h' -print -quit)
  awk '/#define TOPORR_VERSION_(MAJOR|MINOR|PATCH) / { v[$2] = $3 }
       END { printf "%s.%s.%s", v["TOPORR_VERSION_MAJOR"], v["TOPORR_VERSION_MINOR"], v["TOPORR_VERSION_PATCH"] }' "$header"
}
# The Debian release it is built on and for (its gRPC, Abseil, Open MPI and Slurm): the
# version says it, +debN as Debian's own rebuilds do (toporr_1.2.0+deb13_amd64.deb).
DEBIAN_RELEASE=$(sed -n 's/^\([0-9][0-9]*\).*/\1/p' /etc/debian_version 2>/dev/null || true)
VERSION="${TOPORR_VERSION:-$(api_version)${DEBIAN_RELEASE:++deb$DEBIAN_RELEASE}}"
[[ $VERSION =~ ^[0-9]+\.[0-9]+\.[0-9]+ ]] || { echo "build-deb: no version (TOPORR_VERSION or client/toporr.h)" >&2; exit 1; }
ARCH=amd64
MULTIARCH=x86_64-linux-gnu

if [[ -n ${TOPORR_DEB_BIN:-} ]]; then
  BIN="$TOPORR_DEB_BIN"
else
  source "$SRC/deploy/common.sh"
  toporr_build //daemon:toporrd //client/ctl:toporrctl //collectors:toporr-discover \
    //client/mpi/openmpi:libtoporr.so //client/mpi/openmpi:libtoporr_pmpi.so \
    //client/mpi/mpich:libtoporr.so //client/mpi/mpich:libtoporr_pmpi.so \
    //client/mpi/openmpi_component:mca_coll_toporr.so \
    //client/mpi/openmpi_component:mca_topo_toporr.so \
    //probe:toporr-probe //probe:toporr-probe-mpich //scheduler/slurm:spank_toporr.so \
    //client/planapi:libtoporr_plan.so
  BIN="$(toporr_bazel_bin)"
fi

STAGE="$(mktemp -d "${TMPDIR:-/tmp}/toporr-deb.XXXXXX")"
trap 'rm -rf "$STAGE"' EXIT
ROOT="$STAGE/root"
umask 022

inst() {  # inst MODE SRC DEST
  install -D -m "$1" "$2" "$ROOT$3"
}
strip_elf() {
  strip --strip-unneeded --remove-section=.comment --remove-section=.note "$1"
}

inst 0755 "$BIN/daemon/toporrd" /usr/sbin/toporrd
inst 0755 "$BIN/collectors/toporr-discover" /usr/sbin/toporr-discover
inst 0755 "$BIN/client/ctl/toporrctl" /usr/bin/toporrctl
inst 0755 "$BIN/probe/toporr-probe" /usr/bin/toporr-probe
inst 0755 "$BIN/probe/toporr-probe-mpich" /usr/bin/toporr-probe-mpich
LIBDIR=/usr/lib/$MULTIARCH/toporr
for mpi in openmpi mpich; do
  for lib in libtoporr.so libtoporr_pmpi.so; do
    inst 0644 "$BIN/client/mpi/$mpi/$lib" "$LIBDIR/$mpi/$lib"
  done
done
inst 0644 "$BIN/client/planapi/libtoporr_plan.so" "$LIBDIR/libtoporr_plan.so"
# Open MPI's own component directory on this release (openmpi3 for 4.1, openmpi40 for 5.0).
OMPI_COMPONENTS=$(ompi_info --path pkglibdir 2>/dev/null | sed -n 's/^[^:]*:[[:space:]]*//p')
[[ $OMPI_COMPONENTS == /usr/lib/$MULTIARCH/openmpi/lib/openmpi* ]] ||
  { echo "build-deb: Open MPI's component directory not found (ompi_info --path pkglibdir: '$OMPI_COMPONENTS')" >&2; exit 1; }
for component in mca_coll_toporr.so mca_topo_toporr.so; do
  inst 0644 "$BIN/client/mpi/openmpi_component/$component" "$OMPI_COMPONENTS/$component"
done
SLURM_PLUGINS=/usr/lib/$MULTIARCH/slurm-wlm
inst 0644 "$BIN/scheduler/slurm/spank_toporr.so" "$SLURM_PLUGINS/spank_toporr.so"
for f in "$ROOT/usr/sbin/"* "$ROOT/usr/bin/"* "$ROOT$LIBDIR"/*.so "$ROOT$LIBDIR"/*/*.so \
  "$ROOT$OMPI_COMPONENTS"/*.so "$ROOT$SLURM_PLUGINS"/*.so; do
  strip_elf "$f"
done

inst 0644 "$SRC/client/toporr.h" /usr/include/toporr/client/toporr.h
inst 0644 "$SRC/client/toporr.hpp" /usr/include/toporr/client/toporr.hpp
inst 0644 "$SRC/client/toporr_plan.h" /usr/include/toporr/client/toporr_plan.h
# Pure Python, one copy for every Python 3 of the system (no compiled extension).
PYDIR=/usr/lib/python3/dist-packages/toporr
for module in __init__.py torch.py; do
  inst 0644 "$SRC/python/toporr/$module" "$PYDIR/$module"
done
pc() {  # pc NAME MPI DESCRIPTION-SUFFIX MPI-PKGCONFIG
  cat > "$STAGE/$1.pc" <<PC
prefix=/usr
includedir=\${prefix}/include/toporr
libdir=\${prefix}/lib/$MULTIARCH/toporr/$2

Name: $1
Description: toporr topology-aware MPI communicators ($3)
Version: $VERSION
Requires.private: $4
Cflags: -I\${includedir}
Libs: -L\${libdir} -Wl,-rpath,\${libdir} -ltoporr
PC
  inst 0644 "$STAGE/$1.pc" "/usr/lib/$MULTIARCH/pkgconfig/$1.pc"
}
pc toporr openmpi "Open MPI" ompi-c
pc toporr-mpich mpich "MPICH" mpich

UNITDIR=/lib/systemd/system
[[ -n $DEBIAN_RELEASE ]] && ((DEBIAN_RELEASE >= 13)) && UNITDIR=/usr/lib/systemd/system
for unit in toporrd.service toporr-discover.socket toporr-discover@.service; do
  inst 0644 "$SRC/deploy/$unit" "$UNITDIR/$unit"
done
inst 0644 "$SRC/deploy/toporrd.conf.example" /etc/toporr/toporrd.conf
inst 0644 "$SRC/deploy/client.conf.example" /etc/toporr/client.conf
inst 0644 "$SRC/deploy/completion/toporrctl" /usr/share/bash-completion/completions/toporrctl
# The Prometheus alert rules and their unit tests, for `rule_files:` of a site's Prometheus.
for rules in toporr-alerts.yml toporr-alerts.test.yml; do
  inst 0644 "$SRC/deploy/prometheus/$rules" "/usr/share/toporr/prometheus/$rules"
done
for page in toporrd.8 toporr-discover.8 spank_toporr.8 toporrctl.1 toporr-probe.1 toporr.7 \
  libtoporr.3 toporr_plan.3; do
  sec="${page##*.}"
  install -d -m 0755 "$ROOT/usr/share/man/man$sec"
  gzip -9n < "$SRC/deploy/man/$page" > "$ROOT/usr/share/man/man$sec/$page.gz"
done
# toporr-probe-mpich is toporr-probe built for MPICH: one page.
ln -s toporr-probe.1.gz "$ROOT/usr/share/man/man1/toporr-probe-mpich.1.gz"
# `man toporr_comm_reorder` & co.: every name of libtoporr(3)'s NAME line is a link to it.
for page in libtoporr toporr_plan; do
  for fn in $(sed -n '/^\.SH NAME/,/^\\-/p' "$SRC/deploy/man/$page.3" | grep -o 'toporr_[a-z_]*'); do
    [[ $fn == "$page" ]] || ln -s "$page.3.gz" "$ROOT/usr/share/man/man3/$fn.3.gz"
  done
done

DOC="$ROOT/usr/share/doc/toporr"
install -d -m 0755 "$DOC"
cat > "$DOC/copyright" <<'COPYRIGHT'
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: toporr
Source: https://github.com/toporr/toporr

Files: *
Copyright: 2025 the toporr developers
License: Apache-2.0

License: Apache-2.0
 Licensed under the Apache License, Version 2.0 (the "License"); you may not
 use this file except in compliance with the License.
 .
 On Debian systems, the full text of the Apache License, Version 2.0 can be
 found in the file `/usr/share/common-licenses/Apache-2.0'.
COPYRIGHT
chmod 0644 "$DOC/copyright"
DATE="$(date -R -d "@${SOURCE_DATE_EPOCH:-$(git -C "$SRC" log -1 --format=%ct 2>/dev/null || date +%s)}")"
cat > "$STAGE/changelog" <<CHANGELOG
toporr ($VERSION) unstable; urgency=medium

  * Package built by deploy/build-deb.sh: toporrd, toporr-discover, toporrctl,
    toporr-probe, libtoporr for Open MPI and MPICH, Open MPI's coll and topo
    components, libtoporr_plan and the Python package toporr (python3-toporr),
    headers, pkg-config files, systemd units.

 -- toporr developers <toporr@lists.toporr.org>  $DATE
CHANGELOG
gzip -9n < "$STAGE/changelog" > "$DOC/changelog.gz"
chmod 0644 "$DOC/changelog.gz"
# toporr_plan(3) and the Python package's docstrings point here.
inst 0644 "$SRC/docs/training.md" /usr/share/doc/toporr/training.md

# Control: dependencies from the binaries (dpkg-shlibdeps) and libtoporr_plan.so (the Python
# package's library); the MPI libraries only recommend their MPI (a daemon host needs neither).
# The Python package adds what dh_python3 would write for a pure module: python3:any (any
# architecture's interpreter runs it), Provides: python3-toporr, and py3compile/py3clean in
# postinst/prerm for its byte code.
mkdir -p "$STAGE/src/debian" "$ROOT/DEBIAN"
cat > "$STAGE/src/debian/control" <<'CONTROL'
Source: toporr

Package: toporr
Architecture: amd64
CONTROL
(cd "$STAGE/src" && dpkg-shlibdeps -O -S"$ROOT" \
  -e"$ROOT/usr/sbin/toporrd" -e"$ROOT/usr/sbin/toporr-discover" -e"$ROOT/usr/bin/toporrctl" \
  -e"$ROOT$LIBDIR/libtoporr_plan.so" \
  -dRecommends $(for f in "$ROOT$LIBDIR"/*/libtoporr.so "$ROOT$OMPI_COMPONENTS"/*.so \
    "$ROOT/usr/bin/toporr-probe"*; do echo "-e$f"; done) \
  2>"$STAGE/shlibdeps.err") > "$STAGE/substvars" || { cat "$STAGE/shlibdeps.err" >&2; exit 1; }
DEPENDS="$(sed -n 's/^shlibs:Depends=//p' "$STAGE/substvars")"
RECOMMENDS="$(sed -n 's/^shlibs:Recommends=//p' "$STAGE/substvars")"
SIZE="$(du -sk --apparent-size "$ROOT" | cut -f1)"
cat > "$ROOT/DEBIAN/control" <<CONTROL
Package: toporr
Version: $VERSION
Architecture: $ARCH
Maintainer: toporr developers <toporr@lists.toporr.org>
Installed-Size: $SIZE
Depends: $DEPENDS, adduser, python3:any
Recommends: $RECOMMENDS
Provides: python3-toporr
Section: net
Priority: optional
Homepage: https://github.com/toporr/toporr
Description: topology-aware MPI collectives for InfiniBand and Omni-Path
 toporrd knows the fabric (which host hangs off which switch, which links, how
 fast) and serves node-pair communication costs over gRPC; toporrctl answers
 operators and exports the topology to Slurm, Kubernetes, MPICH and Graphviz;
 libtoporr (for Open MPI and MPICH) renumbers the ranks of MPI communicators so
 that collectives use short, fast paths; a Slurm SPANK plugin (srun --toporr)
 sets it per job.
 .
 For programs that are not MPI jobs (PyTorch training, launchers),
 libtoporr_plan (C API toporr_plan.h) and the Python 3 package toporr over it
 (python3-toporr: import toporr, toporr.torch) give the same rank orders, from
 toporrd or offline from a fabric dump.
CONTROL
printf '%s\n' /etc/toporr/toporrd.conf /etc/toporr/client.conf > "$ROOT/DEBIAN/conffiles"
for script in postinst prerm postrm; do
  install -m 0755 "$SRC/deploy/debian/$script" "$ROOT/DEBIAN/$script"
done
(cd "$ROOT" && find . -type f ! -path './DEBIAN/*' ! -path './etc/*' -printf '%P\0' |
  sort -z | xargs -0 md5sum) > "$ROOT/DEBIAN/md5sums"
chmod 0644 "$ROOT/DEBIAN/md5sums" "$ROOT/DEBIAN/control" "$ROOT/DEBIAN/conffiles"

DEB="$OUT/toporr_${VERSION}_${ARCH}.deb"
dpkg-deb --root-owner-group -Zxz --build "$ROOT" "$DEB" >/dev/null
echo "$DEB"

#!/usr/bin/env bash
# The Debian package, built by deploy/build-deb.sh from the Bazel outputs of this test:
#   - dpkg-deb -I / -c: control fields, every file where it belongs;
#   - lintian: no errors (and no warnings);
#   - apt-get install -s: every dependency resolves among this release's packages;
#   - dpkg --root into a scratch root (--force-script-chrootless: the maintainer scripts see
#     DPKG_ROOT and leave this machine alone; --force-depends: the scratch root has no libc);
#   - the man pages: each page of deploy/man installed gzipped in its section, titled with its
#     name and section, and `man` finds a page for every function toporr.h declares;
#   - systemd-analyze verify of the installed units with --man=yes: their Documentation=
#     pages must be found among the installed man pages (MANPATH of the scratch root);
#   - pkg-config + mpicc/mpicxx against the installed header and library (Open MPI, MPICH);
#   - the Python package as installed (python3-toporr, which the package Provides): `import
#     toporr` from the root's dist-packages plans offline on the demo fabric through the
#     installed libtoporr_plan.so, and a C program builds and runs against the installed
#     toporr_plan.h and libtoporr_plan.so;
#   - the package's life on this very system, its maintainer scripts run for real, each time
#     in a throwaway overlay of / (a mount namespace, chroot; nothing reaches this machine):
#       fresh:   install (the toporr user and groups appear), remove (data and conffiles
#                kept), purge (/var/lib/toporr, /etc/toporr and the units gone; the user
#                stays, see deploy/debian/postrm);
#       upgrade: the previous package (deploy/testdata/previous-package: its unit ran toporrd
#                as root, its scripts made no user) with its daemon running as root on a
#                database it filled, then this package over it: the database is kept, now
#                toporr's; the running daemon keeps serving; the new daemon, as toporr with
#                no capabilities, serves the old snapshot and ingests; purge as above.
#     Needs root and overlayfs; elsewhere that part prints "SKIPPED (package life): why".
set -euo pipefail
export PATH="$PATH:/usr/sbin:/sbin"
RUNFILES="${TEST_SRCDIR:?}/${TEST_WORKSPACE:?}"
WORK="$(mktemp -d /tmp/toporr-deb-test.XXXXXX)"
trap '[[ -n "${KEEP_WORK:-}" ]] || rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# The package's version is the C API's (client/toporr.h) unless TOPORR_VERSION says otherwise.
API=$(awk '/#define TOPORR_VERSION_(MAJOR|MINOR|PATCH) / { v = v (v == "" ? "" : ".") $3 }
           END { print v }' "$RUNFILES/client/toporr.h")
RELEASE=$(sed -n 's/^\([0-9][0-9]*\).*/\1/p' /etc/debian_version)
VERSION="$API+deb$RELEASE"
DEB=$(TOPORR_DEB_BIN="$RUNFILES" "$RUNFILES/deploy/build-deb.sh" "$WORK")
[[ $(basename "$DEB") == "toporr_${VERSION}_amd64.deb" ]] ||
  fail "package name: $DEB (C API $API, Debian $RELEASE)"
# This release's Open MPI: its component directory and the package of its library.
# Where the release keeps systemd units: /usr/lib from Debian 13 (merged /usr).
UNITDIR=/lib/systemd/system
((RELEASE >= 13)) && UNITDIR=/usr/lib/systemd/system
OMPI_COMPONENTS=$(ompi_info --path pkglibdir | sed -n 's/^[^:]*:[[:space:]]*//p')
OMPI_PACKAGE=$(dpkg -S "$(readlink -f /usr/lib/x86_64-linux-gnu/libmpi.so.40)" | cut -d: -f1 | head -1)

info=$(dpkg-deb -I "$DEB")
for want in "Package: toporr" "Version: $VERSION" "Architecture: amd64" "Depends: " "libc6" \
            "libgrpc++" "Recommends: " "$OMPI_PACKAGE" "libmpich12"; do
  [[ $info == *"$want"* ]] || fail "control lacks '$want'"
done
[[ $(dpkg-deb -f "$DEB" Package) == toporr ]] || fail "dpkg-deb -f"
[[ $(dpkg-deb -f "$DEB" Provides) == python3-toporr ]] || fail "Provides: $(dpkg-deb -f "$DEB" Provides)"
[[ ", $(dpkg-deb -f "$DEB" Depends)," == *", python3:any,"* ]] || fail "Depends lacks python3:any"
contents=$(dpkg-deb -c "$DEB")
for want in ./usr/sbin/toporrd ./usr/sbin/toporr-discover ./usr/bin/toporrctl \
    ./usr/lib/x86_64-linux-gnu/toporr/openmpi/libtoporr.so \
    ./usr/lib/x86_64-linux-gnu/toporr/openmpi/libtoporr_pmpi.so \
    ./usr/lib/x86_64-linux-gnu/toporr/mpich/libtoporr.so \
    ./usr/lib/x86_64-linux-gnu/toporr/mpich/libtoporr_pmpi.so \
    ./usr/lib/x86_64-linux-gnu/toporr/libtoporr_plan.so ./usr/include/toporr/client/toporr_plan.h \
    ./usr/lib/python3/dist-packages/toporr/__init__.py ./usr/lib/python3/dist-packages/toporr/torch.py \
    ".$OMPI_COMPONENTS/mca_coll_toporr.so" ".$OMPI_COMPONENTS/mca_topo_toporr.so" \
    ./usr/bin/toporr-probe ./usr/bin/toporr-probe-mpich \
    ./usr/lib/x86_64-linux-gnu/pkgconfig/toporr.pc ./usr/lib/x86_64-linux-gnu/pkgconfig/toporr-mpich.pc \
    ./usr/include/toporr/client/toporr.h ./usr/include/toporr/client/toporr.hpp \
    ".$UNITDIR/toporrd.service" ".$UNITDIR/toporr-discover.socket" \
    ".$UNITDIR/toporr-discover@.service" ./etc/toporr/toporrd.conf ./etc/toporr/client.conf \
    ./usr/share/man/man8/toporrd.8.gz ./usr/share/man/man8/toporr-discover.8.gz \
    ./usr/share/man/man1/toporrctl.1.gz ./usr/share/man/man1/toporr-probe.1.gz \
    ./usr/share/man/man7/toporr.7.gz ./usr/share/man/man3/libtoporr.3.gz \
    ./usr/lib/x86_64-linux-gnu/slurm-wlm/spank_toporr.so ./usr/share/man/man8/spank_toporr.8.gz \
    ./usr/share/bash-completion/completions/toporrctl \
    ./usr/share/doc/toporr/copyright ./usr/share/doc/toporr/changelog.gz \
    ./usr/share/doc/toporr/training.md ./usr/share/man/man3/toporr_plan.3.gz \
    ./usr/share/toporr/prometheus/toporr-alerts.yml \
    ./usr/share/toporr/prometheus/toporr-alerts.test.yml; do
  grep -q " $want\$" <<<"$contents" || fail "package lacks $want"
done
grep -q "root/root" <<<"$contents" && ! grep -v "root/root" <<<"$contents" | grep -q . ||
  fail "files not owned by root"
echo "ok   dpkg-deb -I / -c"

lint=$(lintian --allow-root "$DEB" 2>&1) || true
echo "$lint"
grep -q '^E: ' <<<"$lint" && fail "lintian errors"
grep -q '^W: ' <<<"$lint" && fail "lintian warnings"
echo "ok   lintian: no errors or warnings"

# Every dependency resolves among this release's packages (apt's simulation: nothing changes).
sim=$(apt-get install -s -y "$DEB" 2>&1) || { echo "$sim"; fail "apt-get install -s: dependencies do not resolve"; }
grep -qF "Inst toporr ($VERSION" <<<"$sim" || { echo "$sim"; fail "apt-get install -s does not install toporr $VERSION"; }
echo "ok   apt-get install -s: the dependencies resolve on Debian $RELEASE"

ROOT="$WORK/root"
mkdir -p "$ROOT/var/lib/dpkg/info" "$ROOT/var/lib/dpkg/updates"
touch "$ROOT/var/lib/dpkg/status" "$ROOT/var/lib/dpkg/available"
dpkg --root="$ROOT" --log=/dev/null --force-not-root --force-depends --force-script-chrootless \
  -i "$DEB" > "$WORK/dpkg.log" 2>&1 || { cat "$WORK/dpkg.log"; fail "dpkg -i"; }
grep -q "Status: install ok installed" <<<"$(dpkg --root="$ROOT" -s toporr)" || fail "not installed"
grep -q /usr/sbin/toporrd <<<"$(dpkg --root="$ROOT" -L toporr)" || fail "dpkg -L"
grep -q "slurm-topology" <<<"$("$ROOT/usr/bin/toporrctl" help 2>&1)" || fail "installed toporrctl"
echo "ok   dpkg --root install"

# The alert rules as installed: the files of deploy/prometheus, and valid for promtool there
# (rule_files resolve against the test file's folder, so the unit tests run as installed).
RULES="$ROOT/usr/share/toporr/prometheus"
cmp -s "$RULES/toporr-alerts.yml" "$RUNFILES/deploy/prometheus/toporr-alerts.yml" ||
  fail "installed toporr-alerts.yml differs from deploy/prometheus's"
PROMTOOL=${PROMTOOL:-/usr/bin/promtool}
if [[ -x $PROMTOOL ]]; then
  "$PROMTOOL" check rules "$RULES/toporr-alerts.yml" >"$WORK/promtool.log" 2>&1 &&
    (cd "$RULES" && "$PROMTOOL" test rules toporr-alerts.test.yml) \
      >>"$WORK/promtool.log" 2>&1 || { cat "$WORK/promtool.log"; fail "promtool on the installed rules"; }
  echo "ok   the installed alert rules pass promtool check rules and test rules"
else
  echo "ok   the alert rules are installed (promtool not here: not run on them)"
fi

# Man pages: every page of deploy/man, as written (gzip -9n), under its section; its .TH
# names it; `man -w` finds a page for every function of the installed toporr.h.
MAN="$ROOT/usr/share/man"
npages=0
for src in "$RUNFILES"/deploy/man/*.[1-8]; do
  page=$(basename "$src")
  name="${page%.*}" sec="${page##*.}"
  inst="$MAN/man$sec/$page.gz"
  [[ -f $inst && ! -L $inst ]] || fail "man page $page not installed as man$sec/$page.gz"
  cmp -s <(gzip -dc "$inst") "$src" || fail "installed $page differs from deploy/man/$page"
  read -r th < "$src"
  [[ ${th,,} == ".th ${name,,} ${sec} "* ]] || fail "$page: .TH does not name ${name} ${sec}"
  npages=$((npages + 1))
done
((npages >= 6)) || fail "only $npages man pages in deploy/man"
mapfile -t functions < <(grep -hoE '^[a-z_ ]+[ *]+toporr_[a-z_]+\(' \
  "$ROOT/usr/include/toporr/client/toporr.h" "$ROOT/usr/include/toporr/client/toporr_plan.h" |
  grep -oE 'toporr_[a-z_]+' | sort -u)
((${#functions[@]} >= 20)) || fail "found only ${#functions[@]} functions in toporr.h and toporr_plan.h"
for fn in "${functions[@]}"; do
  man -M "$MAN" -w 3 "$fn" >/dev/null 2>&1 || fail "man 3 $fn: no page"
done
echo "ok   $npages man pages installed; man 3 finds each of the ${#functions[@]} functions of toporr.h and toporr_plan.h"

# The maintainer scripts are deploy/debian's.
for script in postinst prerm postrm; do
  cmp -s "$ROOT/var/lib/dpkg/info/toporr.$script" "$RUNFILES/deploy/debian/$script" ||
    fail "installed $script differs from deploy/debian/$script"
done

# systemd-analyze verify: the host's units for sysinit.target & co, /bin/kill for ExecReload.
# The package's units are copied back over the host's (a host with toporr installed).
cp -a /lib/systemd/system/. "$ROOT$UNITDIR/"
for unit in toporrd.service toporr-discover.socket toporr-discover@.service; do
  dpkg-deb --fsys-tarfile "$DEB" | tar -xO ".$UNITDIR/$unit" > "$ROOT$UNITDIR/$unit"
done
install -D -m 0755 /bin/kill "$ROOT/bin/kill"
UNITS=("$ROOT$UNITDIR/toporrd.service" "$ROOT$UNITDIR/toporr-discover.socket")
MANPATH="$ROOT/usr/share/man" systemd-analyze verify --man=yes --root="$ROOT" "${UNITS[@]}" ||
  fail "systemd-analyze verify"
MANPATH="$ROOT/usr/share/man" systemd-analyze verify --man=yes --root="$ROOT" \
  toporr-discover@0-4242-998.service || fail "systemd-analyze verify of the helper's unit"
# Without the package's man pages the same check fails: the pages are what made it pass.
if MANPATH="$WORK/none" systemd-analyze verify --man=yes --root="$ROOT" "${UNITS[@]}" 2>/dev/null; then
  fail "verify passes without man pages"
fi
echo "ok   systemd-analyze verify --man=yes on the installed units"

# Build against the installed files with each MPI's compiler wrapper.
cat > "$WORK/use.c" <<'C'
#include "client/toporr.h"
int main(void) {
  toporr_context c = 0;
  return toporr_context_free(&c);
}
C
printf '#include "client/toporr.hpp"\nint main() { return 0; }\n' > "$WORK/use.cc"
pcflags() {
  PKG_CONFIG_PATH="$ROOT/usr/lib/x86_64-linux-gnu/pkgconfig" \
    pkg-config --define-variable=prefix="$ROOT/usr" "$@"
}
mpicc.openmpi "$WORK/use.c" $(pcflags --cflags --libs toporr) -o "$WORK/use-openmpi"
mpicxx.openmpi -fsyntax-only $(pcflags --cflags toporr) "$WORK/use.cc"
mpicc.mpich "$WORK/use.c" $(pcflags --cflags --libs toporr-mpich) -o "$WORK/use-mpich"
# (ldd's output goes to a file first: `ldd | grep -q` under pipefail fails whenever grep
# exits before ldd has written everything.)
ldd "$WORK/use-openmpi" >"$WORK/ldd-openmpi"
grep -q "$ROOT/usr/lib/x86_64-linux-gnu/toporr/openmpi/libtoporr.so" "$WORK/ldd-openmpi" ||
  fail "Open MPI program does not use the installed libtoporr"
ldd "$WORK/use-mpich" >"$WORK/ldd-mpich"
grep -q "$ROOT/usr/lib/x86_64-linux-gnu/toporr/mpich/libtoporr.so" "$WORK/ldd-mpich" ||
  fail "MPICH program does not use the installed libtoporr"
echo "ok   pkg-config toporr / toporr-mpich: mpicc and mpicxx build against the package"

# The Python package as installed, on the installed library (TOPORR_PLAN_LIBRARY: the scratch
# root is not /), planning offline on the demo fabric (no site file of this machine applies).
# Its leaves hold node01-04, node05-08, ...: two processes on each of four hosts of two leaves,
# dealt round-robin, and a ring must keep each host's two processes side by side.
FABRIC="$RUNFILES/deploy/demo/fattree-2l-16h.ibnet"
PLAN_LIB="$ROOT/usr/lib/x86_64-linux-gnu/toporr/libtoporr_plan.so"
DIST="$ROOT/usr/lib/python3/dist-packages"
(cd "$WORK" && PYTHONPATH="$DIST" PYTHONDONTWRITEBYTECODE=1 TOPORR_PLAN_LIBRARY="$PLAN_LIB" \
  TOPORR_CONFIG=/nonexistent/client.conf python3 - "$DIST" "$FABRIC" >"$WORK/python.log" 2>&1 <<'PY'
import os, sys
import toporr, toporr.torch
dist, fabric = sys.argv[1:]
assert toporr.__file__ == os.path.join(dist, "toporr", "__init__.py"), toporr.__file__
# Where the package installs the library is where the module looks without the variable.
assert "/usr/lib/x86_64-linux-gnu/toporr/libtoporr_plan.so" in toporr._INSTALLED
hosts = ["node01", "node05", "node02", "node06"] * 2
with toporr.Planner(fabric=fabric) as planner:
    plan = planner.order(hosts, algorithm="ring", size=1 << 24)
assert sorted(plan.order) == list(range(8)), plan
assert plan.algorithm == "ring" and plan.reordered and plan.planned_ns < plan.launch_ns, plan
for host in set(hosts):
    at = sorted(plan.order.index(r) for r, h in enumerate(hosts) if h == host)
    assert at[1] - at[0] in (1, 7), f"{host}'s ranks apart in {plan.order}"
print(plan.order)
PY
) || { cat "$WORK/python.log"; fail "import toporr from the installed package"; }
echo "ok   import toporr, toporr.torch from the installed package: ring order $(tail -1 "$WORK/python.log") on the demo fabric"

cat > "$WORK/plan.c" <<'C'
#include <stdio.h>
#include "client/toporr_plan.h"
int main(int argc, char** argv) {
  const char* settings[] = {argv[1]};
  const char* hosts[] = {"node01", "node05", "node02", "node06"};
  int32_t order[4];
  toporr_planner* p;
  if (argc != 2 || toporr_plan_api_version() != TOPORR_PLAN_API_VERSION) return 2;
  if (toporr_planner_open(settings, 1, &p) != TOPORR_PLAN_OK) return 3;
  if (toporr_plan_order(p, hosts, 4, "allreduce", "ring", 1 << 24, 0, order, NULL) !=
      TOPORR_PLAN_OK) {
    fprintf(stderr, "%s\n", toporr_plan_last_error());
    return 4;
  }
  printf("%d %d %d %d\n", order[0], order[1], order[2], order[3]);
  toporr_planner_close(p);
  return 0;
}
C
PLAN_LIBDIR=$(dirname "$PLAN_LIB")
cc -std=c99 -Wall -Werror -I"$ROOT/usr/include/toporr" "$WORK/plan.c" -L"$PLAN_LIBDIR" \
  -Wl,-rpath,"$PLAN_LIBDIR" -ltoporr_plan -o "$WORK/plan" || fail "cc against toporr_plan.h"
ldd "$WORK/plan" >"$WORK/ldd-plan"
grep -q "$PLAN_LIB" "$WORK/ldd-plan" || { cat "$WORK/ldd-plan"; fail "C program does not use the installed libtoporr_plan.so"; }
order=$(TOPORR_CONFIG=/nonexistent/client.conf "$WORK/plan" "fabric=$FABRIC") ||
  fail "C program on the installed libtoporr_plan.so"
[[ $(tr ' ' '\n' <<<"$order" | sort | tr '\n' ' ') == "0 1 2 3 " ]] || fail "C program's order: $order"
echo "ok   cc against the installed toporr_plan.h and libtoporr_plan.so: order $order"

# Open MPI's components, where the package puts them: Open MPI (ompi_info) opens both from the
# installed component directory, each loading the installed libtoporr.so through its RUNPATH.
COMPONENTS="$ROOT$OMPI_COMPONENTS"
for framework in coll topo; do
  so="$COMPONENTS/mca_${framework}_toporr.so"
  ldd "$so" >"$WORK/ldd-$framework"
  found=$(awk '$1 == "libtoporr.so" { print $3 }' "$WORK/ldd-$framework")
  [[ -n $found && $(readlink -f "$found") == "$ROOT/usr/lib/x86_64-linux-gnu/toporr/openmpi/libtoporr.so" ]] ||
    { cat "$WORK/ldd-$framework"; fail "$so does not find the installed libtoporr"; }
  OMPI_MCA_mca_base_component_path="$COMPONENTS:$OMPI_COMPONENTS" \
    ompi_info --param "$framework" toporr --level 9 --parsable >"$WORK/ompi_info-$framework" 2>&1
  grep -q "^mca:$framework:toporr:param:${framework}_toporr_priority:value:" \
    "$WORK/ompi_info-$framework" || { cat "$WORK/ompi_info-$framework"; fail "ompi_info lacks $framework/toporr"; }
done
echo "ok   ompi_info opens the installed coll and topo components"

# The package's life, in throwaway overlays of this system.
lifecycle_skip() {
  [[ $(id -u) -eq 0 ]] || { echo "needs root (mount namespaces, chroot)"; return; }
  command -v unshare >/dev/null || { echo "unshare not installed"; return; }
  command -v setpriv >/dev/null || { echo "setpriv not installed"; return; }
  if dpkg-query -W -f='${Status}' toporr 2>/dev/null | grep -q installed; then
    echo "toporr is installed on this machine"
    return
  fi
  mkdir -p "$WORK/probe/upper" "$WORK/probe/work" "$WORK/probe/merged"
  unshare --mount --propagation private mount -t overlay overlay \
    -o "lowerdir=/,upperdir=$WORK/probe/upper,workdir=$WORK/probe/work" "$WORK/probe/merged" \
    2>/dev/null || echo "no overlay of / can be mounted here"
}
why=$(lifecycle_skip)
if [[ -n $why ]]; then
  echo "SKIPPED (package life): $why"
  echo PASS
  exit 0
fi

# The previous package: this one's files with the previous release's unit and maintainer
# scripts (deploy/testdata/previous-package) and a lower version.
PREVIOUS="$RUNFILES/deploy/testdata/previous-package"
PREV_VERSION="$API~previous+deb$RELEASE"
dpkg --compare-versions "$PREV_VERSION" lt "$VERSION" || fail "$PREV_VERSION is not older than $VERSION"
dpkg-deb -R "$DEB" "$WORK/prev"
install -m 0644 "$PREVIOUS/toporrd.service" "$WORK/prev$UNITDIR/toporrd.service"
rm "$WORK/prev$UNITDIR/toporr-discover.socket" "$WORK/prev$UNITDIR/toporr-discover@.service"
for script in postinst prerm postrm; do
  install -m 0755 "$PREVIOUS/$script" "$WORK/prev/DEBIAN/$script"
done
sed -i "s/^Version: .*/Version: $PREV_VERSION/" "$WORK/prev/DEBIAN/control"
(cd "$WORK/prev" && find . -type f ! -path './DEBIAN/*' ! -path './etc/*' -printf '%P\0' |
  sort -z | xargs -0 md5sum) > "$WORK/prev/DEBIAN/md5sums"
PREV_DEB="$WORK/toporr_${PREV_VERSION}_amd64.deb"
dpkg-deb --root-owner-group -Zxz --build "$WORK/prev" "$PREV_DEB" >/dev/null
install -m 0644 "$FABRIC" "$WORK/fabric.ibnet"
sed 's/leaf04:MSX6036/leaf04:MSX6036B/' "$FABRIC" > "$WORK/fabric-renamed.ibnet"
chmod 0644 "$WORK/fabric-renamed.ibnet"
chmod 0755 "$WORK"

# Runs in its own mount namespace: / overlaid (the upper layer in $1), /run a tmpfs (no
# systemd of this machine is reachable: the scripts' systemctl calls see none), commands in
# a chroot. $2: fresh or upgrade.
cat > "$WORK/lifecycle.sh" <<'LIFECYCLE'
set -euo pipefail
OV=$1 SCENARIO=$2 NEW=$3 PREV=$4 VERSION=$5 PREV_VERSION=$6 UNITDIR=$7 FABRIC=$8 RENAMED=$9
M=$OV/merged
mkdir -p "$OV/upper" "$OV/work" "$M"
mount -t overlay overlay -o "lowerdir=/,upperdir=$OV/upper,workdir=$OV/work" "$M"
mount -t proc proc "$M/proc"
mount --rbind /dev "$M/dev"
mount -t tmpfs tmpfs "$M/run"
PIDS=()
cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT
fail() { echo "FAIL ($SCENARIO): $*"; exit 1; }
ok() { echo "ok   $SCENARIO: $*"; }
on() {  # a command on the overlaid system, with a clean environment
  chroot "$M" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 HOME=/root \
    DEBIAN_FRONTEND=noninteractive "$@"
}
# `on_exec ... &`: the same in the background, the subshell replaced by the command so that
# $! is its pid (a daemon to stop later).
on_exec() {
  exec chroot "$M" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 \
    HOME=/root "$@"
}
dpkg_do() {  # dpkg_do ARGS...: dpkg on the overlaid system; its output only on failure
  on dpkg "$@" > "$OV/dpkg.log" 2>&1 || { cat "$OV/dpkg.log"; fail "dpkg $*"; }
}
# shellcheck disable=SC2016  # dpkg-query's own ${fields}
status() { on dpkg-query -W -f='${Status} ${Version}' toporr 2>/dev/null || true; }
serving() {  # serving LOG: waits for toporrd's socket
  for _ in $(seq 200); do [[ -S $M/run/toporr/toporrd.sock ]] && return; sleep 0.05; done
  cat "$1"
  fail "toporrd did not start"
}
ctl() { on /usr/bin/toporrctl "$@"; }
stop() {  # stop PID: SIGTERM to that toporrd, then wait for it
  [[ $(cat "/proc/$1/comm" 2>/dev/null) == toporrd ]] || fail "pid $1 is not a running toporrd"
  kill "$1"
  wait "$1" 2>/dev/null || true
  ! kill -0 "$1" 2>/dev/null || fail "pid $1 did not stop"
}
# What install gives every time: the user (a system account without a login or a home of its
# own), the two groups, the units.
check_installed() {
  local entry
  entry=$(on getent passwd toporr) || fail "no user toporr"
  IFS=: read -r _ _ uid gid _ home shell <<<"$entry"
  ((uid > 0 && uid < 1000)) || fail "toporr's uid $uid is not a system uid"
  [[ $(on getent group toporr | cut -d: -f3) == "$gid" ]] || fail "toporr's group is not toporr"
  [[ $home == /var/lib/toporr && $shell == /usr/sbin/nologin ]] || fail "toporr: $entry"
  on getent group toporr-admin >/dev/null || fail "no group toporr-admin"
  grep -qx "User=toporr" "$M$UNITDIR/toporrd.service" || fail "the installed unit is not User=toporr"
  [[ -f $M$UNITDIR/toporr-discover.socket && -f $M$UNITDIR/toporr-discover@.service ]] ||
    fail "the helper's units are not installed"
  [[ $(status) == "install ok installed $VERSION" ]] || fail "status: $(status)"
}
check_purged() {
  [[ $(status) != *installed* ]] || fail "still installed after purge: $(status)"
  local left
  for left in /var/lib/toporr /etc/toporr "$UNITDIR/toporrd.service" "$UNITDIR/toporr-discover.socket" \
      "$UNITDIR/toporr-discover@.service" /usr/sbin/toporrd \
      /etc/systemd/system/multi-user.target.wants/toporrd.service \
      /etc/systemd/system/sockets.target.wants/toporr-discover.socket; do
    [[ ! -e $M$left && ! -L $M$left ]] || fail "$left is left after purge"
  done
  # Kept on purge (deploy/debian/postrm): the user and the groups.
  on getent passwd toporr >/dev/null || fail "the user toporr went with the purge"
}
# toporrd as toporrd.service runs it: the RuntimeDirectory, then User=toporr, Group=toporr,
# no capabilities, no new privileges.
start_unprivileged() {
  on install -d -m 0755 -o toporr -g toporr /run/toporr
  on_exec setpriv --reuid=toporr --regid=toporr --clear-groups --inh-caps=-all \
    --bounding-set=-all --no-new-privs -- /usr/sbin/toporrd --config=/etc/toporr/toporrd.conf \
    2> "$OV/new.log" &
  NEWD=$!
  PIDS+=("$NEWD")
  serving "$OV/new.log"
}

[[ -z $(status) || $(status) == *not-installed* ]] || fail "toporr is known to dpkg here: $(status)"
if [[ $SCENARIO == fresh ]]; then
  dpkg_do -i "$NEW"
  check_installed
  ok "install: the user toporr (system uid, no login), the groups toporr and toporr-admin, the units"
  # The StateDirectory systemd makes at the first start, and the database in it.
  on install -d -m 0750 -o toporr -g toporr /var/lib/toporr
  start_unprivileged
  ctl ingest --format ibnetdiscover "$FABRIC" | grep -q "snapshot 1 created" || fail "ingest"
  stop "$NEWD"
  dpkg_do -r toporr
  [[ -f $M/var/lib/toporr/toporr.db && -f $M/etc/toporr/toporrd.conf ]] ||
    fail "remove took the database or the configuration"
  [[ ! -e $M/usr/sbin/toporrd ]] || fail "remove left /usr/sbin/toporrd"
  ok "remove: the programs go, the database and the configuration stay"
  dpkg_do --purge toporr
  check_purged
  ok "purge: database, configuration and units gone; the user toporr stays"
  exit 0
fi

# upgrade: the previous package and its daemon as its unit ran it (root; StateDirectory=
# root:toporr-admin 0750; the socket's directory).
dpkg_do -i "$PREV"
[[ $(status) == "install ok installed $PREV_VERSION" ]] || fail "previous package: $(status)"
grep -qx "User=root" "$M$UNITDIR/toporrd.service" || fail "the previous unit is not User=root"
on install -d -m 0750 -g toporr-admin /var/lib/toporr
on install -d -m 0755 /run/toporr
on_exec /usr/sbin/toporrd --config=/etc/toporr/toporrd.conf 2> "$OV/old.log" &
OLD=$!
PIDS+=("$OLD")
serving "$OV/old.log"
ctl ingest --format ibnetdiscover "$FABRIC" | grep -q "snapshot 1 created" || fail "ingest as root"
[[ -n $(find "$M/var/lib/toporr" -user 0) ]] || fail "the previous daemon's files are not root's"
ok "the previous package's daemon runs as root on a database it filled: $(cd "$M/var/lib/toporr" && echo *)"

# The upgrade, as apt does it: the previous daemon keeps running.
dpkg_do -i "$NEW"
check_installed
[[ $(on stat -c '%U:%G %a' /var/lib/toporr) == "toporr:toporr 750" ]] ||
  fail "/var/lib/toporr: $(on stat -c '%U:%G %a' /var/lib/toporr)"
wrong=$(find "$M/var/lib/toporr" \( ! -user "$(on id -u toporr)" -o ! -group "$(on id -g toporr)" \) -printf '%P ')
[[ -z $wrong ]] || fail "not toporr's after the upgrade: $wrong"
ok "upgrade from $PREV_VERSION: the user made, /var/lib/toporr and every file in it toporr's"
ctl hosts | grep -q node01 || fail "the previous daemon stopped serving during the upgrade"
stop "$OLD"
ok "the running daemon served on through the upgrade"
start_unprivileged
status_line=$(grep -E '^(Uid|CapEff|CapBnd):' "/proc/$NEWD/status" | tr -s '\t ' ' ' | tr '\n' ' ')
[[ $status_line == "Uid: $(on id -u toporr) "*"CapEff: 0000000000000000 CapBnd: 0000000000000000 " ]] ||
  fail "the new daemon: $status_line"
ctl snapshots | grep -qE '^1\*? .* fabric\.ibnet ' || fail "snapshot 1 is not kept: $(ctl snapshots)"
ctl hosts | grep -q node01 || fail "the kept snapshot is not served"
ctl ingest --format ibnetdiscover "$RENAMED" | grep -q "snapshot 2 created" ||
  fail "the new daemon cannot write the kept database"
ok "the new daemon as toporr (no capabilities) serves the kept snapshot 1 and ingests snapshot 2"
stop "$NEWD"
on systemctl enable toporrd.service toporr-discover.socket > "$OV/enable.log" 2>&1 ||
  { cat "$OV/enable.log"; fail "systemctl enable"; }
[[ -L $M/etc/systemd/system/multi-user.target.wants/toporrd.service ]] || fail "systemctl enable made no link"
dpkg_do --purge toporr
check_purged
ok "purge: database, configuration, units and their enablement gone; the user toporr stays"
LIFECYCLE
for scenario in fresh upgrade; do
  unshare --mount --propagation private bash "$WORK/lifecycle.sh" "$WORK/overlay-$scenario" \
    "$scenario" "$DEB" "$PREV_DEB" "$VERSION" "$PREV_VERSION" "$UNITDIR" "$WORK/fabric.ibnet" \
    "$WORK/fabric-renamed.ibnet" || fail "package life: $scenario"
done
echo PASS

#!/usr/bin/env bash
# The systemd units under the real systemd-analyze (no systemd needs to run as PID 1):
#   - `systemd-analyze security --offline=yes` of toporrd.service: overall exposure at most
#     1.5, and of the helper's toporr-discover@.service at most 2.0;
#   - `systemd-analyze verify` of toporrd.service, toporr-discover.socket and an instance of
#     toporr-discover@.service installed in a scratch root beside the real binaries (the
#     host's own units provide sysinit.target etc.; man pages are checked by the package
#     test, where they are installed): no error and no warning (an unknown key is only a
#     warning to systemd);
#   - the split of privileges (docs/admin-guide.md "Privileges"): toporrd runs as the user
#     toporr with no capability, no device and no way to gain either; the helper's socket is
#     root:toporr 0660 and starts one helper per connection; the helper has the umad devices
#     and no capability either.
set -euo pipefail
UNITS=(toporrd.service toporr-discover.socket toporr-discover@.service)
TOPORRD="daemon/toporrd"
DISCOVER="collectors/toporr-discover"
for unit in "${UNITS[@]}"; do
  [[ -f deploy/$unit ]] || { echo "run under bazel test (deploy/$unit missing)" >&2; exit 1; }
done
[[ -x $TOPORRD && -x $DISCOVER ]] || { echo "run under bazel test" >&2; exit 1; }
fail() { echo "FAIL: $*"; exit 1; }

exposure() {  # exposure UNIT-FILE NAME-REGEX MAX
  local out score
  out=$(systemd-analyze security --offline=yes "$1" 2>&1)
  score=$(sed -n "s/.*Overall exposure level for $2: \([0-9.]*\).*/\1/p" <<<"$out")
  [[ -n $score ]] || { echo "$out"; fail "no exposure level for $1"; }
  awk -v s="$score" -v max="$3" 'BEGIN { exit !(s <= max) }' ||
    { echo "$out"; fail "$1: exposure $score > $3"; }
  echo "exposure of $1: $score (at most $3)"
}
exposure deploy/toporrd.service toporrd.service 1.5
exposure deploy/toporr-discover@.service 'toporr-discover@[^:]*\.service' 2.0

root=$(mktemp -d "${TEST_TMPDIR:-/tmp}/unitroot.XXXXXX")
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/usr/sbin" "$root/bin" "$root/lib/systemd" "$root/etc/systemd/system"
cp -a /lib/systemd/system "$root/lib/systemd/"
install -m 0755 "$TOPORRD" "$root/usr/sbin/toporrd"
install -m 0755 "$DISCOVER" "$root/usr/sbin/toporr-discover"
install -m 0755 /bin/kill "$root/bin/kill"
for unit in "${UNITS[@]}"; do
  install -m 0644 "deploy/$unit" "$root/etc/systemd/system/$unit"
done
verify() {  # verify UNIT...: no error, and nothing printed
  local out
  out=$(systemd-analyze verify --man=no --root="$root" "$@" 2>&1) || { echo "$out"; fail "verify $*"; }
  [[ -z $out ]] || { echo "$out"; fail "verify $* warns"; }
}
verify "$root/etc/systemd/system/toporrd.service" "$root/etc/systemd/system/toporr-discover.socket"
# A connection's instance, as the socket names them (<n>-<pid>-<uid>).
verify toporr-discover@0-4242-998.service
# The check itself: an unknown key is caught.
printf 'SocketBogus=1\n' >> "$root/etc/systemd/system/toporr-discover.socket"
if (verify "$root/etc/systemd/system/toporr-discover.socket") >/dev/null; then
  fail "verify does not catch an unknown key"
fi
echo "verify: ok (toporrd.service, toporr-discover.socket, toporr-discover@0-4242-998.service)"

# The directives each unit relies on, and the ones it must not have.
has() {  # has UNIT LINE...
  local unit=$1 want
  shift
  for want in "$@"; do
    grep -qxF -- "$want" "deploy/$unit" || fail "$unit lacks '$want'"
  done
}
lacks() {  # lacks UNIT REGEX...
  local unit=$1 bad
  shift
  for bad in "$@"; do
    ! grep -qE -- "$bad" "deploy/$unit" || fail "$unit has $(grep -E -- "$bad" "deploy/$unit")"
  done
}
has toporrd.service "Type=notify" "WatchdogSec=30s" "ExecReload=/bin/kill -HUP \$MAINPID" \
  "User=toporr" "Group=toporr" "CapabilityBoundingSet=" "AmbientCapabilities=" \
  "NoNewPrivileges=true" "PrivateDevices=true" "DevicePolicy=closed" "ProtectSystem=strict" \
  "StateDirectory=toporr" "RuntimeDirectory=toporr" "Wants=network-online.target toporr-discover.socket"
lacks toporrd.service '^User=root' '^CapabilityBoundingSet=.+' '^AmbientCapabilities=.+' \
  '^DeviceAllow=' '^SupplementaryGroups=' '^DynamicUser=yes'
has toporr-discover.socket "ListenStream=/run/toporr-discover.sock" "SocketUser=root" \
  "SocketGroup=toporr" "SocketMode=0660" "Accept=yes" "MaxConnections=1"
has toporr-discover@.service "ExecStart=/usr/sbin/toporr-discover --serve" \
  "StandardInput=socket" "StandardOutput=socket" "CapabilityBoundingSet=" \
  "AmbientCapabilities=" "NoNewPrivileges=true" "DevicePolicy=closed" \
  "DeviceAllow=/dev/infiniband/umad0 rw" "ProtectSystem=strict"
lacks toporr-discover@.service '^CapabilityBoundingSet=.+' '^DeviceAllow=.*issm' \
  '^AmbientCapabilities=.+'
echo "privileges: ok"
echo PASS

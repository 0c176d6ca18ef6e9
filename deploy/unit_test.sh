#!/usr/bin/env bash
# The systemd unit under the real systemd-analyze (no systemd needs to run as PID 1):
#   - `systemd-analyze security --offline=yes`: overall exposure at most 2.0;
#   - `systemd-analyze verify` of the unit installed in a scratch root beside the real toporrd
#     binary (the host's own units provide sysinit.target etc.; man pages are checked by the
#     package test, where they are installed).
set -euo pipefail
UNIT="deploy/toporrd.service"
TOPORRD="daemon/toporrd"
[[ -f $UNIT && -x $TOPORRD ]] || { echo "run under bazel test" >&2; exit 1; }

out=$(systemd-analyze security --offline=yes "$UNIT" 2>&1)
score=$(sed -n 's/.*Overall exposure level for toporrd.service: \([0-9.]*\).*/\1/p' <<<"$out")
echo "exposure: $score"
[[ -n $score ]] || { echo "$out"; exit 1; }
awk -v s="$score" 'BEGIN { exit !(s <= 2.0) }' || { echo "$out"; echo "FAIL: exposure $score > 2.0"; exit 1; }

root=$(mktemp -d "${TEST_TMPDIR:-/tmp}/unitroot.XXXXXX")
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/usr/sbin" "$root/bin" "$root/lib/systemd" "$root/etc/systemd/system"
cp -a /lib/systemd/system "$root/lib/systemd/"
install -m 0755 "$TOPORRD" "$root/usr/sbin/toporrd"
install -m 0755 /bin/kill "$root/bin/kill"
install -m 0644 "$UNIT" "$root/etc/systemd/system/toporrd.service"
systemd-analyze verify --man=no --root="$root" "$root/etc/systemd/system/toporrd.service"
echo "verify: ok"
# Every directive the service relies on is there.
for want in "Type=notify" "WatchdogSec=" "ExecReload=/bin/kill -HUP \$MAINPID" \
            "DeviceAllow=/dev/infiniband/umad0 rw"; do
  grep -qF -- "$want" "$UNIT" || { echo "FAIL: $UNIT lacks $want"; exit 1; }
done
echo PASS

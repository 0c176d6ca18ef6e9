#!/usr/bin/env bash
# Installs toporr on this machine for production use: binaries under /usr/local, the
# systemd unit, an example config (kept if one exists) and the admin group.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
[[ $(id -u) -eq 0 ]] || { echo "install.sh: run as root" >&2; exit 1; }

"$TOPORR_ROOT/deploy/install-deps.sh"
toporr_build //daemon:toporrd //client/ctl:toporrctl
install -m 0755 "$(toporr_bazel_bin)/daemon/toporrd" /usr/local/sbin/toporrd
install -m 0755 "$(toporr_bazel_bin)/client/ctl/toporrctl" /usr/local/bin/toporrctl
install -d -m 0755 /etc/toporr /usr/local/share/doc/toporr
[[ -e /etc/toporr/toporrd.conf ]] ||
  install -m 0644 "$TOPORR_ROOT/deploy/toporrd.conf.example" /etc/toporr/toporrd.conf
install -m 0644 "$TOPORR_ROOT/README.md" /usr/local/share/doc/toporr/README.md
install -m 0644 "$TOPORR_ROOT/deploy/toporrd.service" /etc/systemd/system/toporrd.service
getent group toporr-admin >/dev/null || groupadd --system toporr-admin
if command -v systemctl >/dev/null && [[ -d /run/systemd/system ]]; then
  systemctl daemon-reload
  echo "installed; start with: systemctl enable --now toporrd"
else
  echo "installed (no systemd running here: start /usr/local/sbin/toporrd by hand)"
fi

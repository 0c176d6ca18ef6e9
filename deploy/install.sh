#!/usr/bin/env bash
# Installs toporr on this machine for production use: binaries under /usr/local, the
# systemd units (toporrd as the system user toporr, the live-discovery helper's socket and
# service: docs/admin-guide.md "Privileges"), an example config (kept if one exists), the
# admin group and the toporr user and group.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
[[ $(id -u) -eq 0 ]] || { echo "install.sh: run as root" >&2; exit 1; }

"$TOPORR_ROOT/deploy/install-deps.sh"
toporr_build //daemon:toporrd //client/ctl:toporrctl //collectors:toporr-discover
install -m 0755 "$(toporr_bazel_bin)/daemon/toporrd" /usr/local/sbin/toporrd
# The live-discovery helper (toporr-discover@.service), and the collector a toporrd started
# by hand as root runs from beside itself.
install -m 0755 "$(toporr_bazel_bin)/collectors/toporr-discover" /usr/local/sbin/toporr-discover
install -m 0755 "$(toporr_bazel_bin)/client/ctl/toporrctl" /usr/local/bin/toporrctl
install -d -m 0755 /etc/toporr /usr/local/share/doc/toporr
[[ -e /etc/toporr/toporrd.conf ]] ||
  install -m 0644 "$TOPORR_ROOT/deploy/toporrd.conf.example" /etc/toporr/toporrd.conf
[[ -e /etc/toporr/client.conf ]] ||
  install -m 0644 "$TOPORR_ROOT/deploy/client.conf.example" /etc/toporr/client.conf
install -m 0644 "$TOPORR_ROOT/README.md" /usr/local/share/doc/toporr/README.md
install -d -m 0755 /usr/local/share/man/man8 /usr/local/share/man/man1 \
  /usr/local/share/bash-completion/completions
install -m 0644 "$TOPORR_ROOT/deploy/man/toporrd.8" /usr/local/share/man/man8/toporrd.8
install -m 0644 "$TOPORR_ROOT/deploy/man/toporrctl.1" /usr/local/share/man/man1/toporrctl.1
install -m 0644 "$TOPORR_ROOT/deploy/completion/toporrctl" \
  /usr/local/share/bash-completion/completions/toporrctl
# The units name the Debian package's paths (/usr/sbin); this install lives under /usr/local.
for unit in toporrd.service toporr-discover.socket toporr-discover@.service; do
  sed 's|/usr/sbin/toporr|/usr/local/sbin/toporr|' "$TOPORR_ROOT/deploy/$unit" \
    >"/etc/systemd/system/$unit"
  chmod 0644 "/etc/systemd/system/$unit"
done
getent group toporr-admin >/dev/null || groupadd --system toporr-admin
getent group toporr >/dev/null || groupadd --system toporr
getent passwd toporr >/dev/null ||
  useradd --system --gid toporr --home-dir /var/lib/toporr --no-create-home \
    --shell /usr/sbin/nologin toporr
# A database of an earlier install (toporrd as root) becomes toporr's, its content kept.
if [[ -d /var/lib/toporr && ! -L /var/lib/toporr ]]; then
  chown -R toporr:toporr /var/lib/toporr
  chmod 0750 /var/lib/toporr
fi
if command -v systemctl >/dev/null && [[ -d /run/systemd/system ]]; then
  systemctl daemon-reload
  echo "installed; start with: systemctl enable --now toporrd"
else
  echo "installed (no systemd running here: start /usr/local/sbin/toporrd by hand)"
fi

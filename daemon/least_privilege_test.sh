#!/bin/bash
# toporrd as deploy/toporrd.service runs it: a user other than root with no capability and no
# way to gain one, started here with setpriv (no systemd needed) from copies of the binaries
# in a directory every user can read:
#   - /proc/PID/status: all four uids and gids the unprivileged ones, no supplementary groups,
#     every capability set empty (CapInh, CapPrm, CapEff, CapBnd, CapAmb), NoNewPrivs 1;
#   - the database and the socket it creates are its own (0640, 0666);
#   - admin RPCs (ingest, discover) are decided from SO_PEERCRED, which needs no privilege:
#     allowed to root, to a member of admin_group (its primary gid) and to the daemon's own
#     uid, refused (PERMISSION_DENIED naming the group) to anyone else, who can still read;
#   - a sweep goes to the live-discovery helper (toporr-discover --serve, one per connection
#     behind systemd-socket-activate, as toporr-discover.socket starts it, on a socket of the
#     daemon's group, mode 0660), never to a child of the daemon. This machine has no fabric,
#     so the helper's own "no InfiniBand device" error comes back through the daemon
#     (daemon/live_discovery_test.sh sweeps a simulated fabric that way).
# Needs root (to act as other users) and setpriv; elsewhere it prints SKIPPED and passes.
set -euo pipefail

RUNFILES="${TEST_SRCDIR:?}/${TEST_WORKSPACE:?}"
if [[ $(id -u) -ne 0 ]]; then
  echo "SKIPPED: needs root to run toporrd and its clients as other users"
  exit 0
fi
for tool in setpriv systemd-socket-activate; do
  command -v "$tool" >/dev/null || { echo "SKIPPED: $tool not installed"; exit 0; }
done

# Ids no account of this machine uses (setpriv needs no passwd entry): the daemon, an admin
# (primary group: admin_group), and someone else. nogroup is the admin group: it exists
# everywhere and grants nothing else.
DAEMON=64790 ADMIN=64791 OTHER=64792
ADMIN_GROUP=nogroup
ADMIN_GID=$(getent group "$ADMIN_GROUP" | cut -d: -f3)
for id in $DAEMON $ADMIN $OTHER; do
  if getent passwd "$id" >/dev/null || getent group "$id" >/dev/null; then
    echo "SKIPPED: id $id is taken on this machine"
    exit 0
  fi
done

WORK="$(mktemp -d /tmp/toporr-least-privilege.XXXXXX)"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  [[ -n "${KEEP_WORK:-}" ]] || rm -rf "$WORK"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  echo "--- toporrd log"
  cat "$WORK/toporrd.log" 2>/dev/null || true
  echo "--- helper log"
  cat "$WORK/helper.log" 2>/dev/null || true
  exit 1
}
chmod 0755 "$WORK"
mkdir -m 0755 "$WORK/bin"
for bin in daemon/toporrd client/ctl/toporrctl collectors/toporr-discover; do
  install -m 0755 "$RUNFILES/$bin" "$WORK/bin/"
done
install -m 0644 "$RUNFILES/deploy/demo/fattree-2l-16h.ibnet" "$WORK/fabric.ibnet"
install -d -m 0750 -o "$DAEMON" -g "$DAEMON" "$WORK/state"
install -d -m 0755 -o "$DAEMON" -g "$DAEMON" "$WORK/run"
SOCKET="$WORK/run/toporrd.sock"
HELPER="$WORK/discover.sock"
cat > "$WORK/toporrd.conf" <<CONF
db_path = $WORK/state/toporr.db
socket_path = $SOCKET
admin_group = $ADMIN_GROUP
discovery_command = unix:$HELPER
CONF
chmod 0644 "$WORK/toporrd.conf"

# The helper, as toporr-discover.socket runs it: root, one process per connection, its
# standard input and output the connection; the socket root:<daemon's group> 0660.
systemd-socket-activate --inetd --accept --listen="$HELPER" "$WORK/bin/toporr-discover" --serve \
  2> "$WORK/helper.log" &
PIDS+=($!)
for _ in $(seq 100); do [[ -S $HELPER ]] && break; sleep 0.05; done
[[ -S $HELPER ]] || fail "the helper's socket did not appear"
chgrp "$DAEMON" "$HELPER"
chmod 0660 "$HELPER"

# toporrd as the unit starts it: User=, Group=, no supplementary groups, CapabilityBoundingSet=
# (empty), AmbientCapabilities= (empty), NoNewPrivileges=true.
setpriv --reuid="$DAEMON" --regid="$DAEMON" --clear-groups --inh-caps=-all --bounding-set=-all \
  --no-new-privs -- "$WORK/bin/toporrd" --config="$WORK/toporrd.conf" 2> "$WORK/toporrd.log" &
TOPORRD=$!
PIDS+=("$TOPORRD")
for _ in $(seq 200); do [[ -S $SOCKET ]] && break; sleep 0.05; done
[[ -S $SOCKET ]] || fail "toporrd did not create its socket"

# The kernel's view of the running server.
STATUS=$(cat "/proc/$TOPORRD/status")
field() { awk -v k="$1:" '$1 == k { $1 = ""; sub(/^ /, ""); print }' <<<"$STATUS"; }
[[ $(field Name) == toporrd ]] || fail "pid $TOPORRD is $(field Name), not toporrd"
[[ $(field Uid | tr -s ' \t' ' ') == "$DAEMON $DAEMON $DAEMON $DAEMON" ]] || fail "Uid: $(field Uid)"
[[ $(field Gid | tr -s ' \t' ' ') == "$DAEMON $DAEMON $DAEMON $DAEMON" ]] || fail "Gid: $(field Gid)"
[[ -z $(field Groups) ]] || fail "supplementary groups: $(field Groups)"
for set in CapInh CapPrm CapEff CapBnd CapAmb; do
  [[ $(field "$set") == 0000000000000000 ]] || fail "$set: $(field "$set")"
done
[[ $(field NoNewPrivs) == 1 ]] || fail "NoNewPrivs: $(field NoNewPrivs)"
echo "ok   /proc/$TOPORRD/status: uid and gid $DAEMON, no groups, CapInh CapPrm CapEff CapBnd CapAmb 0, NoNewPrivs 1"
[[ $(stat -c '%u %a' "$WORK/state/toporr.db") == "$DAEMON 640" ]] ||
  fail "database: $(stat -c '%u %a' "$WORK/state/toporr.db")"
[[ $(stat -c '%u %a' "$SOCKET") == "$DAEMON 666" ]] || fail "socket: $(stat -c '%u %a' "$SOCKET")"
echo "ok   the database (0640) and the socket (0666) are the daemon's"

# toporrctl as a given uid:gid (no supplementary groups); "root" runs it as root.
as() {
  local who=$1
  shift
  if [[ $who == root ]]; then
    "$WORK/bin/toporrctl" --socket "$SOCKET" "$@"
  else
    setpriv --reuid="${who%:*}" --regid="${who#*:}" --clear-groups -- \
      "$WORK/bin/toporrctl" --socket "$SOCKET" "$@"
  fi
}
expect() {  # expect WHAT EXIT-CODE SUBSTRING WHO ARGS...
  local what=$1 code=$2 want=$3 out rc=0
  shift 3
  out=$(as "$@" 2>&1) || rc=$?
  [[ $rc -eq $code ]] || fail "$what: exit $rc (wanted $code): $out"
  [[ $out == *"$want"* ]] || fail "$what: wanted '$want' in: $out"
  echo "ok   $what"
}
expect "root ingests" 0 "snapshot 1 created" root ingest --format ibnetdiscover "$WORK/fabric.ibnet"
expect "a member of admin_group ingests" 0 "unchanged" \
  "$ADMIN:$ADMIN_GID" ingest --format ibnetdiscover "$WORK/fabric.ibnet"
expect "the daemon's own uid ingests" 0 "unchanged" \
  "$DAEMON:$DAEMON" ingest --format ibnetdiscover "$WORK/fabric.ibnet"
expect "anyone else may not ingest" 1 "membership of group '$ADMIN_GROUP'" \
  "$OTHER:$OTHER" ingest --format ibnetdiscover "$WORK/fabric.ibnet"
expect "anyone else may not start a sweep" 1 "membership of group '$ADMIN_GROUP'" \
  "$OTHER:$OTHER" discover
expect "anyone else reads" 0 "node01" "$OTHER:$OTHER" hosts
grep -q "from uid $OTHER gid $OTHER pid " "$WORK/toporrd.log" || fail "the refusal is not logged with the caller's uid"
echo "ok   refusals are logged with the caller's uid and gid"

# A sweep asked by root: toporrd hands it to the helper, whose answer comes back.
out=$(as root discover 2>&1) || true
[[ $out == *"discovery helper unix:$HELPER"* ]] || fail "discover did not go to the helper: $out"
[[ $out == *"snapshot"* || $out == *"no InfiniBand device found"* ]] ||
  fail "discover: neither a snapshot nor the helper's error: $out"
grep -q "toporr-discover: sweep for uid $DAEMON pid $TOPORRD" "$WORK/helper.log" ||
  fail "the helper did not log a sweep for toporrd's uid and pid"
[[ -z $(ps -o pid= --ppid "$TOPORRD") ]] || fail "toporrd has child processes: $(ps -o pid,args --ppid "$TOPORRD")"
echo "ok   a sweep goes to the helper (as uid $DAEMON, pid $TOPORRD), not to a child of toporrd: ${out##*: }"
echo PASS

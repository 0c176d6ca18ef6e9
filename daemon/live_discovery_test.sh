#!/bin/bash
# Live discovery end to end on simulated fabrics (ibsim + opensm through umad2sim):
#   - `toporrctl discover` makes toporrd sweep through toporr-discover (libibnetdisc + LFT
#     reads), in either of its two ways (daemon/discovery.h):
#       exec:   toporrd as root runs the collector as its child;
#       helper: toporrd as deploy/toporrd.service runs it (a user other than root, no
#               capabilities, no new privileges: setpriv) asks `toporr-discover --serve`,
#               started as root per connection by systemd-socket-activate (what
#               toporr-discover.socket does) on a socket of the daemon's group, mode 0660;
#   - a second sweep of the unchanged fabric makes no new snapshot;
#   - ingesting the real tools' ibnetdiscover and dump_fts output of the same fabric is
#     "unchanged" too: live discovery equals the dumps, byte for byte in content;
#   - the daemon's route between hosts equals ibtracert's, hop by hop (traces ingested as
#     --format ibtracert report 0 disagreements), on the shared 2-level fat tree (both ways)
#     and on a generated fabric with a dual-homed host, a router and mixed link speeds.
set -euo pipefail

RUNFILES="${TEST_SRCDIR:?}/${TEST_WORKSPACE:?}"
TOPORRD="$RUNFILES/daemon/toporrd"
CTL="$RUNFILES/client/ctl/toporrctl"
DISCOVER="$RUNFILES/collectors/toporr-discover"
RUN_IBSIM="$RUNFILES/collectors/sim/run_ibsim.sh"
GEN="$RUNFILES/collectors/sim/gen_fattree.py"
SHARED="${TOPORR_SHARED_DIR:?set TOPORR_SHARED_DIR}"
WORK="$(mktemp -d /tmp/toporr-live.XXXXXX)"
trap '[[ -n "${KEEP_WORK:-}" ]] || rm -rf "$WORK"' EXIT
chmod 0755 "$WORK"  # the unprivileged toporrd reaches its directories below

# The scenario runs inside run_ibsim.sh while the subnet is up. It inherits LD_PRELOAD
# (umad2sim) and IBSIM_SOCKNAME; only the collector and ibtracert keep the preload.
cat > "$WORK/scenario.sh" <<'SCENARIO'
set -euo pipefail
TOPORRD=$1; CTL=$2; DISCOVER=$3; DIR=$4; PAIRS=$5; MODE=$6
PRELOAD=$LD_PRELOAD
unset LD_PRELOAD
PIDS=()
trap 'kill "${PIDS[@]}" 2>/dev/null; wait "${PIDS[@]}" 2>/dev/null || true' EXIT
if [[ $MODE == exec ]]; then
  printf '#!/bin/bash\nexec env LD_PRELOAD=%q %q "$@"\n' "$PRELOAD" "$DISCOVER" > "$DIR/discover.sh"
  chmod +x "$DIR/discover.sh"
  SOCK=$DIR/d.sock
  "$TOPORRD" --config= --db "$DIR/t.db" --socket "$SOCK" \
    --discovery_command "$DIR/discover.sh" 2> "$DIR/toporrd.log" &
  DAEMON=$!
  PIDS+=("$DAEMON")
else
  # An id no account uses; the binaries copied where it can read them.
  U=64793
  install -d -m 0755 "$DIR/bin"
  install -m 0755 "$TOPORRD" "$DIR/bin/toporrd"
  install -d -m 0750 -o "$U" -g "$U" "$DIR/state"
  install -d -m 0755 -o "$U" -g "$U" "$DIR/run"
  SOCK=$DIR/run/d.sock
  HELPER=$DIR/discover.sock
  # Only the simulator's variables reach the helper, as only the unit's reach it under systemd.
  systemd-socket-activate --inetd --accept --listen="$HELPER" -E LD_PRELOAD="$PRELOAD" \
    -E SIM_HOST -E IBSIM_SOCKNAME "$DISCOVER" --serve 2> "$DIR/helper.log" &
  PIDS+=($!)
  for _ in $(seq 100); do [[ -S $HELPER ]] && break; sleep 0.05; done
  chgrp "$U" "$HELPER"
  chmod 0660 "$HELPER"
  setpriv --reuid="$U" --regid="$U" --clear-groups --inh-caps=-all --bounding-set=-all \
    --no-new-privs -- "$DIR/bin/toporrd" --config= --db "$DIR/state/t.db" --socket "$SOCK" \
    --discovery_command "unix:$HELPER" 2> "$DIR/toporrd.log" &
  DAEMON=$!
  PIDS+=("$DAEMON")
fi
ctl() { "$CTL" --socket "$SOCK" "$@"; }
for _ in $(seq 200); do ctl health >/dev/null 2>&1 && break; sleep 0.05; done
expect() {  # expect "what" "substring" command...
  local what=$1 want=$2; shift 2
  local out; out=$("$@" 2>&1) || { echo "FAIL $what: exit $?: $out"; exit 1; }
  [[ "$out" == *"$want"* ]] || { echo "FAIL $what: wanted '$want' in: $out"; exit 1; }
  echo "ok   $what"
}
if [[ $MODE == helper ]]; then
  caps=$(awk '$1 ~ /^Cap(Prm|Eff|Bnd|Amb):$/ { print $2 }' "/proc/$DAEMON/status" | sort -u)
  uid=$(awk '$1 == "Uid:" { print $2 }' "/proc/$DAEMON/status")
  [[ $caps == 0000000000000000 && $uid == "$U" ]] ||
    { echo "FAIL toporrd runs as uid $uid with capabilities $caps"; exit 1; }
  echo "ok   toporrd runs as uid $U with no capabilities"
fi
expect "first sweep creates a snapshot with routes" "snapshot 1 created" ctl discover
expect "second sweep of the same fabric" "unchanged" ctl discover
if [[ $MODE == helper ]]; then
  n=$(grep -c "toporr-discover: sweep for uid $U pid $DAEMON" "$DIR/helper.log" || true)
  [[ $n == 2 ]] || { echo "FAIL the helper logged $n sweeps for toporrd, not 2"; cat "$DIR/helper.log"; exit 1; }
  [[ -z $(ps -o pid= --ppid "$DAEMON") ]] || { echo "FAIL toporrd has children"; exit 1; }
  echo "ok   both sweeps were the helper's, for toporrd's uid and pid; toporrd has no child"
  # A caller that gives up (toporrd's timeout or shutdown) ends the helper's sweep: here a
  # sweep slowed down to a second per forwarding-table block, abandoned after one second.
  python3 - "$HELPER" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b"toporr-sweep 1 probe-pause-us=1000000\n")
time.sleep(1)
s.close()
PY
  for _ in $(seq 100); do grep -q "sweep abandoned" "$DIR/helper.log" && break; sleep 0.05; done
  grep -q "the caller hung up; sweep abandoned" "$DIR/helper.log" ||
    { echo "FAIL the helper did not abandon the sweep its caller left"; cat "$DIR/helper.log"; exit 1; }
  echo "ok   a caller hanging up ends the helper's sweep"
fi
expect "real ibnetdiscover output equals the sweep" "unchanged" \
  ctl ingest --format ibnetdiscover ibnetdiscover.txt
expect "real dump_fts output equals the sweep's LFTs" "unchanged" \
  ctl ingest --format lft dump_fts.txt
ctl --json hosts > "$DIR/hosts.json"
FIRST=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["hosts"][0]["name"])' \
  "$DIR/hosts.json")
expect "costs follow forwarding tables" '"route_kind":"FORWARDING_TABLES"' \
  ctl --json row "$FIRST"
# Host pairs as "LID_A LID_B": every ordered pair among the first PAIRS hosts.
python3 - "$DIR/hosts.json" "$PAIRS" > "$DIR/pairs.txt" <<'PY'
import json, sys
hosts = json.load(open(sys.argv[1]))["hosts"][: int(sys.argv[2])]
lids = [h["hcas"][0]["ports"][0]["lid"] for h in hosts if h["hcas"][0]["ports"][0]["lid"]]
for a in lids:
    for b in lids:
        if a != b:
            print(a, b)
PY
: > "$DIR/traces.txt"
while read -r a b; do
  env LD_PRELOAD="$PRELOAD" "${IBTRACERT:-/usr/sbin/ibtracert}" "$a" "$b" >> "$DIR/traces.txt" 2>> "$DIR/ibtracert.err"
done < "$DIR/pairs.txt"
n=$(wc -l < "$DIR/pairs.txt")
expect "$n daemon routes equal ibtracert hop by hop" "$n traces checked" \
  ctl ingest --format ibtracert "$DIR/traces.txt"
expect "  ... with no disagreement" ": 0 disagree" ctl ingest --format ibtracert "$DIR/traces.txt"
SCENARIO

run_case() {  # name exec|helper netfile pairs [run_ibsim options]
  local name=$1 mode=$2 net=$3 pairs=$4; shift 4
  local dir="$WORK/$name"
  mkdir -p "$dir"
  echo "== $name ($mode)"
  if ! "$RUN_IBSIM" "$net" "$dir/sim" "$@" -- bash "$WORK/scenario.sh" \
      "$TOPORRD" "$CTL" "$DISCOVER" "$dir" "$pairs" "$mode" > "$dir/run.log" 2>&1; then
    cat "$dir/run.log" "$dir/sim/command.out" "$dir/sim/command.err" "$dir/toporrd.log" \
      "$dir/helper.log" 2>/dev/null | tail -60
    echo "FAILED: $name"
    exit 1
  fi
  cat "$dir/sim/command.out"
}

run_case fattree-2l-16h exec "$SHARED/fabrics/ibsim_fattree_2lvl.net" 8
if [[ $(id -u) -eq 0 ]] && command -v setpriv >/dev/null && command -v systemd-socket-activate >/dev/null; then
  run_case fattree-2l-16h-unprivileged helper "$SHARED/fabrics/ibsim_fattree_2lvl.net" 8
  passed=3
else
  echo "== fattree-2l-16h-unprivileged skipped: needs root, setpriv and systemd-socket-activate"
  passed=2
fi
python3 "$GEN" --levels 2 --hosts 16 --hosts-per-leaf 4 --dual-homed 1 --routers 1 \
  --host-speeds QDR,FDR,EDR --out "$WORK/mixed.net" 2> "$WORK/gen.err" ||
  { cat "$WORK/gen.err"; exit 1; }
run_case fattree-2l-16h-dualhomed-router-mixed exec "$WORK/mixed.net" 16 --routing-engine updn
echo "$passed passed, 0 failed"

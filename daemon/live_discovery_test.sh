#!/bin/bash
# Live discovery end to end on simulated fabrics (ibsim + opensm through umad2sim):
#   - `toporrctl discover` makes toporrd run toporr-discover (libibnetdisc + LFT reads);
#   - a second sweep of the unchanged fabric makes no new snapshot;
#   - ingesting the real tools' ibnetdiscover and dump_fts output of the same fabric is
#     "unchanged" too: live discovery equals the dumps, byte for byte in content;
#   - the daemon's route between hosts equals ibtracert's, hop by hop (traces ingested as
#     --format ibtracert report 0 disagreements), on the shared 2-level fat tree and on a
#     generated fabric with a dual-homed host, a router and mixed link speeds.
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

# The scenario runs inside run_ibsim.sh while the subnet is up. It inherits LD_PRELOAD
# (umad2sim) and IBSIM_SOCKNAME; only the collector and ibtracert keep the preload.
cat > "$WORK/scenario.sh" <<'SCENARIO'
set -euo pipefail
TOPORRD=$1; CTL=$2; DISCOVER=$3; DIR=$4; PAIRS=$5
PRELOAD=$LD_PRELOAD
unset LD_PRELOAD
printf '#!/bin/bash\nexec env LD_PRELOAD=%q %q "$@"\n' "$PRELOAD" "$DISCOVER" > "$DIR/discover.sh"
chmod +x "$DIR/discover.sh"
"$TOPORRD" --config= --db "$DIR/t.db" --socket "$DIR/d.sock" \
  --discovery_command "$DIR/discover.sh" 2> "$DIR/toporrd.log" &
DAEMON=$!
trap 'kill $DAEMON 2>/dev/null; wait $DAEMON 2>/dev/null || true' EXIT
ctl() { "$CTL" --socket "$DIR/d.sock" "$@"; }
for _ in $(seq 200); do ctl health >/dev/null 2>&1 && break; sleep 0.05; done
expect() {  # expect "what" "substring" command...
  local what=$1 want=$2; shift 2
  local out; out=$("$@" 2>&1) || { echo "FAIL $what: exit $?: $out"; exit 1; }
  [[ "$out" == *"$want"* ]] || { echo "FAIL $what: wanted '$want' in: $out"; exit 1; }
  echo "ok   $what"
}
expect "first sweep creates a snapshot with routes" "snapshot 1 created" ctl discover
expect "second sweep of the same fabric" "unchanged" ctl discover
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

run_case() {  # name netfile pairs [run_ibsim options]
  local name=$1 net=$2 pairs=$3; shift 3
  local dir="$WORK/$name"
  mkdir -p "$dir"
  echo "== $name"
  if ! "$RUN_IBSIM" "$net" "$dir/sim" "$@" -- bash "$WORK/scenario.sh" \
      "$TOPORRD" "$CTL" "$DISCOVER" "$dir" "$pairs" > "$dir/run.log" 2>&1; then
    cat "$dir/run.log" "$dir/sim/command.out" "$dir/sim/command.err" "$dir/toporrd.log" \
      2>/dev/null | tail -60
    echo "FAILED: $name"
    exit 1
  fi
  cat "$dir/sim/command.out"
}

run_case fattree-2l-16h "$SHARED/fabrics/ibsim_fattree_2lvl.net" 8
python3 "$GEN" --levels 2 --hosts 16 --hosts-per-leaf 4 --dual-homed 1 --routers 1 \
  --host-speeds QDR,FDR,EDR --out "$WORK/mixed.net" 2> "$WORK/gen.err" ||
  { cat "$WORK/gen.err"; exit 1; }
run_case fattree-2l-16h-dualhomed-router-mixed "$WORK/mixed.net" 16 --routing-engine updn
echo "2 passed, 0 failed"

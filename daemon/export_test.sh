#!/bin/bash
# toporrctl export against a real toporrd holding the bundled demo fabric, each format
# checked by the real tool that reads it:
#   - slurm-topology: Debian's slurmctld (topology/tree, auth/none, its own ports and state
#     directory, in the foreground) reads it; `scontrol show topology` lists the same
#     switches with the same hosts and child switches. Switch names stay the same in a
#     second snapshot (node16's second cable removed);
#   - mpich-coordinates: the format MPICH's parse_coord_file reads (header line, then
#     exactly three integers per rank);
#   - dot: rendered to SVG and PNG by Graphviz `dot`;
#   - json: parsed by Python, and its counts equal the snapshot's.
set -euo pipefail
export PATH="$PATH:/usr/sbin:/sbin"

RUNFILES="${TEST_SRCDIR:?}/${TEST_WORKSPACE:?}"
TOPORRD="$RUNFILES/daemon/toporrd"
CTL="$RUNFILES/client/ctl/toporrctl"
FABRIC="$RUNFILES/deploy/demo/fattree-2l-16h.ibnet"
WORK="$(mktemp -d /tmp/toporr-export.XXXXXX)"
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null || true; done
  [[ -n "${KEEP_WORK:-}" ]] || rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$TOPORRD" --config= --db "$WORK/t.db" --socket "$WORK/d.sock" 2>"$WORK/toporrd.log" &
PIDS+=($!)
ctl() { "$CTL" --socket "$WORK/d.sock" "$@"; }
for _ in $(seq 200); do ctl health >/dev/null 2>&1 && break; sleep 0.05; done
ctl ingest --format ibnetdiscover "$FABRIC" >/dev/null

# --- slurm-topology, read by a real slurmctld ------------------------------------------
ctl export --format slurm-topology --output "$WORK/slurm/topology.conf" 2>/dev/null &&
  fail "export into a missing directory succeeded"
mkdir -p "$WORK/slurm/state" "$WORK/slurm/spool"
ctl export --format slurm-topology --output "$WORK/slurm/topology.conf" | grep -q "wrote slurm-topology of snapshot 1" ||
  fail "no export message"
cat "$WORK/slurm/topology.conf"
read -r CTLD_PORT SLURMD_PORT < <(python3 -c '
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])')
{
  echo "ClusterName=toporrexport"
  echo "SlurmctldHost=localhost"
  echo "SlurmctldPort=$CTLD_PORT"
  echo "SlurmdPort=$SLURMD_PORT"
  echo "SlurmUser=root"
  echo "AuthType=auth/none"
  echo "CredType=cred/none"
  echo "StateSaveLocation=$WORK/slurm/state"
  echo "SlurmdSpoolDir=$WORK/slurm/spool"
  echo "SlurmctldPidFile=$WORK/slurm/slurmctld.pid"
  echo "MailProg=/bin/true"
  echo "TopologyPlugin=topology/tree"
  echo "ProctrackType=proctrack/linuxproc"
  echo "TaskPlugin=task/none"
  echo "JobCompType=jobcomp/none"
  echo "AccountingStorageType=accounting_storage/none"
  echo "SelectType=select/linear"
  echo "MpiDefault=none"
  for h in $(ctl --json hosts | python3 -c 'import json,sys; print(" ".join(h["name"] for h in json.load(sys.stdin)["hosts"]))'); do
    echo "NodeName=$h NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN"
  done
  echo "PartitionName=all Nodes=ALL Default=YES"
} > "$WORK/slurm/slurm.conf"
export SLURM_CONF="$WORK/slurm/slurm.conf"
/usr/sbin/slurmctld -D -i -f "$SLURM_CONF" >"$WORK/slurm/slurmctld.log" 2>&1 &
PIDS+=($!)
shown=""
for _ in $(seq 150); do
  shown=$(scontrol show topology 2>/dev/null) && [[ -n $shown ]] && break
  kill -0 "${PIDS[-1]}" 2>/dev/null || { cat "$WORK/slurm/slurmctld.log"; fail "slurmctld exited"; }
  sleep 0.2
done
[[ -n $shown ]] || { cat "$WORK/slurm/slurmctld.log"; fail "scontrol show topology never answered"; }
echo "$shown"
# Both sides as "switch level-0-hosts|child-switches" lines, hostlists expanded.
expand() { [[ -z $1 ]] || scontrol show hostnames "$1" | sort | paste -sd, -; }
normalize_conf() {
  grep '^SwitchName=' "$1" | while read -r line; do
    name=$(sed -n 's/.*SwitchName=\([^ ]*\).*/\1/p' <<<"$line")
    nodes=$(sed -n 's/.*Nodes=\([^ ]*\).*/\1/p' <<<"$line")
    switches=$(sed -n 's/.*Switches=\([^ ]*\).*/\1/p' <<<"$line")
    echo "$name $(tr , '\n' <<<"$nodes" | sort | paste -sd, -)|$(tr , '\n' <<<"$switches" | sort | paste -sd, -)"
  done | sort
}
normalize_shown() {
  while read -r line; do
    name=$(sed -n 's/.*SwitchName=\([^ ]*\).*/\1/p' <<<"$line")
    level=$(sed -n 's/.*Level=\([0-9]*\).*/\1/p' <<<"$line")
    nodes=$(sed -n 's/.*Nodes=\([^ ]*\).*/\1/p' <<<"$line")
    switches=$(sed -n 's/.*Switches=\([^ ]*\).*/\1/p' <<<"$line")
    # Slurm lists every host below an upper switch; the file names them on leaves only.
    [[ $level == 0 ]] || nodes=""
    echo "$name $(expand "$nodes")|$(expand "$switches")"
  done <<<"$shown" | sort
}
diff <(normalize_conf "$WORK/slurm/topology.conf") <(normalize_shown) ||
  fail "scontrol show topology differs from the exported topology.conf"
[[ $(normalize_shown | wc -l) -eq 6 ]] || fail "slurmctld does not show 6 switches"
grep -q "^spine01 |leaf01,leaf02,leaf03,leaf04$" <(normalize_shown) || fail "spine01"
echo "ok   slurmctld reads the exported topology.conf: same switches and hosts"

# A job's hosts: their leaves and the spines above them only.
ctl export --format slurm-topology --hosts node01,node05 | grep '^SwitchName' > "$WORK/job.conf"
diff - "$WORK/job.conf" <<'WANT' || fail "job subset"
SwitchName=leaf01 Nodes=node01
SwitchName=leaf02 Nodes=node05
SwitchName=spine01 Switches=leaf01,leaf02
SwitchName=spine02 Switches=leaf01,leaf02
WANT
out=$(ctl export --format slurm-topology --hosts nodeXX 2>&1) && fail "unknown host exported"
[[ $out == *"host 'nodeXX' is not in snapshot 1"* ]] || fail "unknown host: $out"
echo "ok   --hosts selects a job's switches"

# Stable names: a second snapshot (node16 loses its second cable) keeps every switch name.
grep -v '"S-0002c90200500300"\[5\]\|"H-0002c903000e0c00"\[2\]' "$FABRIC" > "$WORK/second.ibnet"
ctl ingest --format ibnetdiscover "$WORK/second.ibnet" | grep -q "snapshot 2 created" ||
  fail "second snapshot"
diff <(grep '^SwitchName' "$WORK/slurm/topology.conf") \
  <(ctl export --format slurm-topology | grep '^SwitchName') || fail "names changed"
echo "ok   switch names are the same in snapshot 2"

# --- mpich-coordinates --------------------------------------------------------------------
ctl export --format mpich-coordinates --hosts node16,node01,node05,node01 > "$WORK/coords"
cat "$WORK/coords"
diff - <(tail -n +2 "$WORK/coords") <<'WANT' || fail "coordinates"
0: 0 3 4
1: 0 0 1
2: 0 1 1
3: 0 0 1
WANT
head -1 "$WORK/coords" | grep -q '^# rank: group id, switch id, port number' || fail "header"
echo "ok   mpich-coordinates"

# --- dot, rendered by Graphviz ----------------------------------------------------------
ctl export --format dot --output "$WORK/fabric.dot" >/dev/null
dot -Tsvg "$WORK/fabric.dot" -o "$WORK/fabric.svg"
dot -Tpng "$WORK/fabric.dot" -o "$WORK/fabric.png"
grep -q '<svg' "$WORK/fabric.svg" || fail "svg"
for want in spine01 leaf04 node16 "2x 32G"; do
  grep -q "$want" "$WORK/fabric.svg" || fail "svg lacks $want"
done
[[ $(head -c 8 "$WORK/fabric.png" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] || fail "png"
ctl export --format dot --hosts node02,node03 | dot -Tsvg > "$WORK/job.svg"
grep -q node02 "$WORK/job.svg" && ! grep -q node09 "$WORK/job.svg" && ! grep -q leaf03 "$WORK/job.svg" ||
  fail "job picture"
echo "ok   dot renders to SVG and PNG"

# --- json -------------------------------------------------------------------------------
ctl export --format json > "$WORK/snapshot.json"
python3 - "$WORK/snapshot.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["snapshot"]["id"] == 2, d["snapshot"]
assert len(d["switches"]) == 6 and len(d["hosts"]) == 16, (len(d["switches"]), len(d["hosts"]))
assert len(d["links"]) == 32, len(d["links"])  # 33 in the demo, one cable removed
assert {s["name"] for s in d["switches"] if s["level"] == 1} == {"spine01", "spine02"}
guids = {n["guid"] for n in d["nodes"]}
assert all(l["a_guid"] in guids and l["b_guid"] in guids for l in d["links"])
assert next(h for h in d["hosts"] if h["name"] == "node16")["switch"] == "leaf04"
PY
ctl export --format json --hosts node01 >/dev/null 2>&1 && fail "json with hosts"
echo "ok   json"
echo PASS

#!/bin/bash
# toporrctl export against a real toporrd holding the bundled demo fabric, each format
# checked by the real tool that reads it:
#   - slurm-topology: Debian's slurmctld (topology/tree, auth/none, its own ports and state
#     directory, in the foreground) reads it; `scontrol show topology` lists the same
#     switches with the same hosts and child switches. Switch names stay the same in a
#     second snapshot (node16's second cable removed);
#   - slurm-topology-yaml and slurm-block: checked against the published format
#     (topology.yaml(5), topology.conf(5)): the YAML parsed by Python with the fields and
#     rules the man pages name, the node and switch lists expanded by Slurm's own hostlist
#     parser (scontrol show hostnames), the tree equal to what slurmctld showed for
#     topology.conf, the blocks equal to the leaves it showed; where the Slurm has
#     topology/block (23.11+: Debian 13's 24.11, not Debian 12's 22.05), a slurmctld reads
#     the block file and `scontrol show topology` lists the leaves as its blocks;
#   - k8s-labels and k8s-labels-legacy: the kubectl scripts run with each `kubectl label
#     node` applied by the real kubectl to a local Node object (--local, no cluster), when
#     kubectl is installed; kueue-topology read by kubectl, its levels the labels written;
#   - mpich-coordinates: the format MPICH's parse_coord_file reads (header line, then
#     exactly three integers per rank); where the MPICH reads it (4.2+: Debian 13's 4.2.1,
#     not Debian 12's 4.0.2), a 4-rank MPICH job on it dumps the coordinates it read, equal
#     to the file's, and runs MPICH's topology-aware bcast tree on them correctly;
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
  echo "SelectType=select/cons_tres"  # Slurm 24.11 refuses select/linear with topology/tree
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

# --- slurm-block and slurm-topology-yaml, against the published format ----------------------
# The leaves slurmctld showed, as "leaf host,host,..." lines (hostlists expanded).
normalize_shown | sed -n 's/^\([^ ]*\) \([^|][^|]*\)|$/\1 \2/p' > "$WORK/leaves"
[[ $(wc -l < "$WORK/leaves") -eq 4 ]] || fail "slurmctld showed $(wc -l < "$WORK/leaves") leaves"
ctl export --format slurm-block --output "$WORK/block.conf" >/dev/null
cat "$WORK/block.conf"
grep -v '^#' "$WORK/block.conf" | grep -v '^BlockName=[^ ]* Nodes=[^ ]*$' | grep -v '^BlockSizes=[0-9,]*$' &&
  fail "slurm-block: a line that is neither BlockName=X Nodes=Y nor BlockSizes=N,..."
diff "$WORK/leaves" <(sed -n 's/^BlockName=\([^ ]*\) Nodes=\(.*\)/\1 \2/p' "$WORK/block.conf" |
  while read -r b nodes; do echo "$b $(expand "$nodes")"; done | sort) ||
  fail "slurm-block: the blocks are not the leaves slurmctld shows"
# Two-level fat tree, one pod: every power of two of the 4-host blocks up to all four.
grep -qx 'BlockSizes=4,8,16' "$WORK/block.conf" || fail "slurm-block: BlockSizes"
ctl export --format slurm-topology-yaml --output "$WORK/topology.yaml" >/dev/null
cat "$WORK/topology.yaml"
python3 - "$WORK/topology.yaml" "$WORK/slurm/slurm.conf" > "$WORK/yaml.lists" <<'PY'
import re, sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
text = open(sys.argv[1]).read()
nodes = set(re.findall(r"^NodeName=(\S+)", open(sys.argv[2]).read(), re.M))
# topology.yaml(5): a list of topologies; "topology" (unique name) first, optional
# "cluster_default" (bool), exactly one of block, flat, tree (ring, torus3d).
assert isinstance(doc, list) and len(doc) == 2, doc
names = [t["topology"] for t in doc]
assert len(set(names)) == len(names), names
for t in doc:
    assert list(t)[0] == "topology", "topology must be the first attribute"
    assert isinstance(t.get("cluster_default", False), bool)
    kinds = [k for k in ("block", "flat", "tree", "ring", "torus3d") if k in t]
    assert len(kinds) == 1, t
    assert set(t) <= {"topology", "cluster_default", kinds[0]}, t
assert sum(bool(t.get("cluster_default")) for t in doc) == 1
tree = next(t["tree"] for t in doc if "tree" in t)
block = next(t["block"] for t in doc if "block" in t)
# Tree: switches, each "switch" (unique, at most 64 characters) with "nodes" (a leaf) or
# "children" (switches defined in the file).
assert set(tree) == {"switches"}
switches = [s["switch"] for s in tree["switches"]]
assert len(set(switches)) == len(switches) and all(len(s) <= 64 for s in switches)
for s in tree["switches"]:
    assert set(s) in ({"switch", "nodes"}, {"switch", "children"}), s
    assert all(isinstance(v, str) for v in s.values()), s
    if "children" in s:
        assert set(s["children"].split(",")) <= set(switches), s
    else:
        assert set(s["nodes"].split(",")) <= nodes, s
    print("tree", s["switch"], s.get("nodes", ""), s.get("children", ""), sep="|")
# Block: block_sizes (ints; each later one a power-of-two multiple of the first, larger
# than the one before) and blocks, each "block" (unique) with "nodes"; every block at
# least the base size.
assert set(block) == {"block_sizes", "blocks"}
sizes = block["block_sizes"]
assert sizes and all(isinstance(v, int) and v > 0 for v in sizes), sizes
for a, b in zip(sizes, sizes[1:]):
    assert b > a and b % sizes[0] == 0 and (b // sizes[0]) & (b // sizes[0] - 1) == 0, sizes
blocks = [b["block"] for b in block["blocks"]]
assert len(set(blocks)) == len(blocks)
for b in block["blocks"]:
    assert set(b) == {"block", "nodes"} and isinstance(b["nodes"], str), b
    assert set(b["nodes"].split(",")) <= nodes and len(b["nodes"].split(",")) >= sizes[0], b
    print("block", b["block"], b["nodes"], sep="|")
print("sizes", ",".join(map(str, sizes)), sep="|")
PY
# Each list through Slurm's hostlist parser; the tree as slurmctld showed topology.conf.
diff <(normalize_shown) <(awk -F'|' '$1 == "tree"' "$WORK/yaml.lists" |
  while IFS='|' read -r _ name nodes children; do
    echo "$name $(expand "$nodes")|$(expand "$children")"
  done | sort) || fail "topology.yaml's tree differs from what slurmctld shows"
diff "$WORK/leaves" <(awk -F'|' '$1 == "block"' "$WORK/yaml.lists" |
  while IFS='|' read -r _ name nodes; do echo "$name $(expand "$nodes")"; done | sort) ||
  fail "topology.yaml's blocks are not the leaves"
grep -qx 'sizes|4,8,16' "$WORK/yaml.lists" || fail "topology.yaml block_sizes"
echo "ok   slurm-block and slurm-topology-yaml follow topology.conf(5)/topology.yaml(5)"

# A Slurm with topology/block (23.11 and later) reads the block file itself: a second
# slurmctld on it, whose `scontrol show topology` must list the leaves as the blocks.
slurm_version=$(/usr/sbin/slurmctld -V | sed -n 's/^slurm[^ ]* \([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
read -r slurm_major slurm_minor <<<"$slurm_version"
if ((slurm_major > 23 || (slurm_major == 23 && slurm_minor >= 11))); then
  kill "${PIDS[-1]}" && wait "${PIDS[-1]}" 2>/dev/null || true
  unset 'PIDS[-1]'
  mkdir -p "$WORK/block/state" "$WORK/block/spool"
  cp "$WORK/block.conf" "$WORK/block/topology.conf"
  sed -e 's#^TopologyPlugin=.*#TopologyPlugin=topology/block#' \
    -e "s#$WORK/slurm/#$WORK/block/#g" "$WORK/slurm/slurm.conf" > "$WORK/block/slurm.conf"
  SLURM_CONF="$WORK/block/slurm.conf" /usr/sbin/slurmctld -D -i -f "$WORK/block/slurm.conf" \
    >"$WORK/block/slurmctld.log" 2>&1 &
  PIDS+=($!)
  blocks=""
  for _ in $(seq 150); do
    blocks=$(SLURM_CONF="$WORK/block/slurm.conf" scontrol show topology 2>/dev/null) &&
      [[ $blocks == *BlockName=* ]] && break
    kill -0 "${PIDS[-1]}" 2>/dev/null || { cat "$WORK/block/slurmctld.log"; fail "slurmctld (block) exited"; }
    sleep 0.2
  done
  echo "$blocks"
  diff "$WORK/leaves" <(grep -o 'BlockName=[^ ]* .*Nodes=[^ ]*' <<<"$blocks" |
    sed -n 's/^BlockName=\([^ ]*\) .*Nodes=\([^ ]*\)$/\1 \2/p' |
    while read -r b nodes; do echo "$b $(expand "$nodes")"; done | sort) ||
    fail "slurmctld (topology/block) does not show the leaves as the blocks"
  echo "ok   slurmctld $slurm_major.$slurm_minor (topology/block) reads the exported blocks"
else
  echo "note: step SKIPPED: Slurm $slurm_major.$slurm_minor has no topology/block (23.11+): the block file is checked against its format only"
fi

# --- k8s-labels: topograph's node labels, applied by kubectl to local Node objects ------------
ctl export --format k8s-labels --output "$WORK/labels.sh" >/dev/null
ctl export --format k8s-labels-legacy --output "$WORK/labels-legacy.sh" >/dev/null
ctl export --format kueue-topology --output "$WORK/kueue.yaml" >/dev/null
head -12 "$WORK/labels.sh"
mkdir -p "$WORK/k8s" "$WORK/k8s-legacy"
cat > "$WORK/kubectl-local" <<'SH'
#!/bin/bash
# `kubectl label node NAME ARGS...` applied to a local Node object NAME (no cluster).
set -euo pipefail
[[ $1 == label && $2 == node ]] || { echo "unexpected: $*" >&2; exit 9; }
name=$3
shift 3
printf 'apiVersion: v1\nkind: Node\nmetadata:\n  name: %s\n' "$name" > "$K8S_DIR/$name.yaml"
if command -v kubectl >/dev/null; then
  kubectl label --local -f "$K8S_DIR/$name.yaml" -o json "$@" > "$K8S_DIR/$name.json"
else
  # Without kubectl: the labels as kubectl would set them, checked below in Python.
  python3 -c 'import json, sys
labels = dict(a.split("=", 1) for a in sys.argv[2:] if "=" in a)
print(json.dumps({"metadata": {"name": sys.argv[1], "labels": labels}}))' "$name" "$@" \
    > "$K8S_DIR/$name.json"
fi
SH
chmod +x "$WORK/kubectl-local"
command -v kubectl >/dev/null ||
  echo "note: step SKIPPED: kubectl is not installed: the label values are checked in Python only"
K8S_DIR="$WORK/k8s" KUBECTL="$WORK/kubectl-local" sh "$WORK/labels.sh" ||
  fail "the k8s-labels script failed"
K8S_DIR="$WORK/k8s-legacy" KUBECTL="$WORK/kubectl-local" sh "$WORK/labels-legacy.sh" ||
  fail "the k8s-labels-legacy script failed"
# Kueue's Topology as kubectl reads it (a local object: no cluster, no CRD needed).
if command -v kubectl >/dev/null; then
  kubectl label --local -f "$WORK/kueue.yaml" -o json checked=yes > "$WORK/kueue.json" ||
    fail "kubectl cannot read the kueue-topology export"
else
  python3 -c 'import json, sys
levels = [{"nodeLabel": l.split(": ", 1)[1].strip()} for l in open(sys.argv[1]) if "nodeLabel:" in l]
print(json.dumps({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Topology", "spec": {"levels": levels}}))' \
    "$WORK/kueue.yaml" > "$WORK/kueue.json"
fi
for form in current:k8s legacy:k8s-legacy; do
python3 - "$WORK/${form#*:}" "$WORK/leaves" "${form%%:*}" "$WORK/kueue.json" <<'PY'
import glob, json, os, re, sys
leaf_of = {}
for line in open(sys.argv[2]):
    leaf, hosts = line.split()
    for h in hosts.split(","):
        leaf_of[h] = leaf
value = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
labels = {}
for f in glob.glob(os.path.join(sys.argv[1], "*.json")):
    node = json.load(open(f))
    labels[node["metadata"]["name"]] = node["metadata"].get("labels", {})
assert set(labels) == set(leaf_of), sorted(labels)
if sys.argv[3] == "current":  # topograph 1.0: tier-0 nearest the node
    leaf, spine = "fabric.topograph.run/tier-0", "fabric.topograph.run/tier-1"
else:
    leaf, spine = "network.topology.nvidia.com/leaf", "network.topology.nvidia.com/spine"
for host, l in labels.items():
    assert set(l) == {leaf, spine}, l  # two levels: no core / tier-2
    assert all(len(v) <= 63 and value.match(v) for v in l.values()), l
    assert l[leaf] == leaf_of[host], (host, l)
# One spine domain: both spines sit above all four leaves.
assert len({l[spine] for l in labels.values()}) == 1
assert {l[spine] for l in labels.values()} == {"spine01"}
if sys.argv[3] == "current":  # Kueue's levels: the labels written, coarsest first, the node last
    topology = json.load(open(sys.argv[4]))
    assert topology["apiVersion"] == "kueue.x-k8s.io/v1beta2" and topology["kind"] == "Topology"
    levels = [l["nodeLabel"] for l in topology["spec"]["levels"]]
    assert levels == [spine, leaf, "kubernetes.io/hostname"], levels
PY
done
echo "ok   k8s-labels (topograph 1.0 tiers), k8s-labels-legacy and kueue-topology: leaf and spine on all 16 nodes, Kueue's levels over them"

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

# MPICH 4.2 and later read the file (MPIR_CVAR_COORDINATES_FILE): rank 0 dumps what it read
# (MPIR_CVAR_COORDINATES_DUMP writes ./coords), and its topology-aware bcast tree runs on it.
mpich_version=$(mpichversion 2>/dev/null | sed -n 's/^MPICH Version:[[:space:]]*\([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
read -r mpich_major mpich_minor <<<"${mpich_version:-0 0}"
if ((mpich_major > 4 || (mpich_major == 4 && mpich_minor >= 2))); then
  mkdir -p "$WORK/mpich"
  cat > "$WORK/mpich/bcast.c" <<'C'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, wrong = 0, all = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  static int buf[1 << 16];
  for (int root = 0; root < size; ++root) {
    for (int i = 0; i < (1 << 16); ++i) buf[i] = rank == root ? i * 7 + root : -1;
    MPI_Bcast(buf, 1 << 16, MPI_INT, root, MPI_COMM_WORLD);
    for (int i = 0; i < (1 << 16); ++i) wrong += buf[i] != i * 7 + root;
  }
  MPI_Allreduce(&wrong, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("bcast %s\n", all == 0 ? "ok" : "WRONG");
  MPI_Finalize();
  return all != 0;
}
C
  mpicc.mpich -O1 "$WORK/mpich/bcast.c" -o "$WORK/mpich/bcast"
  out=$(cd "$WORK/mpich" && MPIR_CVAR_COORDINATES_FILE="$WORK/coords" MPIR_CVAR_COORDINATES_DUMP=1 \
    MPIR_CVAR_BCAST_INTRA_ALGORITHM=tree MPIR_CVAR_BCAST_TREE_TYPE=topology_aware \
    timeout 120 mpirun.mpich -np 4 ./bcast 2>&1) || { echo "$out"; fail "MPICH job on the coordinates"; }
  echo "$out"
  [[ $out == *"bcast ok"* ]] || fail "MPICH's topology-aware bcast on the coordinates"
  diff <(tail -n +2 "$WORK/coords") "$WORK/mpich/coords" ||
    fail "MPICH read other coordinates than the file's"
  echo "ok   MPICH $mpich_major.$mpich_minor reads the coordinates and runs its topology-aware bcast on them"
else
  echo "note: step SKIPPED: MPICH ${mpich_major}.${mpich_minor} reads no coordinates file (4.2+): the file is checked against its format only"
fi

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

# --- k8s-labels for host names Kubernetes does not take, and nodes that do not exist -------
sed -e 's/"node03 HCA-1"/"B11-P1-CUFM-02 HCA-1"/g' -e 's/"node04 HCA-1"/"ufm_appliance HCA-1"/g' \
  "$WORK/second.ibnet" > "$WORK/names.ibnet"
ctl ingest --format ibnetdiscover --allow-shrink "$WORK/names.ibnet" | grep -q "snapshot 3 created" ||
  fail "third snapshot"
ctl export --format k8s-labels --output "$WORK/names.sh" >/dev/null
grep -qx "# lower-cased: B11-P1-CUFM-02 -> b11-p1-cufm-02" "$WORK/names.sh" ||
  fail "the lower-cased host is not said"
grep -qx "# left out (not a Kubernetes node name): ufm_appliance" "$WORK/names.sh" ||
  fail "the host left out is not said"
mkdir -p "$WORK/k8s3"
# A cluster without b11-p1-cufm-02 (an appliance, not a node): kubectl fails for it alone.
cat > "$WORK/kubectl-missing" <<'SH'
#!/bin/bash
if [[ $3 == b11-p1-cufm-02 ]]; then
  echo "Error from server (NotFound): nodes \"$3\" not found" >&2
  exit 1
fi
exec "$KUBECTL_LOCAL" "$@"
SH
chmod +x "$WORK/kubectl-missing"
if out=$(K8S_DIR="$WORK/k8s3" KUBECTL_LOCAL="$WORK/kubectl-local" KUBECTL="$WORK/kubectl-missing" \
  sh "$WORK/names.sh" 2>&1); then
  fail "a node that could not be labelled went unreported: $out"
fi
[[ $out == *"toporr: labelled 14 of 15 nodes; failed: b11-p1-cufm-02"* ]] || fail "summary: $out"
[[ $(ls "$WORK/k8s3"/*.json | wc -l) -eq 14 && -f "$WORK/k8s3/node05.json" ]] ||
  fail "the other nodes were not all labelled"
echo "ok   k8s-labels: names Kubernetes refuses lower-cased or left out, the other nodes labelled past a missing one, which is reported"
echo PASS

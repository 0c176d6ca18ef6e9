#!/bin/bash
# toporr-probe's cost against N and a broadcast on the levels it detects, in SimGrid SMPI;
# writes bench/results/plogp_probe.md (the numbers of one run, with this script's commands).
#
#   bench/smpi/run_probe_bench.sh [--scale "16 64 256"] [--big 1024] [--serial "16 64"]
#                                 [--no-bcast]
#
# Part 1, cost against N: SimGrid's own 2-level FAT_TREE cluster (16 hosts per leaf, 16
# spines or as many as leaves, 25 GB/s, 100 ns per link: no route tables, so 1,024 hosts fit),
# one rank per host. Per N: rounds, messages (both sides), simulated seconds, wall seconds,
# the host levels found and the adjusted Rand index of the leaf level against the true leaves
# (hosts 16 i .. 16 i + 15). Default settings (--repetitions 3, --sizes 0,65536) for --scale;
# the --big sizes run lean (--repetitions 1 --sizes 0 --no-pairs: 18 messages per pair instead
# of 78) because SMPI's wall time grows with the number of pairs (quadratic in N). --serial N:
# the same probe with one pair per round (the all-pairs serial probe) for comparison.
#
# Part 2, broadcast: a 64-host 2-level fat tree with 4:1 tapered leaves (16 hosts, 4 uplinks;
# ibsim + OpenSM ftree, routes = the LFTs), ranks spread over the leaves (rank r on leaf r mod
# 4). The probe measures it; `toporrctl ingest --format plogp` + `export --format costs` give
# libtoporr its measured costs; toporr_collective_time (libtoporr compiled into an SMPI
# program, build_libtoporr_smpi.sh) times MPI_Bcast (SMPI's ompi selector, launch order)
# against toporr_bcast (auto), and toporr_bcast with the multi-level (leader) algorithm forced
# on the detected levels; the same with the model's costs (ibnetdiscover + LFTs) for reference.
#
# Needs smpicxx/smpirun, the ibsim tools, bazel (toporrd, toporrctl; or TOPORR_BIN = a
# bazel-bin directory holding daemon/toporrd and client/ctl/toporrctl). Cache:
# $TOPORR_SMPI_CACHE/probe-bench (default /tmp/toporr-smpi/probe-bench).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CACHE=${TOPORR_SMPI_CACHE:-/tmp/toporr-smpi}/probe-bench
BAZEL_BASE=${TOPORR_SMPI_BAZEL_BASE:-/root/.cache/bazel_smpi}
SCALE="16 64 256" BIG="" SERIAL="16 64" BCAST=1
while (($#)); do
  case $1 in
    --scale) SCALE=$2; shift 2 ;;
    --big) BIG=$2; shift 2 ;;
    --serial) SERIAL=$2; shift 2 ;;
    --no-bcast) BCAST=0; shift ;;
    *) echo "usage: $0 [--scale \"N...\"] [--big \"N...\"] [--serial \"N...\"] [--no-bcast]" >&2
       exit 2 ;;
  esac
done
die() { echo "run_probe_bench: $*" >&2; exit 1; }
log() { echo "run_probe_bench: $*" >&2; }
mkdir -p "$CACHE"
CFG=(--cfg=smpi/simulate-computation:no --cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1
     --cfg=network/crosstraffic:0 --log=root.thres:warning)
PROBE=$("$REPO/bench/smpi/build_probe_smpi.sh" "$CACHE/probe-build") || exit 1
RESULTS=$CACHE/results.tsv
: >"$RESULTS"

cluster() {  # cluster N: $CACHE/ftN.xml, $CACHE/ftN.hosts
  local n=$1 leaves=$(($1 / 16)) spines
  spines=$((leaves >= 16 ? 16 : leaves))
  cat >"$CACHE/ft$n.xml" <<XML
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="ft$n" prefix="node" suffix="" radical="0-$((n - 1))" speed="1Gf" bw="25GBps"
           lat="100ns" topology="FAT_TREE" topo_parameters="2;16,$leaves;1,$spines;1,1"
           loopback_bw="20GBps" loopback_lat="200ns"/>
</platform>
XML
  seq 0 $((n - 1)) | sed 's/^/node/' >"$CACHE/ft$n.hosts"
}

# probe_run NAME N ARGS...: one smpirun of the probe; a line of $RESULTS.
probe_run() {
  local name=$1 n=$2
  shift 2
  cluster "$n"
  # Kept from an earlier run of the same probe binary and arguments (the 1,024-host run takes
  # tens of minutes).
  local key
  key=$(cat "$PROBE" "$CACHE/ft$n.xml" <(echo "$*") | sha256sum | cut -c1-16)
  if [[ ! -s $CACHE/$name.json || $(cat "$CACHE/$name.key" 2>/dev/null) != "$key" ]]; then
    log "$name: $n ranks $*"
    local t0=$EPOCHREALTIME
    smpirun -np "$n" -platform "$CACHE/ft$n.xml" -hostfile "$CACHE/ft$n.hosts" "${CFG[@]}" \
      -no-privatize "$PROBE" --out "$CACHE/$name.json" --quiet "$@" >"$CACHE/$name.log" 2>&1 \
      || die "smpirun failed: see $CACHE/$name.log"
    awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }' >"$CACHE/$name.wall"
    echo "$key" >"$CACHE/$name.key"
  fi
  local wall
  wall=$(cat "$CACHE/$name.wall")
  python3 - "$CACHE/$name.json" "$name" "$n" "$wall" "$*" >>"$RESULTS" <<'PY'
import json, sys
from collections import Counter
p = json.load(open(sys.argv[1]))
name, n, wall, args = sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
def ari(x, y):
    comb = lambda k: k * (k - 1) / 2
    index = sum(comb(c) for c in Counter(zip(x, y)).values())
    a = sum(comb(c) for c in Counter(x).values())
    b = sum(comb(c) for c in Counter(y).values())
    exp = a * b / comb(len(x))
    top = (a + b) / 2
    return 1.0 if top == exp else (index - exp) / (top - exp)
levels = p["host_levels"]
truth = [int(h[4:]) // 16 for h in p["hosts"]]
leaf = [l for l in levels if l["name"] == "leaf"]
score = "%.3f" % ari(leaf[0]["groups"], truth) if leaf else ("1.000 (one leaf)" if n <= 16 else "no leaf level")
names = " / ".join("%s(%d)" % (l["name"], len(set(l["groups"]))) for l in levels)
s = p["schedule"]
print("\t".join([name, str(n), args, str(s["rounds"]), str(s["messages"]),
                 "%.6f" % s["elapsed_s"], wall, names, score]))
PY
}

for n in $SCALE; do probe_run "rounds-$n" "$n" --repetitions 3 --sizes 0,65536; done
for n in $SERIAL; do probe_run "serial-$n" "$n" --repetitions 3 --sizes 0,65536 --serial; done
for n in $BIG; do probe_run "rounds-$n-lean" "$n" --repetitions 1 --sizes 0 --no-pairs; done

# --- part 2: broadcast on the detected levels ------------------------------------------------------
BCAST_TSV=$CACHE/bcast.tsv
: >"$BCAST_TSV"
if ((BCAST)); then
  if [[ -n ${TOPORR_BIN:-} ]]; then  # a bazel-bin that already holds toporrd and toporrctl
    BIN=$TOPORR_BIN
  else
    log "building toporrd, toporrctl (output base $BAZEL_BASE)"
    (cd "$REPO" && bazel --output_base="$BAZEL_BASE" build //daemon:toporrd //client/ctl:toporrctl) \
      >"$CACHE/bazel.log" 2>&1 || die "bazel build failed: see $CACHE/bazel.log"
    BIN=$(cd "$REPO" && bazel --output_base="$BAZEL_BASE" info bazel-bin 2>/dev/null)
  fi
  log "building libtoporr for SMPI"
  BENCH=$(TOPORR_SMPI_BAZEL_BASE=$BAZEL_BASE "$REPO/bench/smpi/build_libtoporr_smpi.sh" \
            "$CACHE/libtoporr-smpi") || exit 1
  PRIVATE_LIBS=$(readelf -d "$BENCH" | sed -n 's/.*Shared library: \[\(libprotobuf[^]]*\)\].*/\1/p' |
                 paste -sd ';')
  FT=$CACHE/ft64t
  if [[ ! -s $FT/dump_fts.txt ]]; then
    python3 "$REPO/collectors/sim/gen_fattree.py" --hosts 64 --hosts-per-leaf 16 \
      --leaf-uplinks 4 --spines 4 --out "$FT.net" >/dev/null 2>&1 || die "gen_fattree failed"
    bash "$REPO/collectors/sim/run_ibsim.sh" "$FT.net" "$FT" --routing-engine ftree \
      >"$FT.ibsim.log" 2>&1 || die "run_ibsim failed: see $FT.ibsim.log"
  fi
  python3 "$REPO/bench/smpi/fabric_to_platform.py" --ibnetdiscover "$FT/ibnetdiscover.txt" \
    --lfts "$FT/dump_fts.txt" --cores 1 --out "$FT.xml" --hosts-out "$FT.hosts" >/dev/null
  log "ft64t: probe"
  smpirun -np 64 -platform "$FT.xml" -hostfile "$FT.hosts" "${CFG[@]}" -no-privatize "$PROBE" \
    --out "$FT.probe.json" --repetitions 3 --quiet >"$FT.probe.log" 2>&1 \
    || die "probe failed: see $FT.probe.log"
  work=$CACHE/toporrd
  rm -rf "$work" && mkdir -p "$work"
  "$BIN/daemon/toporrd" --config= --db "$work/t.db" --socket "$work/sock" 2>"$work/log" &
  pid=$!
  trap 'kill $pid 2>/dev/null || true' EXIT
  ctl=("$BIN/client/ctl/toporrctl" --socket "$work/sock")
  for _ in $(seq 100); do "${ctl[@]}" health >/dev/null 2>&1 && break; sleep 0.05; done
  hosts=$(paste -sd, "$FT.hosts")
  "${ctl[@]}" ingest --format plogp "$FT.probe.json" >"$work/ctl.log"
  "${ctl[@]}" export --format costs --output "$FT.measured.costs" --hosts "$hosts" >>"$work/ctl.log"
  "${ctl[@]}" ingest --allow-shrink --format ibnetdiscover "$FT/ibnetdiscover.txt" >>"$work/ctl.log"
  "${ctl[@]}" ingest --format lft "$FT/dump_fts.txt" >>"$work/ctl.log"
  "${ctl[@]}" export --format costs --output "$FT.model.costs" --hosts "$hosts" >>"$work/ctl.log"
  kill $pid && wait $pid 2>/dev/null || true
  python3 -c "
h = [l.strip() for l in open('$FT.hosts') if l.strip()]
print('\n'.join(h[(r % 4) * 16 + r // 4] for r in range(64)))" >"$FT.spread"
  SIZES=8,65536,1048576,16777216
  SHM=$(mktemp -d /dev/shm/probe-bench.XXXXXX)
  trap 'kill $pid 2>/dev/null || true; rm -rf "$SHM"' EXIT
  # bcast_run COSTS LABEL FORCE MODES
  bcast_run() {
    local costs=$1 label=$2 force=$3 modes=$4 dir=$CACHE/bcast-$2
    mkdir -p "$dir"
    log "ft64t bcast: $label"
    # A TMPDIR of its own: SMPI copies the privatized libraries there under per-rank names,
    # which collide with another smpirun's in a shared directory.
    TMPDIR=$SHM TOPORR_VERIFY=0 TOPORR_ALGORITHM=$force TOPORR_COSTS=$costs TOPORR_HOSTMAP=$FT.spread \
      TOPORR_REPORT=$dir/report.jsonl \
      smpirun -np 64 -platform "$FT.xml" -hostfile "$FT.spread" "$BENCH" --collective bcast \
        --sizes "$SIZES" --modes "$modes" --cfg=smpi/privatize-libs:"$PRIVATE_LIBS" \
        --cfg=smpi/coll-selector:ompi "${CFG[@]}" >"$dir/out.txt" 2>"$dir/err.txt" \
      || die "smpirun failed: see $dir/err.txt"
    python3 - "$dir" "$label" >>"$BCAST_TSV" <<'PY'
import json, sys
d, label = sys.argv[1], sys.argv[2]
chosen = {}
for line in open(d + "/report.jsonl"):
    r = json.loads(line)
    if r.get("event") != "decision":
        continue
    changed = r["new_order"] != list(range(len(r["new_order"])))
    chosen[r["bytes"]] = "%s%s" % (r["chosen_algorithm"], " (reordered)" if changed else "")
for line in open(d + "/out.txt"):
    if line.startswith("cell "):
        f = dict(kv.split("=") for kv in line.split()[1:])
        algo = chosen.get(int(f["bytes"]), "") if f["mode"] != "mpi" else "SMPI ompi default"
        print("\t".join([label, f["mode"], f["bytes"], f["us"], algo]))
PY
  }
  bcast_run "$FT.measured.costs" measured "" mpi,auto
  bcast_run "$FT.measured.costs" measured-multilevel multilevel auto
  bcast_run "$FT.model.costs" model "" auto
fi

python3 "$REPO/bench/smpi/probe_bench_report.py" "$RESULTS" "$BCAST_TSV" \
  "${FT:-}" >"$REPO/bench/results/plogp_probe.md"
log "wrote bench/results/plogp_probe.md"

#!/usr/bin/env bash
# Fuzzes toporr's parsers with the libFuzzer harnesses of fuzz/ (fuzz/README.md).
#
#   bench/run_fuzz.sh [SECONDS] [PARSER...]   run each harness SECONDS (default 30)
#   bench/run_fuzz.sh --regressions [PARSER...] replay fuzz/regressions/ and fuzz/seeds/ only
#
# Parsers: ibnetdiscover lft opensm_lfts ibtracert opareport_xml opareport_links config
# host_map plogp (default: all). The harnesses are built with clang-14
# -fsanitize=fuzzer,address,undefined by fuzz/build_fuzzers.py into $TOPORR_FUZZ_DIR (default ~/.cache/toporr-fuzz),
# which also keeps each parser's growing corpus. Seeds: fuzz/seeds/<parser>/, the real dumps
# of $TOPORR_SHARED_DIR/fabrics (default ../shared; '#@' lines stripped), the repo's test
# data (collectors/testdata, collectors/sim/opa, deploy/toporrd.conf.example). Runs use
# libFuzzer's fork mode, so a crash does not end the run: every crash, hang or OOM input is
# kept under fuzz/regressions/<parser>/ (commit it with its fix). Prints per parser the
# executions, the corpus size, accepted/refused parses and the crashes; exit 1 on any crash.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
ALL=(ibnetdiscover lft opensm_lfts ibtracert opareport_xml opareport_links config host_map plogp)
OUT=${TOPORR_FUZZ_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/toporr-fuzz}
SHARED=${TOPORR_SHARED_DIR:-$ROOT/../shared}

mode=run
seconds=30
if [[ ${1:-} == --regressions ]]; then
  mode=regressions
  shift
elif [[ ${1:-} =~ ^[0-9]+$ ]]; then
  seconds=$1
  shift
fi
parsers=("$@")
((${#parsers[@]})) || parsers=("${ALL[@]}")
for p in "${parsers[@]}"; do
  [[ " ${ALL[*]} " == *" $p "* ]] || { echo "run_fuzz: unknown parser '$p' (${ALL[*]})" >&2; exit 2; }
done

if ! [[ -f /usr/lib/llvm-14/lib/libFuzzer.a ]] && ! command -v clang++-14 >/dev/null; then
  echo "run_fuzz: needs clang-14 and libfuzzer-14-dev (deploy/install-deps.sh)" >&2
  exit 2
fi
mkdir -p "$OUT"
python3 fuzz/build_fuzzers.py "$OUT/build" "${parsers[@]}" >/dev/null

# Seed files of a parser (real dumps, shared and in the repo), one per line.
shared_seeds() {
  local f=$SHARED/fabrics
  case $1 in
    ibnetdiscover) ls "$f"/ibnetdiscover_*.txt ;;
    lft) ls "$f"/ibroute_*.txt "$f"/dump_fts_*.txt "$f"/dump_lfts_*.txt ;;
    opensm_lfts) ls collectors/testdata/opensm-lfts_*.dump ;;
    ibtracert) ls "$f"/ibtracert_*.txt ;;
    opareport_xml) ls "$f"/opa_topology_*.xml ;;
    opareport_links) ls "$f"/opa_opatopology_links_csv.txt collectors/sim/opa/*.links.txt ;;
    config) ls deploy/toporrd.conf.example ;;
    host_map) ;;
    plogp) ;;
  esac 2>/dev/null || true
}

status=0
if [[ $mode == regressions ]]; then
  for p in "${parsers[@]}"; do
    inputs=()
    for d in fuzz/regressions/$p fuzz/seeds/$p; do
      [[ -d $d ]] && while IFS= read -r -d '' x; do inputs+=("$x"); done < <(find "$d" -type f -print0)
    done
    if ((${#inputs[@]} == 0)); then
      printf '%-16s no input\n' "$p"
      continue
    fi
    if log=$("$OUT/build/${p}_fuzzer" -runs=1 "${inputs[@]}" 2>&1); then
      printf '%-16s %d inputs ok\n' "$p" "${#inputs[@]}"
    else
      printf '%-16s FAILED:\n' "$p"
      grep -m3 -E 'fuzz invariant|ERROR|runtime error|Running: ' <<<"$log" || tail -5 <<<"$log"
      status=1
    fi
  done
  exit $status
fi

printf '%-16s %12s %8s %10s %10s %8s\n' parser executions corpus accepted refused crashes
for p in "${parsers[@]}"; do
  seeds=$OUT/seeds/$p corpus=$OUT/corpus/$p artifacts=$OUT/artifacts/$p
  rm -rf "$seeds" "$artifacts"
  mkdir -p "$seeds" "$corpus" "$artifacts" "fuzz/regressions/$p"
  while IFS= read -r f; do
    [[ -n $f ]] && grep -v '^#@' "$f" >"$seeds/$(basename "$f")" || true
  done < <(shared_seeds "$p")
  dirs=("$corpus" "$seeds")
  for d in fuzz/seeds/$p fuzz/regressions/$p; do [[ -d $d ]] && dirs+=("$d"); done
  stats=$OUT/$p.outcomes
  log=$OUT/$p.log
  : >"$stats"
  TOPORR_FUZZ_STATS=$stats "$OUT/build/${p}_fuzzer" -fork=1 -ignore_crashes=1 \
    -ignore_timeouts=1 -ignore_ooms=1 -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=2048 -max_len=65536 -artifact_prefix="$artifacts/" "${dirs[@]}" >"$log" 2>&1 || true
  # Fork mode's progress lines: "#<execs>: cov: .. ft: .. corp: <n> exec/s: .. oom/timeout/crash: ..".
  last=$(grep -E '^#[0-9]+: cov' "$log" | tail -1 || true)
  execs=$(sed -E 's/^#([0-9]+):.*/\1/' <<<"$last")
  corp=$(sed -nE 's/.* corp: ([0-9]+).*/\1/p' <<<"$last")
  read -r accepted refused < <(awk '{a += $1; r += $2} END {print a + 0, r + 0}' "$stats")
  # One input per distinct failure (the broken invariant, or the sanitizer's SUMMARY line)
  # is kept under fuzz/regressions/<parser>/; the rest stay in $OUT/artifacts/<parser>.
  crashes=0 kept=()
  declare -A seen=()
  for a in "$artifacts"/*; do
    [[ -f $a ]] || continue
    crashes=$((crashes + 1))
    why=$("$OUT/build/${p}_fuzzer" -runs=1 "$a" 2>&1 |
      grep -m1 -E 'fuzz invariant broken|SUMMARY|ERROR: libFuzzer' |
      sed -E 's/^fuzz invariant broken: //; s/([:(]| [0-9]).*//') || true
    [[ -n ${seen[$why]:-} ]] && continue
    seen[$why]=1
    cp "$a" "fuzz/regressions/$p/"
    kept+=("$(basename "$a"): ${why:-(does not reproduce alone)}")
  done
  unset seen
  printf '%-16s %12s %8s %10s %10s %8s\n' "$p" "${execs:-?}" "${corp:-?}" "$accepted" "$refused" \
    "$crashes"
  if ((crashes)); then
    status=1
    for k in "${kept[@]}"; do printf '  kept under fuzz/regressions/%s/: %s\n' "$p" "$k"; done
  fi
done
rmdir fuzz/regressions/* 2>/dev/null || true
exit $status

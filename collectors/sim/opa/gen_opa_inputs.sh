#!/usr/bin/env bash
# Generates Omni-Path topology XML inputs with opa-fastfabric's own tools, for parser tests and
# for trying toporr on a fabric of a chosen shape. Needs Debian `opa-fastfabric`
# (deploy/install-deps.sh installs it).
#
# Usage: gen_opa_inputs.sh OUT_DIR [LEAVES HOSTS_PER_LEAF SPINES]   (default 4 8 2)
#
# Writes into OUT_DIR (named for their shape; L/H/S from the arguments):
#   fattree-<L>l<S>s-<L*H>h.topology.csv  spreadsheet rows (opaxlattopology's input)
#   fattree-<L>l<S>s-<L*H>h.xlat.xml      `opaxlattopology` of it: a 2-level fat tree of
#                                         edge switches leafNN / spineNN, hosts hostNNN
#                                         ("hostNNN hfi1_0"), one multi-rail host mrail01
#                                         ("mrail01 hfi1_0" and "mrail01 hfi1_1" on leaf01
#                                         and leaf02), every leaf cabled to every spine,
#                                         100g everywhere except leaf01<->spine01 at 50g;
#                                         ports by NodeDesc+PortNum, no GUIDs
#   director-swd06-1l-4h.xlat.xml         `opaxlattopology` of 4 hosts on a 100SWD06
#                                         director "core1" (shipped linksum_swd06.csv):
#                                         director-internal links (<Internal>1</Internal>)
#   guids-2sw-4fi.opaxmlgenerate.xml      `opaxmlgenerate` (as the shipped opagentopology
#                                         does) of a ';' link table with NodeGUIDs/PortGUIDs,
#                                         25g/100g rates, fi04's port named by PortGUID only,
#                                         wrapped in <Topology> with a <Nodes> section that
#                                         gives every node a <Port> with LID and PortGUID
#                                         (switches their port 0)
#   opagentopology-sample.xml             the shipped /usr/share/opa/samples/opagentopology
# and prints the file names. Exit status non-zero when a tool is missing or fails.
set -euo pipefail

out=${1:?usage: gen_opa_inputs.sh OUT_DIR [LEAVES HOSTS_PER_LEAF SPINES]}
leaves=${2:-4}
hosts_per_leaf=${3:-8}
spines=${4:-2}
samples=/usr/share/opa/samples
for tool in /usr/sbin/opaxlattopology /usr/sbin/opaxmlgenerate; do
  [[ -x $tool ]] || { echo "gen_opa_inputs: $tool missing (apt-get install opa-fastfabric)" >&2; exit 2; }
done
if ((leaves < 2 || spines < 1 || hosts_per_leaf < 1 || hosts_per_leaf + spines > 48)); then
  echo "gen_opa_inputs: need LEAVES>=2, SPINES>=1, HOSTS_PER_LEAF>=1, HOSTS_PER_LEAF+SPINES<=48" >&2
  exit 2
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

header='Standard-Format Topology Spread Sheet,,,,,,,,,
Source,,,,,,Destination,,,,,,Cable,,,Link,,,
Rack Group,Rack,Name,Name-2,Port,Type,Rack Group,Rack,Name,Name-2,Port,Type,Label,Length,Details,Rate,MTU,Details,'

# opaxlattopology reads topology.csv (and linksum_swd*.csv) from the current directory and
# writes the XML plus scratch files there, so each run gets its own directory.
xlat() {  # xlat CSV_FILE OUT_XML
  local dir
  dir=$(mktemp -d -p "$work")
  cp "$1" "$dir/topology.csv"
  cp "$samples"/linksum_swd06.csv "$samples"/linksum_swd24.csv "$dir/"
  (cd "$dir" && /usr/sbin/opaxlattopology -v 0 -d 0 topology.csv out.xml >/dev/null)
  cp "$dir/out.xml" "$2"
}

# --- 1. two-level fat tree of edge switches --------------------------------------------------
name="fattree-${leaves}l${spines}s-$((leaves * hosts_per_leaf))h"
csv="$out/$name.topology.csv"
{
  echo "$header"
  h=0
  for ((l = 1; l <= leaves; l++)); do
    leaf=$(printf 'leaf%02d' "$l")
    for ((p = 1; p <= hosts_per_leaf; p++)); do
      h=$((h + 1))
      host=$(printf 'host%03d' "$h")
      echo "row1,rack$l,$host,,,FI,row1,rack$l,$leaf,,$p,SW,$host $leaf""P$p,2m,Cable CU,100g,10240,,"
    done
    for ((s = 1; s <= spines; s++)); do
      spine=$(printf 'spine%02d' "$s")
      port=$((hosts_per_leaf + s))
      rate=100g
      ((l == 1 && s == 1)) && rate=50g
      echo "row1,rack$l,$leaf,,$port,SW,row1,rackS,$spine,,$l,SW,$leaf""P$port $spine""P$l,5m,Cable Fiber,$rate,10240,,"
    done
  done
  # A multi-rail host: one HFI on each of the first two leaves, on the first free port.
  spare=$((hosts_per_leaf + spines + 1))
  echo "row1,rack1,mrail01 hfi1_0,,,FI,row1,rack1,leaf01,,$spare,SW,mrail01-0,2m,Cable CU,100g,10240,,"
  echo "row1,rack2,mrail01 hfi1_1,,,FI,row1,rack2,leaf02,,$spare,SW,mrail01-1,2m,Cable CU,100g,10240,,"
} >"$csv"
xlat "$csv" "$out/$name.xlat.xml"
echo "$csv"
echo "$out/$name.xlat.xml"

# --- 2. hosts on a 100SWD06 director ----------------------------------------------------------
csv="$work/director.csv"
{
  echo "$header"
  for ((h = 1; h <= 4; h++)); do
    host=$(printf 'dhost%02d' "$h")
    echo "row1,rack1,$host,,,FI,row1,rack2,core1,L101A,$h,CL,$host core1L101P$h,3m,Cable CU,100g,10240,,"
  done
  echo
  echo "Core Name:core1,Core Group:row1,Core Rack:rack2,Core Size:288,Core Full:1,"
} >"$csv"
xlat "$csv" "$out/director-swd06-1l-4h.xlat.xml"
echo "$out/director-swd06-1l-4h.xlat.xml"

# --- 3. GUID-identified links through opaxmlgenerate -----------------------------------------
# Columns as the shipped opatopology_links.txt: Rate;MTU;Internal;LinkDetails;CableLength;
# CableLabel;CableDetails; then twice NodeGUID;PortNum;NodeDesc;PortGUID;NodeType;PortDetails;
cat >"$work/links.txt" <<'LINKS'
100g;10240;0;;2m;c1;;0x0011750101000001;1;fi01 hfi1_0;0x0011750101000001;FI;;0x0011750102000001;1;edge1;;SW;
100g;10240;0;;2m;c2;;0x0011750101000002;1;fi02 hfi1_0;0x0011750101000002;FI;;0x0011750102000001;2;edge1;;SW;
25g;10240;0;;2m;c3;;0x0011750101000003;1;fi03 hfi1_0;0x0011750101000003;FI;;0x0011750102000002;1;edge2;;SW;
100g;10240;0;;5m;c4;;0x0011750102000001;48;edge1;;SW;;0x0011750102000002;48;edge2;;SW;
100g;10240;0;;5m;c5;;;;;0x0011750101000004;;;0x0011750102000002;47;edge2;;SW;
LINKS
cat >"$work/fis.txt" <<'FIS'
0x0011750101000001;fi01 hfi1_0;rack1;1;0x0001;0x0011750101000001
0x0011750101000002;fi02 hfi1_0;rack1;1;0x0002;0x0011750101000002
0x0011750101000003;fi03 hfi1_0;rack2;1;0x0003;0x0011750101000003
0x0011750101000004;fi04 hfi1_0;rack2;1;0x0004;0x0011750101000004
FIS
cat >"$work/sws.txt" <<'SWS'
0x0011750102000001;edge1;rack1;0;0x0010;0x0011750102000001
0x0011750102000002;edge2;rack2;0;0x0011;0x0011750102000002
SWS
{
  echo '<?xml version="1.0" encoding="utf-8" ?>'
  echo '<Topology>'
  echo '<LinkSummary>'
  /usr/sbin/opaxmlgenerate -X "$work/links.txt" -d \; -h Link -g Rate -g MTU -g Internal \
    -g LinkDetails -h Cable -g CableLength -g CableLabel -g CableDetails -e Cable \
    -h Port -g NodeGUID -g PortNum -g NodeDesc -g PortGUID -g NodeType -g PortDetails -e Port \
    -h Port -g NodeGUID -g PortNum -g NodeDesc -g PortGUID -g NodeType -g PortDetails -e Port \
    -e Link
  echo '</LinkSummary>'
  echo '<Nodes>'
  echo '<FIs>'
  /usr/sbin/opaxmlgenerate -X "$work/fis.txt" -d \; -h Node -g NodeGUID -g NodeDesc -g NodeDetails \
    -h Port -g PortNum -g LID -g PortGUID -e Port -e Node
  echo '</FIs>'
  echo '<Switches>'
  /usr/sbin/opaxmlgenerate -X "$work/sws.txt" -d \; -h Node -g NodeGUID -g NodeDesc -g NodeDetails \
    -h Port -g PortNum -g LID -g PortGUID -e Port -e Node
  echo '</Switches>'
  echo '</Nodes>'
  echo '</Topology>'
} >"$out/guids-2sw-4fi.opaxmlgenerate.xml"
echo "$out/guids-2sw-4fi.opaxmlgenerate.xml"

# --- 4. the shipped sample script -------------------------------------------------------------
if [[ -x $samples/opagentopology ]]; then
  "$samples"/opagentopology >"$out/opagentopology-sample.xml"
  echo "$out/opagentopology-sample.xml"
fi

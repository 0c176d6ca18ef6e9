// Parser for the text output of rdma-core's `ibnetdiscover` (infiniband-diags).
//
// Accepted inputs (auto-detected from the first meaningful line):
//   * the topology file: plain `ibnetdiscover` and its `-g` (chassis grouping: `Chassis N`,
//     `# Spine Nodes`... sections, `[ext N]` faceplate numbers), `-f` (` s= w= v=` raw codes
//     after the width/speed), `-m` (extra header lines) variants, any LMC, and the 2007-2009
//     headers (`# Max of N hops discovered`);
//   * the `-p` / `--ports` report (one line per port, `SW|CA|RT LID PORT GUID WIDTH SPEED - ...`).
// Refused with kInvalidArgument: the `-l` / `-H` / `-S` / `-R` node lists (they carry no
// links); the message tells the user to run plain `ibnetdiscover` or `ibnetdiscover -p`.
//
// Tolerated real-world damage (all seen in public dumps): lines of stderr mixed into the
// file (`src/query_smp.c:195; umad ... bad status 110`, `ibwarn: ...`), runs of spaces in
// place of tabs, missing blank lines or whitespace-only lines between records, a `Switch`
// record without a `sysimgguid=` line, ports listed in any order.
//
// What the result holds:
//   * every node once (GUID from the `"S-…"`/`"H-…"`/`"R-…"` id, which always encodes the node
//     GUID; a `switchguid=`/`caguid=`/`rtguid=` line that disagrees is an error), in file order;
//     a 1-port CA whose description contains "Aggregation Node" is NodeType::kAggregation;
//   * the ports that are cabled (only those are printed by ibnetdiscover), with port GUID, base
//     LID and LMC: CA/router ports from `[P](guid) ... # lid L lmc M`, switch ports from the
//     `Switch` line's port-0 LID/LMC (all ports of a switch share the switch GUID);
//     `[ext N]` numbers go to Port::ext_number;
//   * every physical link exactly once (ibnetdiscover prints each from both ends; the two ends
//     must name each other, else an error naming both lines), with width
//     ("1x","2x","4x","8x","12x"; "??" = unknown = 0), speed ("SDR".."XDR", "FDR10";
//     "???" = unknown) and data_rate_gbps = LinkDataRateGbps(width, speed). When the ends
//     report different rates (seen in real dumps: 4xSDR / 1xSDR) the slower known width and
//     speed are kept. A switch port
//     cabled to another port of the same switch is a link. Parallel links are kept.
//   * hosts are NOT assigned here: see collectors/hosts.h (AssignHosts).
//
// Topology-file rules that make a dump an error: a port line before any node header; a
// CA/router record with no port line (a truncated dump); a link to a node that is never
// declared anywhere in the file (reported at the line that references it); a link listed by
// only one of its ends, or ends that disagree; a duplicate node GUID or port line.
//
// `-p` specifics (the report has no node records, so nodes are built from port lines):
//   * switches are identified by their GUID column (= node GUID);
//   * CA/router node GUIDs are not printed; toporr uses `port GUID - port number`, the
//     convention of ibsim and of Mellanox HCAs up to ConnectX-3 (node G, port p = G+p).
//     ConnectX-4 and later report node GUID == port GUID, so for those the -p node GUID is
//     one lower than in the topology file; port GUIDs are exact in both (prefer port GUIDs in
//     host-map files, see hosts.h). Ports sharing a derived node GUID, type and description
//     form one node;
//   * Node::num_ports is the highest port number listed (exact for switches, which list
//     every port; a lower bound for CAs); LMC is not printed (0); unconnected switch ports
//     (`SW 7 8 0x... 4x SDR <spaces> 'desc'`) are not links and get no Port entry.
//
// Performance: one pass over a std::string_view of the input with no per-line allocation
// except node descriptions and ports; linear in the input size. bench/ingest_bench and
// bench/scale_bench measure it on large fat-tree dumps.
// Thread-safety: the function is pure (no shared state).
#ifndef TOPORR_COLLECTORS_IBNETDISCOVER_H_
#define TOPORR_COLLECTORS_IBNETDISCOVER_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "fabric/fabric.h"

namespace toporr::collectors {

struct IbnetdiscoverOptions {
  // Name used in error messages, which read "<file_name>:<line>: <what is wrong>".
  std::string file_name = "ibnetdiscover";
};

// Parses `text` (the whole output; `#@` provenance lines of the shared samples must already
// be stripped). Line numbers in errors are 1-based lines of `text`.
absl::StatusOr<fabric::Fabric> ParseIbnetdiscover(std::string_view text,
                                                  const IbnetdiscoverOptions& options = {});

// Parses a width/speed pair as ibnetdiscover prints it, e.g. "4xQDR", "12xFDR10", "1xSDR",
// "??EDR", "4x???" (topology file) or width "4x" and speed "QDR" given separately (-p
// report). Returns false when `text` is not of that shape. Unknown parts give 0 / kUnknown.
bool ParseWidthSpeed(std::string_view text, int* width_lanes, fabric::LinkSpeed* speed);

}  // namespace toporr::collectors

#endif  // TOPORR_COLLECTORS_IBNETDISCOVER_H_

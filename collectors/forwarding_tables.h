// Linear forwarding tables (LFTs) of a subnet's switches, and the parser for the dumps that
// carry them.
//
// An LFT maps a destination LID to the switch port a packet for that LID leaves by
// (0 = the switch itself, 1..254 = a physical port). OpenSM computes them; the switches hold
// them; these dumps read them back:
//
//   * `ibroute <switch>` (rdma-core infiniband-diags), with or without `-a` (all entries,
//     unassigned ones shown as `(illegal port)`) and `-n` (no destination column);
//   * `dump_fts` (the same block for every switch, addressed by DR path, e.g.
//     `switch DR path slid 0; dlid 0; 0,1,9 guid ...`) and `dump_lfts.sh` (dump_fts followed
//     by a `*** WARNING ***: this command has been replaced by dump_fts` trailer);
//   * OpenSM's own `opensm-lfts.dump` (written to OSM_TMP_DIR, e.g. /var/log, when the log
//     mask includes ROUTING; `Unicast lids [0-N] of switch Lid L guid G ('desc'):` and
//     `0x%04x %03u # <type> portguid G: 'desc'` lines, closed by `N lids dumped`).
//
// Block grammar (both tools):
//   Unicast lids [<first>-<last>] of switch <address> guid 0x<node guid> (<desc>|'<desc>'):
//     [  Lid  Out   Destination]                 (ibroute/dump_fts column headers)
//     [       Port     Info ]
//     0x<lid> <port decimal> [: (<info>) | # <info>]     (one per LID with an entry)
//   <n> [valid ]lids dumped
// Between blocks: blank lines, `Multicast mlids ...` blocks (skipped: toporr routes unicast
// only), the dump_lfts WARNING trailer, and stderr noise the tools interleave (`ibwarn: ...`,
// `SubnGet() failed ...`).
//
// What the result holds: per switch (by node GUID, in file order) the LFT as one byte per
// LID. Entries shown as `(illegal port)` / `(path #k - illegal port)` and port 255 are
// unassigned (kUnsetPort). Where the info column names the destination port GUID
// (`... portguid 0x...`, including LMC `(path #k out of N: portguid 0x...)` lines) the first
// GUID seen for each LID is kept in `lid_port_guid`, so a consumer can check that the dump and
// the topology describe the same LID assignment. The same switch may appear in several
// blocks (e.g. `ibroute -a sw 1 8` + `ibroute -a sw 9 16` concatenated): the entries merge,
// and two blocks giving one LID different ports is an error.
//
// Errors (kInvalidArgument, "<file_name>:<line>: <what is wrong>"): an entry line outside a
// block, a malformed header or entry, a LID outside the header's range or above 0xBFFF
// (the top unicast LID), a port above 254 that is not shown as illegal, a block cut short (no
// `lids dumped` line before the next header or the end of the file), an ibroute block whose
// `<n> [valid ]lids dumped` count disagrees with its entry lines (a truncated dump), any other
// unexpected line. An input with no unicast block at all is an error too.
//
// Performance: one pass over a std::string_view; per switch one allocation (the LFT is sized
// from the header's LID range), none per line; no regular expressions. The tables take one
// byte per (switch, LID). bench/scale_bench (bench/run_scale_bench.sh) measures parse speed
// on the real dumps of large fat trees, against a bare line scan of the same buffer.
// Thread-safety: parsing is a pure function; a ForwardingTables value is safe to read from
// several threads and not thread-safe to mutate.
#ifndef TOPORR_COLLECTORS_FORWARDING_TABLES_H_
#define TOPORR_COLLECTORS_FORWARDING_TABLES_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "fabric/forwarding_tables.h"

namespace toporr::collectors {

struct ForwardingTablesOptions {
  // Name used in error messages, which read "<file_name>:<line>: <what is wrong>".
  std::string file_name = "forwarding tables";
};

// Parses any of the dumps described above (the `#@` provenance lines of the shared samples
// must already be stripped). Line numbers in errors are 1-based lines of `text`.
absl::StatusOr<fabric::ForwardingTables> ParseForwardingTables(
    std::string_view text, const ForwardingTablesOptions& options = {});

}  // namespace toporr::collectors

#endif  // TOPORR_COLLECTORS_FORWARDING_TABLES_H_

// Parser for the text of `opareport -o links` (opa-ff IbaTools/opareport/opareport.c,
// ShowLinksReport + ShowLinkBriefSummary), and of its variants `-o extlinks`, `-o filinks`,
// `-o islinks`, `-o extislinks`, which list a subset of the links in the same layout.
//
// Layout at the default detail level (-d 2), indent 0:
//
//   Link Summary                                  ("External Link Summary", "FI ...", ...)
//   <blank line>                                  (or "Focused on:" + lines, with -F)
//   6 Links in Fabric:                            (":" only at -d 1 and higher)
//   Rate NodeGUID          Port Type Name
//       Cable: CableLabel ...  CableLen           (only with -T topology input with cables)
//       CableDetails
//   100g 0x00117501017a0001   1 FI   n001 hfi1_0  "%4s 0x%016x %3u %2s   %s": from-port,
//   <->  0x00117501026a0001   1 SW   edge01       its rate, then the neighbour port
//       NodeDetails: / PortDetails: / LinkDetails: / Cable: ... / cable detail lines
//   ...
//   2 Matching Links Found                        (only with -F)
//   -------------------------------------------------------------------------------
//
// Lines indented by four or more blanks are details and are skipped. Text before the summary
// heading (another report run in the same command) and after the dashed line is ignored.
//
// What the result holds: the nodes the port lines name (GUID, FI -> kCa / SW -> kSwitch,
// description; num_ports = highest port number seen, no LIDs: the report prints none), in
// order of first mention, and one Link per from/neighbour pair with width and data rate from
// the rate column (see opareport.h). No hosts: call AssignHosts (collectors/hosts.h). A
// focused (-F) or subset (extlinks, ...) report gives only part of the fabric; the caller
// decides whether that is what it wants.
//
// Errors (kInvalidArgument, "<file_name>:<line>: <what>"): no summary heading; more than one
// link summary in the text; a count line printed at -d 0 (no link lines; rerun with -d 1 or
// more); a port line that does not have the layout above; a rate not in opareport.h's table
// (including "???"); a node type other than FI/SW; a from-port line without its "<->" line or
// the reverse; a GUID printed with two different types or descriptions; a port cabled twice;
// a link listed twice; a missing dashed line (truncated file); a link count that differs from
// the "N ... Links in Fabric" (or "N Matching Links Found") line.
//
// Pure and thread-safe; one pass over the text.
#ifndef TOPORR_COLLECTORS_OPA_LINKS_H_
#define TOPORR_COLLECTORS_OPA_LINKS_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "collectors/opareport.h"
#include "fabric/fabric.h"

namespace toporr::collectors {

// Parses the whole report `text`. OpaOptions::keep_unlinked_nodes does not apply (every node
// of this report is on a link). `stats`, when given, receives links and (always 0 here)
// internal/synthesised counts.
absl::StatusOr<fabric::Fabric> ParseOpaLinks(std::string_view text, const OpaOptions& options,
                                             OpaParseStats* stats = nullptr);

}  // namespace toporr::collectors

#endif  // TOPORR_COLLECTORS_OPA_LINKS_H_

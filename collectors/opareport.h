// Pieces shared by the Omni-Path (opa-ff / opa-fastfabric) input parsers:
// opa_topology_xml.h (`opareport -o topology`, `opaxlattopology`, `opagentopology` XML) and
// opa_links.h (`opareport -o links` text).
//
// Omni-Path in the toporr model (collectors/fabric.h):
//   * an HFI (opa-ff node type "FI", NodeType_Int 1) is NodeType::kCa; a switch ("SW", 2) is
//     NodeType::kSwitch. Host names come later from AssignHosts (collectors/hosts.h), which
//     accepts the Omni-Path convention "<host> hfi1_<n>".
//   * link rates. opa-ff prints the active rate of a link as the text of an IB static-rate
//     code (StlStaticRateToText in opa-ff's stl_helper.h). An Omni-Path lane runs at
//     25.78125 Gbaud with 64b/66b encoding = 25 Gb/s of data (or half that, 12.5 Gb/s, when
//     a link trains down), and a link has 1 to 4 lanes, so the rates that occur are:
//
//       text    Rate_Int  Link::data_rate_gbps  Link::width_lanes
//       12.5g   11        12.5                  1   (1 x 12.5)
//       25g     15        25                    1   (1 x 25; 2 x 12.5 is indistinguishable)
//       37.5g    7        37.5                  3   (3 x 12.5)
//       50g     12        50                    2   (2 x 25; 4 x 12.5 is indistinguishable)
//       75g      9        75                    3   (3 x 25)
//       100g    16        100                   4   (4 x 25: a healthy OPA 100 link)
//       200g    17        200                   4   (4 x 50: next-generation Omni-Path)
//
//     Link::speed stays LinkSpeed::kUnknown: the InfiniBand speed names do not describe
//     Omni-Path lanes, and data_rate_gbps (which the cost model reads) is set directly from the
//     table. Any other rate text or code (including opa-ff's "???" and "any") is refused.
//   * synthesised GUIDs: `opaxlattopology` (and hand-written topology files) identify nodes by
//     NodeDesc only. Such a node gets SynthesizedOpaNodeGuid(description) so that the same
//     file always yields the same GUIDs and therefore the same snapshot content hash.
//
// Everything here is pure and thread-safe.
#ifndef TOPORR_COLLECTORS_OPAREPORT_H_
#define TOPORR_COLLECTORS_OPAREPORT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "fabric/fabric.h"

namespace toporr::collectors {

struct OpaOptions {
  // Name used in error messages, which read "<file_name>:<line>: <what is wrong>".
  std::string file_name = "opareport";

  // Topology XML only: keep nodes that are listed under <Nodes> but are an end of no link
  // (they become nodes with no ports). Default false: toporr models the cabled fabric, an
  // unlinked HFI would become a host no path reaches, and `opareport -o topology` itself only
  // lists connected nodes, so such entries come from planning files (opaxlattopology,
  // opagentopology) and describe nodes that are not (yet) cabled.
  bool keep_unlinked_nodes = false;
};

// What a parse saw, for logs and tests. All counts refer to the returned Fabric except
// `unlinked_nodes_dropped`.
struct OpaParseStats {
  int links = 0;               // == fabric.links.size()
  int internal_links = 0;      // XML <Internal>1</Internal>: links inside a director chassis
  int links_without_rate = 0;  // XML links with neither <Rate> nor <Rate_Int> (rate 0)
  int synthesized_guids = 0;   // nodes identified by NodeDesc only
  int unlinked_nodes_dropped = 0;
};

// The width and data rate of one Omni-Path link rate (see the table above).
struct OpaRate {
  int width_lanes = 0;
  double data_rate_gbps = 0.0;
};

// "100g" -> {4, 100.0}; nullopt for text not in the table (case-sensitive, as opa-ff prints).
std::optional<OpaRate> ParseOpaRateText(std::string_view text);
// IB static-rate code (XML <Rate_Int>) -> rate; nullopt for codes not in the table.
std::optional<OpaRate> OpaRateFromCode(int code);

// The GUID toporr gives a node known only by its description: 0x02 in the top byte, then the
// low 56 bits of the 64-bit FNV-1a hash of the description's bytes. In EUI-64 terms the 0x02
// bit of the first byte marks a locally administered identifier, which vendor GUIDs (OUI in
// the top 24 bits, e.g. Intel 00:11:75) never have, so a synthesised GUID cannot equal a real
// one; two descriptions colliding in 56 bits is reported as a duplicate node GUID.
uint64_t SynthesizedOpaNodeGuid(std::string_view description);
// True when `guid` has the synthesised form (top byte 0x02).
bool IsSynthesizedOpaNodeGuid(uint64_t guid);

// "FI" -> kCa, "SW" -> kSwitch; nullopt otherwise.
std::optional<fabric::NodeType> ParseOpaNodeType(std::string_view text);
// NodeType_Int: 1 -> kCa, 2 -> kSwitch; nullopt otherwise.
std::optional<fabric::NodeType> OpaNodeTypeFromCode(int code);

// Fabric::Connect followed by setting the link's width and data rate from `rate` (nullopt:
// unknown rate, width 0, data rate 0). Refuses with kInvalidArgument, naming both ends, a
// link that is already present (opa-ff lists every link once, so a repeat is an error in the
// file) and a port that is already cabled elsewhere.
absl::Status ConnectOpaLink(fabric::LinkEnd x, fabric::LinkEnd y,
                            const std::optional<OpaRate>& rate, fabric::Fabric* fabric);

// "<file_name>:<line>: <what>" as kInvalidArgument.
absl::Status OpaInputError(const OpaOptions& options, long line, std::string_view what);

}  // namespace toporr::collectors

#endif  // TOPORR_COLLECTORS_OPAREPORT_H_

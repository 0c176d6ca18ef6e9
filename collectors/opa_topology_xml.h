// Parser for Omni-Path topology XML: what `opareport -o topology` prints (root <Report>), what
// `opareport -T` accepts (root <Topology> or <Report>), and what opa-fastfabric's planning
// tools write in the same schema: `opaxlattopology` (from the topology spreadsheet, ports named
// by NodeDesc + PortNum only, PortNum possibly zero-padded "01") and `opagentopology` /
// `opaxmlgenerate` (root <Topology>, no indentation). Also `opareport -o links -x` output.
//
// Schema read (opa-ff Topology/topology.c; unknown elements and all attributes are ignored,
// as opa-ff does):
//   <Topology|Report>
//     <LinkSummary> or <ExternalLinkSummary>          (not both: they would repeat links)
//       <Link>  <Rate>100g</Rate> and/or <Rate_Int>16</Rate_Int>, <Internal>0|1</Internal>,
//               exactly two <Port> selectors:
//               <NodeGUID> <PortGUID> <PortNum> <NodeDesc> <NodeType>FI|SW <NodeType_Int>1|2
//     <Nodes> <FIs>|<Switches> <Node> <NodeGUID>? <NodeDesc>? <NodeType>?
//                                     { <Port> <PortNum> <LID>? <LMC>? <PortGUID>? </Port> }
//             <SMs> (ignored: an SM runs on a node that the links already name)
//
// How a port selector is resolved (opa-ff's order of preference, applied to the file itself
// since there is no live fabric to look in):
//   1. NodeGUID (+ PortNum) names the node with that GUID.
//   2. else NodeDesc (+ PortNum): the node with a GUID elsewhere in the file that carries this
//      description if there is exactly one (two is an ambiguity error); otherwise a node
//      known only by its description, whose GUID is SynthesizedOpaNodeGuid(NodeDesc).
//   3. else PortGUID: the port that another selector or a <Nodes> entry gives that PortGUID.
//   The port number is PortNum (decimal, leading zeros allowed, 0..254); without PortNum a
//   PortGUID known for that node supplies it. Anything else is unresolvable and refused.
// A node's type comes from any selector's NodeType/NodeType_Int or from the <Nodes> section it
// is listed in; a node without a type, or with two different ones, is refused. Two different
// NodeDescs for one NodeGUID are refused.
//
// <Nodes> entries add LIDs, LMC and port GUIDs to the nodes the links name: an entry is the
// node with its NodeGUID, or (without NodeGUID) the node its NodeDesc names as in step 2.
// Entries that name no linked node are dropped unless OpaOptions::keep_unlinked_nodes (a
// node's GUID decides: the shipped opagentopology sample lists its two HFIs under <Nodes>
// with GUIDs that differ from the ones its links use, so those entries are such nodes).
//
// What the result holds:
//   * nodes in document order of first mention (opareport prints <Nodes> before the links,
//     opaxlattopology after them), so a file always gives the same Fabric; Node::num_ports is the
//     highest port number mentioned (a lower bound: files only name cabled ports); Node::lid is a
//     switch's port-0 LID or an HFI's first port's LID when <Nodes> has them (opareport -o topology
//     prints them at -d 3 and higher), else 0;
//   * CA ports carry their PortGUID, LID and LMC where the file gives them (switch ports carry
//     the switch GUID and port-0 LID, the model's convention);
//   * every <Link> as one Link, director-internal ones (<Internal>1</Internal>, e.g.
//     "core1 S201A" <-> "core1 L101A" inside a 100SWD24) included: they are real cables
//     inside the chassis and routes cross them. Width and data rate per opareport.h's table;
//     a link with neither <Rate> nor <Rate_Int> has rate 0 (unknown); when both are given
//     they must agree;
//   * no hosts: call AssignHosts (collectors/hosts.h).
//
// Errors (kInvalidArgument, "<file_name>:<line>: <what>", 1-based line of the element at
// fault): XML that is not well formed (truncated files included), a DOCTYPE (refused so no
// entity expansion can happen), another root element, no link section, a <Link> without
// exactly two <Port>s, an unresolvable selector, an unknown rate or node type, malformed
// numbers, a port cabled twice, a link listed twice or cabled to itself.
//
// Uses libxml2 (parser context per call, no network, no entity loading); thread-safe.
// Performance: linear in the document's size.
#ifndef TOPORR_COLLECTORS_OPA_TOPOLOGY_XML_H_
#define TOPORR_COLLECTORS_OPA_TOPOLOGY_XML_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "collectors/opareport.h"
#include "fabric/fabric.h"

namespace toporr::collectors {

// Parses the whole XML document `text`. `stats`, when given, receives what the parse saw.
absl::StatusOr<fabric::Fabric> ParseOpaTopologyXml(std::string_view text, const OpaOptions& options,
                                                   OpaParseStats* stats = nullptr);

}  // namespace toporr::collectors

#endif  // TOPORR_COLLECTORS_OPA_TOPOLOGY_XML_H_

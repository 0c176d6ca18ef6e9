// One entry point from "a file in some format" to toporr's model, shared by the daemon's
// ingest and toporrctl's offline commands. Formats come in three kinds:
//   - topology: the fabric graph (ibnetdiscover, opareport XML, opareport -o links), or the
//     synthetic one of a measured hierarchy (plogp: toporr-probe's probe.json);
//   - forwarding tables: the switches' LFTs (ibroute / dump_fts / dump_lfts.sh output, and
//     OpenSM's opensm-lfts.dump): routes over a topology ingested before;
//   - traces: ibtracert output, checked against the routes of the current snapshot.
#ifndef TOPORR_COLLECTORS_FABRIC_INPUT_H_
#define TOPORR_COLLECTORS_FABRIC_INPUT_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "collectors/forwarding_tables.h"
#include "collectors/hosts.h"
#include "collectors/ibtracert.h"
#include "fabric/fabric.h"

namespace toporr::collectors {

enum class InputFormat {
  kIbnetdiscover,   // "ibnetdiscover": default topology output (-g/-f/-m/LMC) or -p report
  kOpareportXml,    // "opareport-xml": opareport -o topology / opaxlattopology / opagentopology
  kOpareportLinks,  // "opareport-links": opareport -o links (and its link-report variants)
  kLft,             // "lft": ibroute, dump_fts or dump_lfts.sh output
  kOpensmLfts,      // "opensm-lfts": OpenSM's opensm-lfts.dump
  kIbtracert,       // "ibtracert": one or more ibtracert traces (also -n, -G, LMC)
  kPlogp,           // "plogp": toporr-probe's probe.json, the measured hierarchy (plogp.h)
};

enum class InputKind { kTopology, kForwardingTables, kTraces };

// "ibnetdiscover" -> kIbnetdiscover etc.; kInvalidArgument listing the supported names.
absl::StatusOr<InputFormat> ParseInputFormat(std::string_view name);
const char* InputFormatName(InputFormat format);
InputKind KindOf(InputFormat format);
// "ibnetdiscover, opareport-xml, ..." for help texts and errors.
std::string SupportedInputFormats();

struct FabricInput {
  InputFormat format = InputFormat::kIbnetdiscover;
  std::string source_name;  // file name used in errors ("fabric.txt:12: ...")
  std::string_view content;
  HostRule host_rule;
  std::string_view host_map;  // GUID -> host map file content; empty = none
  std::string host_map_name = "host map";
};

// Topology formats: parses `input.content` and assigns hosts. Errors carry
// "<file>:<line>: <problem>"; kInvalidArgument for a non-topology format.
absl::StatusOr<fabric::Fabric> ParseFabricInput(const FabricInput& input);

// Forwarding-table formats (kLft, kOpensmLfts).
absl::StatusOr<fabric::ForwardingTables> ParseForwardingTablesInput(InputFormat format,
                                                                    const std::string& source_name,
                                                                    std::string_view content);

// kIbtracert.
absl::StatusOr<std::vector<fabric::Trace>> ParseTracesInput(const std::string& source_name,
                                                            std::string_view content);

}  // namespace toporr::collectors

#endif  // TOPORR_COLLECTORS_FABRIC_INPUT_H_

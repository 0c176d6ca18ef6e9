#include "collectors/fabric_input.h"

#include "collectors/ibnetdiscover.h"
#include "collectors/opa_links.h"
#include "collectors/opa_topology_xml.h"
#include "collectors/plogp.h"
#include "common/status_macros.h"

namespace toporr::collectors {

using fabric::Fabric;
using fabric::ForwardingTables;
using fabric::Trace;
namespace {

struct FormatInfo {
  InputFormat format;
  const char* name;
  InputKind kind;
};

constexpr FormatInfo kFormats[] = {
    {InputFormat::kIbnetdiscover, "ibnetdiscover", InputKind::kTopology},
    {InputFormat::kOpareportXml, "opareport-xml", InputKind::kTopology},
    {InputFormat::kOpareportLinks, "opareport-links", InputKind::kTopology},
    {InputFormat::kLft, "lft", InputKind::kForwardingTables},
    {InputFormat::kOpensmLfts, "opensm-lfts", InputKind::kForwardingTables},
    {InputFormat::kIbtracert, "ibtracert", InputKind::kTraces},
    {InputFormat::kPlogp, "plogp", InputKind::kTopology},
};

const FormatInfo& Info(InputFormat format) {
  for (const auto& f : kFormats)
    if (f.format == format) return f;
  return kFormats[0];
}

}  // namespace

std::string SupportedInputFormats() {
  std::string out;
  for (const auto& f : kFormats) {
    if (!out.empty()) out += ", ";
    out += f.name;
  }
  return out;
}

absl::StatusOr<InputFormat> ParseInputFormat(std::string_view name) {
  for (const auto& f : kFormats)
    if (name == f.name) return f.format;
  return absl::InvalidArgumentError("unknown input format '" + std::string(name) +
                                    "' (supported: " + SupportedInputFormats() + ")");
}

const char* InputFormatName(InputFormat format) { return Info(format).name; }

InputKind KindOf(InputFormat format) { return Info(format).kind; }

absl::StatusOr<Fabric> ParseFabricInput(const FabricInput& input) {
  Fabric fabric;
  OpaOptions opa;
  opa.file_name = input.source_name;
  switch (input.format) {
    case InputFormat::kIbnetdiscover: {
      IbnetdiscoverOptions opts;
      opts.file_name = input.source_name;
      ASSIGN_OR_RETURN(fabric, ParseIbnetdiscover(input.content, opts));
      break;
    }
    case InputFormat::kOpareportXml: {
      ASSIGN_OR_RETURN(fabric, ParseOpaTopologyXml(input.content, opa));
      break;
    }
    case InputFormat::kOpareportLinks: {
      ASSIGN_OR_RETURN(fabric, ParseOpaLinks(input.content, opa));
      break;
    }
    case InputFormat::kPlogp: {
      ASSIGN_OR_RETURN(PlogpProbe probe, ParsePlogpProbe(input.content, input.source_name));
      ASSIGN_OR_RETURN(fabric, PlogpFabric(probe));
      break;
    }
    default:
      return absl::InvalidArgumentError(std::string(InputFormatName(input.format)) +
                                        " describes routes, not a topology");
  }
  std::unordered_map<uint64_t, std::string> guid_map;
  HostMapOrigin origin;
  if (!input.host_map.empty()) {
    ASSIGN_OR_RETURN(guid_map, ParseHostMap(input.host_map, input.host_map_name, &origin));
  }
  RETURN_IF_ERROR(AssignHosts(input.host_rule, guid_map, &fabric, &origin));
  return fabric;
}

absl::StatusOr<ForwardingTables> ParseForwardingTablesInput(InputFormat format,
                                                            const std::string& source_name,
                                                            std::string_view content) {
  if (KindOf(format) != InputKind::kForwardingTables) {
    return absl::InvalidArgumentError(std::string(InputFormatName(format)) +
                                      " is not a forwarding-table format");
  }
  ForwardingTablesOptions opts;
  opts.file_name = source_name;
  return ParseForwardingTables(content, opts);
}

absl::StatusOr<std::vector<Trace>> ParseTracesInput(const std::string& source_name,
                                                    std::string_view content) {
  IbtracertOptions opts;
  opts.file_name = source_name;
  return ParseIbtracert(content, opts);
}

}  // namespace toporr::collectors

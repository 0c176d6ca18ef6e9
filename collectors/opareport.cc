#include "collectors/opareport.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "common/fnv.h"
#include "common/text_scan.h"

namespace toporr::collectors {

using fabric::Fabric;
using fabric::FormatGuid;
using fabric::Link;
using fabric::LinkEnd;
using fabric::LinkSpeed;
using fabric::Node;
using fabric::NodeType;
namespace {

struct RateRow {
  const char* text;
  int code;  // IB static-rate code as opa-ff's XML <Rate_Int> prints it
  OpaRate rate;
};
constexpr RateRow kRates[] = {
    {"12.5g", 11, {1, 12.5}}, {"25g", 15, {1, 25.0}}, {"37.5g", 7, {3, 37.5}},
    {"50g", 12, {2, 50.0}},   {"75g", 9, {3, 75.0}},  {"100g", 16, {4, 100.0}},
    {"200g", 17, {4, 200.0}},
};

constexpr uint64_t kSynthesizedTopByte = 0x02;

std::string DescribeEnd(const Fabric& f, const LinkEnd& e) {
  const Node& n = f.nodes[e.node];
  return absl::StrCat("port ", e.port, " of \"", n.description, "\" (", FormatGuid(n.guid), ")");
}

}  // namespace

std::optional<OpaRate> ParseOpaRateText(std::string_view text) {
  for (const RateRow& r : kRates)
    if (text == r.text) return r.rate;
  return std::nullopt;
}

std::optional<OpaRate> OpaRateFromCode(int code) {
  for (const RateRow& r : kRates)
    if (code == r.code) return r.rate;
  return std::nullopt;
}

uint64_t SynthesizedOpaNodeGuid(std::string_view description) {
  const uint64_t h = Fnv64a(std::string_view(description.data(), description.size()));
  return (kSynthesizedTopByte << 56) | (h & 0x00ffffffffffffffULL);
}

bool IsSynthesizedOpaNodeGuid(uint64_t guid) { return (guid >> 56) == kSynthesizedTopByte; }

std::optional<NodeType> ParseOpaNodeType(std::string_view text) {
  if (text == "FI") return NodeType::kCa;
  if (text == "SW") return NodeType::kSwitch;
  return std::nullopt;
}

std::optional<NodeType> OpaNodeTypeFromCode(int code) {
  if (code == 1) return NodeType::kCa;
  if (code == 2) return NodeType::kSwitch;
  return std::nullopt;
}

absl::Status ConnectOpaLink(LinkEnd x, LinkEnd y, const std::optional<OpaRate>& rate,
                            Fabric* fabric) {
  const size_t before = fabric->links.size();
  int index = -1;
  const int width = rate ? rate->width_lanes : 0;
  absl::Status s = fabric->Connect(x, y, width, LinkSpeed::kUnknown, &index);
  if (!s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("cannot cable ", DescribeEnd(*fabric, x), " to ",
                                                   DescribeEnd(*fabric, y), ": ", s.message()));
  }
  if (fabric->links.size() == before) {
    return absl::InvalidArgumentError(absl::StrCat("the link between ", DescribeEnd(*fabric, x),
                                                   " and ", DescribeEnd(*fabric, y),
                                                   " is listed twice"));
  }
  Link& link = fabric->links[index];
  link.width_lanes = width;
  link.data_rate_gbps = rate ? rate->data_rate_gbps : 0.0;
  return absl::OkStatus();
}

absl::Status OpaInputError(const OpaOptions& options, long line, std::string_view what) {
  return LineError(options.file_name, line, what);
}

}  // namespace toporr::collectors

#include "fabric/fabric.h"

#include <algorithm>
#include <cstdio>

#include "common/printable.h"

namespace toporr::fabric {

const char* NodeTypeName(NodeType t) {
  switch (t) {
    case NodeType::kSwitch:
      return "switch";
    case NodeType::kCa:
      return "ca";
    case NodeType::kRouter:
      return "router";
    case NodeType::kAggregation:
      return "aggregation";
  }
  return "?";
}

namespace {
struct SpeedInfo {
  LinkSpeed speed;
  const char* name;
  double lane_gbps;
};
constexpr SpeedInfo kSpeeds[] = {
    {LinkSpeed::kSDR, "SDR", 2.0},
    {LinkSpeed::kDDR, "DDR", 4.0},
    {LinkSpeed::kQDR, "QDR", 8.0},
    {LinkSpeed::kFDR10, "FDR10", 10.0},
    {LinkSpeed::kFDR, "FDR", 14.0625 * 64.0 / 66.0},
    {LinkSpeed::kEDR, "EDR", 25.0},
    {LinkSpeed::kHDR, "HDR", 50.0},
    {LinkSpeed::kNDR, "NDR", 100.0},
    {LinkSpeed::kXDR, "XDR", 200.0},
};
}  // namespace

const char* LinkSpeedName(LinkSpeed s) {
  for (const auto& i : kSpeeds)
    if (i.speed == s) return i.name;
  return "???";
}

LinkSpeed ParseLinkSpeed(const std::string& s) {
  for (const auto& i : kSpeeds)
    if (s == i.name) return i.speed;
  return LinkSpeed::kUnknown;
}

double LaneDataRateGbps(LinkSpeed s) {
  for (const auto& i : kSpeeds)
    if (i.speed == s) return i.lane_gbps;
  return 0.0;
}

double LinkDataRateGbps(int width_lanes, LinkSpeed s) {
  if (width_lanes <= 0) return 0.0;
  return width_lanes * LaneDataRateGbps(s);
}

const Port* Node::FindPort(int number) const {
  auto it = std::lower_bound(ports.begin(), ports.end(), number,
                             [](const Port& p, int n) { return p.number < n; });
  return (it != ports.end() && it->number == number) ? &*it : nullptr;
}

Port* Node::FindPort(int number) {
  return const_cast<Port*>(static_cast<const Node*>(this)->FindPort(number));
}

namespace {
Port& EnsurePort(Node& node, int number) {
  auto it = std::lower_bound(node.ports.begin(), node.ports.end(), number,
                             [](const Port& p, int n) { return p.number < n; });
  if (it != node.ports.end() && it->number == number) return *it;
  Port p;
  p.number = number;
  if (node.type == NodeType::kSwitch) {
    p.guid = node.guid;
    p.lid = node.lid;
    p.lmc = node.lmc;
  }
  return *node.ports.insert(it, p);
}
}  // namespace

absl::Status Fabric::AddNode(Node node, int* index) {
  if (const size_t bad = FirstUnprintable(node.description); bad != std::string::npos) {
    return absl::InvalidArgumentError("node " + FormatGuid(node.guid) + " description " +
                                      Quoted(node.description, 80) + ": " +
                                      DescribeUnprintable(node.description, bad));
  }
  auto [it, inserted] = by_guid_.emplace(node.guid, static_cast<int>(nodes.size()));
  if (!inserted) {
    return absl::InvalidArgumentError("duplicate node GUID " + FormatGuid(node.guid));
  }
  std::sort(node.ports.begin(), node.ports.end(),
            [](const Port& a, const Port& b) { return a.number < b.number; });
  nodes.push_back(std::move(node));
  if (index) *index = it->second;
  return absl::OkStatus();
}

absl::Status Fabric::Connect(LinkEnd x, LinkEnd y, int width_lanes, LinkSpeed speed,
                             int* link_index) {
  const int n = static_cast<int>(nodes.size());
  if (x.node < 0 || x.node >= n || y.node < 0 || y.node >= n) {
    return absl::InvalidArgumentError("link end refers to an unknown node");
  }
  if (y.node < x.node || (y.node == x.node && y.port < x.port)) std::swap(x, y);
  if (x == y) {
    return absl::InvalidArgumentError("port " + std::to_string(x.port) + " of " +
                                      FormatGuid(nodes[x.node].guid) + " is cabled to itself");
  }
  Port& px = EnsurePort(nodes[x.node], x.port);
  int existing = px.link;
  Port& py = EnsurePort(nodes[y.node], y.port);
  // EnsurePort on the same node may have moved px; look it up again.
  Port& px2 = *nodes[x.node].FindPort(x.port);
  if (existing >= 0 || py.link >= 0) {
    if (existing >= 0 && existing == py.link) {
      if (link_index) *link_index = existing;
      return absl::OkStatus();
    }
    const LinkEnd& busy = existing >= 0 ? x : y;
    return absl::InvalidArgumentError(
        "port " + std::to_string(busy.port) + " of " + FormatGuid(nodes[busy.node].guid) + " (\"" +
        nodes[busy.node].description + "\") is already cabled elsewhere");
  }
  Link l;
  l.a = x;
  l.b = y;
  l.width_lanes = width_lanes;
  l.speed = speed;
  l.data_rate_gbps = LinkDataRateGbps(width_lanes, speed);
  const int li = static_cast<int>(links.size());
  links.push_back(l);
  px2.link = li;
  py.link = li;
  if (link_index) *link_index = li;
  return absl::OkStatus();
}

int Fabric::FindNodeByGuid(uint64_t guid) const {
  auto it = by_guid_.find(guid);
  return it == by_guid_.end() ? -1 : it->second;
}

int Fabric::FindHost(const std::string& name) const {
  auto it = std::lower_bound(hosts.begin(), hosts.end(), name,
                             [](const Host& h, const std::string& n) { return h.name < n; });
  return (it != hosts.end() && it->name == name) ? static_cast<int>(it - hosts.begin()) : -1;
}

const LinkEnd& Fabric::Peer(int link, const LinkEnd& end) const {
  const Link& l = links[link];
  return l.a == end ? l.b : l.a;
}

size_t Fabric::CountNodes(NodeType t) const {
  return std::count_if(nodes.begin(), nodes.end(), [t](const Node& n) { return n.type == t; });
}

void Fabric::RebuildIndex() {
  by_guid_.clear();
  for (size_t i = 0; i < nodes.size(); ++i) by_guid_.emplace(nodes[i].guid, static_cast<int>(i));
}

std::string FormatGuid(uint64_t guid) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%016llx", static_cast<unsigned long long>(guid));
  return buf;
}

}  // namespace toporr::fabric

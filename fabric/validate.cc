#include "fabric/validate.h"

#include <algorithm>
#include <iterator>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "common/printable.h"

namespace toporr::fabric {
namespace {

constexpr NodeType kNodeTypes[] = {NodeType::kSwitch, NodeType::kCa, NodeType::kRouter,
                                   NodeType::kAggregation};

std::string NodeLabel(const Fabric& f, int node) {
  return "node " + std::to_string(node) + " (" + FormatGuid(f.nodes[node].guid) + ")";
}

absl::Status Invalid(const std::string& what) { return absl::InvalidArgumentError(what); }

}  // namespace

absl::Status ValidateFabric(const Fabric& f) {
  const int n = static_cast<int>(f.nodes.size());
  const int num_links = static_cast<int>(f.links.size());
  const int num_hosts = static_cast<int>(f.hosts.size());
  std::unordered_map<uint64_t, int> guids;
  for (int i = 0; i < n; ++i) {
    const Node& node = f.nodes[i];
    if (const size_t bad = FirstUnprintable(node.description); bad != std::string::npos) {
      return Invalid(NodeLabel(f, i) + " description " + Quoted(node.description, 80) + ": " +
                     DescribeUnprintable(node.description, bad));
    }
    if (std::find(std::begin(kNodeTypes), std::end(kNodeTypes), node.type) ==
        std::end(kNodeTypes)) {
      return Invalid(NodeLabel(f, i) + " has an unknown type");
    }
    auto [it, inserted] = guids.emplace(node.guid, i);
    if (!inserted) {
      return Invalid("nodes " + std::to_string(it->second) + " and " + std::to_string(i) +
                     " share GUID " + FormatGuid(node.guid));
    }
    for (size_t p = 0; p < node.ports.size(); ++p) {
      const Port& port = node.ports[p];
      if (p > 0 && node.ports[p - 1].number >= port.number) {
        return Invalid(NodeLabel(f, i) + ": ports are not in strictly ascending order at port " +
                       std::to_string(port.number));
      }
      if (port.link == -1) continue;
      const LinkEnd end{i, port.number};
      if (port.link < 0 || port.link >= num_links ||
          !(f.links[port.link].a == end || f.links[port.link].b == end)) {
        return Invalid(NodeLabel(f, i) + " port " + std::to_string(port.number) + " names link " +
                       std::to_string(port.link) + ", which does not end at that port");
      }
    }
    if (node.host != -1) {
      if (node.host < 0 || node.host >= num_hosts ||
          std::find(f.hosts[node.host].cas.begin(), f.hosts[node.host].cas.end(), i) ==
              f.hosts[node.host].cas.end()) {
        return Invalid(NodeLabel(f, i) + " names host " + std::to_string(node.host) +
                       ", which does not list it among its CAs");
      }
    }
  }
  for (int l = 0; l < num_links; ++l) {
    for (const LinkEnd* end : {&f.links[l].a, &f.links[l].b}) {
      if (end->node < 0 || end->node >= n) {
        return Invalid("link " + std::to_string(l) + " refers to node " +
                       std::to_string(end->node) + ", out of range");
      }
      const Port* port = f.nodes[end->node].FindPort(end->port);
      if (port == nullptr || port->link != l) {
        return Invalid("link " + std::to_string(l) + " ends at port " + std::to_string(end->port) +
                       " of " + NodeLabel(f, end->node) + ", but that port " +
                       (port == nullptr ? "is not listed" : "does not name the link"));
      }
    }
    if (f.links[l].a == f.links[l].b) {
      return Invalid("link " + std::to_string(l) + " connects a port to itself");
    }
  }
  std::unordered_set<std::string> host_names;
  for (int h = 0; h < num_hosts; ++h) {
    const std::string& name = f.hosts[h].name;
    if (name.empty() || !IsPrintableUtf8(name) || name.find(' ') != std::string::npos) {
      return Invalid("host name " + Quoted(name, 80) +
                     " is not a host name (empty, blanks or not printable UTF-8)");
    }
    if (!host_names.insert(f.hosts[h].name).second) {
      return Invalid("host name \"" + f.hosts[h].name + "\" appears twice");
    }
    for (int ca : f.hosts[h].cas) {
      if (ca < 0 || ca >= n || f.nodes[ca].host != h) {
        return Invalid("host \"" + f.hosts[h].name + "\" lists CA node " + std::to_string(ca) +
                       ", which does not name that host");
      }
    }
  }
  std::unordered_set<int> anonymous;
  for (int node : f.anonymous_endpoints) {
    if (node < 0 || node >= n || !anonymous.insert(node).second) {
      return Invalid("anonymous endpoint " + std::to_string(node) +
                     " is out of range or listed twice");
    }
  }
  return absl::OkStatus();
}

}  // namespace toporr::fabric

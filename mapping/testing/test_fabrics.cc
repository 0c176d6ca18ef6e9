#include "mapping/testing/test_fabrics.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace toporr::mapping::testing {

using fabric::Fabric;
using fabric::LinkSpeed;
using fabric::Node;
using fabric::NodeType;

namespace {
void Check(const absl::Status& s) {
  if (!s.ok()) {
    std::fprintf(stderr, "FabricBuilder: %s\n", s.ToString().c_str());
    std::abort();
  }
}
}  // namespace

int FabricBuilder::AddNode(NodeType type, const std::string& description, int num_ports) {
  Node n;
  n.type = type;
  n.guid = next_guid_++;
  n.num_ports = num_ports;
  n.description = description;
  int index = -1;
  Check(fabric_.AddNode(std::move(n), &index));
  return index;
}

int FabricBuilder::AddSwitch(const std::string& name, int num_ports) {
  return AddNode(NodeType::kSwitch, name, num_ports);
}

int FabricBuilder::AddHostCa(const std::string& host, int num_ports) {
  auto [it, added] = host_index_.emplace(host, static_cast<int>(fabric_.hosts.size()));
  if (added) fabric_.hosts.push_back({host, {}});
  auto& cas = fabric_.hosts[it->second].cas;
  const int ca = AddNode(NodeType::kCa, host + " mlx5_" + std::to_string(cas.size()), num_ports);
  cas.push_back(ca);
  return ca;
}

int FabricBuilder::Connect(int x, int px, int y, int py, LinkSpeed speed, int width) {
  int link = -1;
  Check(fabric_.Connect({x, px}, {y, py}, width, speed, &link));
  return link;
}

Fabric FabricBuilder::Finish() {
  std::sort(fabric_.hosts.begin(), fabric_.hosts.end(),
            [](const fabric::Host& a, const fabric::Host& b) { return a.name < b.name; });
  for (size_t h = 0; h < fabric_.hosts.size(); ++h) {
    for (int ca : fabric_.hosts[h].cas) fabric_.nodes[ca].host = static_cast<int>(h);
  }
  return std::move(fabric_);
}

Fabric MakeFatTree3(int pods, int edges, int aggs, int hosts_per_edge, int cores_per_agg) {
  FabricBuilder b;
  std::vector<int> cores(aggs * cores_per_agg);
  for (size_t c = 0; c < cores.size(); ++c) {
    cores[c] = b.AddSwitch("core" + std::to_string(c), pods);
  }
  int host = 0;
  for (int p = 0; p < pods; ++p) {
    std::vector<int> agg(aggs);
    for (int a = 0; a < aggs; ++a) {
      agg[a] =
          b.AddSwitch("agg" + std::to_string(p) + "_" + std::to_string(a), edges + cores_per_agg);
      for (int k = 0; k < cores_per_agg; ++k) {
        b.Connect(agg[a], edges + 1 + k, cores[a * cores_per_agg + k], p + 1);
      }
    }
    for (int e = 0; e < edges; ++e) {
      const int edge =
          b.AddSwitch("edge" + std::to_string(p) + "_" + std::to_string(e), hosts_per_edge + aggs);
      for (int a = 0; a < aggs; ++a) b.Connect(edge, hosts_per_edge + 1 + a, agg[a], e + 1);
      for (int s = 0; s < hosts_per_edge; ++s) {
        char name[16];
        std::snprintf(name, sizeof(name), "h%05d", host++);
        const int ca = b.AddHostCa(name);
        b.Connect(ca, 1, edge, s + 1);
      }
    }
  }
  return b.Finish();
}

}  // namespace toporr::mapping::testing

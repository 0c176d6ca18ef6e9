#include "db/content_hash.h"

#include <algorithm>
#include <functional>

#include "db/test_fabrics.h"
#include "gtest/gtest.h"

namespace toporr::db {
namespace {

using fabric::Fabric;
using fabric::LinkSpeed;
using testing::MakeSmallFabric;

// The same content with every index permuted: nodes and links in reverse order,
// each link re-oriented as Fabric::Connect would. A different parser (or input
// format) could produce exactly this.
Fabric Reversed(const Fabric& f) {
  const int n = static_cast<int>(f.nodes.size());
  const int m = static_cast<int>(f.links.size());
  auto node_map = [&](int i) { return n - 1 - i; };
  auto link_map = [&](int l) { return l < 0 ? l : m - 1 - l; };
  Fabric r;
  for (int i = n - 1; i >= 0; --i) {
    fabric::Node node = f.nodes[i];
    for (auto& p : node.ports) p.link = link_map(p.link);
    r.nodes.push_back(node);
  }
  for (int l = m - 1; l >= 0; --l) {
    fabric::Link link = f.links[l];
    link.a.node = node_map(link.a.node);
    link.b.node = node_map(link.b.node);
    if (std::make_pair(link.b.node, link.b.port) < std::make_pair(link.a.node, link.a.port)) {
      std::swap(link.a, link.b);
    }
    r.links.push_back(link);
  }
  for (const auto& h : f.hosts) {
    fabric::Host host{h.name, {}};
    for (int ca : h.cas) host.cas.push_back(node_map(ca));
    std::sort(host.cas.begin(), host.cas.end());
    r.hosts.push_back(host);
  }
  for (int a : f.anonymous_endpoints) r.anonymous_endpoints.push_back(node_map(a));
  r.RebuildIndex();
  return r;
}

TEST(FabricContentHashTest, IsLowerHexSha256AndDeterministic) {
  const std::string h = FabricContentHash(MakeSmallFabric());
  ASSERT_EQ(h.size(), 64u);
  EXPECT_TRUE(std::all_of(h.begin(), h.end(),
                          [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }));
  EXPECT_EQ(h, FabricContentHash(MakeSmallFabric()));
  EXPECT_NE(h, FabricContentHash(Fabric()));
}

TEST(FabricContentHashTest, IndependentOfNodeAndLinkOrder) {
  const Fabric f = MakeSmallFabric();
  const Fabric r = Reversed(f);
  ASSERT_NE(r.nodes.front().guid, f.nodes.front().guid);
  EXPECT_EQ(FabricContentHash(f), FabricContentHash(r));
}

TEST(FabricContentHashTest, EveryContentFieldChangesTheHash) {
  const std::string base = FabricContentHash(MakeSmallFabric());
  const std::vector<std::pair<const char*, std::function<void(Fabric&)>>> edits = {
      {"description", [](Fabric& f) { f.nodes[4].description += "x"; }},
      {"node type", [](Fabric& f) { f.nodes[10].type = fabric::NodeType::kCa; }},
      {"node lid", [](Fabric& f) { f.nodes[0].lid += 1; }},
      {"lmc", [](Fabric& f) { f.nodes[4].lmc = 1; }},
      {"system image guid", [](Fabric& f) { f.nodes[0].system_image_guid = 0; }},
      {"vendor", [](Fabric& f) { f.nodes[0].vendor_id += 1; }},
      {"device", [](Fabric& f) { f.nodes[0].device_id += 1; }},
      {"num ports", [](Fabric& f) { f.nodes[0].num_ports += 1; }},
      {"enhanced port 0", [](Fabric& f) { f.nodes[2].enhanced_port0 = false; }},
      {"port ext number", [](Fabric& f) { f.nodes[2].ports[1].ext_number = 99; }},
      {"port lid", [](Fabric& f) { f.nodes[4].ports[0].lid += 1; }},
      {"port guid", [](Fabric& f) { f.nodes[4].ports[0].guid += 1; }},
      {"link speed", [](Fabric& f) { f.links[0].speed = LinkSpeed::kNDR; }},
      {"link width", [](Fabric& f) { f.links[0].width_lanes = 2; }},
      {"link end", [](Fabric& f) { f.links[0].b.port = 39; }},
      {"host name", [](Fabric& f) { f.hosts[1].name = "node002b"; }},
      {"host membership", [](Fabric& f) { f.hosts[0].cas.pop_back(); }},
      {"anonymous endpoints", [](Fabric& f) { f.anonymous_endpoints.clear(); }},
  };
  for (const auto& [what, edit] : edits) {
    Fabric f = MakeSmallFabric();
    edit(f);
    EXPECT_NE(FabricContentHash(f), base) << what;
  }
}

TEST(FabricContentHashTest, IndicesAreNotContent) {
  // Port::link and Node::host are positions; they are re-derived, not hashed.
  Fabric f = MakeSmallFabric();
  Fabric g = MakeSmallFabric();
  g.nodes[6].host = -1;  // inconsistent, but only in an index field
  EXPECT_EQ(FabricContentHash(f), FabricContentHash(g));
}

}  // namespace
}  // namespace toporr::db

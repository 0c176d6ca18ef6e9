#include "db/test_fabrics.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "gtest/gtest.h"

namespace toporr::db::testing {
namespace {

using fabric::Fabric;
using fabric::LinkSpeed;
using fabric::Node;
using fabric::NodeType;
using fabric::Port;

void Check(const absl::Status& s) {
  if (!s.ok()) {
    std::fprintf(stderr, "test_fabrics: %s\n", std::string(s.message()).c_str());
    std::abort();
  }
}

int AddSwitch(Fabric& f, uint64_t guid, const std::string& desc, uint32_t lid, int num_ports) {
  Node n;
  n.type = NodeType::kSwitch;
  n.guid = guid;
  n.system_image_guid = guid;
  n.vendor_id = 0x02c9;
  n.device_id = 0xd2f0;
  n.num_ports = num_ports;
  n.description = desc;
  n.lid = lid;
  Port mgmt;
  mgmt.number = 0;
  mgmt.guid = guid;
  mgmt.lid = lid;
  n.ports.push_back(mgmt);
  int index;
  Check(f.AddNode(std::move(n), &index));
  return index;
}

// A channel-adapter-like node (CA, router or aggregation node) with
// ports 1..num_ports listed up front; port p gets GUID guid + p and LID lid +
// (p - 1) * 2^lmc.
int AddEndpoint(Fabric& f, NodeType type, uint64_t guid, const std::string& desc, uint32_t lid,
                int num_ports, uint8_t lmc = 0) {
  Node n;
  n.type = type;
  n.guid = guid;
  n.vendor_id = 0x02c9;
  n.device_id = 0x101b;
  n.num_ports = num_ports;
  n.description = desc;
  n.lid = lid;
  n.lmc = lmc;
  for (int p = 1; p <= num_ports; ++p) {
    Port port;
    port.number = p;
    port.guid = guid + p;
    port.lid = lid + (p - 1) * (1u << lmc);
    port.lmc = lmc;
    n.ports.push_back(port);
  }
  int index;
  Check(f.AddNode(std::move(n), &index));
  return index;
}

void Cable(Fabric& f, int x, int xp, int y, int yp, int width = 4,
           LinkSpeed speed = LinkSpeed::kHDR) {
  Check(f.Connect({x, xp}, {y, yp}, width, speed));
}

void AddHost(Fabric& f, const std::string& name, std::vector<int> cas) {
  for (int ca : cas) f.nodes[ca].host = static_cast<int>(f.hosts.size());
  f.hosts.push_back({name, std::move(cas)});
}

}  // namespace

Fabric MakeSmallFabric() {
  Fabric f;
  const int spine1 = AddSwitch(f, 0x0002c90300a00001, "spine01 QM8700", 1, 40);
  const int spine2 = AddSwitch(f, 0x0002c90300a00002, "spine02 QM8700", 2, 40);
  const int leaf1 = AddSwitch(f, 0x0002c90300a00010, "leaf01 QM8700", 3, 40);
  const int leaf2 = AddSwitch(f, 0x0002c90300a00011, "leaf02 QM8700", 4, 40);
  f.nodes[leaf1].enhanced_port0 = true;
  f.nodes[leaf2].system_image_guid = 0x0002c90300a0ffff;

  const int n1a = AddEndpoint(f, NodeType::kCa, 0x0002c90300b00100, "node001 mlx5_0", 16, 2, 2);
  const int n1b = AddEndpoint(f, NodeType::kCa, 0x0002c90300b00200, "node001 mlx5_1", 24, 1);
  const int n2 = AddEndpoint(f, NodeType::kCa, 0x0002c90300b00300, "node002 mlx5_0", 25, 1);
  const int n3 = AddEndpoint(f, NodeType::kCa, 0x0002c90300b00400, "node003 mlx5_0", 26, 2);
  const int n4 = AddEndpoint(f, NodeType::kCa, 0x0011750000790000, "node004 hfi1_0", 28, 1);
  const int anon = AddEndpoint(f, NodeType::kCa, 0x0002c90300b00500,
                               "MT4129 ConnectX7   Mellanox Technologies", 29, 1);
  const int router = AddEndpoint(f, NodeType::kRouter, 0x0002c90300c00001, "router-a", 30, 2);
  const int sharp = AddEndpoint(f, NodeType::kAggregation, 0x0002c90300d00001,
                                "Mellanox Technologies Aggregation Node", 31, 1);
  const int n5 = AddEndpoint(f, NodeType::kCa, 0x0002c90300b00600, "node005 mlx5_0", 32, 1);
  f.nodes[n4].vendor_id = 0x1175;
  f.nodes[n4].device_id = 0x24f0;
  f.nodes[n4].system_image_guid = 0x0011750000790000;

  Cable(f, n1a, 1, leaf1, 1);
  Cable(f, leaf2, 1, n1a, 2);  // given in reverse order: Connect orients it
  Cable(f, n1b, 1, leaf1, 2);
  Cable(f, n2, 1, leaf1, 3, 4, LinkSpeed::kEDR);
  Cable(f, n3, 1, leaf2, 2);  // n3 port 2 stays unconnected
  Cable(f, n4, 1, leaf2, 3, 4, LinkSpeed::kEDR);
  Cable(f, anon, 1, leaf2, 4, 1, LinkSpeed::kSDR);
  Cable(f, sharp, 1, leaf2, 5);
  Cable(f, n5, 1, leaf2, 6, 2, LinkSpeed::kNDR);
  Cable(f, router, 1, spine1, 10, 12, LinkSpeed::kFDR10);
  Cable(f, leaf1, 20, spine1, 1);
  Cable(f, leaf1, 21, spine2, 1);
  Cable(f, leaf2, 20, spine1, 2, 4, LinkSpeed::kFDR);
  Cable(f, leaf2, 21, spine2, 2, 8, LinkSpeed::kXDR);
  Cable(f, leaf2, 22, spine2, 3, 0, LinkSpeed::kUnknown);
  Cable(f, leaf1, 30, leaf1, 31, 4,
        LinkSpeed::kQDR);  // loopback cable on one switch
  Cable(f, router, 2, spine2, 10, 1, LinkSpeed::kDDR);
  f.nodes[leaf1].FindPort(20)->ext_number = 10;
  f.nodes[leaf1].FindPort(21)->ext_number = 11;

  AddHost(f, "node001", {n1a, n1b});
  AddHost(f, "node002", {n2});
  AddHost(f, "node003", {n3});
  AddHost(f, "node004", {n4});
  AddHost(f, "node005", {n5});
  f.anonymous_endpoints.push_back(anon);
  return f;
}

Fabric MakeFatTree(int leaves, int cas_per_leaf, int uplinks, int spines, int variant) {
  Fabric f;
  std::vector<int> spine(spines), leaf(leaves);
  const int spine_ports = leaves * uplinks / spines;
  uint32_t lid = 1;
  for (int s = 0; s < spines; ++s) {
    char name[32];
    std::snprintf(name, sizeof(name), "spine%04d", s);
    spine[s] = AddSwitch(f, 0x0002c90300000000ull + s, name, lid++, spine_ports);
  }
  for (int l = 0; l < leaves; ++l) {
    char name[32];
    std::snprintf(name, sizeof(name), "leaf%04d", l);
    leaf[l] = AddSwitch(f, 0x0002c90300100000ull + l, name, lid++, cas_per_leaf + uplinks);
  }
  std::vector<std::pair<std::string, int>> hosts;
  for (int l = 0; l < leaves; ++l) {
    for (int c = 0; c < cas_per_leaf; ++c) {
      const int k = l * cas_per_leaf + c;
      char name[32];
      std::snprintf(name, sizeof(name), "node%05d", k);
      const int ca = AddEndpoint(f, NodeType::kCa, 0x0002c90301000000ull + 16ull * k,
                                 std::string(name) + " mlx5_0", lid++, 1);
      Cable(f, ca, 1, leaf[l], c + 1);
      hosts.push_back({name, ca});
    }
  }
  for (int l = 0; l < leaves; ++l) {
    for (int u = 0; u < uplinks; ++u) {
      const int k = l * uplinks + u;
      const LinkSpeed speed = (variant != 0 && k == 0) ? LinkSpeed::kEDR : LinkSpeed::kHDR;
      Cable(f, leaf[l], cas_per_leaf + 1 + u, spine[k % spines], k / spines + 1, 4, speed);
    }
  }
  for (auto& [name, ca] : hosts) AddHost(f, name, {ca});  // already in name order
  return f;
}

Fabric MakeLargeFatTree(int variant) { return MakeFatTree(640, 16, 32, 320, variant); }

void ExpectFabricsEqual(const Fabric& a, const Fabric& b) {
  ASSERT_EQ(a.nodes.size(), b.nodes.size());
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    SCOPED_TRACE("node " + std::to_string(i));
    const Node& x = a.nodes[i];
    const Node& y = b.nodes[i];
    EXPECT_EQ(x.type, y.type);
    EXPECT_EQ(x.guid, y.guid);
    EXPECT_EQ(x.system_image_guid, y.system_image_guid);
    EXPECT_EQ(x.vendor_id, y.vendor_id);
    EXPECT_EQ(x.device_id, y.device_id);
    EXPECT_EQ(x.num_ports, y.num_ports);
    EXPECT_EQ(x.description, y.description);
    EXPECT_EQ(x.lid, y.lid);
    EXPECT_EQ(x.lmc, y.lmc);
    EXPECT_EQ(x.enhanced_port0, y.enhanced_port0);
    EXPECT_EQ(x.host, y.host);
    ASSERT_EQ(x.ports.size(), y.ports.size());
    for (size_t p = 0; p < x.ports.size(); ++p) {
      SCOPED_TRACE("port index " + std::to_string(p));
      EXPECT_EQ(x.ports[p].number, y.ports[p].number);
      EXPECT_EQ(x.ports[p].ext_number, y.ports[p].ext_number);
      EXPECT_EQ(x.ports[p].guid, y.ports[p].guid);
      EXPECT_EQ(x.ports[p].lid, y.ports[p].lid);
      EXPECT_EQ(x.ports[p].lmc, y.ports[p].lmc);
      EXPECT_EQ(x.ports[p].link, y.ports[p].link);
    }
    EXPECT_EQ(b.FindNodeByGuid(x.guid), static_cast<int>(i));
  }
  ASSERT_EQ(a.links.size(), b.links.size());
  for (size_t i = 0; i < a.links.size(); ++i) {
    SCOPED_TRACE("link " + std::to_string(i));
    EXPECT_EQ(a.links[i].a, b.links[i].a);
    EXPECT_EQ(a.links[i].b, b.links[i].b);
    EXPECT_EQ(a.links[i].width_lanes, b.links[i].width_lanes);
    EXPECT_EQ(a.links[i].speed, b.links[i].speed);
    EXPECT_EQ(a.links[i].data_rate_gbps,
              b.links[i].data_rate_gbps);  // bit-exact REAL
  }
  ASSERT_EQ(a.hosts.size(), b.hosts.size());
  for (size_t i = 0; i < a.hosts.size(); ++i) {
    EXPECT_EQ(a.hosts[i].name, b.hosts[i].name);
    EXPECT_EQ(a.hosts[i].cas, b.hosts[i].cas) << a.hosts[i].name;
  }
  EXPECT_EQ(a.anonymous_endpoints, b.anonymous_endpoints);
}

}  // namespace toporr::db::testing

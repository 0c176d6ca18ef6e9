// HostCosts and FabricRoutes on real ibnetdiscover output (shared samples), parsed and given
// hosts by the collectors, as the daemon does it.
#include <set>
#include <string>
#include <vector>

#include "collectors/hosts.h"
#include "collectors/ibnetdiscover.h"
#include "common/status_matchers.h"
#include "common/test_data.h"
#include "gtest/gtest.h"
#include "mapping/fabric_routes.h"
#include "mapping/host_costs.h"

namespace toporr::mapping {
namespace {

using collectors::Fabric;

Fabric Load(const std::string& name) {
  auto f = collectors::ParseIbnetdiscover(toporr::testing::ReadSharedFabric(name), {name});
  EXPECT_OK(f);
  if (!f.ok()) return Fabric();
  EXPECT_OK(collectors::AssignHosts(collectors::HostRule(), {}, &*f));
  return *std::move(f);
}

constexpr double kQdr4x = 32.0;

// 2 spines x 4 leaves, 4 hosts per leaf (node16 with both HCA ports on leaf04), two parallel
// QDR cables per leaf-spine pair.
TEST(HostCostsSampleTest, FatTreeDefault) {
  const Fabric f = Load("ibnetdiscover_fattree_default.txt");
  ASSERT_EQ(f.hosts.size(), 16u);
  ASSERT_OK_AND_ASSIGN(auto costs, HostCosts::Create(f));
  ASSERT_OK_AND_ASSIGN(auto routes, FabricRoutes::Create(f));
  auto leaf = [](int host) { return host / 4; };  // node01..04 on leaf01, ...
  std::vector<int32_t> r;
  for (int a = 0; a < 16; ++a) {
    for (int b = 0; b < 16; ++b) {
      const HostPairCost c = costs->Cost(a, b);
      routes->Route(a, b, &r);
      if (a == b) {
        EXPECT_EQ(c.hops, 0);
        EXPECT_EQ(c.alpha_ns, 0);
        EXPECT_TRUE(r.empty());
        continue;
      }
      EXPECT_EQ(c.hops, leaf(a) == leaf(b) ? 1 : 3) << f.hosts[a].name << " " << f.hosts[b].name;
      EXPECT_DOUBLE_EQ(c.bottleneck_gbps, kQdr4x);
      EXPECT_EQ(static_cast<int>(r.size()), c.hops + 1);
    }
  }
  const int n01 = f.FindHost("node01"), n16 = f.FindHost("node16");
  ASSERT_OK_AND_ASSIGN(HostPath p, costs->Path(n01, n16));
  ASSERT_EQ(p.hops.size(), 5u);
  EXPECT_EQ(f.nodes[p.hops[1].node].description, "MF0;leaf01:MSX6036/U1");
  EXPECT_NE(f.nodes[p.hops[2].node].description.find("spine"), std::string::npos);
  EXPECT_EQ(f.nodes[p.hops[3].node].description, "MF0;leaf04:MSX6036/U1");
  EXPECT_EQ(p.hops[4].in_port, 1);  // node16's first port (leaf04 port 4)
  EXPECT_EQ(p.hops[3].out_port, 4);

  // node01 to the four hosts of leaf04 (leaf ports 1..4): the four equal up-links of leaf01
  // (ports 9..12, two cables to each spine) each carry one destination.
  std::set<int32_t> up;
  for (const char* h : {"node13", "node14", "node15", "node16"}) {
    routes->Route(n01, f.FindHost(h), &r);
    ASSERT_EQ(r.size(), 4u);
    up.insert(r[1]);
  }
  EXPECT_EQ(up.size(), 4u);
}

// One switch pair with a router between them as well, mixed speeds and widths, a dual-homed
// CA (hostF on both switches), a SHARP aggregation node.
TEST(HostCostsSampleTest, EdgeCases) {
  const Fabric f = Load("ibnetdiscover_edgecases_default.txt");
  ASSERT_OK_AND_ASSIGN(auto costs, HostCosts::Create(f));
  const int a = f.FindHost("hostA"), b = f.FindHost("hostB"), d = f.FindHost("hostD");
  const int e = f.FindHost("hostE"), hf = f.FindHost("hostF");
  ASSERT_GE(std::min({a, b, d, e, hf}), 0);
  EXPECT_EQ(costs->Cost(a, b).hops, 1);
  EXPECT_DOUBLE_EQ(costs->Cost(a, b).bottleneck_gbps, 100.0);  // 4x EDR
  EXPECT_DOUBLE_EQ(costs->Cost(a, d).bottleneck_gbps, 8.0);    // 1x QDR
  EXPECT_DOUBLE_EQ(costs->Cost(a, e).bottleneck_gbps, 96.0);   // 12x QDR
  EXPECT_EQ(costs->Cost(hf, a).hops, 1);                       // via swA, not the router
  EXPECT_DOUBLE_EQ(costs->Cost(hf, a).bottleneck_gbps, 16.0);  // 4x DDR
  ASSERT_OK_AND_ASSIGN(HostPath p, costs->Path(hf, a));
  EXPECT_EQ(f.nodes[p.hops[1].node].description, "MF0;swA:MQM8700/U1");
}

// Real dump with self-looped switch ports, a multi-rail host and SDR..EDR links.
TEST(HostCostsSampleTest, RealLoopsMixed) {
  const Fabric f = Load("ibnetdiscover_real_nvidia_loops_mixed.txt");
  ASSERT_OK_AND_ASSIGN(auto costs, HostCosts::Create(f));
  const int u216 = f.FindHost("r-ufm216"), u111 = f.FindHost("r-ufm111");
  const int u100 = f.FindHost("r-ufm100"), u101 = f.FindHost("r-ufm101");
  const int u96 = f.FindHost("r-ufm96");
  ASSERT_GE(std::min({u216, u111, u100, u101, u96}), 0);
  const double fdr4x = collectors::LinkDataRateGbps(4, collectors::LinkSpeed::kFDR);
  EXPECT_EQ(costs->Cost(u216, u111).hops, 1);
  EXPECT_DOUBLE_EQ(costs->Cost(u216, u111).bottleneck_gbps, fdr4x);
  EXPECT_EQ(costs->Cost(u216, u100).hops, 2);
  EXPECT_DOUBLE_EQ(costs->Cost(u216, u100).bottleneck_gbps, fdr4x);
  EXPECT_EQ(costs->Cost(u101, u96).hops, 1);
  EXPECT_DOUBLE_EQ(costs->Cost(u101, u96).bottleneck_gbps, 8.0);  // 4x SDR
  for (int x = 0; x < costs->num_hosts(); ++x) {
    for (int y = 0; y < costs->num_hosts(); ++y) {
      if (x != y) EXPECT_GE(costs->Cost(x, y).hops, 0) << x << " " << y;
    }
  }
}

}  // namespace
}  // namespace toporr::mapping

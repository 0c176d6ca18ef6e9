#include "mapping/costs/lft_host_costs.h"

#include "collectors/forwarding_tables.h"
#include "collectors/hosts.h"
#include "collectors/ibnetdiscover.h"
#include "common/status_matchers.h"
#include "common/test_data.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::mapping {
namespace {

using ::testing::HasSubstr;
using ::toporr::testing::StatusIs;

struct Sample {
  fabric::Fabric fabric;
  fabric::ForwardingTables tables;
};

Sample Load(const std::string& topo, const std::string& lfts) {
  Sample s;
  auto f = collectors::ParseIbnetdiscover(toporr::testing::ReadSharedFabric(topo), {topo});
  EXPECT_TRUE(f.ok()) << f.status();
  s.fabric = std::move(*f);
  EXPECT_OK(collectors::AssignHosts(collectors::HostRule{}, {}, &s.fabric));
  auto t = collectors::ParseForwardingTables(toporr::testing::ReadSharedFabric(lfts), {lfts});
  EXPECT_TRUE(t.ok()) << t.status();
  s.tables = std::move(*t);
  return s;
}

TEST(LftHostCosts, AgreesWithWalksAndMinhopGraphCostsOnTheFatTree) {
  Sample s = Load("ibnetdiscover_fattree_default.txt", "dump_fts_fattree.txt");
  ASSERT_OK_AND_ASSIGN(auto lft, LftHostCosts::Create(s.fabric, s.tables));
  ASSERT_OK_AND_ASSIGN(auto graph, HostCosts::Create(s.fabric));
  EXPECT_EQ(lft->route_kind(), PairCosts::RouteKind::kForwardingTables);
  const int n = lft->num_hosts();
  ASSERT_EQ(n, 16);
  std::vector<int> all(n);
  for (int i = 0; i < n; ++i) all[i] = i;
  std::vector<HostPairCost> m;
  lft->Matrix(all, &m);
  for (int a = 0; a < n; ++a) {
    for (int b = 0; b < n; ++b) {
      const HostPairCost c = lft->Cost(a, b);
      EXPECT_EQ(m[a * n + b].hops, c.hops) << a << "->" << b;
      EXPECT_DOUBLE_EQ(m[a * n + b].bottleneck_gbps, c.bottleneck_gbps);
      EXPECT_DOUBLE_EQ(m[a * n + b].latency_ns, c.latency_ns);
      // OpenSM minhop routes are shortest paths: same switch count and rate as the graph.
      EXPECT_EQ(c.hops, graph->Cost(a, b).hops);
      EXPECT_DOUBLE_EQ(c.bottleneck_gbps, graph->Cost(a, b).bottleneck_gbps);
    }
  }
  ASSERT_OK_AND_ASSIGN(HostPath p,
                       lft->Path(s.fabric.FindHost("node01"), s.fabric.FindHost("node09")));
  ASSERT_EQ(p.hops.size(), 5u);  // CA, leaf, spine, leaf, CA
  EXPECT_EQ(p.cost.hops, 3);
  EXPECT_THAT(lft->Path(0, 99), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("99")));
}

// The switch-to-host table gives exactly the walk's answer for every pair, on fabrics with
// mixed rates, a dual-homed host, a router, and up/down routing (not minhop).
TEST(LftHostCosts, TableLookupsEqualRouteWalks) {
  for (const auto& [topo, lfts] : std::vector<std::pair<std::string, std::string>>{
           {"ibnetdiscover_fattree_default.txt", "dump_fts_fattree.txt"},
           {"ibnetdiscover_edgecases_default.txt", "dump_fts_edgecases.txt"}}) {
    SCOPED_TRACE(topo);
    Sample s = Load(topo, lfts);
    ASSERT_OK_AND_ASSIGN(auto lft, LftHostCosts::Create(s.fabric, s.tables));
    const int n = lft->num_hosts();
    for (int a = 0; a < n; ++a) {
      for (int b = 0; b < n; ++b) {
        if (a == b) continue;
        absl::StatusOr<LftRoute> walk = lft->routes().HostRoute(a, b);
        const HostPairCost c = lft->Cost(a, b);
        if (!walk.ok()) {
          EXPECT_EQ(c.hops, -1) << a << "->" << b;
          continue;
        }
        EXPECT_EQ(c.hops, walk->switches) << a << "->" << b;
        EXPECT_DOUBLE_EQ(c.bottleneck_gbps, walk->bottleneck_gbps) << a << "->" << b;
      }
    }
  }
}

TEST(LftHostCosts, StaleTablesAreRefused) {
  Sample s = Load("ibnetdiscover_fattree_default.txt", "dump_fts_edgecases.txt");
  EXPECT_FALSE(LftHostCosts::Create(s.fabric, s.tables).ok());
}

}  // namespace
}  // namespace toporr::mapping

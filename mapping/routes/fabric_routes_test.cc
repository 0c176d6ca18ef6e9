#include "mapping/routes/fabric_routes.h"

#include <set>
#include <vector>

#include "common/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mapping/costs/host_costs.h"
#include "mapping/testing/test_fabrics.h"

namespace toporr::mapping {
namespace {

using fabric::Fabric;
using fabric::LinkSpeed;
using ::testing::ElementsAre;
using testing::FabricBuilder;
using toporr::testing::StatusIs;

// The directed links a HostPath crosses, read off the Fabric's ports.
std::vector<int32_t> LinksOfPath(const Fabric& f, const HostPath& p) {
  std::vector<int32_t> out;
  for (size_t i = 0; i + 1 < p.hops.size(); ++i) {
    const int node = p.hops[i].node, port = p.hops[i].out_port;
    const int link = f.nodes[node].FindPort(port)->link;
    const fabric::LinkEnd from{node, port};
    EXPECT_EQ(f.Peer(link, from), (fabric::LinkEnd{p.hops[i + 1].node, p.hops[i + 1].in_port}));
    out.push_back(2 * link + (f.links[link].a == from ? 0 : 1));
  }
  return out;
}

// Checks that every route equals the path HostCosts reports, link for link.
void ExpectRoutesMatchPaths(const Fabric& f) {
  auto routes = FabricRoutes::Create(f);
  ASSERT_OK(routes);
  auto costs = HostCosts::Create(f);
  ASSERT_OK(costs);
  EXPECT_EQ((*routes)->num_directed_links(), 2 * static_cast<int>(f.links.size()));
  std::vector<int32_t> r;
  for (int a = 0; a < (*costs)->num_hosts(); ++a) {
    for (int b = 0; b < (*costs)->num_hosts(); ++b) {
      (*routes)->Route(a, b, &r);
      auto p = (*costs)->Path(a, b);
      if (!p.ok()) {
        EXPECT_TRUE(r.empty());
        EXPECT_FALSE((*routes)->Connected(a, b));
        continue;
      }
      ASSERT_EQ(r, LinksOfPath(f, *p)) << a << " -> " << b;
      if (a != b) {
        ASSERT_EQ(static_cast<int>(r.size()), p->cost.hops + 1);
        for (int32_t l : r) EXPECT_GE((*routes)->link_gbps(l), p->cost.bottleneck_gbps);
      }
    }
  }
}

TEST(FabricRoutesTest, TwoLeavesParallelUplinksAndSlowSpine) {
  FabricBuilder b;
  const int s1 = b.AddSwitch("s1"), s2 = b.AddSwitch("s2");
  const int l1 = b.AddSwitch("leaf1"), l2 = b.AddSwitch("leaf2");
  const int x = b.AddHostCa("x"), y = b.AddHostCa("y"), z = b.AddHostCa("z");
  const int lx = b.Connect(x, 1, l1, 1);
  b.Connect(y, 1, l1, 2);
  const int lz = b.Connect(z, 1, l2, 1);
  b.Connect(l1, 10, s1, 1, LinkSpeed::kEDR);  // s1 is slow on one side
  b.Connect(l2, 10, s1, 2);
  b.Connect(l1, 11, s2, 1, LinkSpeed::kEDR);  // parallel l1-s2 links: port 12 is faster
  const int up = b.Connect(l1, 12, s2, 2);
  const int down = b.Connect(s2, 3, l2, 11);
  const Fabric f = b.Finish();
  auto routes = FabricRoutes::Create(f);
  ASSERT_OK(routes);
  std::vector<int32_t> r;
  (*routes)->Route(f.FindHost("x"), f.FindHost("z"), &r);
  // x -> leaf1 (x is end a), leaf1 -> s2 (leaf1 has the smaller node index: a), s2 -> leaf2
  // (s2 is a), leaf2 -> z (z is a: reverse).
  EXPECT_THAT(r, ElementsAre(2 * lx + (f.links[lx].a.node == x ? 0 : 1),
                             2 * up + (f.links[up].a.node == l1 ? 0 : 1),
                             2 * down + (f.links[down].a.node == s2 ? 0 : 1),
                             2 * lz + (f.links[lz].a.node == l2 ? 0 : 1)));
  EXPECT_DOUBLE_EQ((*routes)->link_gbps(2 * up), 200.0);
  EXPECT_DOUBLE_EQ((*routes)->link_gbps(2 * up + 1), 200.0);
  (*routes)->Route(f.FindHost("x"), f.FindHost("x"), &r);
  EXPECT_TRUE(r.empty());
  ExpectRoutesMatchPaths(f);
}

TEST(FabricRoutesTest, FatTreeRoutesMatchPaths) {
  ExpectRoutesMatchPaths(testing::MakeFatTree3(/*pods=*/3, /*edges=*/3, /*aggs=*/2,
                                               /*hosts_per_edge=*/3, /*cores_per_agg=*/2));
}

TEST(FabricRoutesTest, DualHomedDirectAndDisconnected) {
  FabricBuilder b;
  const int l1 = b.AddSwitch("leaf1"), l2 = b.AddSwitch("leaf2"), island = b.AddSwitch("island");
  const int a = b.AddHostCa("a"), c = b.AddHostCa("c");
  const int d0 = b.AddHostCa("d"), d1 = b.AddHostCa("d");
  const int e = b.AddHostCa("e"), g = b.AddHostCa("g"), z = b.AddHostCa("z");
  b.Connect(a, 1, l1, 1);
  b.Connect(c, 1, l2, 1);
  b.Connect(d0, 1, l1, 2);
  b.Connect(d1, 1, l2, 2);
  b.Connect(l1, 10, l2, 10);
  const int direct = b.Connect(e, 1, g, 1);
  b.Connect(z, 1, island, 1);
  const Fabric f = b.Finish();
  ExpectRoutesMatchPaths(f);
  auto routes = FabricRoutes::Create(f);
  ASSERT_OK(routes);
  std::vector<int32_t> r;
  (*routes)->Route(f.FindHost("g"), f.FindHost("e"), &r);
  EXPECT_THAT(r, ElementsAre(2 * direct + 1));
  (*routes)->Route(f.FindHost("d"), f.FindHost("c"), &r);
  EXPECT_EQ(r.size(), 2u);  // the leaf2 rail

  // Job views: indexed over the job's list; disconnected or bad lists are refused.
  ASSERT_OK_AND_ASSIGN(auto job, (*routes)->ForJob({f.FindHost("c"), f.FindHost("a")}));
  std::vector<int32_t> direct_view;
  job->Route(1, 0, &r);
  (*routes)->Route(f.FindHost("a"), f.FindHost("c"), &direct_view);
  EXPECT_EQ(r, direct_view);
  EXPECT_EQ(r.size(), 3u);  // a -> leaf1 -> leaf2 -> c
  EXPECT_EQ(job->num_directed_links(), (*routes)->num_directed_links());
  EXPECT_THAT(
      (*routes)->ForJob({f.FindHost("a"), f.FindHost("z")}),
      StatusIs(absl::StatusCode::kFailedPrecondition, ::testing::HasSubstr("not connected")));
  EXPECT_THAT((*routes)->ForJob({0, 0}),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));
  EXPECT_THAT((*routes)->ForJob({0, 77}),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));
}

TEST(FabricRoutesTest, NoKnownRateUsesTheFallback) {
  FabricBuilder b;
  const int leaf = b.AddSwitch("leaf");
  const int x = b.AddHostCa("x"), y = b.AddHostCa("y");
  b.Connect(x, 1, leaf, 1, LinkSpeed::kUnknown);
  b.Connect(y, 1, leaf, 2, LinkSpeed::kUnknown);
  const Fabric f = b.Finish();
  FabricRoutesOptions o;
  o.gbps_when_no_rate_known = 56;
  auto routes = FabricRoutes::Create(f, o);
  ASSERT_OK(routes);
  EXPECT_DOUBLE_EQ((*routes)->link_gbps(3), 56.0);
}

// 10,240 hosts on 960 switches (see host_costs_test). Build time and route throughput at
// this size are measured by bench/mapping_bench (BM_FabricRoutes*).
TEST(FabricRoutesTest, ThreeLevelFatTreeAtScale) {
  const Fabric f = testing::MakeFatTree3(/*pods=*/20, /*edges=*/16, /*aggs=*/16,
                                         /*hosts_per_edge=*/32, /*cores_per_agg=*/20);
  auto routes = FabricRoutes::Create(f);
  ASSERT_OK(routes);
  std::vector<int32_t> r;
  // Host h is on edge h / 32 of pod h / 512: 1, 3 or 5 switches, so 2, 4 or 6 links.
  (*routes)->Route(0, 31, &r);
  EXPECT_EQ(r.size(), 2u);
  (*routes)->Route(0, 511, &r);
  EXPECT_EQ(r.size(), 4u);
  (*routes)->Route(0, 10239, &r);
  EXPECT_EQ(r.size(), 6u);

  // From host 0 to the 32 hosts of one remote edge switch: the up-link out of host 0's edge
  // is spread over all 16 aggregation switches, the agg -> core link over 16 x 20 / 32 ...
  // at least 16 distinct cores. Lowest-port-first would use one of each.
  std::set<int32_t> edge_up, agg_up;
  for (int b = 10240 - 32; b < 10240; ++b) {
    (*routes)->Route(0, b, &r);
    ASSERT_EQ(r.size(), 6u);
    edge_up.insert(r[1]);
    agg_up.insert(r[2]);
  }
  EXPECT_EQ(edge_up.size(), 16u);
  EXPECT_GE(agg_up.size(), 16u);
}

}  // namespace
}  // namespace toporr::mapping

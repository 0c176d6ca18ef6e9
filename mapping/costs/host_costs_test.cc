#include "mapping/costs/host_costs.h"

#include <cmath>
#include <vector>

#include "common/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mapping/testing/test_fabrics.h"

namespace toporr::mapping {
namespace {

using fabric::Fabric;
using fabric::LinkSpeed;
using fabric::NodeType;
using testing::FabricBuilder;
using ::testing::HasSubstr;
using toporr::testing::StatusIs;

constexpr double kHdr4x = 200.0;
constexpr double kEdr4x = 100.0;

std::unique_ptr<HostCosts> MustCreate(const Fabric& f, CostModelOptions o = {}) {
  auto c = HostCosts::Create(f, o);
  EXPECT_OK(c);
  return c.ok() ? *std::move(c) : nullptr;
}

// Two leaves under one spine: a, b on leaf1 (ports 1, 2), c on leaf2 (port 1); uplinks are
// leaf port 10 to spine ports 1 and 2.
struct TwoLeaves {
  FabricBuilder b;
  int spine, leaf1, leaf2, a, bb, c;
  explicit TwoLeaves(LinkSpeed uplink2 = LinkSpeed::kHDR, int uplink2_width = 4) {
    spine = b.AddSwitch("spine");
    leaf1 = b.AddSwitch("leaf1");
    leaf2 = b.AddSwitch("leaf2");
    a = b.AddHostCa("a");
    bb = b.AddHostCa("b");
    c = b.AddHostCa("c");
    b.Connect(a, 1, leaf1, 1);
    b.Connect(bb, 1, leaf1, 2);
    b.Connect(c, 1, leaf2, 1);
    b.Connect(leaf1, 10, spine, 1);
    b.Connect(leaf2, 10, spine, 2, uplink2, uplink2_width);
  }
};

TEST(HostCostsTest, TwoLeavesOneSpine) {
  TwoLeaves t;
  const Fabric f = t.b.Finish();
  auto costs = MustCreate(f);
  ASSERT_NE(costs, nullptr);
  ASSERT_EQ(costs->num_hosts(), 3);
  const int a = f.FindHost("a"), b = f.FindHost("b"), c = f.FindHost("c");

  const HostPairCost ab = costs->Cost(a, b);
  EXPECT_EQ(ab.hops, 1);
  EXPECT_DOUBLE_EQ(ab.bottleneck_gbps, kHdr4x);
  EXPECT_DOUBLE_EQ(ab.latency_ns, 600 + 130 + 2 * 15);
  EXPECT_DOUBLE_EQ(ab.alpha_ns, ab.latency_ns);
  EXPECT_DOUBLE_EQ(ab.beta_ns_per_byte, 8.0 / kHdr4x);

  const HostPairCost ac = costs->Cost(a, c);
  EXPECT_EQ(ac.hops, 3);
  EXPECT_DOUBLE_EQ(ac.latency_ns, 600 + 3 * 130 + 4 * 15);
  EXPECT_EQ(costs->Cost(c, a).hops, 3);
  EXPECT_LT(costs->TimeNs(a, b, 1 << 20), costs->TimeNs(a, c, 1 << 20));

  for (int h = 0; h < 3; ++h) {
    const HostPairCost d = costs->Cost(h, h);
    EXPECT_EQ(d.hops, 0);
    EXPECT_EQ(d.latency_ns, 0);
    EXPECT_EQ(d.alpha_ns, 0);
    EXPECT_EQ(d.beta_ns_per_byte, 0);
    EXPECT_EQ(d.bottleneck_gbps, 0);
  }
}

TEST(HostCostsTest, OptionsChangeLatencyOnly) {
  TwoLeaves t;
  const Fabric f = t.b.Finish();
  auto costs = MustCreate(f, CostModelOptions{1000, 200, 10});
  const HostPairCost ac = costs->Cost(f.FindHost("a"), f.FindHost("c"));
  EXPECT_DOUBLE_EQ(ac.latency_ns, 1000 + 3 * 200 + 4 * 10);
  EXPECT_DOUBLE_EQ(ac.bottleneck_gbps, kHdr4x);
}

TEST(HostCostsTest, SlowUplinkLowersBottleneck) {
  TwoLeaves t(LinkSpeed::kEDR);
  const Fabric f = t.b.Finish();
  auto costs = MustCreate(f);
  const int a = f.FindHost("a"), b = f.FindHost("b"), c = f.FindHost("c");
  EXPECT_DOUBLE_EQ(costs->Cost(a, c).bottleneck_gbps, kEdr4x);
  EXPECT_DOUBLE_EQ(costs->Cost(a, c).beta_ns_per_byte, 8.0 / kEdr4x);
  EXPECT_DOUBLE_EQ(costs->Cost(a, b).bottleneck_gbps, kHdr4x);  // stays on leaf1
}

TEST(HostCostsTest, UnknownRateCountsAsSlowestKnown) {
  TwoLeaves t(LinkSpeed::kUnknown, 0);
  const int slow = t.b.AddHostCa("d");
  t.b.Connect(slow, 1, t.leaf1, 3, LinkSpeed::kQDR);  // 32 Gb/s: the slowest known rate
  const Fabric f = t.b.Finish();
  auto costs = MustCreate(f);
  EXPECT_DOUBLE_EQ(costs->Cost(f.FindHost("a"), f.FindHost("c")).bottleneck_gbps, 32.0);
  EXPECT_DOUBLE_EQ(costs->Cost(f.FindHost("a"), f.FindHost("b")).bottleneck_gbps, kHdr4x);
}

TEST(HostCostsTest, NoKnownRateGivesZeroBottleneckAndLatencyOnlyCost) {
  FabricBuilder b;
  const int leaf = b.AddSwitch("leaf");
  const int x = b.AddHostCa("x"), y = b.AddHostCa("y");
  b.Connect(x, 1, leaf, 1, LinkSpeed::kUnknown, 4);
  b.Connect(y, 1, leaf, 2, LinkSpeed::kHDR, 0);
  const Fabric f = b.Finish();
  auto costs = MustCreate(f);
  const HostPairCost c = costs->Cost(0, 1);
  EXPECT_EQ(c.hops, 1);
  EXPECT_EQ(c.bottleneck_gbps, 0);
  EXPECT_EQ(c.beta_ns_per_byte, 0);
  EXPECT_GT(c.alpha_ns, 0);
}

TEST(HostCostsTest, ParallelLinksTheFasterCountsAndDestinationsSpread) {
  TwoLeaves t;
  t.b.Connect(t.leaf1, 9, t.spine, 3, LinkSpeed::kEDR);   // slower, lowest port number
  t.b.Connect(t.leaf1, 11, t.spine, 4, LinkSpeed::kHDR);  // as fast as port 10
  const int c2 = t.b.AddHostCa("c2");
  t.b.Connect(c2, 1, t.leaf2, 2);
  const Fabric f = t.b.Finish();
  auto costs = MustCreate(f);
  const int a = f.FindHost("a"), c = f.FindHost("c");
  EXPECT_EQ(costs->Cost(a, c).hops, 3);
  EXPECT_DOUBLE_EQ(costs->Cost(a, c).bottleneck_gbps, kHdr4x);
  // Candidates at leaf1 are ports 10 and 11 (never the EDR port 9); the destination's leaf
  // port picks one: c on port 1 -> 11, c2 on port 2 -> 10.
  ASSERT_OK_AND_ASSIGN(HostPath p, costs->Path(a, c));
  ASSERT_EQ(p.hops.size(), 5u);
  EXPECT_EQ(p.hops[1].node, t.leaf1);
  EXPECT_EQ(p.hops[1].out_port, 11);
  EXPECT_EQ(p.hops[2].in_port, 4);
  ASSERT_OK_AND_ASSIGN(HostPath p2, costs->Path(a, f.FindHost("c2")));
  EXPECT_EQ(p2.hops[1].out_port, 10);
  EXPECT_EQ(p2.hops[3].out_port, 2);
}

TEST(HostCostsTest, WidestAmongShortestNotALongerWiderPath) {
  // leaf1 -(HDR)- s1 -(EDR)- leaf2, leaf1 -(HDR)- s2 -(HDR)- leaf2: take s2 (wider, same
  // length). leaf1 - x - y - leaf2 all HDR is longer, so it never wins over width.
  FabricBuilder b;
  const int s1 = b.AddSwitch("s1"), s2 = b.AddSwitch("s2");
  const int leaf1 = b.AddSwitch("leaf1"), leaf2 = b.AddSwitch("leaf2");
  const int leaf3 = b.AddSwitch("leaf3");
  const int x = b.AddSwitch("x"), y = b.AddSwitch("y");
  const int ha = b.AddHostCa("a"), hc = b.AddHostCa("c"), he = b.AddHostCa("e");
  b.Connect(ha, 1, leaf1, 1);
  b.Connect(hc, 1, leaf2, 1);
  b.Connect(he, 1, leaf3, 1);
  b.Connect(leaf1, 10, s1, 1);
  b.Connect(leaf2, 10, s1, 2, LinkSpeed::kEDR);
  b.Connect(leaf1, 11, s2, 1);
  b.Connect(leaf2, 11, s2, 2);
  // leaf3 reaches leaf1 only by an EDR 2-switch path or an HDR 3-switch path.
  b.Connect(leaf3, 10, s1, 3, LinkSpeed::kEDR);
  b.Connect(leaf3, 11, x, 1);
  b.Connect(x, 2, y, 1);
  b.Connect(y, 2, leaf1, 12);
  const Fabric f = b.Finish();
  auto costs = MustCreate(f);
  const int a = f.FindHost("a"), c = f.FindHost("c"), e = f.FindHost("e");
  EXPECT_EQ(costs->Cost(a, c).hops, 3);
  EXPECT_DOUBLE_EQ(costs->Cost(a, c).bottleneck_gbps, kHdr4x);
  ASSERT_OK_AND_ASSIGN(HostPath p, costs->Path(a, c));
  ASSERT_EQ(p.hops.size(), 5u);
  EXPECT_EQ(p.hops[2].node, s2);
  EXPECT_EQ(p.hops[1].out_port, 11);
  EXPECT_EQ(p.hops[2].in_port, 1);
  EXPECT_EQ(p.hops[2].out_port, 2);
  EXPECT_EQ(p.hops[3].in_port, 11);

  EXPECT_EQ(costs->Cost(e, a).hops, 3);
  EXPECT_DOUBLE_EQ(costs->Cost(e, a).bottleneck_gbps, kEdr4x);
}

TEST(HostCostsTest, PathListsNodesAndPorts) {
  TwoLeaves t;
  const Fabric f = t.b.Finish();
  auto costs = MustCreate(f);
  const int a = f.FindHost("a"), c = f.FindHost("c");
  ASSERT_OK_AND_ASSIGN(HostPath p, costs->Path(a, c));
  EXPECT_EQ(p.src_host, a);
  EXPECT_EQ(p.dst_host, c);
  ASSERT_EQ(p.hops.size(), 5u);
  const int expect[5][3] = {
      {t.a, -1, 1}, {t.leaf1, 1, 10}, {t.spine, 1, 2}, {t.leaf2, 10, 1}, {t.c, 1, -1}};
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(p.hops[i].node, expect[i][0]) << i;
    EXPECT_EQ(p.hops[i].in_port, expect[i][1]) << i;
    EXPECT_EQ(p.hops[i].out_port, expect[i][2]) << i;
  }
  EXPECT_EQ(p.cost.hops, 3);
  EXPECT_DOUBLE_EQ(p.cost.latency_ns, costs->Cost(a, c).latency_ns);

  ASSERT_OK_AND_ASSIGN(HostPath self, costs->Path(a, a));
  EXPECT_TRUE(self.hops.empty());
  EXPECT_EQ(self.cost.hops, 0);
}

TEST(HostCostsTest, DualHomedHostUsesTheCloserRail) {
  TwoLeaves t;
  // d: rail 0 on leaf1, rail 1 (a second CA) on leaf2.
  const int d0 = t.b.AddHostCa("d");
  const int d1 = t.b.AddHostCa("d");
  t.b.Connect(d0, 1, t.leaf1, 5);
  t.b.Connect(d1, 1, t.leaf2, 5);
  const Fabric f = t.b.Finish();
  auto costs = MustCreate(f);
  const int a = f.FindHost("a"), c = f.FindHost("c"), d = f.FindHost("d");
  EXPECT_EQ(costs->Cost(d, a).hops, 1);
  EXPECT_EQ(costs->Cost(d, c).hops, 1);
  EXPECT_EQ(costs->Cost(c, d).hops, 1);
  ASSERT_OK_AND_ASSIGN(HostPath p, costs->Path(d, c));
  EXPECT_EQ(p.hops.front().node, d1);
  EXPECT_EQ(p.hops[1].node, t.leaf2);
}

TEST(HostCostsTest, MultiRailOnOneLeafPicksTheWiderPort) {
  TwoLeaves t;
  const int e = t.b.AddNode(NodeType::kCa, "e mlx5_0", 2);
  t.b.Connect(e, 1, t.leaf1, 6, LinkSpeed::kEDR);
  t.b.Connect(e, 2, t.leaf1, 7, LinkSpeed::kHDR);
  Fabric f = t.b.Finish();
  f.hosts.push_back({"zz-e", {e}});  // sorted: "zz-e" is last
  f.nodes[e].host = static_cast<int>(f.hosts.size()) - 1;
  auto costs = MustCreate(f);
  const int he = f.FindHost("zz-e"), a = f.FindHost("a");
  EXPECT_DOUBLE_EQ(costs->Cost(he, a).bottleneck_gbps, kHdr4x);
  ASSERT_OK_AND_ASSIGN(HostPath p, costs->Path(he, a));
  EXPECT_EQ(p.hops[0].out_port, 2);
  EXPECT_EQ(p.hops[1].in_port, 7);
}

TEST(HostCostsTest, DisconnectedAndBadIndices) {
  TwoLeaves t;
  const int island = t.b.AddSwitch("island");
  const int z = t.b.AddHostCa("z");
  t.b.Connect(z, 1, island, 1);
  t.b.AddHostCa("uncabled");
  const Fabric f = t.b.Finish();
  auto costs = MustCreate(f);
  const int a = f.FindHost("a"), zi = f.FindHost("z"), u = f.FindHost("uncabled");
  for (int other : {zi, u}) {
    const HostPairCost c = costs->Cost(a, other);
    EXPECT_EQ(c.hops, -1);
    EXPECT_EQ(c.bottleneck_gbps, 0);
    EXPECT_TRUE(std::isinf(c.alpha_ns));
    EXPECT_THAT(costs->Path(a, other), StatusIs(absl::StatusCode::kNotFound, HasSubstr("no path")));
  }
  EXPECT_THAT(costs->Path(a, 99), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("99")));
  EXPECT_THAT(costs->Path(-1, a), StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));
  EXPECT_EQ(costs->Cost(a, 99).hops, -1);
}

TEST(HostCostsTest, RoutersAndAggregationNodesAreNotTransit) {
  TwoLeaves t;
  const int leaf3 = t.b.AddSwitch("leaf3");
  const int r = t.b.AddNode(NodeType::kRouter, "router", 2);
  const int agg = t.b.AddNode(NodeType::kAggregation, "Mellanox Technologies Aggregation Node", 1);
  const int g = t.b.AddHostCa("g");
  t.b.Connect(t.leaf1, 20, r, 1);
  t.b.Connect(r, 2, leaf3, 20);
  t.b.Connect(agg, 1, t.leaf1, 21);
  t.b.Connect(g, 1, leaf3, 1);
  t.b.Connect(t.leaf1, 22, t.leaf1, 23);  // self-cabled: ignored
  const Fabric f = t.b.Finish();
  auto costs = MustCreate(f);
  EXPECT_EQ(costs->Cost(f.FindHost("a"), f.FindHost("g")).hops, -1);
  EXPECT_EQ(costs->Cost(f.FindHost("a"), f.FindHost("c")).hops, 3);
  EXPECT_EQ(costs->Cost(f.FindHost("a"), f.FindHost("b")).hops, 1);
}

TEST(HostCostsTest, BackToBackHostsHaveZeroSwitches) {
  FabricBuilder b;
  const int x = b.AddHostCa("x"), y = b.AddHostCa("y");
  b.Connect(x, 1, y, 1, LinkSpeed::kNDR);
  const Fabric f = b.Finish();
  auto costs = MustCreate(f);
  const HostPairCost c = costs->Cost(0, 1);
  EXPECT_EQ(c.hops, 0);
  EXPECT_DOUBLE_EQ(c.bottleneck_gbps, 400.0);
  EXPECT_DOUBLE_EQ(c.latency_ns, 600 + 15);
  ASSERT_OK_AND_ASSIGN(HostPath p, costs->Path(1, 0));
  ASSERT_EQ(p.hops.size(), 2u);
  EXPECT_EQ(p.hops[0].node, y);
  EXPECT_EQ(p.hops[1].node, x);
}

TEST(HostCostsTest, SurvivesTheFabricAndMatrixIsRowMajor) {
  std::unique_ptr<HostCosts> costs;
  {
    TwoLeaves t(LinkSpeed::kEDR);
    const Fabric f = t.b.Finish();
    costs = MustCreate(f);
  }  // the Fabric is gone
  std::vector<HostPairCost> m;
  const std::vector<int> hosts = {2, 0, 1};
  costs->Matrix(hosts, &m);
  ASSERT_EQ(m.size(), 9u);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      const HostPairCost want = costs->Cost(hosts[i], hosts[j]);
      EXPECT_EQ(m[i * 3 + j].hops, want.hops);
      EXPECT_EQ(m[i * 3 + j].bottleneck_gbps, want.bottleneck_gbps);
      EXPECT_EQ(m[i * 3 + j].alpha_ns, want.alpha_ns);
    }
  }
  EXPECT_EQ(m[0 * 3 + 1].hops, 3);  // c -> a
  EXPECT_EQ(m[1 * 3 + 2].hops, 1);  // a -> b
}

TEST(HostCostsTest, MatrixEqualsCostWithRailsDirectLinksRepeatsAndBadIndices) {
  TwoLeaves t(LinkSpeed::kEDR);
  const int d0 = t.b.AddHostCa("d"), d1 = t.b.AddHostCa("d");
  t.b.Connect(d0, 1, t.leaf1, 5);
  t.b.Connect(d1, 1, t.leaf2, 5);
  const int e = t.b.AddHostCa("e"), g = t.b.AddHostCa("g");  // e: leaf2 and back to back to g
  const int e2 = t.b.AddHostCa("e");
  t.b.Connect(e, 1, g, 1);
  t.b.Connect(e2, 1, t.leaf2, 6);
  const int h = t.b.AddHostCa("h");  // same leaf port set as b: shares b's class
  t.b.Connect(h, 1, t.leaf1, 7);
  t.b.AddHostCa("lonely");
  const Fabric f = t.b.Finish();
  auto costs = MustCreate(f);
  std::vector<int> hosts;
  for (int i = 0; i < costs->num_hosts(); ++i) hosts.push_back(i);
  hosts.push_back(0);   // a repeated host
  hosts.push_back(42);  // out of range
  hosts.push_back(f.FindHost("lonely"));
  std::vector<HostPairCost> m;
  costs->Matrix(hosts, &m);
  const size_t n = hosts.size();
  ASSERT_EQ(m.size(), n * n);
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) {
      const HostPairCost want = costs->Cost(hosts[i], hosts[j]);
      const HostPairCost& got = m[i * n + j];
      EXPECT_EQ(got.hops, want.hops) << hosts[i] << " " << hosts[j];
      EXPECT_EQ(got.bottleneck_gbps, want.bottleneck_gbps) << hosts[i] << " " << hosts[j];
      EXPECT_EQ(got.alpha_ns, want.alpha_ns) << hosts[i] << " " << hosts[j];
      EXPECT_EQ(got.beta_ns_per_byte, want.beta_ns_per_byte) << hosts[i] << " " << hosts[j];
    }
  }
  EXPECT_EQ(costs->Cost(f.FindHost("e"), f.FindHost("g")).hops, 0);
  EXPECT_EQ(costs->Cost(f.FindHost("e"), f.FindHost("c")).hops, 1);
  EXPECT_EQ(costs->Cost(f.FindHost("g"), f.FindHost("c")).hops, -1);
  EXPECT_EQ(costs->Cost(f.FindHost("b"), f.FindHost("h")).hops, 1);
}

TEST(HostCostsTest, InconsistentFabricIsRefused) {
  TwoLeaves t;
  Fabric f = t.b.Finish();
  f.hosts[0].cas.push_back(t.spine);
  EXPECT_THAT(HostCosts::Create(f),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a CA")));
}

// 20 pods x 16 edges x 32 hosts = 10,240 hosts on 960 switches (320 cores).
TEST(HostCostsTest, ThreeLevelFatTreeAtScale) {
  const Fabric f = testing::MakeFatTree3(/*pods=*/20, /*edges=*/16, /*aggs=*/16,
                                         /*hosts_per_edge=*/32, /*cores_per_agg=*/20);
  ASSERT_EQ(f.hosts.size(), 10240u);
  ASSERT_EQ(f.CountNodes(NodeType::kSwitch), 960u);
  // Speed of Create and Matrix at this size: bench/mapping_bench (BM_HostCosts*).
  auto costs = MustCreate(f);
  ASSERT_NE(costs, nullptr);
  std::vector<int> hosts;
  for (int i = 0; i < 1000; ++i) hosts.push_back((i * 10) % 10240);
  std::vector<HostPairCost> m;
  costs->Matrix(hosts, &m);
  ASSERT_EQ(m.size(), hosts.size() * hosts.size());

  // Host h sits on edge h / 32 of pod h / 512.
  auto expect_hops = [](int x, int y) {
    if (x == y) return 0;
    if (x / 32 == y / 32) return 1;
    if (x / 512 == y / 512) return 3;
    return 5;
  };
  for (size_t i = 0; i < hosts.size(); i += 7) {
    for (size_t j = 0; j < hosts.size(); j += 3) {
      ASSERT_EQ(m[i * hosts.size() + j].hops, expect_hops(hosts[i], hosts[j]))
          << hosts[i] << " " << hosts[j];
    }
  }
  for (size_t i = 0; i < hosts.size(); i += 37) {
    for (size_t j = 0; j < hosts.size(); j += 11) {
      ASSERT_EQ(m[i * hosts.size() + j].alpha_ns, costs->Cost(hosts[i], hosts[j]).alpha_ns);
    }
  }
  ASSERT_OK_AND_ASSIGN(HostPath p, costs->Path(0, 10239));
  EXPECT_EQ(p.hops.size(), 7u);
  EXPECT_DOUBLE_EQ(p.cost.bottleneck_gbps, kHdr4x);
}

}  // namespace
}  // namespace toporr::mapping

// The process-graph plans of libtoporr's topology constructors, on the bundled 16-host fat
// tree (deploy/demo/fattree-2l-16h.ibnet: node01..04 on leaf 1, node05..08 on leaf 2, ...).
#include "client/plan/graph_plan.h"

#include <set>
#include <string>
#include <vector>

#include "client/costs/job_costs.h"
#include "client/plan/job_layout.h"
#include "client/plan/launch_files.h"
#include "collectors/fabric_input.h"
#include "common/status_matchers.h"
#include "common/test_data.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mapping/reorder/graph_reorder.h"
#include "mapping/reorder/placer.h"

namespace toporr::client {
namespace {

using ::testing::HasSubstr;
using ::toporr::testing::StatusIs;

TEST(CartGraphTest, EdgesBothWaysWrappingWherePeriodic) {
  // 4x4, periodic along the first dimension: 4 rings of 4 (16 pairs) and 4 chains of 4
  // (12 pairs), each pair an edge both ways of kBytesPerEdgeUnit.
  ASSERT_OK_AND_ASSIGN(mapping::CommGraph g, CartGraph({4, 4}, {true, false}, 16));
  EXPECT_EQ(g.num_ranks, 16);
  ASSERT_EQ(g.edges.size(), 56u);
  std::set<std::pair<int, int>> pairs;
  for (const mapping::CommEdge& e : g.edges) {
    EXPECT_EQ(e.bytes, kBytesPerEdgeUnit);
    pairs.insert({e.from, e.to});
  }
  EXPECT_EQ(pairs.size(), 56u);
  EXPECT_TRUE(pairs.count({12, 0})) << "(3,0) wraps to (0,0)";
  EXPECT_FALSE(pairs.count({3, 0})) << "(0,3) does not wrap to (0,0)";
  EXPECT_TRUE(pairs.count({0, 1}));
  EXPECT_TRUE(pairs.count({1, 0}));
}

TEST(CartGraphTest, RanksBeyondTheGridHaveNoEdgesAndTooSmallAJobIsRefused) {
  ASSERT_OK_AND_ASSIGN(mapping::CommGraph g, CartGraph({2, 3}, {false, false}, 8));
  EXPECT_EQ(g.num_ranks, 8);
  for (const mapping::CommEdge& e : g.edges) {
    EXPECT_LT(e.from, 6);
    EXPECT_LT(e.to, 6);
  }
  EXPECT_THAT(CartGraph({4, 4}, {false, false}, 8),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("16 nodes")));
  EXPECT_THAT(CartGraph({4, 0}, {false, false}, 8),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));
  EXPECT_THAT(CartGraph({4, 4}, {false}, 16),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));
}

// 16 ranks over 8 hosts, one per leaf in turn (rank r on the (r % 8)-th host of node01,
// node05, node09, node13, node02, ...), as the MPI tests place them: neighbours in the grid
// sit on different leaves in launch order.
class FattreeGrid : public ::testing::Test {
 protected:
  void SetUp() override {
    text_ = ::toporr::testing::ReadFileOrDie("deploy/demo/fattree-2l-16h.ibnet");
    collectors::FabricInput in;
    in.source_name = "fattree-2l-16h.ibnet";
    in.content = text_;
    ASSERT_OK_AND_ASSIGN(fabric_, collectors::ParseFabricInput(in));
    const std::vector<std::string> spread = {"node01", "node05", "node09", "node13",
                                             "node02", "node06", "node10", "node14"};
    for (int r = 0; r < 16; ++r) rank_hosts_.push_back(spread[r % 8]);
  }
  std::string text_;
  fabric::Fabric fabric_;
  std::vector<std::string> rank_hosts_;
};

TEST_F(FattreeGrid, EmbeddingIsAPermutationPredictedFasterThanTheLaunchOrder) {
  const JobLayout layout = LayoutFromRankHosts(rank_hosts_);
  const mapping::Placement placement = JobPlacement(layout, {});
  ASSERT_OK_AND_ASSIGN(JobCosts costs, JobCostsFromFabric(fabric_, layout.hosts));
  ASSERT_OK_AND_ASSIGN(mapping::CommGraph graph, CartGraph({4, 4}, {true, false}, 16));
  ASSERT_OK_AND_ASSIGN(mapping::Embedding e, PlanGraph(graph, placement, *costs.costs));
  ASSERT_EQ(e.mapping.size(), 16u);
  EXPECT_EQ(std::set<int32_t>(e.mapping.begin(), e.mapping.end()).size(), 16u);
  EXPECT_NE(e.method, mapping::EmbedMethod::kIdentity);
  EXPECT_LT(e.cost_ns, e.identity_cost_ns);
  ASSERT_OK_AND_ASSIGN(mapping::RankDistance d,
                       mapping::RankDistance::Create(placement, *costs.costs));
  EXPECT_DOUBLE_EQ(e.cost_ns, mapping::GraphCostNs(d, graph, e.mapping));
  EXPECT_DOUBLE_EQ(e.identity_cost_ns,
                   mapping::GraphCostNs(d, graph, mapping::IdentityMapping(16)));
}

// What libtoporr plans on (the layout of the gathered host names, unbound ranks) and what
// `toporrctl plan --ranks` plans on (a hostfile in order of first appearance) give one order.
TEST_F(FattreeGrid, LibraryAndToporrctlInputsGiveTheSameOrder) {
  const JobLayout layout = LayoutFromRankHosts(rank_hosts_);
  ASSERT_OK_AND_ASSIGN(JobCosts library_costs, JobCostsFromFabric(fabric_, layout.hosts));
  ASSERT_OK_AND_ASSIGN(mapping::CommGraph graph, CartGraph({4, 4}, {true, false}, 16));
  ASSERT_OK_AND_ASSIGN(mapping::Embedding library,
                       PlanGraph(graph, JobPlacement(layout, {}), *library_costs.costs));

  std::string hostfile, ranks;
  for (const std::string& h : layout.hosts) hostfile += h + " slots=2\n";
  for (const std::string& h : rank_hosts_) ranks += h + "\n";
  ASSERT_OK_AND_ASSIGN(JobHosts hosts, ParseHostfile(hostfile, "hosts"));
  ASSERT_OK_AND_ASSIGN(mapping::Placement placement, ExplicitPlacement(hosts, ranks, "ranks"));
  ASSERT_OK_AND_ASSIGN(JobCosts ctl_costs, JobCostsFromFabric(fabric_, hosts.names));
  ASSERT_OK_AND_ASSIGN(mapping::Embedding ctl, PlanGraph(graph, placement, *ctl_costs.costs));
  EXPECT_EQ(ctl.mapping, library.mapping);
  EXPECT_EQ(ctl.method, library.method);
  EXPECT_DOUBLE_EQ(ctl.cost_ns, library.cost_ns);
}

TEST_F(FattreeGrid, AGraphOfAnotherSizeIsRefused) {
  const JobLayout layout = LayoutFromRankHosts(rank_hosts_);
  ASSERT_OK_AND_ASSIGN(JobCosts costs, JobCostsFromFabric(fabric_, layout.hosts));
  ASSERT_OK_AND_ASSIGN(mapping::CommGraph graph, CartGraph({2, 2}, {false, false}, 4));
  EXPECT_THAT(PlanGraph(graph, JobPlacement(layout, {}), *costs.costs),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));
}

// Pairs (r, r ^ 1) exchanging 1 MiB: the launch order splits every pair over two leaves, so
// each host's link carries both of its ranks' messages. The volume measure (PlanGraph) sees
// no gain in putting a pair on one host (a host is no faster inside than its link); the
// traffic measure does: after it every pair shares a host and no link carries anything.
TEST_F(FattreeGrid, TrafficPlanSeesTheHostsLinkShared) {
  const JobLayout layout = LayoutFromRankHosts(rank_hosts_);
  const mapping::Placement placement = JobPlacement(layout, {});
  ASSERT_OK_AND_ASSIGN(JobCosts costs, JobCostsFromFabric(fabric_, layout.hosts));
  mapping::CommGraph pairs;
  pairs.num_ranks = 16;
  for (int r = 0; r < 16; ++r) pairs.edges.push_back({r, r ^ 1, int64_t{1} << 20});
  ASSERT_OK_AND_ASSIGN(mapping::Embedding e,
                       PlanTraffic(pairs, placement, *costs.costs, costs.routes.get()));
  EXPECT_NE(e.method, mapping::EmbedMethod::kIdentity);
  EXPECT_LT(e.cost_ns, e.identity_cost_ns * (1 - kMinTrafficGain));
  for (int k = 0; k < 8; ++k) {
    EXPECT_EQ(placement.ranks[e.mapping[2 * k]].host, placement.ranks[e.mapping[2 * k + 1]].host)
        << k;
  }
  // Without routes the hosts' own links are modelled: the same conclusion.
  ASSERT_OK_AND_ASSIGN(mapping::Embedding host_links,
                       PlanTraffic(pairs, placement, *costs.costs, nullptr));
  EXPECT_LT(host_links.cost_ns, host_links.identity_cost_ns);
  // Pairs (r, r + 8) already share a host: nothing to gain, the launch order stays.
  mapping::CommGraph together;
  together.num_ranks = 16;
  for (int r = 0; r < 16; ++r) together.edges.push_back({r, (r + 8) % 16, int64_t{1} << 20});
  ASSERT_OK_AND_ASSIGN(mapping::Embedding kept,
                       PlanTraffic(together, placement, *costs.costs, costs.routes.get()));
  EXPECT_EQ(kept.method, mapping::EmbedMethod::kIdentity);
  EXPECT_EQ(kept.mapping, mapping::IdentityMapping(16));
}

}  // namespace
}  // namespace toporr::client

#include "mapping/graph_embed.h"

#include <algorithm>
#include <random>
#include <vector>

#include "common/status_matchers.h"
#include "gtest/gtest.h"
#include "mapping/hierarchical_cost_matrix.h"

namespace toporr::mapping {
namespace {

using ::testing::HasSubstr;
using ::toporr::testing::StatusIs;

TEST(CartesianGraphTest, EdgeCountsMatchMpiNeighbours) {
  ASSERT_OK_AND_ASSIGN(CommGraph open, CartesianGraph({3, 4}, {false, false}, 10));
  EXPECT_EQ(open.num_ranks, 12);
  EXPECT_EQ(open.edges.size(), 2u * (3 * 3 + 2 * 4));
  ASSERT_OK_AND_ASSIGN(CommGraph torus, CartesianGraph({3, 4}, {true, true}, 10));
  EXPECT_EQ(torus.edges.size(), 2u * (12 + 12));
  ASSERT_OK_AND_ASSIGN(CommGraph two, CartesianGraph({2}, {true}, 10));
  EXPECT_EQ(two.edges.size(), 2u);
  // Row-major: rank 5 is (1, 1); its +1 neighbours are 9 (dim 0) and 6 (dim 1).
  int found = 0;
  for (const CommEdge& e : open.edges) found += e.from == 5 && (e.to == 9 || e.to == 6);
  EXPECT_EQ(found, 2);
  EXPECT_THAT(CartesianGraph({3, 0}, {false, false}, 1),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("dimension 1")));
  EXPECT_THAT(CartesianGraph({3}, {false, false}, 1),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("periods")));
}

struct GridJob {
  Placement placement;
  std::unique_ptr<HierarchicalCostMatrix> hosts;
};

GridJob RoundRobinFatTree(int num_hosts, int per_host, int hosts_per_leaf) {
  GridJob s;
  s.placement = RoundRobinPlacement(num_hosts, per_host);
  FatTreeShape shape;
  shape.num_hosts = num_hosts;
  shape.hosts_per_leaf = hosts_per_leaf;
  shape.leaves_per_pod = 2;
  shape.core_gbps = 25;
  s.hosts = FatTreeCostMatrix(shape).value();
  return s;
}

TEST(GraphEmbedTest, BothEmbeddersBeatIdentityOnAScatteredGrid) {
  // 16 x 16 torus halo exchange of 64 KiB, ranks scattered round-robin over 32 hosts.
  GridJob s = RoundRobinFatTree(32, 8, 4);
  ASSERT_OK_AND_ASSIGN(RankDistance d, RankDistance::Create(s.placement, *s.hosts));
  ASSERT_OK_AND_ASSIGN(CommGraph grid, CartesianGraph({16, 16}, {true, true}, 64 << 10));
  const double identity = GraphCostNs(d, grid, IdentityMapping(256));
  ASSERT_OK_AND_ASSIGN(Mapping greedy, EmbedGreedy(d, grid));
  ASSERT_OK_AND_ASSIGN(Mapping scotch, EmbedScotch(d, grid));
  ASSERT_TRUE(IsPermutation(greedy));
  ASSERT_TRUE(IsPermutation(scotch));
  EXPECT_LT(GraphCostNs(d, grid, greedy), 0.8 * identity);
  EXPECT_LT(GraphCostNs(d, grid, scotch), 0.8 * identity);
  ASSERT_OK_AND_ASSIGN(Embedding best, EmbedGraph(d, grid));
  EXPECT_EQ(best.cost_ns, std::min(best.greedy_cost_ns, best.scotch_cost_ns));
  EXPECT_DOUBLE_EQ(best.cost_ns, GraphCostNs(d, grid, best.mapping));
  // Deterministic, Scotch included.
  ASSERT_OK_AND_ASSIGN(Mapping scotch2, EmbedScotch(d, grid));
  EXPECT_EQ(scotch, scotch2);
  ASSERT_OK_AND_ASSIGN(Embedding again, EmbedGraph(d, grid));
  EXPECT_EQ(best.mapping, again.mapping);
}

TEST(GraphEmbedTest, UnevenHostsStillGivePermutations) {
  // Hosts with 1..7 ranks, shuffled: the Scotch target is a sub-architecture with holes.
  std::mt19937 rng(5);
  Placement p;
  p.num_hosts = 11;
  for (int h = 0; h < 11; ++h)
    for (int i = 0; i <= h % 7; ++i) {
      RankLocation loc;
      loc.host = h;
      loc.core = i;
      loc.l3 = i / 4;
      loc.numa = loc.package = 0;
      p.ranks.push_back(loc);
    }
  std::shuffle(p.ranks.begin(), p.ranks.end(), rng);
  FatTreeShape shape;
  shape.num_hosts = 11;
  shape.hosts_per_leaf = 3;
  shape.leaves_per_pod = 2;
  ASSERT_OK_AND_ASSIGN(auto hosts, FatTreeCostMatrix(shape));
  ASSERT_OK_AND_ASSIGN(RankDistance d, RankDistance::Create(p, *hosts));
  const int n = d.size();
  CommGraph g{n, {}};
  std::uniform_int_distribution<int> pick(0, n - 1);
  for (int e = 0; e < 3 * n; ++e) g.edges.push_back({pick(rng), pick(rng), 1 + pick(rng)});
  ASSERT_OK_AND_ASSIGN(Embedding e, EmbedGraph(d, g));
  EXPECT_TRUE(IsPermutation(e.mapping));
  EXPECT_GE(e.scotch_cost_ns, 0);
  ASSERT_OK_AND_ASSIGN(Mapping scotch, EmbedScotch(d, g));
  EXPECT_TRUE(IsPermutation(scotch));
  EXPECT_THAT(EmbedScotch(d, CommGraph{n + 1, {}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("ranks")));
}

}  // namespace
}  // namespace toporr::mapping

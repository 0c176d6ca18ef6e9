#include "mapping/embedding/graph_embed.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "common/status_matchers.h"
#include "gtest/gtest.h"
#include "mapping/costs/dense_cost_matrix.h"
#include "mapping/costs/hierarchical_cost_matrix.h"

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
  EmbedOptions all;
  all.run_greedy = true;
  ASSERT_OK_AND_ASSIGN(Embedding best, EmbedGraph(d, grid, all));
  EXPECT_EQ(best.cost_ns, std::min({best.identity_cost_ns, best.bipartition_cost_ns,
                                    best.greedy_cost_ns, best.scotch_cost_ns}));
  EXPECT_DOUBLE_EQ(best.identity_cost_ns, identity);
  EXPECT_DOUBLE_EQ(best.cost_ns, GraphCostNs(d, grid, best.mapping));
  // Deterministic, Scotch included.
  ASSERT_OK_AND_ASSIGN(Mapping scotch2, EmbedScotch(d, grid));
  EXPECT_EQ(scotch, scotch2);
  ASSERT_OK_AND_ASSIGN(Embedding again, EmbedGraph(d, grid, all));
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

// A placement of `num_hosts` hosts with `per_host` slots each (2 packages, L3s of
// `cores_per_l3` cores), ranks dealt round robin over the hosts ("--map-by node", so the
// identity is a poor embedding), on a fat tree of 4-host leaves and 2-leaf pods.
struct Job {
  Placement placement;
  std::unique_ptr<HostCostMatrix> hosts;
};

Job RoundRobinJob(int num_hosts, int per_host, int cores_per_l3) {
  Job j;
  j.placement = RoundRobinPlacement(num_hosts, per_host, cores_per_l3, /*l3_per_numa=*/1,
                                    /*numa_per_package=*/per_host / cores_per_l3 / 2);
  FatTreeShape shape;
  shape.num_hosts = num_hosts;
  shape.hosts_per_leaf = 4;
  shape.leaves_per_pod = 2;
  shape.core_gbps = 50;
  j.hosts = FatTreeCostMatrix(shape).value();
  return j;
}

// Hosts on a ring (a dense matrix that no tree describes): alpha grows with ring distance.
Job RingJob(int num_hosts, int per_host) {
  Job j;
  j.placement = RoundRobinPlacement(num_hosts, per_host, /*cores_per_l3=*/4);
  std::vector<double> alpha(num_hosts * num_hosts, 0), beta(num_hosts * num_hosts, 0);
  for (int a = 0; a < num_hosts; ++a) {
    for (int b = 0; b < num_hosts; ++b) {
      if (a == b) continue;
      const int hops = std::min(std::abs(a - b), num_hosts - std::abs(a - b));
      alpha[a * num_hosts + b] = 600 + 250.0 * hops;
      beta[a * num_hosts + b] = 8.0 / 100;
    }
  }
  j.hosts = DenseCostMatrix::Create(num_hosts, alpha, beta).value();
  return j;
}

// n points uniform in the unit square (fixed seed), an edge both ways between points
// closer than `radius`, heavier when closer: the mesh of an unstructured simulation with
// ranks numbered in no geometric order.
CommGraph RandomGeometricGraph(int n, double radius, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<std::pair<double, double>> pts(n);
  for (auto& p : pts) p = {unit(rng), unit(rng)};
  CommGraph g{n, {}};
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      const double dist = std::hypot(pts[a].first - pts[b].first, pts[a].second - pts[b].second);
      if (dist >= radius) continue;
      const int64_t bytes = 1024 + static_cast<int64_t>(32768 * (1 - dist / radius));
      g.edges.push_back({a, b, bytes});
      g.edges.push_back({b, a, bytes});
    }
  }
  return g;
}

// The intra-host model these cases were tuned under (crossing sockets dearer than a
// same-leaf host for small messages), pinned so that changing the library defaults does not
// change what the cases compare.
IntraHostModel DearSockets() {
  IntraHostModel m;
  m.latency_ns = {150, 250, 400, 600, 900};
  m.gbps = {200, 160, 120, 100, 60};
  return m;
}

struct VersusScotchCase {
  const char* name;
  Job job;
  CommGraph graph;
  IntraHostModel intra = DearSockets();
};

// Crossing sockets cheaper than any network hop (DearSockets() has it the other way
// round for small messages): the embedder then keeps the machine's nesting order.
IntraHostModel CheapSockets() {
  IntraHostModel m;
  m.latency_ns = {120, 200, 280, 350, 450};
  m.gbps = {300, 240, 200, 180, 150};
  return m;
}

std::vector<VersusScotchCase> VersusScotchCases() {
  std::vector<VersusScotchCase> cases;
  cases.push_back({"2d_torus_16x16_64k", RoundRobinJob(16, 16, 4),
                   CartesianGraph({16, 16}, {true, true}, 64 << 10).value()});
  cases.push_back({"2d_grid_24x20_4k", RoundRobinJob(30, 16, 4),
                   CartesianGraph({24, 20}, {false, false}, 4 << 10).value()});
  cases.push_back({"3d_torus_8x8x8_4k", RoundRobinJob(32, 16, 4),
                   CartesianGraph({8, 8, 8}, {true, true, true}, 4 << 10).value()});
  cases.push_back({"3d_torus_16x8x8_4k", RoundRobinJob(32, 32, 8),
                   CartesianGraph({16, 8, 8}, {true, true, true}, 4 << 10).value()});
  cases.push_back(
      {"random_geometric_320", RoundRobinJob(20, 16, 4), RandomGeometricGraph(320, 0.1, 7)});
  cases.push_back({"2d_torus_on_host_ring", RingJob(16, 16),
                   CartesianGraph({16, 16}, {true, true}, 16 << 10).value()});
  cases.push_back({"3d_torus_16x8x8_cheap_sockets", RoundRobinJob(32, 32, 8),
                   CartesianGraph({16, 8, 8}, {true, true, true}, 4 << 10).value(),
                   CheapSockets()});
  cases.push_back({"random_geometric_cheap_sockets", RoundRobinJob(20, 16, 4),
                   RandomGeometricGraph(320, 0.1, 9), CheapSockets()});
  return cases;
}

TEST(GraphEmbedTest, BipartitionIsAtLeastAsGoodAsScotch) {
  for (const VersusScotchCase& c : VersusScotchCases()) {
    SCOPED_TRACE(c.name);
    ASSERT_OK_AND_ASSIGN(RankDistance d,
                         RankDistance::Create(c.job.placement, *c.job.hosts, c.intra));
    ASSERT_OK_AND_ASSIGN(Mapping ours, EmbedBipartition(d, c.graph));
    ASSERT_OK_AND_ASSIGN(Mapping scotch, EmbedScotch(d, c.graph));
    ASSERT_TRUE(IsPermutation(ours));
    const double identity = GraphCostNs(d, c.graph, IdentityMapping(d.size()));
    const double ours_ns = GraphCostNs(d, c.graph, ours);
    const double scotch_ns = GraphCostNs(d, c.graph, scotch);
    std::printf("%-32s identity %.4g ns  bipartition %.4f  scotch %.4f of identity\n", c.name,
                identity, ours_ns / identity, scotch_ns / identity);
    EXPECT_LE(ours_ns, scotch_ns);
    EXPECT_LT(ours_ns, identity);
    ASSERT_OK_AND_ASSIGN(Embedding e, EmbedGraph(d, c.graph));
    EXPECT_EQ(e.method, EmbedMethod::kBipartition);
    EXPECT_EQ(e.mapping, ours);
  }
}

// A deterministic permutation on every kind of input, including the awkward ones.
TEST(GraphEmbedTest, BipartitionPropertiesOnAwkwardGraphs) {
  std::mt19937 rng(11);
  Job job = RoundRobinJob(12, 16, 4);
  ASSERT_OK_AND_ASSIGN(RankDistance d, RankDistance::Create(job.placement, *job.hosts));
  const int n = d.size();
  std::vector<CommGraph> graphs;
  graphs.push_back({n, {}});  // no edges at all
  CommGraph multi{n, {}};     // parallel edges, self-loops, zero bytes, one direction only
  std::uniform_int_distribution<int> pick(0, n - 1);
  for (int e = 0; e < 4 * n; ++e)
    multi.edges.push_back({pick(rng), pick(rng), pick(rng) % 3 * 1000});
  graphs.push_back(multi);
  CommGraph islands{n, {}};  // 24 disconnected 8-rank cliques, ranks interleaved
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b)
      if (a != b && a % 24 == b % 24) islands.edges.push_back({a, b, 4096});
  graphs.push_back(islands);
  graphs.push_back(RandomGeometricGraph(n, 0.12, 3));
  CommGraph huge = RandomGeometricGraph(n, 0.12, 4);  // weights near int64's end
  for (CommEdge& e : huge.edges) e.bytes = std::numeric_limits<int64_t>::max() / 2 - e.bytes;
  graphs.push_back(huge);
  for (size_t i = 0; i < graphs.size(); ++i) {
    SCOPED_TRACE(i);
    ASSERT_OK_AND_ASSIGN(Mapping m, EmbedBipartition(d, graphs[i]));
    EXPECT_TRUE(IsPermutation(m));
    ASSERT_OK_AND_ASSIGN(Mapping again, EmbedBipartition(d, graphs[i]));
    EXPECT_EQ(m, again);
    ASSERT_OK_AND_ASSIGN(Embedding e, EmbedGraph(d, graphs[i]));
    EXPECT_LE(e.cost_ns, e.identity_cost_ns);
    EXPECT_DOUBLE_EQ(e.cost_ns, GraphCostNs(d, graphs[i], e.mapping));
  }
  // Islands of 8 fit in an L3 (4 cores) pair of one package: no clique spans hosts.
  ASSERT_OK_AND_ASSIGN(Mapping m, EmbedBipartition(d, islands));
  for (const CommEdge& e : islands.edges) EXPECT_EQ(d.host(m[e.from]), d.host(m[e.to]));
  EXPECT_THAT(EmbedBipartition(d, CommGraph{n - 1, {}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("ranks")));
}

TEST(GraphEmbedTest, BipartitionKeepsTheIdentityWhenAllSlotsAreAlike) {
  // One host, locations unknown: every slot pair costs the same, so nothing moves.
  Placement p;
  p.num_hosts = 1;
  p.ranks.resize(10);
  FatTreeShape shape;
  shape.num_hosts = 1;
  ASSERT_OK_AND_ASSIGN(auto hosts, FatTreeCostMatrix(shape));
  ASSERT_OK_AND_ASSIGN(RankDistance d, RankDistance::Create(p, *hosts));
  ASSERT_OK_AND_ASSIGN(CommGraph ring, CartesianGraph({10}, {true}, 100));
  ASSERT_OK_AND_ASSIGN(Mapping m, EmbedBipartition(d, ring));
  EXPECT_EQ(m, IdentityMapping(10));
  ASSERT_OK_AND_ASSIGN(Embedding e, EmbedGraph(d, ring));
  EXPECT_EQ(e.method, EmbedMethod::kIdentity);
  // A single rank.
  Placement one;
  one.num_hosts = 1;
  one.ranks.resize(1);
  ASSERT_OK_AND_ASSIGN(RankDistance d1, RankDistance::Create(one, *hosts));
  ASSERT_OK_AND_ASSIGN(Mapping m1, EmbedBipartition(d1, CommGraph{1, {{0, 0, 5}}}));
  EXPECT_EQ(m1, IdentityMapping(1));
}

}  // namespace
}  // namespace toporr::mapping

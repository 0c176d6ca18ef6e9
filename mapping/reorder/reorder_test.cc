#include "mapping/reorder/reorder.h"

#include <algorithm>
#include <memory>
#include <random>
#include <vector>

#include "common/status_matchers.h"
#include "gtest/gtest.h"
#include "mapping/costs/dense_cost_matrix.h"
#include "mapping/costs/hierarchical_cost_matrix.h"
#include "mapping/prediction/host_link_routes.h"
#include "mapping/prediction/predict.h"
#include "mapping/reorder/graph_reorder.h"
#include "mapping/reorder/heuristics.h"
#include "mapping/schedules/pattern.h"

namespace toporr::mapping {
namespace {

using ::testing::HasSubstr;
using ::toporr::testing::StatusIs;

constexpr Heuristic kAll[] = {Heuristic::kRing,
                              Heuristic::kRecursiveDoublingAllgather,
                              Heuristic::kRecursiveDoublingAllreduce,
                              Heuristic::kRabenseifner,
                              Heuristic::kBinomialBcast,
                              Heuristic::kBinaryTreeBcast,
                              Heuristic::kKnomialBcast,
                              Heuristic::kScatterAllgather,
                              Heuristic::kBinomialGather};

std::unique_ptr<DenseCostMatrix> Uniform(int n, double alpha, double beta) {
  std::vector<double> a(static_cast<size_t>(n) * n, alpha), b(a.size(), beta);
  for (int i = 0; i < n; ++i) a[i * n + i] = b[i * n + i] = 0;
  return DenseCostMatrix::Create(n, a, b).value();
}

int HostOf(const RankDistance& d, const Mapping& m, int rank) { return d.host(m[rank]); }

// --- hand-checked cases ----------------------------------------------------------------

TEST(ReorderTest, RingOnRoundRobinLeavesExactlyFourInterHostEdges) {
  const Placement p = RoundRobinPlacement(4, 4);  // rank r on host r % 4: 16 bad edges
  auto hosts = Uniform(4, 1500, 0.08);
  ASSERT_OK_AND_ASSIGN(RankDistance d, RankDistance::Create(p, *hosts));
  ASSERT_OK_AND_ASSIGN(Mapping m, ReorderRing(d));
  ASSERT_TRUE(IsPermutation(m));
  EXPECT_EQ(m[0], 0);
  int inter = 0;
  for (int i = 0; i < 16; ++i) inter += HostOf(d, m, i) != HostOf(d, m, (i + 1) % 16);
  EXPECT_EQ(inter, 4);
  // Ranks 0..3 take host 0's slots in order, then host 1's lowest slot comes next.
  EXPECT_EQ(m[1], 4);
  EXPECT_EQ(m[2], 8);
  EXPECT_EQ(m[3], 12);
  EXPECT_EQ(m[4], 1);
}

TEST(ReorderTest, RabenseifnerPutsXorOnePartnersOnOneHost) {
  const Placement p = RoundRobinPlacement(4, 4);
  auto hosts = Uniform(4, 1500, 0.08);
  ASSERT_OK_AND_ASSIGN(RankDistance d, RankDistance::Create(p, *hosts));
  ASSERT_OK_AND_ASSIGN(Mapping m, ReorderRabenseifner(d));
  ASSERT_TRUE(IsPermutation(m));
  for (int v = 0; v < 16; v += 2) EXPECT_EQ(HostOf(d, m, v), HostOf(d, m, v + 1)) << v;
  // The next heaviest partners (XOR 2) too: 4 ranks per host fit a whole 4-cube.
  for (int v = 0; v < 16; ++v) EXPECT_EQ(HostOf(d, m, v), HostOf(d, m, v ^ 2)) << v;
}

TEST(ReorderTest, RabenseifnerNonPowerOfTwoKeepsPreStepPairsTogether) {
  // p = 12: p' = 8, rem = 4; pairs (0,1), (2,3), (4,5), (6,7) exchange m before the cube.
  const Placement p = RoundRobinPlacement(3, 4);
  auto hosts = Uniform(3, 1500, 0.08);
  ASSERT_OK_AND_ASSIGN(RankDistance d, RankDistance::Create(p, *hosts));
  for (int root : {0, 1, 5, 11}) {
    ReorderOptions o;
    o.root = root;
    ASSERT_OK_AND_ASSIGN(Mapping m, ReorderRabenseifner(d, o));
    ASSERT_TRUE(IsPermutation(m));
    EXPECT_EQ(m[root], root);
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(HostOf(d, m, 2 * i), HostOf(d, m, 2 * i + 1)) << "root " << root << " pair " << i;
    }
  }
}

TEST(ReorderTest, BinomialBcastPutsTheRootsChildrenOnItsHost) {
  // p = 8 round robin on 2 hosts: host 0 holds slots 0, 2, 4, 6. build_bmtree: 0 -> {1,2,4}.
  const Placement p = RoundRobinPlacement(2, 4);
  auto hosts = Uniform(2, 1500, 0.08);
  ASSERT_OK_AND_ASSIGN(RankDistance d, RankDistance::Create(p, *hosts));
  ASSERT_OK_AND_ASSIGN(Mapping m, ReorderBinomialBcast(d));
  EXPECT_EQ(m[0], 0);
  EXPECT_EQ(m[1], 2);
  EXPECT_EQ(m[2], 4);
  EXPECT_EQ(m[4], 6);
  for (int r : {3, 5, 6, 7}) EXPECT_EQ(HostOf(d, m, r), 1) << r;
}

TEST(ReorderTest, BinaryTreeAndGatherKeepParentsAndHeavyChildrenTogether) {
  const Placement p = RoundRobinPlacement(2, 4);
  auto hosts = Uniform(2, 1500, 0.08);
  ASSERT_OK_AND_ASSIGN(RankDistance d, RankDistance::Create(p, *hosts));
  // build_tree(2), p = 8: 0 -> {1, 2}; 2 -> {4, 6} explored first (greater child).
  ASSERT_OK_AND_ASSIGN(Mapping bt, ReorderBinaryTreeBcast(d));
  EXPECT_EQ(HostOf(d, bt, 1), 0);
  EXPECT_EQ(HostOf(d, bt, 2), 0);
  EXPECT_EQ(HostOf(d, bt, 6), 0);  // greater child of 2, placed before 4
  EXPECT_EQ(HostOf(d, bt, 4), 1);
  // In-order binomial gather, p = 8: 0 -> {4 (4 blocks), 2 (2), 1 (1)}; 4 -> {6, 5}.
  // 4 and 2 already sit on host 0 and keep their slots (ties go to the own slot); 1 moves
  // to the last free slot of host 0.
  ASSERT_OK_AND_ASSIGN(Mapping g, ReorderBinomialGather(d));
  EXPECT_EQ(g[4], 4);
  EXPECT_EQ(g[2], 2);
  EXPECT_EQ(g[1], 6);
  EXPECT_EQ(HostOf(d, g, 6), 1);
}

TEST(ReorderTest, KnomialPlacesLeafChildrenFirstAndSubtreesContiguously) {
  // radix 4, p = 16 round robin on 4 hosts: 0 -> {1,2,3} (leaves) then 4 -> {5,6,7}, ...
  const Placement p = RoundRobinPlacement(4, 4);
  auto hosts = Uniform(4, 1500, 0.08);
  ASSERT_OK_AND_ASSIGN(RankDistance d, RankDistance::Create(p, *hosts));
  ASSERT_OK_AND_ASSIGN(Mapping m, ReorderKnomialBcast(d));
  for (int r = 0; r < 16; ++r) EXPECT_EQ(HostOf(d, m, r), HostOf(d, m, r & ~3)) << r;
  EXPECT_EQ(HostOf(d, m, 1), 0);
  EXPECT_EQ(HostOf(d, m, 3), 0);
}

TEST(ReorderTest, TreeSpreadReachesEveryHostFirst) {
  // 4 hosts x 4 consecutive slots (by core), root 5 on host 1.
  const Placement p = BlockPlacement(4, 4);
  auto hosts = Uniform(4, 1500, 0.08);
  ASSERT_OK_AND_ASSIGN(RankDistance d, RankDistance::Create(p, *hosts));
  ReorderOptions o;
  o.root = 5;
  for (Heuristic h :
       {Heuristic::kBinomialBcast, Heuristic::kBinaryTreeBcast, Heuristic::kKnomialBcast}) {
    auto real = [&](int v) { return (v + o.root) % 16; };
    ASSERT_OK_AND_ASSIGN(Mapping nearest, ReorderTreeSpread(h, d, o, /*nearest=*/true));
    ASSERT_TRUE(IsPermutation(nearest)) << HeuristicName(h);
    EXPECT_EQ(nearest[o.root], o.root);
    // The tree's first three shifted ranks go to the three other hosts.
    std::vector<int> first = {HostOf(d, nearest, real(1)), HostOf(d, nearest, real(2)),
                              HostOf(d, nearest, real(3))};
    std::sort(first.begin(), first.end());
    EXPECT_EQ(first, (std::vector<int>{0, 2, 3})) << HeuristicName(h);
    // Round robin: shifted rank v on host (1 + v) mod 4, the by-node order from the root.
    ASSERT_OK_AND_ASSIGN(Mapping dealt, ReorderTreeSpread(h, d, o, /*nearest=*/false));
    ASSERT_TRUE(IsPermutation(dealt)) << HeuristicName(h);
    EXPECT_EQ(dealt[o.root], o.root);
    for (int v = 0; v < 16; ++v) EXPECT_EQ(HostOf(d, dealt, real(v)), (1 + v) % 4) << v;
  }
  EXPECT_THAT(ReorderTreeSpread(Heuristic::kRing, d, o, true),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a tree bcast")));
}

TEST(ReorderTest, RefusesBadArguments) {
  const Placement p = BlockPlacement(2, 2);
  auto hosts = Uniform(2, 1000, 0.1);
  ASSERT_OK_AND_ASSIGN(RankDistance d, RankDistance::Create(p, *hosts));
  ReorderOptions o;
  o.root = 4;
  EXPECT_THAT(ReorderRing(d, o), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("root 4")));
  o.root = 0;
  o.knomial_radix = 1;
  EXPECT_THAT(ReorderKnomialBcast(d, o),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("radix")));
  CommGraph g{3, {}};
  EXPECT_THAT(ReorderGraph(d, g),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("3 ranks")));
  g = {4, {{0, 9, 10}}};
  EXPECT_THAT(ReorderGraph(d, g),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("edge 0")));
}

// --- properties over random placements on fat trees ------------------------------------

struct RandomCase {
  Placement placement;
  std::unique_ptr<HierarchicalCostMatrix> hosts;
};

// `num_hosts` hosts with 1..6 ranks each, ranks shuffled over the slots, fat tree with
// leaves of 3 hosts and pods of 2 leaves.
RandomCase MakeRandomCase(std::mt19937& rng, int num_hosts) {
  RandomCase c;
  std::uniform_int_distribution<int> per_host(1, 6);
  for (int h = 0; h < num_hosts; ++h) {
    const int k = per_host(rng);
    for (int i = 0; i < k; ++i) {
      RankLocation loc;
      loc.host = h;
      loc.core = i;
      loc.l3 = i / 2;
      loc.numa = i / 4;
      loc.package = i / 4;
      c.placement.ranks.push_back(loc);
    }
  }
  std::shuffle(c.placement.ranks.begin(), c.placement.ranks.end(), rng);
  c.placement.num_hosts = num_hosts;
  FatTreeShape shape;
  shape.num_hosts = num_hosts;
  shape.hosts_per_leaf = 3;
  shape.leaves_per_pod = 2;
  shape.core_gbps = 50;
  c.hosts = FatTreeCostMatrix(shape).value();
  return c;
}

TEST(ReorderPropertyTest, PermutationDeterministicRootKept) {
  std::mt19937 rng(20261122);
  for (int iter = 0; iter < 60; ++iter) {
    RandomCase c = MakeRandomCase(rng, 1 + iter % 13);
    ASSERT_OK_AND_ASSIGN(RankDistance d, RankDistance::Create(c.placement, *c.hosts));
    const int p = d.size();
    ReorderOptions o;
    o.root = std::uniform_int_distribution<int>(0, p - 1)(rng);
    o.knomial_radix = 2 + iter % 4;
    for (Heuristic h : kAll) {
      ASSERT_OK_AND_ASSIGN(Mapping a, Reorder(h, d, o));
      ASSERT_OK_AND_ASSIGN(Mapping b, Reorder(h, d, o));
      ASSERT_TRUE(IsPermutation(a)) << HeuristicName(h) << " p=" << p;
      EXPECT_EQ(a, b) << HeuristicName(h);
      EXPECT_EQ(a[o.root], o.root) << HeuristicName(h) << " p=" << p;
    }
  }
}

TEST(ReorderPropertyTest, FlatTopologiesGiveIdentity) {
  // One rank per host under one leaf switch: every pair is equally far.
  FatTreeShape shape;
  shape.num_hosts = 37;
  shape.hosts_per_leaf = 64;
  ASSERT_OK_AND_ASSIGN(auto one_leaf, FatTreeCostMatrix(shape));
  const Placement spread = BlockPlacement(37, 1);
  // 29 ranks on one host with unknown hwloc locations: all kOtherPackage.
  Placement unknown;
  unknown.num_hosts = 1;
  unknown.ranks.assign(29, RankLocation{});
  auto single = Uniform(1, 0, 0);
  ASSERT_OK_AND_ASSIGN(RankDistance d1, RankDistance::Create(spread, *one_leaf));
  ASSERT_OK_AND_ASSIGN(RankDistance d2, RankDistance::Create(unknown, *single));
  for (const RankDistance* d : {&d1, &d2}) {
    for (int root : {0, 5, d->size() - 1}) {
      ReorderOptions o;
      o.root = root;
      for (Heuristic h : kAll) {
        ASSERT_OK_AND_ASSIGN(Mapping m, Reorder(h, *d, o));
        EXPECT_EQ(m, IdentityMapping(d->size())) << HeuristicName(h) << " root " << root;
      }
      CommGraph ring{d->size(), {}};
      for (int i = 0; i < d->size(); ++i) ring.edges.push_back({i, (i + 7) % d->size(), 1000});
      ASSERT_OK_AND_ASSIGN(Mapping g, ReorderGraph(*d, ring, o));
      EXPECT_EQ(g, IdentityMapping(d->size())) << "graph root " << root;
    }
  }
}

TEST(ReorderPropertyTest, GraphHeuristicBeatsIdentityOnRoundRobinRing) {
  const Placement p = RoundRobinPlacement(8, 8);
  FatTreeShape shape;
  shape.num_hosts = 8;
  shape.hosts_per_leaf = 2;
  shape.leaves_per_pod = 2;
  ASSERT_OK_AND_ASSIGN(auto hosts, FatTreeCostMatrix(shape));
  ASSERT_OK_AND_ASSIGN(RankDistance d, RankDistance::Create(p, *hosts));
  CommGraph ring{64, {}};
  for (int i = 0; i < 64; ++i) {
    ring.edges.push_back({i, (i + 1) % 64, 1 << 20});
    ring.edges.push_back({(i + 1) % 64, i, 1 << 20});
  }
  std::mt19937 rng(7);
  for (int root : {0, 13}) {
    ReorderOptions o;
    o.root = root;
    ASSERT_OK_AND_ASSIGN(Mapping m, ReorderGraph(d, ring, o));
    ASSERT_TRUE(IsPermutation(m));
    EXPECT_EQ(m[root], root);
    const double identity = GraphCostNs(d, ring, IdentityMapping(64));
    const double reordered = GraphCostNs(d, ring, m);
    // Every identity edge crosses hosts; at 1 MiB shared memory is only ~1.6x faster than
    // the network, so the optimum (8 crossing pairs) is ~0.67 of identity.
    EXPECT_LT(reordered, 0.7 * identity);
    ASSERT_OK_AND_ASSIGN(Mapping ring_heuristic, ReorderRing(d, o));
    EXPECT_LE(reordered, 1.02 * GraphCostNs(d, ring, ring_heuristic));
    // Refinement never makes a mapping worse.
    Mapping shuffled = IdentityMapping(64);
    std::shuffle(shuffled.begin() + 1, shuffled.end(), rng);
    const double before = GraphCostNs(d, ring, shuffled);
    RefineBySwaps(d, ring, 0, 3, 32, shuffled);
    EXPECT_TRUE(IsPermutation(shuffled));
    EXPECT_EQ(shuffled[0], 0);
    EXPECT_LE(GraphCostNs(d, ring, shuffled), before);
  }
}

TEST(ReorderPropertyTest, RandomGraphsGivePermutations) {
  std::mt19937 rng(99);
  for (int iter = 0; iter < 20; ++iter) {
    RandomCase c = MakeRandomCase(rng, 2 + iter % 9);
    ASSERT_OK_AND_ASSIGN(RankDistance d, RankDistance::Create(c.placement, *c.hosts));
    const int p = d.size();
    CommGraph g{p, {}};
    std::uniform_int_distribution<int> pick(0, p - 1);
    for (int e = 0; e < p; ++e) g.edges.push_back({pick(rng), pick(rng), 1 + pick(rng) * 100});
    ReorderOptions o;
    o.root = pick(rng);
    ASSERT_OK_AND_ASSIGN(Mapping a, ReorderGraph(d, g, o));
    ASSERT_OK_AND_ASSIGN(Mapping b, ReorderGraph(d, g, o));
    EXPECT_TRUE(IsPermutation(a));
    EXPECT_EQ(a, b);
    EXPECT_EQ(a[o.root], o.root);
  }
}

// --- the "never predicted slower than identity" guard ----------------------------------

PatternSpec Spec(Collective c, Algorithm a, int p, int64_t count, int root = 0) {
  PatternSpec s;
  s.collective = c;
  s.algorithm = a;
  s.num_ranks = p;
  s.count = count;
  s.type_size = 8;
  s.root = root;
  return s;
}

TEST(ReorderOrIdentityTest, RoundRobinRabenseifnerIsReorderedRingIsNot) {
  const Placement p = RoundRobinPlacement(4, 4);
  auto hosts = Uniform(4, 1500, 0.08);
  ASSERT_OK_AND_ASSIGN(RankDistance d, RankDistance::Create(p, *hosts));
  // Identity sends the two heaviest stages (m/2, m/4 to XOR-1, XOR-2) across hosts; the
  // reordering keeps them on the host.
  ASSERT_OK_AND_ASSIGN(
      ReorderDecision dec,
      ReorderOrIdentity(Spec(Collective::kAllreduce, Algorithm::kRabenseifner, 16, 1 << 16), d));
  EXPECT_TRUE(dec.reordered);
  EXPECT_EQ(dec.method, "rabenseifner");
  EXPECT_LT(dec.candidate_ns, dec.identity_ns);
  ASSERT_OK_AND_ASSIGN(Mapping raben, ReorderRabenseifner(d));
  EXPECT_EQ(dec.mapping, raben);
  // Without routes there is no contention: every ring step still has an inter-host edge, so
  // the ring reordering is predicted equal (not faster) and identity is kept.
  ASSERT_OK_AND_ASSIGN(
      ReorderDecision ring,
      ReorderOrIdentity(Spec(Collective::kAllreduce, Algorithm::kRing, 16, 1 << 16), d));
  EXPECT_FALSE(ring.reordered);
  EXPECT_EQ(ring.candidate_ns, ring.identity_ns);
  EXPECT_EQ(ring.mapping, IdentityMapping(16));
}

TEST(ReorderOrIdentityTest, TreeBcastsByCoreTakeTheSpread) {
  // By core, the trees' first rounds stay on the root's host and then leave it through its
  // one HCA, several at once; spread, every round's sends leave from different hosts. The
  // hosts' own links are what the library always models as shared
  // (mapping/prediction/host_link_routes.h).
  const Placement p = BlockPlacement(4, 4);
  auto hosts = Uniform(4, 1500, 0.08);
  ASSERT_OK_AND_ASSIGN(RankDistance d, RankDistance::Create(p, *hosts));
  const std::unique_ptr<RouteSource> links = HostLinkRoutes(*hosts);
  for (Algorithm a : {Algorithm::kBinomial, Algorithm::kBinaryTree}) {
    ASSERT_OK_AND_ASSIGN(
        ReorderDecision dec,
        ReorderOrIdentity(Spec(Collective::kBcast, a, 16, 1 << 20, 6), d, links.get()));
    EXPECT_TRUE(dec.reordered) << AlgorithmName(a);
    EXPECT_NE(dec.method.find("_spread"), std::string_view::npos) << dec.method;
    EXPECT_LT(dec.candidate_ns, 0.8 * dec.identity_ns) << AlgorithmName(a);
    EXPECT_EQ(dec.mapping[6], 6);
  }
}

TEST(ReorderOrIdentityTest, FlatTopologyAndGenericAlgorithmsStayIdentityOrImprove) {
  FatTreeShape shape;
  shape.num_hosts = 12;
  shape.hosts_per_leaf = 16;
  ASSERT_OK_AND_ASSIGN(auto one_leaf, FatTreeCostMatrix(shape));
  const Placement flat = BlockPlacement(12, 1);
  ASSERT_OK_AND_ASSIGN(RankDistance d, RankDistance::Create(flat, *one_leaf));
  ASSERT_OK_AND_ASSIGN(
      ReorderDecision dec,
      ReorderOrIdentity(Spec(Collective::kBcast, Algorithm::kChain, 12, 4096, 5), d));
  EXPECT_EQ(dec.method, "graph");
  EXPECT_FALSE(dec.reordered);
  EXPECT_EQ(dec.mapping, IdentityMapping(12));
  EXPECT_THAT(HeuristicFor(Spec(Collective::kAllgather, Algorithm::kBruck, 12, 8)),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("bruck")));
  EXPECT_THAT(ReorderOrIdentity(Spec(Collective::kAllreduce, Algorithm::kRing, 11, 64), d),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("11 ranks")));
}

// Swing's and Bine's peers short-cut a ring (distance 1 first for Swing, last for Bine),
// so they take the ring heuristic. Round-robin over 4 hosts puts every distance-1 peer on
// another host; packing consecutive ranks on hosts is predicted faster.
TEST(ReorderOrIdentityTest, SwingAndBineTakeTheRingHeuristic) {
  const Placement p = RoundRobinPlacement(4, 4);
  auto hosts = Uniform(4, 1500, 0.08);
  ASSERT_OK_AND_ASSIGN(RankDistance d, RankDistance::Create(p, *hosts));
  for (const auto& [coll, alg] : {std::pair(Collective::kAllreduce, Algorithm::kSwing),
                                  std::pair(Collective::kAllreduce, Algorithm::kSwingBandwidth),
                                  std::pair(Collective::kBcast, Algorithm::kBine)}) {
    SCOPED_TRACE(AlgorithmName(alg));
    const PatternSpec spec = Spec(coll, alg, 16, 1 << 16, 3);
    ASSERT_OK_AND_ASSIGN(Heuristic h, HeuristicFor(spec));
    EXPECT_EQ(h, Heuristic::kRing);
    ASSERT_OK_AND_ASSIGN(ReorderDecision dec, ReorderOrIdentity(spec, d));
    EXPECT_TRUE(dec.reordered);
    EXPECT_LT(dec.candidate_ns, 0.95 * dec.identity_ns);
    // Ring order: consecutive new ranks fill a host before the next, from the root (3) for
    // the bcast, from rank 0 for the allreduces.
    const int seed = coll == Collective::kBcast ? 3 : 0;
    for (int i = 0; i < 16; ++i) {
      EXPECT_EQ(HostOf(d, dec.mapping, (seed + i) % 16),
                HostOf(d, dec.mapping, (seed + i - i % 4) % 16))
          << i;
    }
    // The generic graph heuristic is never predicted better than it here.
    ASSERT_OK_AND_ASSIGN(std::vector<WeightedEdge> edges, CommunicationGraph(spec));
    CommGraph g{16, {}};
    for (const WeightedEdge& e : edges) g.edges.push_back({e.src, e.dst, e.bytes});
    ReorderOptions o;
    o.root = seed;
    ASSERT_OK_AND_ASSIGN(Mapping graph, ReorderGraph(d, g, o));
    PredictInputs in;
    in.placement = &d.placement();
    in.costs = &d.hosts();
    ASSERT_OK_AND_ASSIGN(Prediction by_graph, PredictCollective(spec, graph, in));
    EXPECT_LE(dec.candidate_ns, by_graph.time_ns);
  }
}

TEST(ReorderOrIdentityTest, NeverPredictedSlowerOnRandomPlacements) {
  std::mt19937 rng(42);
  const std::pair<Collective, Algorithm> kCases[] = {
      {Collective::kAllreduce, Algorithm::kRing},
      {Collective::kAllreduce, Algorithm::kRecursiveDoubling},
      {Collective::kAllreduce, Algorithm::kRabenseifner},
      {Collective::kAllgather, Algorithm::kRing},
      {Collective::kAllgather, Algorithm::kRecursiveDoubling},
      {Collective::kBcast, Algorithm::kBinomial},
      {Collective::kBcast, Algorithm::kBinaryTree},
      {Collective::kBcast, Algorithm::kKnomial},
      {Collective::kBcast, Algorithm::kScatterAllgather},
      {Collective::kBcast, Algorithm::kPipeline},
      {Collective::kAllreduce, Algorithm::kSwing},
      {Collective::kAllreduce, Algorithm::kSwingBandwidth},
      {Collective::kBcast, Algorithm::kBine},
      {Collective::kGather, Algorithm::kBinomial},
      {Collective::kReduce, Algorithm::kBinomial}};
  for (int iter = 0; iter < 12; ++iter) {
    RandomCase c = MakeRandomCase(rng, 2 + iter);
    ASSERT_OK_AND_ASSIGN(RankDistance d, RankDistance::Create(c.placement, *c.hosts));
    const int p = d.size();
    const int root = std::uniform_int_distribution<int>(0, p - 1)(rng);
    for (const auto& [coll, alg] : kCases) {
      const PatternSpec spec = Spec(coll, alg, p, 4096, root);
      ASSERT_OK_AND_ASSIGN(ReorderDecision dec, ReorderOrIdentity(spec, d));
      ASSERT_TRUE(IsPermutation(dec.mapping)) << dec.method;
      if (coll != Collective::kAllreduce && coll != Collective::kAllgather) {
        EXPECT_EQ(dec.mapping[root], root) << dec.method;
      }
      if (dec.reordered) {
        EXPECT_LT(dec.candidate_ns, dec.identity_ns) << dec.method;
      } else {
        EXPECT_EQ(dec.mapping, IdentityMapping(p)) << dec.method;
      }
    }
  }
}

}  // namespace
}  // namespace toporr::mapping

#include "mapping/prediction/predict.h"

#include <cstdint>
#include <vector>

#include "common/status_matchers.h"
#include "gtest/gtest.h"

namespace toporr::mapping {
namespace {

using ::testing::_;
using ::toporr::testing::StatusIs;

// Two-level tree small enough to predict by hand: `leaves` leaf switches with
// `hosts_per_leaf` hosts each, every leaf with ONE uplink to a single spine. Directed links:
// host h up = 2h, host h down = 2h+1, then leaf g up = 2H + 2g, leaf g down = 2H + 2g + 1.
// All links run at `gbps`.
class TwoLevelRoutes final : public RouteSource {
 public:
  TwoLevelRoutes(int leaves, int hosts_per_leaf, double gbps)
      : leaves_(leaves), per_leaf_(hosts_per_leaf), gbps_(gbps) {}
  int num_directed_links() const override { return 2 * hosts() + 2 * leaves_; }
  double link_gbps(int) const override { return gbps_; }
  void Route(int a, int b, std::vector<int32_t>* out) const override {
    out->clear();
    if (a == b) return;
    out->push_back(2 * a);
    if (a / per_leaf_ != b / per_leaf_) {
      out->push_back(2 * hosts() + 2 * (a / per_leaf_));
      out->push_back(2 * hosts() + 2 * (b / per_leaf_) + 1);
    }
    out->push_back(2 * b + 1);
  }
  int hosts() const { return leaves_ * per_leaf_; }

 private:
  int leaves_, per_leaf_;
  double gbps_;
};

// Matching host costs: same leaf alpha 500 ns, other leaf 1000 ns; beta = 8 / gbps.
class TwoLevelCosts final : public HostCostMatrix {
 public:
  TwoLevelCosts(int hosts, int hosts_per_leaf, double gbps)
      : n_(hosts), per_leaf_(hosts_per_leaf), beta_(8.0 / gbps) {}
  int num_hosts() const override { return n_; }
  double AlphaNs(int a, int b) const override {
    if (a == b) return 0;
    return a / per_leaf_ == b / per_leaf_ ? 500 : 1000;
  }
  double BetaNs(int a, int b) const override { return a == b ? 0 : beta_; }

 private:
  int n_, per_leaf_;
  double beta_;
};

PatternSpec Ring(int p, int64_t count) {
  PatternSpec s;
  s.collective = Collective::kAllreduce;
  s.algorithm = Algorithm::kRing;
  s.num_ranks = p;
  s.count = count;
  return s;
}

// 2 leaves x 2 hosts, one rank per host, 80 Gb/s (beta 0.1 ns/B).
struct Small {
  TwoLevelRoutes routes{2, 2, 80};
  TwoLevelCosts costs{4, 2, 80};
  Placement placement = BlockPlacement(4, 1);
  PredictInputs Inputs(bool with_routes) const {
    PredictInputs in;
    in.placement = &placement;
    in.costs = &costs;
    in.routes = with_routes ? &routes : nullptr;
    return in;
  }
};

TEST(PredictTest, IdentityRingMatchesHandFormula) {
  Small f;
  // 400 one-byte elements on 4 ranks: 6 steps of 100-byte blocks. Every step has two
  // same-leaf messages (500 + 10 ns) and two cross-leaf ones (1000 + 10 ns) on distinct
  // uplinks, so no link is shared.
  ASSERT_OK_AND_ASSIGN(Prediction pr, PredictCollective(Ring(4, 400), {}, f.Inputs(true)));
  EXPECT_DOUBLE_EQ(pr.time_ns, 6 * (1000 + 100 * 0.1));
  EXPECT_EQ(pr.num_steps, 6);
  EXPECT_EQ(pr.max_link_load, 1);
  // Per step: 0->1 and 2->3 cross 2 links, 1->2 and 3->0 cross 4.
  EXPECT_DOUBLE_EQ(pr.hop_bytes, 6 * 100 * (2 + 4 + 2 + 4));
  EXPECT_EQ(pr.inter_host_bytes, 6 * 4 * 100);
  EXPECT_EQ(pr.intra_host_bytes, 0);
  // Leaf 0's uplink carries only 1->2: 6 x 100 bytes; host links carry the same.
  EXPECT_EQ(pr.max_link_bytes, 600);
  // Without routes: same here, since nothing collides.
  ASSERT_OK_AND_ASSIGN(Prediction plain, PredictCollective(Ring(4, 400), {}, f.Inputs(false)));
  EXPECT_DOUBLE_EQ(plain.time_ns, pr.time_ns);
  EXPECT_EQ(plain.max_link_load, 0);
}

TEST(PredictTest, InterleavedMappingSharesTheUplink) {
  Small f;
  // New ranks 0,1,2,3 on hosts 0,2,1,3: every ring message crosses leaves, and both of
  // leaf 0's senders (hosts 0, 1) share its single uplink: C = 2.
  const std::vector<int> mapping = {0, 2, 1, 3};
  ASSERT_OK_AND_ASSIGN(Prediction pr,
                       PredictCollective(Ring(4, 400), mapping, f.Inputs(true), {true}));
  EXPECT_DOUBLE_EQ(pr.time_ns, 6 * (1000 + 2 * 100 * 0.1));
  EXPECT_EQ(pr.max_link_load, 2);
  EXPECT_EQ(pr.max_link_bytes, 2 * 600);
  ASSERT_EQ(pr.step_ns.size(), 1u);  // the six ring steps fold into one
  EXPECT_EQ(pr.step_repeat[0], 6);
  // Without routes the contention is invisible: C = 1.
  ASSERT_OK_AND_ASSIGN(Prediction plain, PredictCollective(Ring(4, 400), mapping, f.Inputs(false)));
  EXPECT_DOUBLE_EQ(plain.time_ns, 6 * (1000 + 100 * 0.1));
}

TEST(PredictTest, RoundRobinRingContendsAndNeighbourMappingIsFaster) {
  // 4 hosts in 2 leaves, 2 ranks per host placed round-robin (rank r on host r % 4).
  TwoLevelRoutes routes(2, 2, 100);
  TwoLevelCosts costs(4, 2, 100);
  const Placement rr = RoundRobinPlacement(4, 2);
  PredictInputs in;
  in.placement = &rr;
  in.costs = &costs;
  in.routes = &routes;
  const PatternSpec ring = Ring(8, 8 << 20);
  ASSERT_OK_AND_ASSIGN(Prediction id, PredictCollective(ring, {}, in));
  // Ranks 1 and 5 (host 1) both send to host 2: host 1's cable and leaf 0's uplink carry 2.
  EXPECT_EQ(id.max_link_load, 2);
  // Map ring neighbours onto one host: new ranks 2h, 2h+1 in the slots of host h.
  const std::vector<int> neighbours = {0, 4, 1, 5, 2, 6, 3, 7};
  ASSERT_OK_AND_ASSIGN(Prediction nb, PredictCollective(ring, neighbours, in));
  EXPECT_LT(nb.time_ns, id.time_ns);
  EXPECT_EQ(nb.max_link_load, 1);
  EXPECT_GT(nb.intra_host_bytes, 0);
  EXPECT_LT(nb.hop_bytes, id.hop_bytes);
}

TEST(PredictTest, IntraHostUsesSharingLevels) {
  // One host, 4 ranks; cores 0..3 with 2 cores per L3: 0-1 share L3, 1-2 share only NUMA.
  TwoLevelCosts costs(1, 1, 100);
  const Placement one = BlockPlacement(1, 4, /*cores_per_l3=*/2, /*l3_per_numa=*/2);
  PredictInputs in;
  in.placement = &one;
  in.costs = &costs;
  ASSERT_OK_AND_ASSIGN(Prediction pr, PredictCollective(Ring(4, 4000), {}, in));
  // Steps are bounded by the slowest pair: 3->0 and 1->2 share NUMA only.
  const IntraHostModel m;
  const double numa =
      m.LatencyNs(LocalityLevel::kSameNuma) + 1000 * m.BetaNs(LocalityLevel::kSameNuma);
  EXPECT_DOUBLE_EQ(pr.time_ns, 6 * numa);
  EXPECT_EQ(pr.inter_host_bytes, 0);
  EXPECT_DOUBLE_EQ(pr.hop_bytes, 0);
}

TEST(PredictTest, RejectsBadMappings) {
  Small f;
  EXPECT_THAT(PredictCollective(Ring(4, 400), {0, 1, 1, 3}, f.Inputs(true)),
              StatusIs(absl::StatusCode::kInvalidArgument, _));
  EXPECT_THAT(PredictCollective(Ring(4, 400), {0, 1, 2}, f.Inputs(true)),
              StatusIs(absl::StatusCode::kInvalidArgument, _));
  EXPECT_THAT(PredictCollective(Ring(5, 400), {}, f.Inputs(true)),
              StatusIs(absl::StatusCode::kInvalidArgument, _));
  PredictInputs none;
  EXPECT_THAT(PredictCollective(Ring(4, 400), {}, none),
              StatusIs(absl::StatusCode::kInvalidArgument, _));
}

// Prediction time at this size: bench/mapping_bench (BM_PredictRing32k).
TEST(PredictTest, Ring32kRanksRoundRobinLoad) {
  // 32768 ranks: 32 per host, 1024 hosts, 32 hosts per leaf.
  TwoLevelRoutes routes(32, 32, 100);
  TwoLevelCosts costs(1024, 32, 100);
  const Placement rr = RoundRobinPlacement(1024, 32);
  PredictInputs in;
  in.placement = &rr;
  in.costs = &costs;
  in.routes = &routes;
  ASSERT_OK_AND_ASSIGN(Prediction pr, PredictCollective(Ring(32768, int64_t{1} << 26), {}, in));
  EXPECT_EQ(pr.num_steps, 2 * 32767);
  // Round-robin: host h sends its 32 ranks' blocks to host h+1 at once; the last host of a
  // leaf sends all 32 over the leaf uplink.
  EXPECT_EQ(pr.max_link_load, 32);
}

// Swing (NSDI'24) keeps early peers closer than recursive doubling (distances 1, 1, 3, 5
// instead of 1, 2, 4, 8), so on a tapered tree — here one uplink per leaf of 4 hosts, 4:1 —
// fewer of its steps push every host of a leaf through the uplink at once.
TEST(PredictTest, SwingBeatsRecursiveDoublingOnATaperedTree) {
  auto predict = [](int leaves, int hosts_per_leaf, Algorithm a) {
    const int p = leaves * hosts_per_leaf;
    TwoLevelRoutes routes(leaves, hosts_per_leaf, 100);
    TwoLevelCosts costs(p, hosts_per_leaf, 100);
    const Placement placement = BlockPlacement(p, 1);
    PredictInputs in;
    in.placement = &placement;
    in.costs = &costs;
    in.routes = &routes;
    PatternSpec s = Ring(p, int64_t{4} << 20);
    s.type_size = 4;  // 16 MiB
    s.algorithm = a;
    absl::StatusOr<Prediction> pr = PredictCollective(s, {}, in, {true});
    EXPECT_OK(pr.status());
    return pr.ok() ? *pr : Prediction{};
  };
  const Prediction rd = predict(4, 4, Algorithm::kRecursiveDoubling);
  const Prediction swing = predict(4, 4, Algorithm::kSwing);
  EXPECT_EQ(swing.num_steps, rd.num_steps);
  EXPECT_EQ(swing.inter_host_bytes, rd.inter_host_bytes);
  EXPECT_LT(swing.time_ns, 0.95 * rd.time_ns);
  // Per step, the uplink load of recursive doubling is 1, 1, 4, 4 (the whole leaf leaves at
  // distances 4 and 8); Swing's is 1, 2, 2, 4.
  ASSERT_EQ(rd.step_ns.size(), 4u);
  ASSERT_EQ(swing.step_ns.size(), 4u);
  EXPECT_DOUBLE_EQ(swing.step_ns[3], rd.step_ns[3]);
  EXPECT_LT(swing.step_ns[1], rd.step_ns[2]);
  // The bandwidth-optimal variant against Rabenseifner on 24 ranks (6 leaves of 4): the
  // non-power-of-two fold makes Rabenseifner's halving partners straddle leaves more often.
  EXPECT_LT(predict(6, 4, Algorithm::kSwingBandwidth).time_ns,
            0.95 * predict(6, 4, Algorithm::kRabenseifner).time_ns);
}

}  // namespace
}  // namespace toporr::mapping

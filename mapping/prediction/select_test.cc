#include "mapping/prediction/select.h"

#include <memory>
#include <vector>

#include "common/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mapping/costs/dense_cost_matrix.h"

namespace toporr::mapping {
namespace {

using ::testing::HasSubstr;
using ::toporr::testing::StatusIs;

// Two hosts cabled back to back: directed link 0 is host 0 -> 1, link 1 is host 1 -> 0.
class BackToBack final : public RouteSource {
 public:
  int num_directed_links() const override { return 2; }
  double link_gbps(int) const override { return 100; }
  void Route(int a, int b, std::vector<int32_t>* out) const override {
    out->clear();
    if (a != b) out->push_back(a == 0 ? 0 : 1);
  }
};

// The two hosts 2 us apart at 100 Gb/s; 8 ranks placed round-robin (rank r on host r % 2),
// so every ring neighbour of the identity order is on the other host.
struct TwoHosts {
  std::unique_ptr<DenseCostMatrix> costs;
  BackToBack routes;
  Placement placement = RoundRobinPlacement(2, 4);
  TwoHosts() { costs = *DenseCostMatrix::Create(2, {0, 2000, 2000, 0}, {0, 0.08, 0.08, 0}); }
  PredictInputs Inputs() const {
    PredictInputs in;
    in.placement = &placement;
    in.costs = costs.get();
    in.routes = &routes;
    return in;
  }
};

// Consecutive new ranks on one host: new rank i in slot 2*(i%4) + i/4.
std::vector<int> Packed(const PatternSpec&) { return {0, 2, 4, 6, 1, 3, 5, 7}; }

SelectionRequest Allreduce(int64_t bytes) {
  SelectionRequest r;
  r.collective = Collective::kAllreduce;
  r.num_ranks = 8;
  r.count = bytes;
  return r;
}

TEST(SelectTest, PredictsEveryAlgorithmAndMappingAndPicksTheFastest) {
  TwoHosts f;
  std::vector<NamedReorder> reorders = {
      {"packed", Packed},
      {"declines", [](const PatternSpec&) { return std::vector<int>{}; }},
  };
  ASSERT_OK_AND_ASSIGN(Selection s,
                       SelectAlgorithmAndMapping(Allreduce(1 << 20), reorders, f.Inputs()));
  // Every allreduce algorithm x (identity + packed); the declining reorder adds nothing.
  ASSERT_EQ(s.candidates.size(), 2 * AlgorithmsFor(Collective::kAllreduce).size());
  for (const Candidate& c : s.candidates) {
    EXPECT_LE(s.Best().prediction.time_ns, c.prediction.time_ns);
    EXPECT_NE(c.mapping_name, "declines");
  }
  // Identity ring sends 4 messages at once over the one cable per direction; packed sends 1.
  EXPECT_LT(s.candidates[1].prediction.time_ns, s.candidates[0].prediction.time_ns);
  EXPECT_EQ(s.candidates[1].mapping_name, "packed");
  EXPECT_EQ(s.Best().mapping_name, "packed");
  EXPECT_EQ(s.best_mapping, Packed(PatternSpec{}));
}

TEST(SelectTest, IdentityWinsTies) {
  // One host: every mapping costs the same when all ranks share one L3.
  auto costs = *DenseCostMatrix::Create(1, {0}, {0});
  const Placement one = BlockPlacement(1, 8, /*cores_per_l3=*/8);
  PredictInputs in;
  in.placement = &one;
  in.costs = costs.get();
  SelectionRequest r = Allreduce(4096);
  r.algorithms = {Algorithm::kRing};
  ASSERT_OK_AND_ASSIGN(Selection s, SelectAlgorithmAndMapping(r, {{"packed", Packed}}, in));
  ASSERT_EQ(s.candidates.size(), 2u);
  EXPECT_DOUBLE_EQ(s.candidates[0].prediction.time_ns, s.candidates[1].prediction.time_ns);
  EXPECT_EQ(s.Best().mapping_name, "identity");
  EXPECT_TRUE(s.best_mapping.empty());
}

TEST(SelectTest, ReportsEffectiveAlgorithm) {
  TwoHosts f;
  const Placement six = RoundRobinPlacement(2, 3);
  PredictInputs in = f.Inputs();
  in.placement = &six;
  SelectionRequest r;
  r.collective = Collective::kAllgather;
  r.num_ranks = 6;
  r.count = 100;
  r.algorithms = {Algorithm::kRecursiveDoubling};
  ASSERT_OK_AND_ASSIGN(Selection s, SelectAlgorithmAndMapping(r, {}, in));
  ASSERT_EQ(s.candidates.size(), 1u);
  EXPECT_EQ(s.Best().effective, Algorithm::kBruck);
}

TEST(SelectTest, RejectsBrokenReordersAndRequests) {
  TwoHosts f;
  std::vector<NamedReorder> bad = {
      {"dup", [](const PatternSpec&) { return std::vector<int>{0, 0, 1, 2, 3, 4, 5, 6}; }}};
  EXPECT_THAT(SelectAlgorithmAndMapping(Allreduce(1000), bad, f.Inputs()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("dup")));
  SelectionRequest r = Allreduce(1000);
  r.algorithms = {Algorithm::kKnomial};  // not an allreduce algorithm
  EXPECT_THAT(SelectAlgorithmAndMapping(r, {}, f.Inputs()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("knomial")));
}

}  // namespace
}  // namespace toporr::mapping

#include "client/plan/plan.h"

#include <algorithm>
#include <limits>
#include <set>

#include "client/costs/job_costs.h"
#include "client/plan/launch_files.h"
#include "collectors/fabric_input.h"
#include "common/status_matchers.h"
#include "common/test_data.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mapping/levels/multilevel.h"
#include "mapping/reorder/reorder.h"

namespace toporr::client {
namespace {

using ::testing::HasSubstr;
using ::toporr::testing::StatusIs;

TEST(ParseBytes, Suffixes) {
  EXPECT_EQ(*ParseBytes("4096"), 4096);
  EXPECT_EQ(*ParseBytes("64K"), 65536);
  EXPECT_EQ(*ParseBytes("1M"), 1 << 20);
  EXPECT_FALSE(ParseBytes("-1").ok());
  EXPECT_FALSE(ParseBytes("M").ok());
}

// Four hosts, one per leaf of the shared 2-level fat tree, 4 ranks each dealt round-robin
// (--map-by node): identity ring crosses the spine on every edge and shares uplinks.
class FattreePlan : public ::testing::Test {
 protected:
  void SetUp() override {
    text_ = toporr::testing::ReadSharedFabric("ibnetdiscover_fattree_default.txt");
    collectors::FabricInput in;
    in.source_name = "fattree";
    in.content = text_;
    ASSERT_OK_AND_ASSIGN(fabric_, collectors::ParseFabricInput(in));
    ASSERT_OK_AND_ASSIGN(hosts_, ParseHostfile("node01 slots=4\nnode05 slots=4\n"
                                               "node09 slots=4\nnode13 slots=4\n",
                                               "hf"));
    ASSERT_OK_AND_ASSIGN(costs_, JobCostsFromFabric(fabric_, hosts_.names));
    ASSERT_OK_AND_ASSIGN(placement_, InitialPlacement(hosts_, MapBy::kNode, 0));
  }
  std::string text_;
  fabric::Fabric fabric_;
  JobHosts hosts_;
  JobCosts costs_;
  mapping::Placement placement_;
};

TEST_F(FattreePlan, RingReorderGroupsHostsAndIsPredictedFaster) {
  PlanRequest req;
  req.collective = mapping::Collective::kAllreduce;
  req.algorithm = mapping::Algorithm::kRing;
  req.message_bytes = 1 << 20;
  ASSERT_OK_AND_ASSIGN(PlanResult plan, Plan(req, placement_, *costs_.costs, costs_.routes.get()));
  EXPECT_TRUE(plan.reordered);
  EXPECT_EQ(plan.algorithm, "ring");
  EXPECT_LT(plan.after.time_ns, plan.before.time_ns / 2);
  EXPECT_LT(plan.after.max_link_load, plan.before.max_link_load);
  // A permutation with exactly 4 inter-host ring edges (one per host boundary).
  std::set<int> seen(plan.mapping.begin(), plan.mapping.end());
  EXPECT_EQ(seen.size(), 16u);
  int inter = 0;
  for (size_t r = 0; r < plan.mapping.size(); ++r) {
    int a = placement_.ranks[plan.mapping[r]].host;
    int b = placement_.ranks[plan.mapping[(r + 1) % plan.mapping.size()]].host;
    inter += a != b;
  }
  EXPECT_EQ(inter, 4);
  EXPECT_EQ(plan.mapping[0], 0) << "rank 0 keeps its process";

  std::string rankfile = Rankfile(plan, placement_, hosts_);
  EXPECT_THAT(rankfile, HasSubstr("rank 0=node01 slot=0\n"));
  EXPECT_THAT(rankfile, HasSubstr("rank 1=node01 slot=1\n"));
  std::string hostfile = ReorderedHostfile(plan, placement_, hosts_);
  EXPECT_EQ(hostfile.substr(0, 28), "node01\nnode01\nnode01\nnode01\n");
}

TEST_F(FattreePlan, LeafSortedGroupsHostsByLeafInLaunchOrder) {
  // node01, node05, node09, node13 are on four leaves: each host its own group, its four
  // round-robin ranks (r, r+4, r+8, r+12) contiguous.
  ASSERT_OK_AND_ASSIGN(std::vector<int32_t> sorted, LeafSortedMapping(placement_, *costs_.costs));
  EXPECT_EQ(sorted, (std::vector<int32_t>{0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15}));
  // Two leaves, interleaved: leaves in the order of their first host, hosts in launch order.
  ASSERT_OK_AND_ASSIGN(JobHosts mixed,
                       ParseHostfile("node05\nnode01\nnode06\nnode02\nnode07\n", "hf"));
  ASSERT_OK_AND_ASSIGN(JobCosts costs, JobCostsFromFabric(fabric_, mixed.names));
  ASSERT_OK_AND_ASSIGN(mapping::Placement one_each, InitialPlacement(mixed, MapBy::kNode, 0));
  ASSERT_OK_AND_ASSIGN(sorted, LeafSortedMapping(one_each, *costs.costs));
  EXPECT_EQ(sorted, (std::vector<int32_t>{0, 2, 4, 1, 3}));
  // Already leaf-sorted: the identity.
  ASSERT_OK_AND_ASSIGN(std::vector<int32_t> again,
                       LeafSortedMapping(Reordered(one_each, sorted), *costs.costs));
  EXPECT_EQ(again, (std::vector<int32_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(Reordered(one_each, sorted).ranks[1].host, one_each.ranks[2].host);
  // A host outside the matrix.
  mapping::Placement bad = one_each;
  bad.ranks[0].host = 99;
  EXPECT_THAT(LeafSortedMapping(bad, *costs.costs).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("host 99")));
}

TEST_F(FattreePlan, LeafSortedBaselineIsPredictedWhenAsked) {
  PlanRequest req;
  req.collective = mapping::Collective::kAllreduce;
  req.algorithm = mapping::Algorithm::kRing;
  req.message_bytes = 1 << 20;
  ASSERT_OK_AND_ASSIGN(PlanResult plain, Plan(req, placement_, *costs_.costs, costs_.routes.get()));
  EXPECT_TRUE(plain.leaf_sorted_mapping.empty());
  req.leaf_sorted = true;
  ASSERT_OK_AND_ASSIGN(PlanResult plan, Plan(req, placement_, *costs_.costs, costs_.routes.get()));
  EXPECT_EQ(plan.mapping, plain.mapping) << "the baseline does not change the plan";
  ASSERT_EQ(plan.leaf_sorted_mapping.size(), 16u);
  EXPECT_EQ(plan.leaf_sorted.algorithm, "ring");
  EXPECT_EQ(plan.leaf_sorted.mapping, "leaf-sorted");
  // A ring on a two-level tree: the free order is as good as toporr's, far better than the
  // round-robin launch.
  EXPECT_LT(plan.leaf_sorted.time_ns, plan.before.time_ns / 2);
  EXPECT_NEAR(plan.leaf_sorted.time_ns / plan.after.time_ns, 1.0, 0.05);
  // With the library's rules and auto, the baseline is the library's own call in that order.
  req.algorithm.reset();
  req.library_rules = mapping::LibraryRules::kOpenMpi;
  req.collective = mapping::Collective::kBcast;
  req.message_bytes = 16 << 20;
  ASSERT_OK_AND_ASSIGN(PlanResult bcast, Plan(req, placement_, *costs_.costs, costs_.routes.get()));
  EXPECT_EQ(bcast.leaf_sorted.algorithm, kLibraryCandidate);
  EXPECT_GT(bcast.leaf_sorted.time_ns, 0);
}

TEST_F(FattreePlan, AutoPicksTheBestCandidateAndNeverWorseThanIdentity) {
  PlanRequest req;
  req.collective = mapping::Collective::kBcast;
  req.message_bytes = 4 << 20;
  req.root = 3;
  ASSERT_OK_AND_ASSIGN(PlanResult plan, Plan(req, placement_, *costs_.costs, costs_.routes.get()));
  ASSERT_FALSE(plan.candidates.empty());
  for (const auto& c : plan.candidates) EXPECT_GE(c.time_ns, plan.after.time_ns) << c.algorithm;
  EXPECT_LE(plan.after.time_ns, plan.before.time_ns);
  EXPECT_EQ(plan.mapping[3], 3) << "the root keeps its process";
}

TEST_F(FattreePlan, TheMpiLibrarysOwnCallIsACandidateAndWinsTies) {
  PlanRequest req;
  req.collective = mapping::Collective::kAllreduce;
  req.library_rules = mapping::LibraryRules::kOpenMpi;
  req.candidates = {mapping::Algorithm::kRing, mapping::Algorithm::kRecursiveDoubling,
                    mapping::Algorithm::kRabenseifner};
  // 16 ranks, 1 MiB, dealt round-robin over the hosts: Open MPI's tables pick Rabenseifner,
  // weighed on the launch order and on the leaf-sorted one (here: each host's ranks
  // consecutive), where it is predicted faster. toporr's reordered ring is not faster than
  // that by its margin, so the library's call runs on the leaf-sorted order.
  req.message_bytes = 1 << 20;
  req.leaf_sorted = true;
  ASSERT_OK_AND_ASSIGN(PlanResult sorts, Plan(req, placement_, *costs_.costs, costs_.routes.get()));
  ASSERT_GE(sorts.candidates.size(), 2u);
  EXPECT_EQ(sorts.candidates[0].algorithm, kLibraryCandidate);
  EXPECT_EQ(sorts.candidates[0].effective, "rabenseifner");
  EXPECT_EQ(sorts.candidates[0].mapping, "identity");
  EXPECT_EQ(sorts.candidates[1].algorithm, kLibraryCandidate);
  EXPECT_EQ(sorts.candidates[1].mapping, "leaf-sorted");
  EXPECT_LT(sorts.candidates[1].time_ns, sorts.candidates[0].time_ns / 2);
  EXPECT_TRUE(sorts.library_call);
  EXPECT_TRUE(sorts.reordered);
  EXPECT_EQ(sorts.mapping, sorts.leaf_sorted_mapping);
  EXPECT_EQ(sorts.before.time_ns, sorts.candidates[0].time_ns);
  EXPECT_EQ(sorts.after.time_ns, sorts.candidates[1].time_ns);
  EXPECT_EQ(sorts.leaf_sorted.time_ns, sorts.after.time_ns);
  EXPECT_EQ(sorts.library_mapping, sorts.leaf_sorted_mapping);
  // Without the library's rules toporr's own ring wins: the same order, predicted as fast.
  PlanRequest own = req;
  own.library_rules.reset();
  ASSERT_OK_AND_ASSIGN(PlanResult acts, Plan(own, placement_, *costs_.costs, costs_.routes.get()));
  EXPECT_FALSE(acts.library_call);
  EXPECT_TRUE(acts.reordered);
  EXPECT_LE(acts.after.time_ns, sorts.after.time_ns * kLibraryMarginLarge);
  // Packed by core (each host's ranks consecutive, already leaf-sorted), 64 B: the library's
  // recursive doubling (16..31 ranks, 64 B..4 KiB) on the launch order is as good as anything
  // toporr has, so the tie goes to the library and the order stays; no second library
  // candidate, the leaf-sorted order being the launch order.
  ASSERT_OK_AND_ASSIGN(mapping::Placement packed, InitialPlacement(hosts_, MapBy::kCore, 0));
  req.message_bytes = 64;
  ASSERT_OK_AND_ASSIGN(PlanResult keeps, Plan(req, packed, *costs_.costs, costs_.routes.get()));
  EXPECT_TRUE(keeps.library_call);
  EXPECT_FALSE(keeps.reordered);
  EXPECT_EQ(keeps.algorithm, kLibraryCandidate);
  EXPECT_EQ(keeps.candidates[0].effective, "recursive_doubling");
  EXPECT_NE(keeps.candidates[1].algorithm, kLibraryCandidate);
  EXPECT_TRUE(keeps.library_mapping.empty());
  for (int r = 0; r < 16; ++r) EXPECT_EQ(keeps.mapping[r], r);
  for (const auto& c : keeps.candidates) EXPECT_GE(c.time_ns, keeps.after.time_ns) << c.algorithm;
  // A forced algorithm is never second-guessed.
  req.algorithm = mapping::Algorithm::kRing;
  ASSERT_OK_AND_ASSIGN(PlanResult forced, Plan(req, packed, *costs_.costs, costs_.routes.get()));
  EXPECT_FALSE(forced.library_call);
  EXPECT_EQ(forced.algorithm, "ring");
}

// Allgather places each rank's block by rank: the library's call is weighed on the launch
// order only.
TEST_F(FattreePlan, TheLibrarysCallIsNotReorderedWhereTheResultDependsOnTheOrder) {
  PlanRequest req;
  req.collective = mapping::Collective::kAllgather;
  req.library_rules = mapping::LibraryRules::kOpenMpi;
  req.message_bytes = 64 << 10;
  ASSERT_OK_AND_ASSIGN(PlanResult plan, Plan(req, placement_, *costs_.costs, costs_.routes.get()));
  ASSERT_GE(plan.candidates.size(), 2u);
  EXPECT_EQ(plan.candidates[0].algorithm, kLibraryCandidate);
  EXPECT_NE(plan.candidates[1].algorithm, kLibraryCandidate);
  if (plan.library_call) {
    EXPECT_FALSE(plan.reordered);
  }
}

// toporr replaces the library's own call only when predicted kLibraryMargin times faster
// (kLibraryMarginLarge from 1 MiB). Checked as the rule itself, both ways, over
// sizes from 64 B to 16 MiB, both collectives, both libraries' rules and two placements.
TEST_F(FattreePlan, TheLibrarysCallIsReplacedOnlyByAGainBeyondItsMargin) {
  ASSERT_OK_AND_ASSIGN(mapping::Placement packed, InitialPlacement(hosts_, MapBy::kCore, 0));
  int replaced = 0, kept = 0;
  for (const mapping::Placement* placement : {&placement_, &packed}) {
    for (mapping::Collective coll :
         {mapping::Collective::kAllreduce, mapping::Collective::kBcast}) {
      for (mapping::LibraryRules rules :
           {mapping::LibraryRules::kOpenMpi, mapping::LibraryRules::kMpich}) {
        for (int64_t bytes = 64; bytes <= (int64_t{16} << 20); bytes *= 4) {
          PlanRequest req;
          req.collective = coll;
          req.library_rules = rules;
          req.message_bytes = bytes;
          req.leaf_sorted = true;
          ASSERT_OK_AND_ASSIGN(PlanResult plan,
                               Plan(req, *placement, *costs_.costs, costs_.routes.get()));
          ASSERT_EQ(plan.candidates[0].algorithm, kLibraryCandidate);
          // The library's call on the launch order, and on the leaf-sorted one where that
          // is another order (a second candidate).
          const bool sorted = plan.candidates[1].algorithm == kLibraryCandidate;
          const double library =
              sorted ? std::min(plan.candidates[0].time_ns, plan.candidates[1].time_ns)
                     : plan.candidates[0].time_ns;
          const bool on_sorted = sorted && plan.candidates[1].time_ns < plan.candidates[0].time_ns;
          double best = std::numeric_limits<double>::infinity();
          for (size_t i = sorted ? 2 : 1; i < plan.candidates.size(); ++i) {
            best = std::min(best, plan.candidates[i].time_ns);
          }
          const double margin =
              bytes < kLibraryMarginBelowBytes ? kLibraryMargin : kLibraryMarginLarge;
          SCOPED_TRACE(::testing::Message()
                       << mapping::CollectiveName(coll) << " " << bytes << " B: library " << library
                       << " ns, best " << best << " ns");
          if (plan.library_call) {
            ++kept;
            EXPECT_LE(library, best * margin);
            EXPECT_EQ(plan.reordered, on_sorted);
            for (int r = 0; r < static_cast<int>(plan.mapping.size()); ++r) {
              EXPECT_EQ(plan.mapping[r], on_sorted ? plan.leaf_sorted_mapping[r] : r);
            }
          } else {
            ++replaced;
            EXPECT_GT(library, plan.after.time_ns * margin);
          }
        }
      }
    }
  }
  EXPECT_GT(replaced, 0);
  EXPECT_GT(kept, 0);
}

TEST_F(FattreePlan, MultilevelIsACandidateChosenOnlyWhenFasterByItsMargin) {
  PlanRequest req;
  req.collective = mapping::Collective::kReduce;
  req.root = 5;
  req.multilevel = MultilevelChoice::kCandidate;
  int chosen = 0, margin_kept_flat = 0;
  for (int64_t bytes : {int64_t{8}, int64_t{1024}, int64_t{65536}, int64_t{1} << 20}) {
    req.message_bytes = bytes;
    ASSERT_OK_AND_ASSIGN(PlanResult plan,
                         Plan(req, placement_, *costs_.costs, costs_.routes.get()));
    // One host per leaf: host and top.
    EXPECT_THAT(plan.levels, ::testing::ElementsAre("host", "top"));
    ASSERT_EQ(plan.candidates.back().algorithm, "multilevel");
    EXPECT_EQ(plan.candidates.back().mapping, "levels");
    const double ml = plan.candidates.back().time_ns;
    EXPECT_GT(ml, 0);
    double flat = -1;
    for (size_t i = 0; i + 1 < plan.candidates.size(); ++i) {
      if (flat < 0 || plan.candidates[i].time_ns < flat) flat = plan.candidates[i].time_ns;
    }
    // Its stages, as reported: the levels it runs at, summing to its prediction.
    ASSERT_FALSE(plan.stages.empty()) << bytes;
    double sum = 0;
    for (const PlanStage& s : plan.stages) {
      EXPECT_EQ(s.collective, "reduce");
      EXPECT_EQ(s.algorithm, "binomial");
      EXPECT_GE(s.groups, 1);
      EXPECT_GE(s.max_members, 2);
      sum += s.time_ns;
    }
    EXPECT_NEAR(sum, ml, 1e-6 * ml);
    const double margin = bytes < kMultilevelMarginBelowBytes ? kMultilevelMargin : 1.0;
    if (ml * margin < flat) {
      ++chosen;
      EXPECT_EQ(plan.algorithm, "multilevel") << bytes;
      EXPECT_FALSE(plan.multilevel.empty());
      EXPECT_FALSE(plan.reordered);
    } else {
      margin_kept_flat += ml < flat;
      EXPECT_NE(plan.algorithm, "multilevel") << bytes;
      EXPECT_TRUE(plan.multilevel.empty());
    }
  }
  // At least one size is decided by the multi-level rule: chosen, or held back by the margin
  // though predicted faster (a guard that the loop above tested something).
  EXPECT_GT(chosen + margin_kept_flat, 0);
  // Forced: chosen whatever its time, in the caller's order, with its plan.
  req.collective = mapping::Collective::kAllreduce;
  req.multilevel = MultilevelChoice::kForce;
  ASSERT_OK_AND_ASSIGN(PlanResult forced,
                       Plan(req, placement_, *costs_.costs, costs_.routes.get()));
  EXPECT_EQ(forced.algorithm, "multilevel");
  EXPECT_EQ(forced.mapping, mapping::IdentityMapping(16));
  ASSERT_OK_AND_ASSIGN(mapping::MultilevelPlan decoded,
                       mapping::DecodeMultilevel(forced.multilevel));
  EXPECT_EQ(decoded.stages.size(), 3u);  // reduce per host, allreduce at the top, bcast back
  EXPECT_DOUBLE_EQ(forced.after.time_ns, forced.candidates.back().time_ns);
  // No multi-level allgather.
  req.collective = mapping::Collective::kAllgather;
  EXPECT_THAT(Plan(req, placement_, *costs_.costs, nullptr),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no multi-level")));
  req.multilevel = MultilevelChoice::kCandidate;
  ASSERT_OK_AND_ASSIGN(PlanResult allgather, Plan(req, placement_, *costs_.costs, nullptr));
  EXPECT_TRUE(allgather.levels.empty());
}

TEST_F(FattreePlan, BadRootIsRefused) {
  PlanRequest req;
  req.root = 16;
  EXPECT_THAT(Plan(req, placement_, *costs_.costs, nullptr),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("root 16")));
}

}  // namespace
}  // namespace toporr::client

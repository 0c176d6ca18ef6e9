#include "client/ctl/cost_model_fit.h"

#include "common/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mapping/costs/cost_model.h"

namespace toporr::client::ctl {
namespace {

using ::testing::HasSubstr;
using toporr::testing::StatusIs;

// Four hosts: a, b on one leaf, c, d on another; every cable 32 Gb/s. The model's costs of
// a pair under a model: its switches, its cables' rates scaled by tier.
constexpr double kGbps = 32;
int Switches(int x, int y) { return x / 2 == y / 2 ? 1 : 3; }

std::vector<mapping::HostPairCost> Costs(const mapping::CostModelOptions& m) {
  std::vector<mapping::HostPairCost> out(16);
  for (int x = 0; x < 4; ++x) {
    for (int y = 0; y < 4; ++y) {
      if (x == y) continue;
      const int s = Switches(x, y);
      const double rate =
          kGbps * (s == 1 ? m.host_rate_scale : std::min(m.host_rate_scale, m.switch_rate_scale));
      out[x * 4 + y] = mapping::MakePairCost(s, rate, m);
    }
  }
  return out;
}

// A probe of the four hosts (one rank each) whose one-way times follow `truth` exactly.
collectors::PlogpProbe ProbeOf(const mapping::CostModelOptions& truth) {
  collectors::PlogpProbe p;
  p.sizes = {0, 65536, 1048576};
  p.hosts = {"a", "b", "c", "d"};
  for (const auto& h : p.hosts) p.ranks.push_back({h, 0, std::nullopt});
  const std::vector<mapping::HostPairCost> c = Costs(truth);
  for (int x = 0; x < 4; ++x) {
    for (int y = x + 1; y < 4; ++y) {
      collectors::PlogpPair q;
      q.a = x;
      q.b = y;
      for (int64_t m : p.sizes)
        q.rtt_ns.push_back(2 * c[x * 4 + y].alpha_ns + 2 * m * c[x * 4 + y].beta_ns_per_byte);
      p.pairs.push_back(q);
    }
  }
  return p;
}

CostModelFitInput Input(const collectors::PlogpProbe& probe, const std::string& kind) {
  CostModelFitInput in;
  in.probe = &probe;
  in.hosts = probe.hosts;
  in.kind = kind;
  in.costs =
      [](const mapping::CostModelOptions& m) -> absl::StatusOr<std::vector<mapping::HostPairCost>> {
    return Costs(m);
  };
  return in;
}

TEST(FitCostModel, RecoversTheConstantsOfAMachineThatFollowsTheModel) {
  mapping::CostModelOptions truth = mapping::CostModelKinds().back().options;  // tcp
  truth.per_message_ns = 52000;
  truth.switch_latency_ns = 3000;
  truth.host_rate_scale = 0.006;
  truth.switch_rate_scale = 0.006;
  const collectors::PlogpProbe probe = ProbeOf(truth);
  ASSERT_OK_AND_ASSIGN(CostModelFit fit, FitCostModel(Input(probe, "tcp")));
  EXPECT_EQ(fit.pairs, 6);
  EXPECT_NEAR(fit.after.per_message_ns, 52000, 1);
  EXPECT_NEAR(fit.after.switch_latency_ns, 3000, 1);
  EXPECT_NEAR(fit.after.host_rate_scale, 0.006, 1e-6);
  EXPECT_NEAR(fit.after.switch_rate_scale, 0.006, 1e-6);
  EXPECT_EQ(fit.after.nic_latency_ns, truth.nic_latency_ns);  // the kind's, kept
  EXPECT_EQ(fit.points, 18);
  EXPECT_EQ(fit.within_after, 18);
  EXPECT_LT(fit.within_before, 18);
  ASSERT_EQ(fit.classes.size(), 2u);
  EXPECT_EQ(fit.classes[0].switches, 1);
  EXPECT_EQ(fit.classes[0].pairs, 2);
  EXPECT_NEAR(fit.classes[0].measured_gbps, kGbps * 0.006, 1e-6);
  EXPECT_NEAR(fit.classes[1].after_gbps, kGbps * 0.006, 1e-6);
  EXPECT_NEAR(fit.classes[1].measured_latency_ns, fit.classes[1].after_latency_ns, 1);
}

// Pairs across switches measured slower (they share uplinks in the probe's rounds): shown,
// not taken as a slower switch tier.
TEST(FitCostModel, PairsAcrossSwitchesAreShownNotFitted) {
  mapping::CostModelOptions truth = mapping::CostModelKinds().back().options;
  truth.host_rate_scale = 0.006;
  truth.switch_rate_scale = 0.003;
  const collectors::PlogpProbe probe = ProbeOf(truth);
  ASSERT_OK_AND_ASSIGN(CostModelFit fit, FitCostModel(Input(probe, "tcp")));
  EXPECT_NEAR(fit.after.switch_rate_scale, 0.006, 1e-6);
  ASSERT_EQ(fit.classes.size(), 2u);
  EXPECT_NEAR(fit.classes[1].measured_gbps, kGbps * 0.003, 1e-6);
  EXPECT_NEAR(fit.classes[1].after_gbps, kGbps * 0.006, 1e-6);
  EXPECT_LT(fit.within_after, fit.points);
}

TEST(FitCostModel, TakesTheBestRankPairOfTwoHostsAndNamesMissingHosts) {
  mapping::CostModelOptions truth;
  truth.per_message_ns = 1000;
  collectors::PlogpProbe probe = ProbeOf(truth);
  // A second, slower rank on host a: its pairs must not count.
  probe.ranks.push_back({"a", 1, std::nullopt});
  collectors::PlogpPair slow = probe.pairs[0];
  slow.a = 1;
  slow.b = 4;
  probe.pairs.push_back(slow);  // b - a (the second rank): a pair of hosts b, a
  for (double& t : probe.pairs.back().rtt_ns) t *= 3;
  probe.hosts.push_back("e");
  probe.ranks.push_back({"e", 0, std::nullopt});
  CostModelFitInput in = Input(probe, "infiniband-hdr");
  in.hosts = {"a", "b", "c", "d"};
  ASSERT_OK_AND_ASSIGN(CostModelFit fit, FitCostModel(in));
  EXPECT_THAT(fit.missing, ::testing::ElementsAre("e"));
  EXPECT_NEAR(fit.after.per_message_ns, 1000, 1);
  EXPECT_NEAR(fit.after.host_rate_scale, 1, 1e-9);
  EXPECT_EQ(fit.within_after, fit.points);
}

TEST(FitCostModel, RefusesWhatCannotBeFitted) {
  collectors::PlogpProbe probe = ProbeOf(mapping::CostModelOptions{});
  EXPECT_THAT(FitCostModel(Input(probe, "myrinet")),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unknown kind")));
  collectors::PlogpProbe one_size = probe;
  one_size.sizes = {65536};
  for (auto& q : one_size.pairs) q.rtt_ns.resize(1);
  EXPECT_THAT(FitCostModel(Input(one_size, "tcp")),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--sizes 0,65536,1048576")));
  CostModelFitInput none = Input(probe, "tcp");
  none.hosts = {"a"};
  EXPECT_THAT(FitCostModel(none),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("1 of the probe's 4 hosts")));
}

}  // namespace
}  // namespace toporr::client::ctl

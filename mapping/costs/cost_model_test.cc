#include "mapping/costs/cost_model.h"

#include "absl/strings/str_split.h"
#include "common/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mapping/costs/host_costs.h"
#include "mapping/testing/test_fabrics.h"

namespace toporr::mapping {
namespace {

using ::testing::HasSubstr;
using toporr::testing::StatusIs;

CostModelSettings Apply(const std::vector<std::pair<std::string, std::string>>& lines) {
  CostModelSettings s;
  for (const auto& [k, v] : lines) EXPECT_OK(ApplyCostModelSetting(k, v, &s));
  return s;
}

TEST(CostModelTest, DefaultKindIsTheDefaultOptions) {
  ASSERT_FALSE(CostModelKinds().empty());
  EXPECT_STREQ(CostModelKinds()[0].name, "infiniband-hdr");
  const CostModelOptions d;
  const CostModelOptions& k = CostModelKinds()[0].options;
  EXPECT_EQ(k.nic_latency_ns, d.nic_latency_ns);
  EXPECT_EQ(k.switch_latency_ns, d.switch_latency_ns);
  EXPECT_EQ(k.per_message_ns, 0);
  EXPECT_EQ(k.host_rate_scale, 1);
}

TEST(CostModelTest, KindThenOverrides) {
  const CostModelSettings s = Apply({{"cost_model", "tcp"},
                                     {"cost_model_per_message_ns", "45000"},
                                     {"cost_model_host_rate_scale", "0.0059"}});
  EXPECT_EQ(s.kind, "tcp");
  EXPECT_EQ(s.model.per_message_ns, 45000);
  EXPECT_EQ(s.model.host_rate_scale, 0.0059);
  EXPECT_EQ(s.model.switch_rate_scale, 1);
  EXPECT_EQ(s.model.switch_latency_ns, 1000);  // the tcp preset's
  EXPECT_TRUE(ScalesRates(s.model));
}

TEST(CostModelTest, RefusesWhatIsWrong) {
  CostModelSettings s;
  EXPECT_THAT(ApplyCostModelSetting("cost_model", "myrinet", &s),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("known: infiniband-hdr")));
  EXPECT_THAT(ApplyCostModelSetting("cost_model_nic_latency_ns", "-1", &s),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("out of range")));
  EXPECT_THAT(ApplyCostModelSetting("cost_model_host_rate_scale", "0", &s),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("out of range")));
  EXPECT_THAT(ApplyCostModelSetting("cost_model_switch_latency_ns", "fast", &s),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a number")));
  EXPECT_THAT(ApplyCostModelSetting("cost_model_nic_latency_ns", "nan", &s),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a number")));
  EXPECT_THAT(ApplyCostModelSetting("cost_model_colour", "1", &s),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a cost model setting")));
  EXPECT_FALSE(s.overridden);
  EXPECT_OK(ApplyCostModelSetting("cost_model_link_latency_ns", "5", &s));
  EXPECT_THAT(ApplyCostModelSetting("cost_model", "roce", &s),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("must come before")));
  EXPECT_EQ(s.model.link_latency_ns, 5);
}

TEST(CostModelTest, SettingLinesReadBackToTheSameModel) {
  CostModelOptions m = CostModelKinds()[0].options;
  m.per_message_ns = 12345.678;
  m.host_rate_scale = 0.00612;
  const std::string lines = CostModelSettingLines("infiniband-hdr", m);
  EXPECT_THAT(lines, HasSubstr("cost_model = infiniband-hdr\n"));
  EXPECT_THAT(lines, ::testing::Not(HasSubstr("cost_model_nic_latency_ns")));
  CostModelSettings s;
  for (absl::string_view line : absl::StrSplit(lines, '\n', absl::SkipEmpty())) {
    const std::vector<std::string> kv = absl::StrSplit(line, " = ");
    ASSERT_EQ(kv.size(), 2u);
    ASSERT_OK(ApplyCostModelSetting(kv[0], kv[1], &s));
  }
  EXPECT_EQ(s.model.per_message_ns, m.per_message_ns);
  EXPECT_EQ(s.model.host_rate_scale, m.host_rate_scale);
  EXPECT_THAT(CostModelSettingLines("tcp", m, /*all=*/true),
              HasSubstr("cost_model_switch_rate_scale = 1\n"));
}

TEST(CostModelTest, ScaledFabricScalesByTier) {
  testing::FabricBuilder b;
  const int spine = b.AddSwitch("spine");
  const int leaf1 = b.AddSwitch("leaf1");
  const int leaf2 = b.AddSwitch("leaf2");
  const int x = b.AddHostCa("x");
  const int y = b.AddHostCa("y");
  b.Connect(x, 1, leaf1, 1);
  b.Connect(y, 1, leaf2, 1);
  b.Connect(leaf1, 10, spine, 1);
  b.Connect(leaf2, 10, spine, 2);
  const fabric::Fabric f = b.Finish();
  CostModelOptions m;
  m.host_rate_scale = 0.5;
  m.switch_rate_scale = 0.25;
  const fabric::Fabric scaled = ScaledFabric(f, m);
  ASSERT_EQ(scaled.links.size(), f.links.size());
  for (size_t i = 0; i < f.links.size(); ++i) {
    const auto& l = f.links[i];
    const bool host = f.nodes[l.a.node].type == fabric::NodeType::kCa ||
                      f.nodes[l.b.node].type == fabric::NodeType::kCa;
    EXPECT_DOUBLE_EQ(scaled.links[i].data_rate_gbps, l.data_rate_gbps * (host ? 0.5 : 0.25));
  }
  // The pair's bottleneck and latency follow: the uplinks (200 x 0.25) are the slowest.
  auto costs = HostCosts::Create(scaled, m);
  ASSERT_OK(costs);
  const HostPairCost c = (*costs)->Cost(scaled.FindHost("x"), scaled.FindHost("y"));
  EXPECT_EQ(c.hops, 3);
  EXPECT_DOUBLE_EQ(c.bottleneck_gbps, f.links[2].data_rate_gbps * 0.25);
  m.per_message_ns = 1000;
  const HostPairCost d = MakePairCost(3, 50, m);
  EXPECT_DOUBLE_EQ(d.latency_ns, 600 + 1000 + 130 * 3 + 15 * 4);
  EXPECT_DOUBLE_EQ(d.alpha_ns, d.latency_ns);
}

}  // namespace
}  // namespace toporr::mapping

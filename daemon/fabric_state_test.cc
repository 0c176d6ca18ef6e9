// FabricState on a real SQLite file: what each kind of input does to the served snapshot.
#include "daemon/fabric_state.h"

#include "common/status_matchers.h"
#include "common/test_data.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::daemon {
namespace {

using ::testing::HasSubstr;
using ::toporr::testing::ReadSharedFabric;
using ::toporr::testing::StatusIs;

class FabricStateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    options_.store.path = toporr::testing::MakeTempDir("fabric_state") + "/toporr.db";
    ASSERT_OK_AND_ASSIGN(state_, FabricState::Create(options_));
  }
  absl::StatusOr<IngestOutcome> Ingest(InputFormat f, const std::string& sample) {
    // These tests replace one fabric by another on purpose.
    return state_->Ingest(f, sample, ReadSharedFabric(sample), "",
                          IngestMode{/*allow_shrink=*/true});
  }
  FabricStateOptions options_;
  std::unique_ptr<FabricState> state_;
};

TEST_F(FabricStateTest, TopologyThenRoutesThenTraces) {
  EXPECT_EQ(state_->Current(), nullptr);
  EXPECT_THAT(Ingest(InputFormat::kLft, "dump_fts_fattree.txt"),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("topology first")));

  ASSERT_OK_AND_ASSIGN(IngestOutcome topo,
                       Ingest(InputFormat::kIbnetdiscover, "ibnetdiscover_fattree_default.txt"));
  EXPECT_TRUE(topo.created);
  auto served = state_->Current();
  ASSERT_NE(served, nullptr);
  EXPECT_EQ(served->tables, nullptr);
  EXPECT_EQ(served->costs->route_kind(), mapping::PairCosts::RouteKind::kShortestPath);

  ASSERT_OK_AND_ASSIGN(IngestOutcome lft, Ingest(InputFormat::kLft, "dump_fts_fattree.txt"));
  EXPECT_TRUE(lft.created);
  EXPECT_EQ(lft.snapshot.num_forwarding_tables, 6);
  served = state_->Current();
  ASSERT_NE(served->tables, nullptr);
  EXPECT_EQ(served->costs->route_kind(), mapping::PairCosts::RouteKind::kForwardingTables);

  // The same topology again (-f adds only raw speed codes) keeps the routes that still fit:
  // nothing changes.
  ASSERT_OK_AND_ASSIGN(IngestOutcome again,
                       Ingest(InputFormat::kIbnetdiscover, "ibnetdiscover_fattree_full_f.txt"));
  EXPECT_FALSE(again.created);
  EXPECT_TRUE(again.warnings.empty());

  ASSERT_OK_AND_ASSIGN(IngestOutcome traces,
                       Ingest(InputFormat::kIbtracert, "ibtracert_fattree_interleaf.txt"));
  EXPECT_FALSE(traces.created);
  EXPECT_EQ(traces.traces_checked, 1);
  EXPECT_EQ(traces.trace_disagreements, 0);
  EXPECT_EQ(state_->Current()->info.id, lft.snapshot.id);
}

// A calibrated cost model: the served costs carry its per-message latency and its rates
// scaled by tier, along the shortest paths and along the forwarding tables alike.
TEST_F(FabricStateTest, CostModelScalesServedRatesAndLatencies) {
  FabricStateOptions calibrated;
  calibrated.store.path = toporr::testing::MakeTempDir("fabric_state_model") + "/toporr.db";
  calibrated.cost_model.per_message_ns = 40000;
  calibrated.cost_model.host_rate_scale = 0.5;
  calibrated.cost_model.switch_rate_scale = 0.125;
  ASSERT_OK_AND_ASSIGN(auto model_state, FabricState::Create(calibrated));
  for (InputFormat f : {InputFormat::kIbnetdiscover, InputFormat::kLft}) {
    const std::string sample =
        f == InputFormat::kLft ? "dump_fts_fattree.txt" : "ibnetdiscover_fattree_default.txt";
    ASSERT_OK(Ingest(f, sample).status());
    ASSERT_OK(model_state->Ingest(f, sample, ReadSharedFabric(sample), "", IngestMode{}).status());
    const auto plain = state_->Current();
    const auto model = model_state->Current();
    ASSERT_EQ(plain->fabric.hosts.size(), model->fabric.hosts.size());
    int same_leaf = 0, across = 0;
    for (int b = 1; b < static_cast<int>(plain->fabric.hosts.size()); ++b) {
      const mapping::HostPairCost p = plain->costs->Cost(0, b);
      const mapping::HostPairCost m = model->costs->Cost(0, b);
      ASSERT_EQ(m.hops, p.hops);
      EXPECT_DOUBLE_EQ(m.latency_ns, p.latency_ns + 40000);
      // Every cable of this fabric has one rate: a pair on one leaf crosses host cables
      // only; any other pair an uplink, the slower tier here.
      EXPECT_DOUBLE_EQ(m.bottleneck_gbps, p.bottleneck_gbps * (p.hops == 1 ? 0.5 : 0.125))
          << "pair 0-" << b << " over " << p.hops << " switches";
      ++(p.hops == 1 ? same_leaf : across);
    }
    EXPECT_GT(same_leaf, 0);
    EXPECT_GT(across, 0);
    // The topology served is the fabric's, not the model's.
    EXPECT_EQ(model->fabric.links[0].data_rate_gbps, plain->fabric.links[0].data_rate_gbps);
  }
}

TEST_F(FabricStateTest, NewTopologyDropsRoutesThatNoLongerFitAndRestartServesTheSame) {
  ASSERT_OK(Ingest(InputFormat::kIbnetdiscover, "ibnetdiscover_fattree_default.txt").status());
  ASSERT_OK(Ingest(InputFormat::kLft, "dump_fts_fattree.txt").status());
  ASSERT_OK_AND_ASSIGN(IngestOutcome edge,
                       Ingest(InputFormat::kIbnetdiscover, "ibnetdiscover_edgecases_default.txt"));
  EXPECT_TRUE(edge.created);
  ASSERT_EQ(edge.warnings.size(), 1u);
  EXPECT_THAT(edge.warnings[0], HasSubstr("do not fit the new fabric"));
  EXPECT_EQ(state_->Current()->tables, nullptr);

  // A bad file changes nothing.
  EXPECT_THAT(
      Ingest(InputFormat::kIbnetdiscover, "ibnetdiscover_real_nvidia_topograph_truncated_bad.txt"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("truncated_bad.txt:")));
  EXPECT_EQ(state_->Current()->info.id, edge.snapshot.id);

  state_.reset();
  ASSERT_OK_AND_ASSIGN(state_, FabricState::Create(options_));
  ASSERT_NE(state_->Current(), nullptr);
  EXPECT_EQ(state_->Current()->info.id, edge.snapshot.id);
  EXPECT_GE(state_->Current()->fabric.FindHost("hostF"), 0);

  ASSERT_OK_AND_ASSIGN(auto stored, state_->LoadSnapshot(2));
  ASSERT_TRUE(stored.second.has_value()) << "snapshot 2 kept its forwarding tables";
  EXPECT_EQ(stored.second->switches().size(), 6u);
}

}  // namespace
}  // namespace toporr::daemon

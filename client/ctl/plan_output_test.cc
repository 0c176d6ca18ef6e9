#include "client/ctl/plan_output.h"

#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::client::ctl {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

PlanReport TwoRanksSwapped() {
  PlanReport r;
  r.collective = "allreduce";
  r.message_bytes = 1 << 20;
  r.rank_hosts = {"node01", "node05"};
  r.num_hosts = 2;
  r.cost_source = "fabric f.topo (routes modelled)";
  r.contention = true;
  r.plan.algorithm = "ring";
  r.plan.mapping = {1, 0};
  r.plan.reordered = true;
  r.plan.before = {"ring", "ring", "identity", 4000, 2, 10};
  r.plan.after = {"ring", "ring", "greedy", 2000, 1, 5};
  r.plan.candidates = {r.plan.after};
  return r;
}

std::string Rendered(const PlanReport& report, bool json) {
  std::ostringstream out, err;
  EXPECT_EQ(Render(PlanReply(report), json, out, err), 0);
  return out.str();
}

std::string Rendered(const CartPlanReport& report, bool json) {
  std::ostringstream out, err;
  EXPECT_EQ(Render(CartPlanReply(report), json, out, err), 0);
  return out.str();
}

// The field names are a stable interface (README.md).
TEST(PlanOutputTest, JsonFieldsInOrder) {
  EXPECT_EQ(Rendered(TwoRanksSwapped(), true),
            "{\"collective\":\"allreduce\",\"algorithm\":\"ring\",\"message_bytes\":1048576,"
            "\"ranks\":2,\"hosts\":2,\"cost_source\":\"fabric f.topo (routes modelled)\","
            "\"reordered\":true,\"speedup\":2,\"from\":\"launch\","
            "\"before\":{\"algorithm\":\"ring\",\"effective_algorithm\":\"ring\","
            "\"mapping\":\"identity\",\"time_ns\":4000,\"max_link_load\":2,\"hop_bytes\":10},"
            "\"after\":{\"algorithm\":\"ring\",\"effective_algorithm\":\"ring\","
            "\"mapping\":\"greedy\",\"time_ns\":2000,\"max_link_load\":1,\"hop_bytes\":5},"
            "\"new_order\":[1,0],\"leaf_sorted\":null,\"leaf_sorted_order\":[],"
            "\"speedup_vs_leaf_sorted\":1,"
            "\"candidates\":[{\"algorithm\":\"ring\",\"effective_algorithm\":\"ring\","
            "\"mapping\":\"greedy\",\"time_ns\":2000,\"max_link_load\":1,\"hop_bytes\":5}],"
            "\"levels\":null,\"stages\":null}\n");
  PlanReport levels = TwoRanksSwapped();
  levels.plan.levels = {"host", "top"};
  levels.plan.stages = {{"top", "bcast", "bine", 1, 4, 7100},
                        {"host", "bcast", "knomial", 4, 4, 3500}};
  EXPECT_THAT(Rendered(levels, true),
              HasSubstr(",\"levels\":[\"host\",\"top\"],\"stages\":[{\"level\":\"top\","
                        "\"collective\":\"bcast\",\"algorithm\":\"bine\",\"groups\":1,"
                        "\"max_members\":4,\"predicted_ns\":7100},{\"level\":\"host\""));
  EXPECT_THAT(
      Rendered(levels, false),
      HasSubstr("multi-level stages:\n  top   bcast     bine                    1 group of <= 4"
                "         7.1 us\n  host  bcast     knomial                 4 groups of <= 4"));
}

TEST(PlanOutputTest, TextNamesTheNewOrderAndLoads) {
  const std::string text = Rendered(TwoRanksSwapped(), false);
  EXPECT_THAT(text, HasSubstr("allreduce of 1048576 bytes over 2 ranks on 2 hosts"));
  EXPECT_THAT(text, HasSubstr("before 4.0 us (max link load 2), after 2.0 us (max link load 1), "
                              "speedup 2.00x"));
  EXPECT_THAT(text, HasSubstr("  0: 1@node05  1: 0@node01\n"));
}

TEST(PlanOutputTest, WithoutRoutesNoLoadsAndNoReorderingSaid) {
  PlanReport r = TwoRanksSwapped();
  r.contention = false;
  r.plan.reordered = false;
  r.hostfile_out = "hosts.new";
  const std::string text = Rendered(r, false);
  EXPECT_THAT(text, Not(HasSubstr("load")));
  EXPECT_THAT(text, HasSubstr("keep the current order"));
  EXPECT_THAT(text, HasSubstr("mpirun --hostfile hosts.new --map-by seq"));
}

// --cart: the field names are as stable as a collective's.
TEST(PlanOutputTest, CartJsonFieldsInOrderAndText) {
  CartPlanReport r;
  r.dims = {2, 1};
  r.periods = {true, false};
  r.job.rank_hosts = {"node01", "node05"};
  r.job.num_hosts = 2;
  r.job.cost_source = "toporrd snapshot 1";
  r.job.embedding.mapping = {1, 0};
  r.job.embedding.method = mapping::EmbedMethod::kScotch;
  r.job.embedding.identity_cost_ns = 4000;
  r.job.embedding.bipartition_cost_ns = 4000;
  r.job.embedding.scotch_cost_ns = 2000;
  r.job.embedding.cost_ns = 2000;
  EXPECT_EQ(Rendered(r, true),
            "{\"cart\":{\"dims\":[2,1],\"periods\":[true,false]},\"edge_bytes\":4096,"
            "\"ranks\":2,\"hosts\":2,\"cost_source\":\"toporrd snapshot 1\","
            "\"embedder\":\"scotch\",\"reordered\":true,\"speedup\":2,"
            "\"before\":{\"mapping\":\"identity\",\"time_ns\":4000},"
            "\"after\":{\"mapping\":\"scotch\",\"time_ns\":2000},\"new_order\":[1,0],"
            "\"candidates\":[{\"mapping\":\"identity\",\"time_ns\":4000},"
            "{\"mapping\":\"bipartition\",\"time_ns\":4000},"
            "{\"mapping\":\"scotch\",\"time_ns\":2000}]}\n");
  const std::string text = Rendered(r, false);
  EXPECT_THAT(text, HasSubstr("cart 2x1 (periods 1x0) over 2 ranks on 2 hosts"));
  EXPECT_THAT(text, HasSubstr("before 4.0 us, after 2.0 us (scotch), speedup 2.00x"));
  EXPECT_THAT(text, HasSubstr("  0: 1@node05  1: 0@node01\n"));
  EXPECT_THAT(text, HasSubstr("candidates: identity 4.0 us, bipartition 4.0 us, scotch 2.0 us\n"));
  r.job.embedding.method = mapping::EmbedMethod::kIdentity;
  EXPECT_THAT(Rendered(r, false), HasSubstr("keep the current order"));
}

}  // namespace
}  // namespace toporr::client::ctl

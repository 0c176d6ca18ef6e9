#include "client/planapi/planner.h"

#include <set>
#include <string>
#include <vector>

#include "client/costs/job_costs.h"
#include "client/plan/launch_files.h"
#include "client/plan/plan.h"
#include "common/status_matchers.h"
#include "common/test_data.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::client::planapi {
namespace {

using ::testing::HasSubstr;

constexpr char kFabric[] = "ibnetdiscover_fattree_default.txt";

std::unique_ptr<Planner> OfflinePlanner() {
  PlannerOptions options;
  auto applied = ApplyPlannerSettings(
      options, {"fabric=" + toporr::testing::SharedFabric(kFabric), "format=ibnetdiscover"});
  EXPECT_TRUE(applied.ok()) << applied.status();
  auto planner = Planner::Create(*applied);
  EXPECT_TRUE(planner.ok()) << planner.status();
  return *std::move(planner);
}

// Processes of four hosts on two leaves (node01, node02 on one; node05, node06 on another),
// two each, dealt round-robin over the hosts: every ring edge crosses a leaf.
std::vector<std::string> RoundRobin() {
  std::vector<std::string> hosts;
  for (int round = 0; round < 2; ++round) {
    for (const char* h : {"node01", "node05", "node02", "node06"}) hosts.push_back(h);
  }
  return hosts;
}

TEST(PlannerTest, OrderIsToporrctlPlansForTheSameHostsAndRequest) {
  std::unique_ptr<Planner> planner = OfflinePlanner();
  OrderRequest request;
  request.rank_hosts = RoundRobin();
  request.algorithm = "ring";
  request.message_bytes = 16 << 20;
  ASSERT_OK_AND_ASSIGN(RankOrder order, planner->Order(request));
  EXPECT_TRUE(order.reordered);
  EXPECT_EQ(order.algorithm, "ring");
  EXPECT_LT(order.planned_ns, order.launch_ns);
  EXPECT_THAT(order.source, HasSubstr("fabric"));
  EXPECT_EQ(std::set<int32_t>(order.order.begin(), order.order.end()).size(), 8u);

  // What `toporrctl plan --hostfile H --ranks R --collective allreduce --algorithm ring` plans:
  // the hostfile names the hosts in order of first appearance, R the processes' hosts.
  ASSERT_OK_AND_ASSIGN(JobHosts hosts,
                       ParseHostfile("node01 slots=2\nnode05 slots=2\nnode02 slots=2\n"
                                     "node06 slots=2\n",
                                     "H"));
  std::string ranks;
  for (const std::string& h : request.rank_hosts) ranks += h + "\n";
  ASSERT_OK_AND_ASSIGN(mapping::Placement placement, ExplicitPlacement(hosts, ranks, "R"));
  CostSourceOptions source;
  source.fabric_path = toporr::testing::SharedFabric(kFabric);
  ASSERT_OK_AND_ASSIGN(JobCosts costs, JobCostsFor(source, hosts.names, nullptr));
  PlanRequest plan;
  plan.algorithm = mapping::Algorithm::kRing;
  plan.message_bytes = 16 << 20;
  plan.leaf_sorted = true;
  ASSERT_OK_AND_ASSIGN(PlanResult expected,
                       Plan(plan, placement, *costs.costs, costs.routes.get()));
  EXPECT_EQ(order.order, expected.mapping);
  EXPECT_DOUBLE_EQ(order.leaf_sorted_ns, expected.leaf_sorted.time_ns);
}

TEST(PlannerTest, ErrorsNameWhatIsWrong) {
  std::unique_ptr<Planner> planner = OfflinePlanner();
  OrderRequest request;
  request.rank_hosts = {"node01", "nosuchhost"};
  auto unknown = planner->Order(request);
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(unknown.status().message(), HasSubstr("nosuchhost"));

  request.rank_hosts = {"node01", "node05"};
  request.collective = "alltoallw";
  EXPECT_EQ(planner->Order(request).status().code(), absl::StatusCode::kInvalidArgument);
  request.collective = "bcast";
  request.root = 2;
  auto root = planner->Order(request);
  EXPECT_EQ(root.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(root.status().message(), HasSubstr("root 2"));
  request.rank_hosts.clear();
  EXPECT_EQ(planner->Order(request).status().code(), absl::StatusCode::kInvalidArgument);

  auto bad_setting = ApplyPlannerSettings({}, {"deadline_ms=0"});
  EXPECT_EQ(bad_setting.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad_setting.status().message(), HasSubstr("deadline_ms"));
  EXPECT_EQ(ApplyPlannerSettings({}, {"nosuchkey=1"}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ApplyPlannerSettings({}, {"fabric"}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ApplyPlannerSettings({}, {"format=nosuchformat"}).status().code(),
            absl::StatusCode::kInvalidArgument);

  PlannerOptions missing;
  missing.offline.fabric_path = "/nonexistent/fabric.txt";
  ASSERT_OK_AND_ASSIGN(auto no_dump, Planner::Create(missing));
  auto cost = no_dump->Cost("node01", "node05");
  EXPECT_EQ(cost.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(cost.status().message(), HasSubstr("/nonexistent/fabric.txt"));
}

TEST(PlannerTest, CostsAndPathsSeeTheLeaves) {
  std::unique_ptr<Planner> planner = OfflinePlanner();
  ASSERT_OK_AND_ASSIGN(PairCost same_leaf, planner->Cost("node01", "node02"));
  ASSERT_OK_AND_ASSIGN(PairCost other_leaf, planner->Cost("node01", "node05"));
  EXPECT_GT(same_leaf.latency_ns, 0);
  EXPECT_GT(other_leaf.latency_ns, same_leaf.latency_ns);
  EXPECT_GT(same_leaf.bottleneck_gbps, 0);
  ASSERT_OK_AND_ASSIGN(PairCost self, planner->Cost("node01", "node01"));
  EXPECT_EQ(self.latency_ns, 0);

  ASSERT_OK_AND_ASSIGN(std::string near, planner->PathJson("node01", "node02"));
  ASSERT_OK_AND_ASSIGN(std::string far, planner->PathJson("node01", "node05"));
  EXPECT_THAT(near, HasSubstr("\"hops\":1"));
  EXPECT_THAT(far, HasSubstr("\"hops\":3"));
  EXPECT_THAT(far, HasSubstr("\"type\":\"switch\""));
}

TEST(PlannerTest, DaemonUnreachableIsUnavailableNamingIt) {
  PlannerOptions options;
  options.client.socket = "/nonexistent/toporrd.sock";
  options.client.deadline_ms = 500;
  ASSERT_OK_AND_ASSIGN(auto planner, Planner::Create(options));
  EXPECT_THAT(planner->source(), HasSubstr("/nonexistent/toporrd.sock"));
  OrderRequest request;
  request.rank_hosts = {"node01", "node05"};
  auto order = planner->Order(request);
  EXPECT_TRUE(absl::IsUnavailable(order.status()) || absl::IsDeadlineExceeded(order.status()))
      << order.status();
  EXPECT_THAT(order.status().message(), HasSubstr("/nonexistent/toporrd.sock"));

  options.client.address = "198.18.0.1:50051";  // not loopback, no TLS, not insecure
  EXPECT_FALSE(Planner::Create(options).ok());
}

}  // namespace
}  // namespace toporr::client::planapi

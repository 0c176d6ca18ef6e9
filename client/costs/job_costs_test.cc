#include "client/costs/job_costs.h"

#include <fstream>

#include "common/status_matchers.h"
#include "common/test_data.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::client {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::toporr::testing::StatusIs;

TEST(JobCosts, UnknownHostIsNotFound) {
  fabric::Fabric empty;
  EXPECT_THAT(JobCostsFromFabric(empty, {"ghost"}),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("'ghost'")));
  EXPECT_THAT(JobCostsFromMatrix(2, {0, 1}, {0, 1}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("expected 4")));
}

// The daemon is never asked when a dump is given: the fetcher would fail the test.
TEST(JobCostsFor, FromADumpOfflineWithRoutes) {
  const std::string path = toporr::testing::MakeTempDir("job_costs") + "/fattree.topo";
  std::ofstream(path) << toporr::testing::ReadSharedFabric("ibnetdiscover_fattree_default.txt");
  CostSourceOptions source;
  source.fabric_path = path;
  auto never = [](const std::vector<std::string>&) -> absl::StatusOr<ServedCostMatrix> {
    ADD_FAILURE() << "the daemon was asked";
    return absl::InternalError("asked");
  };
  ASSERT_OK_AND_ASSIGN(JobCosts costs, JobCostsFor(source, {"node01", "node13"}, never));
  EXPECT_NE(costs.fabric, nullptr);
  EXPECT_NE(costs.routes, nullptr);
  EXPECT_EQ(costs.costs->num_hosts(), 2);
  EXPECT_GT(costs.costs->AlphaNs(0, 1), 0);
  EXPECT_EQ(costs.source, "fabric fattree.topo (routes modelled)");

  EXPECT_THAT(JobCostsFor(source, {"node01", "ghost"}, never),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("'ghost'")));
  source.fabric_path = path + ".missing";
  EXPECT_THAT(JobCostsFor(source, {"node01"}, never),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("fattree.topo.missing")));
}

TEST(JobCostsFor, FromTheDaemonThroughTheFetcher) {
  std::vector<std::string> asked;
  auto fetch = [&](const std::vector<std::string>& hosts) -> absl::StatusOr<ServedCostMatrix> {
    asked = hosts;
    return ServedCostMatrix{7, 2, {0, 1500, 1500, 0}, {0, 100, 100, 0}};
  };
  ASSERT_OK_AND_ASSIGN(JobCosts costs, JobCostsFor({}, {"a", "b"}, fetch));
  EXPECT_THAT(asked, ElementsAre("a", "b"));
  EXPECT_EQ(costs.routes, nullptr);
  EXPECT_EQ(costs.costs->AlphaNs(0, 1), 1500);
  EXPECT_DOUBLE_EQ(costs.costs->BetaNs(1, 0), 8.0 / 100);
  EXPECT_EQ(costs.source, "toporrd snapshot 7 (no routes: contention not modelled)");

  // The daemon's errors pass unchanged.
  auto down = [](const std::vector<std::string>&) -> absl::StatusOr<ServedCostMatrix> {
    return absl::UnavailableError("cannot reach toporrd");
  };
  EXPECT_THAT(JobCostsFor({}, {"a"}, down),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("cannot reach")));
  EXPECT_THAT(JobCostsFor({}, {"a"}, nullptr),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("no daemon")));
}

}  // namespace
}  // namespace toporr::client

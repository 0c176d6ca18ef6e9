#include "mapping/costs/distance.h"

#include <vector>

#include "common/status_matchers.h"
#include "gtest/gtest.h"
#include "mapping/costs/dense_cost_matrix.h"

namespace toporr::mapping {
namespace {

using ::testing::HasSubstr;
using ::toporr::testing::StatusIs;

std::unique_ptr<DenseCostMatrix> TwoHosts(double alpha, double beta) {
  return DenseCostMatrix::Create(2, {0, alpha, alpha, 0}, {0, beta, beta, 0}).value();
}

TEST(RankDistanceTest, IntraAndInterHostTimesAndClasses) {
  // 2 hosts x 16 ranks, 4 cores per L3, 2 L3 per NUMA, 1 NUMA per package: 2 packages/host.
  const Placement p = BlockPlacement(2, 16, /*cores_per_l3=*/4, /*l3_per_numa=*/2,
                                     /*numa_per_package=*/1);
  auto hosts = TwoHosts(1500, 0.08);
  IntraHostModel intra;  // explicit, not the library defaults
  intra.latency_ns = {150, 250, 400, 600, 900};
  intra.gbps = {200, 160, 120, 100, 60};
  ASSERT_OK_AND_ASSIGN(RankDistance d, RankDistance::Create(p, *hosts, intra));
  EXPECT_EQ(d.TimeNs(3, 3, 1 << 20), 0);
  // 0 and 1 share an L3; 0 and 4 a NUMA node; 0 and 8 only the host.
  EXPECT_DOUBLE_EQ(d.TimeNs(0, 1, 1000), 250 + 1000 * 8.0 / 160);
  EXPECT_DOUBLE_EQ(d.TimeNs(0, 4, 0), 400);
  EXPECT_DOUBLE_EQ(d.TimeNs(0, 8, 0), 900);
  EXPECT_DOUBLE_EQ(d.TimeNs(0, 16, 1000), 1500 + 80);
  EXPECT_EQ(d.DistanceClass(0, 1), 1);
  EXPECT_EQ(d.DistanceClass(0, 4), 2);
  EXPECT_EQ(d.DistanceClass(0, 8), 4);
  EXPECT_EQ(d.DistanceClass(0, 16), 5 + 1500);
  EXPECT_LT(d.DistanceClass(0, 8), d.DistanceClass(0, 17));
  EXPECT_TRUE(d.EquallyFar(0, 16, 31));
  EXPECT_TRUE(d.EquallyFar(0, 1, 2));
  EXPECT_FALSE(d.EquallyFar(0, 1, 4));
  EXPECT_FALSE(d.EquallyFar(0, 8, 16));
}

TEST(RankDistanceTest, RefusesHostsOutsideTheMatrixAndBadModels) {
  const Placement p = BlockPlacement(3, 2);
  auto hosts = TwoHosts(1000, 0.1);
  EXPECT_THAT(RankDistance::Create(p, *hosts),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("rank 4 runs on host 2")));
  const Placement ok = BlockPlacement(2, 2);
  IntraHostModel bad;
  bad.gbps[2] = 0;
  EXPECT_THAT(RankDistance::Create(ok, *hosts, bad),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("level 2")));
}

}  // namespace
}  // namespace toporr::mapping

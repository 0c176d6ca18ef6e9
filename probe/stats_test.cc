#include "probe/stats.h"

#include "gtest/gtest.h"

namespace toporr::probe {
namespace {

TEST(StatsTest, Median) {
  EXPECT_EQ(Median({}), 0);
  EXPECT_EQ(Median({3, 1, 2}), 2);
  EXPECT_EQ(Median({4, 1, 3, 2}), 2.5);
}

TEST(StatsTest, RobustMedianDropsOutliers) {
  // 100 +- 1 and two descheduled samples: the median moves toward them, the robust one not.
  const std::vector<double> v = {99, 100, 101, 100, 99, 101, 100, 5000, 9000};
  EXPECT_EQ(Median(v), 100);
  EXPECT_EQ(RobustMedian(v), 100);
  const std::vector<double> w = {99, 101, 98, 102, 5000, 6000};
  EXPECT_EQ(Median(w), 101.5);
  EXPECT_EQ(RobustMedian(w), 100);
  EXPECT_EQ(RobustMedian({7, 7, 7, 8000}), 7);  // MAD 0: the median as is
}

}  // namespace
}  // namespace toporr::probe

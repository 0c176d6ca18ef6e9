#include "mapping/schedules/swing_schedule.h"

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "gtest/gtest.h"

namespace toporr::mapping {
namespace {

TEST(SwingScheduleTest, RhoIsTheAlternatingSum) {
  EXPECT_EQ(SwingRho(0), 1);
  EXPECT_EQ(SwingRho(1), -1);
  EXPECT_EQ(SwingRho(2), 3);
  EXPECT_EQ(SwingRho(3), -5);
  EXPECT_EQ(SwingRho(4), 11);
  EXPECT_EQ(SwingRho(9), -341);
}

TEST(SwingScheduleTest, PeersArePaperExample) {
  // 16 ranks: even rank 0 adds rho (1, 15, 3, 11), odd rank 1 subtracts it (0, 2, 14, 6).
  std::vector<int64_t> p0, p1;
  for (int s = 0; s < 4; ++s) {
    p0.push_back(SwingPeer(0, s, 16));
    p1.push_back(SwingPeer(1, s, 16));
  }
  EXPECT_EQ(p0, (std::vector<int64_t>{1, 15, 3, 11}));
  EXPECT_EQ(p1, (std::vector<int64_t>{0, 2, 14, 6}));
}

TEST(SwingScheduleTest, PeersAreInvolutionsAndKeysSplitByBit) {
  for (int64_t n = 2; n <= 4096; n *= 2) {
    const int steps = Log2Floor(n);
    std::vector<uint8_t> seen(n, 0);
    for (int64_t r = 0; r < n; ++r) {
      const int64_t key = SwingBlockKey(r, n);
      ASSERT_GE(key, 0);
      ASSERT_LT(key, n);
      ASSERT_FALSE(seen[key]) << "n=" << n << " key " << key << " twice";
      seen[key] = 1;
      for (int s = 0; s < steps; ++s) {
        const int64_t q = SwingPeer(r, s, n);
        ASSERT_EQ(SwingPeer(q, s, n), r) << "n=" << n << " r=" << r << " s=" << s;
        const int64_t d = std::llabs(q - r);
        ASSERT_TRUE(d == std::llabs(SwingRho(s)) % n || n - d == std::llabs(SwingRho(s)) % n);
        const int64_t diff = SwingBlockKey(q, n) ^ key;
        ASSERT_EQ(diff & ((int64_t{2} << s) - 1), int64_t{1} << s)
            << "n=" << n << " r=" << r << " s=" << s;
      }
    }
  }
}

TEST(SwingScheduleTest, BineTreeMatchesReferenceForEightRanks) {
  // bine_bcast_small on 8 ranks: 0 -> 3; 0 -> 7, 3 -> 4; 0 -> 1, 3 -> 2, 7 -> 6, 4 -> 5.
  const BineTree t = BineBcastTree(8);
  EXPECT_EQ(t.num_stages, 3);
  EXPECT_EQ(t.parent, (std::vector<int32_t>{-1, 0, 3, 0, 3, 4, 7, 0}));
  EXPECT_EQ(t.stage, (std::vector<int32_t>{-1, 2, 2, 0, 1, 2, 2, 1}));
}

TEST(SwingScheduleTest, BineTreeReachesEveryRankOnceInCeilLog2Stages) {
  std::vector<int64_t> sizes;
  for (int64_t n = 1; n <= 300; ++n) sizes.push_back(n);
  for (int64_t n : {1023, 1024, 1025, 4096, 65536, 100000}) sizes.push_back(n);
  for (int64_t n : sizes) {
    const BineTree t = BineBcastTree(n);
    int ceil_log2 = 0;
    while ((int64_t{1} << ceil_log2) < n) ++ceil_log2;
    ASSERT_EQ(t.num_stages, ceil_log2) << n;
    ASSERT_EQ(t.parent[0], -1);
    const int64_t pof2 = FloorPowerOfTwo(n);
    for (int64_t v = 1; v < n; ++v) {
      const int32_t parent = t.parent[v];
      ASSERT_GE(parent, 0) << "n=" << n << " rank " << v << " never reached";
      ASSERT_LT(t.stage[v], t.num_stages);
      // The parent holds the data before it sends (the root from the start).
      ASSERT_TRUE(parent == 0 || t.stage[parent] < t.stage[v]) << "n=" << n << " v=" << v;
      if (n == pof2) {  // distance |rho(k - 1 - stage)|, halving
        const int64_t rho = std::llabs(SwingRho(t.num_stages - 1 - t.stage[v])) % n;
        const int64_t d = std::llabs(v - parent);
        ASSERT_TRUE(d == rho || n - d == rho) << "n=" << n << " v=" << v;
      }
    }
  }
}

}  // namespace
}  // namespace toporr::mapping

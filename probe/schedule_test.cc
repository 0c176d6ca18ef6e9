#include "probe/schedule.h"

#include <set>

#include "gtest/gtest.h"

namespace toporr::probe {
namespace {

void ExpectAllPairsOnceDisjoint(int n) {
  const std::vector<Round> rounds = RoundRobinRounds(n);
  EXPECT_EQ(static_cast<int>(rounds.size()), n < 2 ? 0 : (n % 2 ? n : n - 1)) << n;
  std::set<RankPair> seen;
  for (const Round& round : rounds) {
    std::vector<bool> busy(n, false);
    EXPECT_EQ(static_cast<int>(round.size()), n / 2) << n;
    for (const auto& [a, b] : round) {
      ASSERT_LT(a, b);
      ASSERT_GE(a, 0);
      ASSERT_LT(b, n);
      EXPECT_FALSE(busy[a] || busy[b]) << "rank twice in one round, n=" << n;
      busy[a] = busy[b] = true;
      EXPECT_TRUE(seen.insert({a, b}).second) << "pair twice, n=" << n;
    }
  }
  EXPECT_EQ(static_cast<int>(seen.size()), n * (n - 1) / 2) << n;
}

TEST(ScheduleTest, RoundRobinCoversEveryPairOnceInDisjointRounds) {
  for (int n : {0, 1, 2, 3, 4, 5, 7, 8, 16, 33, 64, 257}) ExpectAllPairsOnceDisjoint(n);
}

TEST(ScheduleTest, DisjointRoundsPackFirstFit) {
  const std::vector<RankPair> pairs = {{0, 1}, {2, 3}, {1, 2}, {0, 3}, {4, 5}};
  const std::vector<Round> rounds = DisjointRounds(pairs, 6);
  ASSERT_EQ(rounds.size(), 2u);
  EXPECT_EQ(rounds[0], (Round{{0, 1}, {2, 3}, {4, 5}}));
  EXPECT_EQ(rounds[1], (Round{{1, 2}, {0, 3}}));
  EXPECT_TRUE(DisjointRounds({}, 4).empty());
}

}  // namespace
}  // namespace toporr::probe

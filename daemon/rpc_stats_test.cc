#include "daemon/rpc_stats.h"

#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::daemon {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

TEST(RpcStats, CountsEveryCallByMethodFromManyThreads) {
  RpcStats stats;
  EXPECT_TRUE(stats.Counts().empty());
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&stats] {
      for (int i = 0; i < 1000; ++i) stats.Count("GetCostRow");
      stats.Count("GetStats");
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_THAT(stats.Counts(), ElementsAre(Pair("GetCostRow", 4000), Pair("GetStats", 4)));
}

}  // namespace
}  // namespace toporr::daemon

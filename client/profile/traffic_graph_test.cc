#include "client/profile/traffic_graph.h"

#include <map>
#include <string>
#include <utility>

#include "common/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::client {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

using Edges = std::map<std::pair<int, int>, int64_t>;

Edges EdgesOf(const TrafficGraph& g) {
  Edges edges;
  for (const mapping::CommEdge& e : g.graph.edges) {
    EXPECT_TRUE(edges.emplace(std::pair(e.from, e.to), e.bytes).second) << "pair twice";
  }
  return edges;
}

TrafficProfile Parse(const std::string& text) {
  absl::StatusOr<TrafficProfile> profile = ParseTrafficProfile(text, "test.profile");
  EXPECT_OK(profile.status());
  return *profile;
}

TEST(TrafficGraphTest, PointToPointAndOneSidedBytesByDirection) {
  ASSERT_OK_AND_ASSIGN(TrafficGraph g, TrafficGraphOf(Parse("toporr-profile 1 ranks 4\n"
                                                            "p2p 0 1 100 2\n"
                                                            "p2p 1 0 7 1\n"
                                                            "rma 2 3 64 16 3\n"
                                                            "rma 3 2 0 8 1\n"
                                                            "end\n")));
  EXPECT_EQ(g.graph.num_ranks, 4);
  // rma 2 -> 3 puts 64 at 3 and gets 16 back; rma 3 -> 2 gets 8 from 2.
  EXPECT_THAT(EdgesOf(g), ElementsAre(Pair(Pair(0, 1), 100), Pair(Pair(1, 0), 7),
                                      Pair(Pair(2, 3), 64 + 8), Pair(Pair(3, 2), 16)));
  EXPECT_EQ(g.p2p_bytes, 107);
  EXPECT_EQ(g.rma_bytes, 88);
  EXPECT_EQ(g.collective_bytes, 0);
}

TEST(TrafficGraphTest, CountsUpTo64BitsSaturateAtTheLimitAndSaySo) {
  ASSERT_OK_AND_ASSIGN(TrafficGraph small, TrafficGraphOf(Parse("toporr-profile 1 ranks 2\n"
                                                                "p2p 0 1 100 2\n"
                                                                "end\n")));
  EXPECT_FALSE(small.saturated);
  // The largest count a profile may hold is read, and counted as the limit.
  ASSERT_OK_AND_ASSIGN(TrafficGraph big, TrafficGraphOf(Parse("toporr-profile 1 ranks 2\n"
                                                              "p2p 0 1 18446744073709551615 1\n"
                                                              "p2p 1 0 2305843009213693952 1\n"
                                                              "end\n")));
  EXPECT_TRUE(big.saturated);
  EXPECT_EQ(big.p2p_bytes, kMaxProfileBytes);
  EXPECT_THAT(EdgesOf(big),
              ElementsAre(Pair(Pair(0, 1), kMaxProfileBytes), Pair(Pair(1, 0), kMaxProfileBytes)));
  // One past 64 bits is refused with its line.
  EXPECT_FALSE(ParseTrafficProfile("toporr-profile 1 ranks 2\np2p 0 1 18446744073709551616 1\n"
                                   "end\n",
                                   "f")
                   .ok());
}

TEST(TrafficGraphTest, AlltoallOnASubcommunicatorUsesItsWorldRanks) {
  ASSERT_OK_AND_ASSIGN(TrafficGraph g, TrafficGraphOf(Parse("toporr-profile 1 ranks 6\n"
                                                            "comm 0 3 5,1,3\n"
                                                            "coll 0 alltoall 3 30\n"
                                                            "coll 0 barrier 9 0\n"
                                                            "end\n")));
  // 3 calls of a 10-byte block between every ordered pair of {5, 1, 3}; barriers move none.
  Edges expected;
  for (int a : {1, 3, 5}) {
    for (int b : {1, 3, 5}) {
      if (a != b) expected[{a, b}] = 30;
    }
  }
  EXPECT_EQ(EdgesOf(g), expected);
  EXPECT_EQ(g.collective_bytes, 6 * 30);
}

TEST(TrafficGraphTest, SmallAllreduceFollowsTheLibrarysRules) {
  // MPICH's rules run recursive doubling for 8 bytes on 4 ranks: each rank trades its
  // vector with rank ^ 1 and rank ^ 2, once per call.
  const TrafficProfile profile = Parse(
      "toporr-profile 1 ranks 4\n"
      "comm 0 4 3,2,1,0\n"
      "coll 0 allreduce 5 40\n"
      "end\n");
  ASSERT_OK_AND_ASSIGN(TrafficGraph g, TrafficGraphOf(profile, mapping::LibraryRules::kMpich));
  const int world[] = {3, 2, 1, 0};
  Edges expected;
  for (int r = 0; r < 4; ++r) {
    for (int mask : {1, 2}) expected[{world[r], world[r ^ mask]}] = 5 * 8;
  }
  EXPECT_EQ(EdgesOf(g), expected);
  // Open MPI's rules run the ring for it (2 (p - 1) blocks of 2 bytes per rank and call):
  // one neighbour per rank.
  ASSERT_OK_AND_ASSIGN(TrafficGraph ring, TrafficGraphOf(profile, mapping::LibraryRules::kOpenMpi));
  EXPECT_EQ(EdgesOf(ring), (Edges{{{3, 2}, 60}, {{2, 1}, 60}, {{1, 0}, 60}, {{0, 3}, 60}}));
}

TEST(TrafficGraphTest, ScanIsAChainAndScatterTheGatherTreeReversed) {
  ASSERT_OK_AND_ASSIGN(TrafficGraph g, TrafficGraphOf(Parse("toporr-profile 1 ranks 4\n"
                                                            "comm 0 4 0-3\n"
                                                            "coll 0 scan 2 16\n"
                                                            "end\n")));
  EXPECT_EQ(EdgesOf(g), (Edges{{{0, 1}, 16}, {{1, 2}, 16}, {{2, 3}, 16}}));
  ASSERT_OK_AND_ASSIGN(TrafficGraph gather, TrafficGraphOf(Parse("toporr-profile 1 ranks 4\n"
                                                                 "comm 0 4 0-3\n"
                                                                 "coll 0 gather 1 8\n"
                                                                 "end\n")));
  ASSERT_OK_AND_ASSIGN(TrafficGraph scatter, TrafficGraphOf(Parse("toporr-profile 1 ranks 4\n"
                                                                  "comm 0 4 0-3\n"
                                                                  "coll 0 scatter 1 8\n"
                                                                  "end\n")));
  Edges reversed;
  for (const auto& [pair, bytes] : EdgesOf(gather)) reversed[{pair.second, pair.first}] = bytes;
  EXPECT_EQ(EdgesOf(scatter), reversed);
  EXPECT_FALSE(reversed.empty());
  // The binomial tree towards rank 0: each other rank sends once, to a lower rank.
  EXPECT_EQ(reversed.size(), 3u);
  for (const auto& [pair, bytes] : EdgesOf(gather)) EXPECT_LT(pair.second, pair.first);
}

TEST(TrafficGraphTest, InterCommunicatorCallsAreCountedNotModelled) {
  ASSERT_OK_AND_ASSIGN(TrafficGraph g, TrafficGraphOf(Parse("toporr-profile 1 ranks 4\n"
                                                            "comm 0 2 0,1 remote 2 2,3\n"
                                                            "coll 0 bcast 4 4096\n"
                                                            "end\n")));
  EXPECT_TRUE(g.graph.edges.empty());
  EXPECT_EQ(g.unmodelled_calls, 4);
}

TEST(TrafficGraphTest, HugeCountsSaturateInsteadOfWrapping) {
  ASSERT_OK_AND_ASSIGN(TrafficGraph g,
                       TrafficGraphOf(Parse("toporr-profile 1 ranks 2\n"
                                            "p2p 0 1 9223372036854775807 1\n"
                                            "comm 0 2 0-1\n"
                                            "coll 0 alltoall 4294967296 9223372036854775807\n"
                                            "end\n")));
  for (const mapping::CommEdge& e : g.graph.edges) EXPECT_GT(e.bytes, int64_t{1} << 60);
}

}  // namespace
}  // namespace toporr::client

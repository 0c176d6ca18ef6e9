#include "client/profile/traffic_profile.h"

#include <optional>
#include <string>
#include <vector>

#include "common/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::client {
namespace {

using ::testing::_;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::toporr::testing::StatusIs;

// Two ranks' counters as the PMPI layer fills them, written as rank 0 writes the file.
std::string TwoRankFile(const RankTraffic& r0, const RankTraffic& r1) {
  std::string out = TrafficProfileHeader(4);
  int next = 0;
  EXPECT_OK(AppendRankLines(r0.Encode(), 0, 4, &next, &out));
  EXPECT_OK(AppendRankLines(r1.Encode(), 1, 4, &next, &out));
  out.append(kTrafficProfileEnd);
  return out;
}

TEST(TrafficProfileTest, RowsBecomeSortedSparseLines) {
  RankTraffic r0, r1;
  r0.AddMessage(3, 8);
  r0.AddMessage(1, 100);
  r0.AddMessage(3, 8);
  r0.AddRma(2, 64, 0);
  r0.AddRma(2, 0, 16);
  CollectiveTraffic* world = r0.Collectives({0, 1, 2, 3}, {});
  world[static_cast<int>(ProfiledCollective::kAllreduce)].calls += 2;
  world[static_cast<int>(ProfiledCollective::kAllreduce)].bytes += 16;
  CollectiveTraffic* even = r0.Collectives({0, 2}, {});
  ++even[static_cast<int>(ProfiledCollective::kBarrier)].calls;
  // The same members again (a duplicate communicator): the same counters.
  EXPECT_EQ(r0.Collectives({0, 1, 2, 3}, {}), world);
  r1.AddMessage(0, 5);
  CollectiveTraffic* odd = r1.Collectives({1, 3}, {});
  ++odd[static_cast<int>(ProfiledCollective::kBcast)].calls;
  odd[static_cast<int>(ProfiledCollective::kBcast)].bytes += 4;
  r1.Collectives({3, 1}, {0, 2});  // no calls yet: a comm line without coll lines
  r0.SetTime({2500000, 1250000});

  EXPECT_EQ(TwoRankFile(r0, r1),
            "toporr-profile 1 ranks 4\n"
            "time 0 2500000 1250000\n"
            "p2p 0 1 100 1\n"
            "p2p 0 3 16 2\n"
            "rma 0 2 64 16 2\n"
            "comm 0 4 0-3\n"
            "coll 0 allreduce 2 16\n"
            "comm 1 2 0,2\n"
            "coll 1 barrier 1 0\n"
            "p2p 1 0 5 1\n"
            "comm 2 2 1,3\n"
            "coll 2 bcast 1 4\n"
            "comm 3 2 3,1 remote 2 0,2\n"
            "end\n");
}

TEST(TrafficProfileTest, ParseReadsWhatTheWriterWrites) {
  RankTraffic r0, r1;
  r0.AddMessage(1, 1 << 20);
  r1.AddMessage(0, 7);
  r1.AddRma(3, 0, 24);
  r0.SetTime({100, 50});
  r1.SetTime({200, 0});
  ++r1.Collectives({1, 2, 3}, {0})[static_cast<int>(ProfiledCollective::kExscan)].calls;
  ASSERT_OK_AND_ASSIGN(TrafficProfile p, ParseTrafficProfile(TwoRankFile(r0, r1), "job.prof"));
  EXPECT_EQ(p.ranks, 4);
  ASSERT_EQ(p.p2p.size(), 2u);
  EXPECT_EQ(p.p2p[0].src, 0);
  EXPECT_EQ(p.p2p[0].dst, 1);
  EXPECT_EQ(p.p2p[0].traffic.bytes, 1u << 20);
  EXPECT_EQ(p.p2p[1].traffic.messages, 1u);
  ASSERT_EQ(p.rma.size(), 1u);
  EXPECT_EQ(p.rma[0].traffic.bytes_from_target, 24u);
  ASSERT_EQ(p.communicators.size(), 1u);
  EXPECT_THAT(p.communicators[0].members, ElementsAre(1, 2, 3));
  EXPECT_THAT(p.communicators[0].remote, ElementsAre(0));
  EXPECT_EQ(p.communicators[0].collectives[static_cast<int>(ProfiledCollective::kExscan)].calls,
            1u);
  ASSERT_EQ(p.times.size(), 2u);
  EXPECT_EQ(p.times[1].rank, 1);
  EXPECT_EQ(p.times[1].time.mpi_us, 0u);
  // The writer's own order (all time lines, then p2p, rma, comm) reads back the same.
  const std::string text = FormatTrafficProfile(p);
  ASSERT_OK_AND_ASSIGN(TrafficProfile back, ParseTrafficProfile(text, "job.prof"));
  EXPECT_EQ(FormatTrafficProfile(back), text);
}

TEST(TrafficProfileTest, TimeRecordsGiveTheShareInsideMpi) {
  ASSERT_OK_AND_ASSIGN(TrafficProfile p, ParseTrafficProfile("toporr-profile 1 ranks 4\n"
                                                             "time 0 1000000 900000\n"
                                                             "time 1 1000000 500000\n"
                                                             "time 2 0 0\n"
                                                             "time 3 1000 3000\n"
                                                             "end\n",
                                                             "f"));
  ASSERT_EQ(p.times.size(), 4u);
  EXPECT_EQ(p.times[0].time.wall_us, 1000000u);
  EXPECT_EQ(p.times[0].time.mpi_us, 900000u);
  const std::optional<MpiTimeShare> share = MpiShareOf(p);
  ASSERT_TRUE(share.has_value());
  EXPECT_EQ(share->ranks, 3);  // rank 2 recorded no time; rank 3's threads overlap (at most 1)
  EXPECT_DOUBLE_EQ(share->min, 0.5);
  EXPECT_DOUBLE_EQ(share->max, 1.0);
  EXPECT_DOUBLE_EQ(share->mean, 0.8);
  ASSERT_OK_AND_ASSIGN(TrafficProfile untimed,
                       ParseTrafficProfile("toporr-profile 1 ranks 2\np2p 0 1 8 1\nend\n", "f"));
  EXPECT_FALSE(MpiShareOf(untimed).has_value());
}

TEST(TrafficProfileTest, MemberListsRoundTrip) {
  TrafficProfile p;
  p.ranks = 40;
  for (std::vector<int> members :
       std::vector<std::vector<int>>{{0}, {5, 6, 7, 9, 10, 3, 2, 1}, {39, 0}, {1, 3, 5, 7}}) {
    p.communicators.emplace_back();
    p.communicators.back().members = members;
    p.communicators.back().collectives[0].calls = 1;
  }
  const std::string text = FormatTrafficProfile(p);
  EXPECT_THAT(text, HasSubstr("comm 1 8 5-7,9-10,3,2,1\n"));
  ASSERT_OK_AND_ASSIGN(TrafficProfile back, ParseTrafficProfile(text, "f"));
  ASSERT_EQ(back.communicators.size(), p.communicators.size());
  for (size_t i = 0; i < p.communicators.size(); ++i) {
    EXPECT_EQ(back.communicators[i].members, p.communicators[i].members);
  }
}

TEST(TrafficProfileTest, CollectiveNamesRoundTrip) {
  for (int k = 0; k < kNumProfiledCollectives; ++k) {
    const auto c = static_cast<ProfiledCollective>(k);
    EXPECT_EQ(ParseProfiledCollective(ProfiledCollectiveName(c)), c);
  }
  EXPECT_EQ(ProfiledCollectiveName(ProfiledCollective::kReduceScatterBlock),
            "reduce_scatter_block");
  EXPECT_FALSE(ParseProfiledCollective("neighbor_alltoall").has_value());
}

TEST(TrafficProfileTest, MalformedRowsAreRefusedAndLeaveTheOutputAlone) {
  RankTraffic r;
  r.AddMessage(2, 8);
  std::vector<uint64_t> row = r.Encode();
  std::string out = "kept";
  int next = 3;
  std::vector<uint64_t> truncated(row.begin(), row.end() - 1);
  EXPECT_THAT(AppendRankLines(truncated, 0, 4, &next, &out),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("rank 0")));
  EXPECT_THAT(AppendRankLines(row, 0, 2, &next, &out),  // destination 2 in a job of 2
              StatusIs(absl::StatusCode::kDataLoss, _));
  std::vector<uint64_t> longer = row;
  longer.push_back(0);
  EXPECT_THAT(AppendRankLines(longer, 0, 4, &next, &out), StatusIs(absl::StatusCode::kDataLoss, _));
  EXPECT_THAT(AppendRankLines({0, 0, uint64_t{1} << 40, 0, 0}, 0, 4, &next, &out),
              StatusIs(absl::StatusCode::kDataLoss, _));
  EXPECT_EQ(out, "kept");
  EXPECT_EQ(next, 3);
}

TEST(TrafficProfileTest, BadFilesAreRefusedWithLineAndReason) {
  const std::string ok = "toporr-profile 1 ranks 4\np2p 0 1 8 1\ncomm 0 2 0-1\n";
  struct Case {
    std::string text;
    std::string what;
  };
  for (const Case& c : std::vector<Case>{
           {"", "f:1: empty"},
           {"p2p 0 1 8 1\nend\n", "f:1: not a traffic profile"},
           {"toporr-profile 2 ranks 4\nend\n", "f:1: version 2: this reader knows version 1"},
           {"toporr-profile 1 ranks 0\nend\n", "f:1: expected `toporr-profile 1 ranks N`"},
           {ok, "f:3: truncated"},
           {ok + "p2p 0 4 8 1\nend\n", "f:4: `4` is not a rank of 0..3"},
           {ok + "p2p 0 1 8 1\nend\n", "f:4: p2p 0 1 given twice"},
           {ok + "p2p 0 1 -8 1\nend\n", "f:4: p2p BYTES"},
           {ok + "coll 1 bcast 1 8\nend\n", "f:4: coll for communicator `1` before its `comm`"},
           {ok + "coll 0 bcats 1 8\nend\n", "f:4: unknown collective `bcats`"},
           {ok + "coll 0 bcast 0 8\nend\n", "f:4: coll CALLS (>= 1)"},
           {ok + "comm 2 1 0\nend\n", "f:4: communicator ID `2` out of order: expected 1"},
           {ok + "comm 1 3 0-1\nend\n", "f:4: member list `0-1` holds 2 ranks, not 3"},
           {ok + "comm 1 2 0-9\nend\n", "f:4: `9` is not a rank"},
           {ok + "comm 1 2 0-3\nend\n", "f:4: member list `0-3` does not hold 2 ranks"},
           {ok + "comm 1 2 1,1\nend\n", "f:4: member list `1,1` names rank 1 twice"},
           {ok + "comm 1 1 1 remote 1\nend\n", "f:4: expected `comm ID SIZE MEMBERS"},
           {ok + "hosts 1\nend\n", "f:4: unknown record `hosts`"},
           {ok + "time 0 5\nend\n", "f:4: expected `time RANK WALL_US MPI_US`"},
           {ok + "time 4 5 1\nend\n", "f:4: `4` is not a rank of 0..3"},
           {ok + "time 0 5 -1\nend\n", "f:4: time WALL_US and MPI_US must be unsigned"},
           {ok + "time 1 5 1\ntime 1 6 2\nend\n", "f:5: time 1 given twice"},
           {ok + "end\np2p 1 0 8 1\n", "f:5: a record after `end`"},
       }) {
    EXPECT_THAT(ParseTrafficProfile(c.text, "f"),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(c.what)))
        << c.text;
  }
  // Comments, blank lines and CRLF line ends are fine.
  ASSERT_OK_AND_ASSIGN(
      TrafficProfile p,
      ParseTrafficProfile("# x\r\n" + ok + "\ncoll 0 alltoallw 3 0\r\nend\r\n", "f"));
  EXPECT_EQ(p.communicators[0].collectives[static_cast<int>(ProfiledCollective::kAlltoallw)].calls,
            3u);
}

}  // namespace
}  // namespace toporr::client

#include "collectors/sweep_protocol.h"

#include <string>

#include "common/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::collectors {
namespace {

using ::testing::HasSubstr;
using ::toporr::testing::StatusIs;

TEST(SweepRequestTest, RoundTrips) {
  SweepRequest request;
  request.probe_pause_us = 1500;
  const std::string line = FormatSweepRequest(request);
  EXPECT_EQ(line, "toporr-sweep 1 probe-pause-us=1500\n");
  ASSERT_OK_AND_ASSIGN(SweepRequest parsed, ParseSweepRequest(line));
  EXPECT_EQ(parsed.probe_pause_us, 1500);
  // The newline is optional; the bounds are toporr-discover's.
  ASSERT_OK_AND_ASSIGN(parsed, ParseSweepRequest("toporr-sweep 1 probe-pause-us=0"));
  EXPECT_EQ(parsed.probe_pause_us, 0);
  ASSERT_OK_AND_ASSIGN(parsed, ParseSweepRequest("toporr-sweep 1 probe-pause-us=100000000\n"));
  EXPECT_EQ(parsed.probe_pause_us, kMaxProbePauseUs);
}

TEST(SweepRequestTest, RefusesAnythingElse) {
  for (const char* bad : {
           "",
           "toporr-sweep 2 probe-pause-us=1\n",
           "hello\n",
           "toporr-sweep 1 probe-pause-us=\n",
           "toporr-sweep 1 probe-pause-us=-1\n",
           "toporr-sweep 1 probe-pause-us=100000001\n",
           "toporr-sweep 1 probe-pause-us=1 probe-pause-us=2\n",
           "toporr-sweep 1 probe-pause-us=1 ca=mlx5_0\n",
           "toporr-sweep 1 output=/etc/passwd\n",
           "toporr-sweep 1 probe-pause-us=1\nmore\n",
       }) {
    EXPECT_THAT(ParseSweepRequest(bad), StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_))
        << bad;
  }
  EXPECT_THAT(ParseSweepRequest(std::string(300, 'x')),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("longer than 256")));
  EXPECT_THAT(ParseSweepRequest("toporr-sweep 1 ca=mlx5_0\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("'ca=mlx5_0'")));
}

TEST(SweepReplyTest, RoundTrips) {
  SweepResult result;
  result.topology = "Switch 4 \"S-1\"\n[1] \"H-1\"[1]\n";
  result.forwarding_tables = "Unicast lids [0x0-0x2] of switch Lid 1\n";
  const std::string reply = FormatSweepReply(result);
  EXPECT_EQ(reply.substr(0, reply.find('\n')),
            "toporr-sweep 1 ok topology=" + std::to_string(result.topology.size()) +
                " forwarding-tables=" + std::to_string(result.forwarding_tables.size()));
  ASSERT_OK_AND_ASSIGN(SweepResult parsed, ParseSweepReply(reply));
  EXPECT_EQ(parsed.topology, result.topology);
  EXPECT_EQ(parsed.forwarding_tables, result.forwarding_tables);
  // Empty texts are a valid (if useless) reply.
  ASSERT_OK_AND_ASSIGN(parsed, ParseSweepReply(FormatSweepReply({})));
  EXPECT_EQ(parsed.topology, "");
}

TEST(SweepReplyTest, FailureCarriesTheHelpersMessageOnOneLine) {
  const std::string reply = FormatSweepFailure("no InfiniBand device found:\nis ib_umad loaded?");
  EXPECT_EQ(reply, "toporr-sweep 1 error no InfiniBand device found: is ib_umad loaded?\n");
  EXPECT_THAT(ParseSweepReply(reply),
              StatusIs(absl::StatusCode::kUnavailable,
                       HasSubstr("sweep failed: no InfiniBand device found: is ib_umad")));
}

TEST(SweepReplyTest, RefusesTruncatedOrForeignReplies) {
  EXPECT_THAT(ParseSweepReply(""),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("without a reply")));
  EXPECT_THAT(ParseSweepReply("toporr-sweep 1 ok topology=3"),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("no header line")));
  EXPECT_THAT(ParseSweepReply("HTTP/1.1 200 OK\r\n\r\n"),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("not toporr-sweep version 1")));
  EXPECT_THAT(ParseSweepReply("toporr-sweep 1 ok topology=x forwarding-tables=0\n"),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("malformed header")));
  EXPECT_THAT(ParseSweepReply("toporr-sweep 1 ok topology=99999999999999999999 "
                              "forwarding-tables=0\n"),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("malformed header")));
  SweepResult result;
  result.topology = "abc";
  result.forwarding_tables = "defg";
  std::string reply = FormatSweepReply(result);
  reply.pop_back();
  EXPECT_THAT(ParseSweepReply(reply),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("announces 7 bytes but carries 6")));
  EXPECT_THAT(ParseSweepReply(FormatSweepReply(result) + "x"),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("carries 8")));
}

}  // namespace
}  // namespace toporr::collectors

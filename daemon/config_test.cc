#include "daemon/config.h"

#include "common/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::daemon {
namespace {

using ::testing::HasSubstr;
using ::toporr::testing::StatusIs;

TEST(ParseConfig, ReadsKnownKeysCommentsAndQuotes) {
  DaemonConfig c;
  ASSERT_OK(
      ParseConfig("# toporrd\n\ndb_path = /srv/t.db  # trailing comment\n"
                  "socket_path=\"/tmp/x.sock\"\nkeep_snapshots = 5\n"
                  "listen_address = 127.0.0.1:7070\nmax_read_message_bytes = 1048576\n",
                  "toporrd.conf", &c));
  EXPECT_EQ(c.db_path, "/srv/t.db");
  EXPECT_EQ(c.socket_path, "/tmp/x.sock");
  EXPECT_EQ(c.keep_snapshots, 5);
  EXPECT_EQ(c.listen_address, "127.0.0.1:7070");
  EXPECT_EQ(c.max_read_message_bytes, 1 << 20);
  EXPECT_EQ(c.admin_group, "toporr-admin");  // default kept
}

TEST(ParseConfig, ErrorsNameFileAndLine) {
  DaemonConfig c;
  EXPECT_THAT(ParseConfig("db_path = x\nbogus = 1\n", "t.conf", &c),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("t.conf:2: unknown key")));
  EXPECT_THAT(ParseConfig("\nkeep_snapshots = 0\n", "t.conf", &c),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("t.conf:2: keep_snapshots")));
  EXPECT_THAT(ParseConfig("max_read_message_bytes = 100\n", "t.conf", &c),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("t.conf:1: max_read_message_bytes must be an integer in [65536")));
  EXPECT_THAT(ParseConfig("max_read_message_bytes = 8388608\nread_memory_quota_bytes = 8388608\n",
                          "t.conf", &c),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("read_memory_quota_bytes (8388608) must be at least 8 x")));
  EXPECT_THAT(ParseConfig("just words\n", "t.conf", &c),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("t.conf:1: expected")));
}

TEST(LoadConfigFile, MissingFileIsNotFound) {
  DaemonConfig c;
  EXPECT_THAT(LoadConfigFile("/nonexistent/toporrd.conf", &c),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("/nonexistent/toporrd.conf")));
}

}  // namespace
}  // namespace toporr::daemon

#include "daemon/config.h"

#include <set>
#include <sstream>
#include <string>
#include <string_view>

#include "common/status_matchers.h"
#include "common/test_data.h"
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
                  "listen_address = 127.0.0.1:7070\nmax_read_message_bytes = 1048576\n"
                  "max_host_lists_per_peer = 8\n",
                  "toporrd.conf", &c));
  EXPECT_EQ(c.db_path, "/srv/t.db");
  EXPECT_EQ(c.socket_path, "/tmp/x.sock");
  EXPECT_EQ(c.keep_snapshots, 5);
  EXPECT_EQ(c.listen_address, "127.0.0.1:7070");
  EXPECT_EQ(c.max_read_message_bytes, 1 << 20);
  EXPECT_EQ(c.max_host_lists_per_peer, 8);
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
  EXPECT_THAT(ParseConfig("\n\nmax_host_lists_per_peer = 0\n", "t.conf", &c),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("t.conf:3: max_host_lists_per_peer must be an integer in [1")));
  EXPECT_THAT(ParseConfig("max_read_message_bytes = 8388608\nread_memory_quota_bytes = 8388608\n",
                          "t.conf", &c),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("read_memory_quota_bytes (8388608) must be at least 8 x")));
  EXPECT_THAT(ParseConfig("just words\n", "t.conf", &c),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("t.conf:1: expected")));
}

TEST(ParseConfig, CostModelKindAndOverrides) {
  DaemonConfig c;
  ASSERT_OK(
      ParseConfig("cost_model = tcp\ncost_model_per_message_ns = 41000\n"
                  "cost_model_host_rate_scale = 0.006\n",
                  "t.conf", &c));
  EXPECT_EQ(c.cost_model.kind, "tcp");
  EXPECT_EQ(c.cost_model.model.per_message_ns, 41000);
  EXPECT_EQ(c.cost_model.model.host_rate_scale, 0.006);
  EXPECT_EQ(c.cost_model.model.switch_rate_scale, 1);
  DaemonConfig d;
  EXPECT_THAT(ParseConfig("cost_model = tcp\n\ncost_model_host_rate_scale = -1\n", "t.conf", &d),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("t.conf:3: cost_model_host_rate_scale: '-1' is out of range")));
  EXPECT_THAT(ParseConfig("cost_model = ethernet\n", "t.conf", &d),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("t.conf:1: cost_model: unknown kind 'ethernet'")));
}

// A config file may hold any bytes: a refusal quotes them escaped and cut, and still names
// the file and line (fuzz/regressions/config/ holds the inputs the fuzzer found).
TEST(ParseConfig, RefusalsQuoteTheTextEscapedAndBounded) {
  DaemonConfig c;
  const std::string long_key(6000, 'k');
  absl::Status s = ParseConfig("db_path = x\n" + long_key + " = 1\n", "t.conf", &c);
  EXPECT_THAT(
      s, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("t.conf:2: unknown key 'kkkk")));
  EXPECT_THAT(s.message(), HasSubstr("...(6000 bytes)' (known: db_path, socket_path,"));
  EXPECT_LT(s.message().size(), 1200u);

  s = ParseConfig(std::string("ab\0c\x1b[31m = 1\n", 15), "t.conf", &c);
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                          HasSubstr("t.conf:1: unknown key 'ab\\x00c\\x1b[31m'")));
  EXPECT_EQ(s.message().find('\0'), absl::string_view::npos);
  EXPECT_EQ(s.message().find('\x1b'), absl::string_view::npos);

  s = ParseConfig("keep_snapshots = \x1b]0;pwned\x07" + std::string(5000, '9') + "\n", "t.conf",
                  &c);
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                          HasSubstr("t.conf:1: keep_snapshots must be an integer in [1, 1000000], "
                                    "got '\\x1b]0;pwned\\x07999")));
  EXPECT_THAT(s.message(), HasSubstr("(5010 bytes)'"));
  EXPECT_LT(s.message().size(), 600u);

  s = ParseConfig("\n" + std::string(20000, '\x01') + "\n", "t.conf", &c);
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                          HasSubstr("t.conf:2: expected `key = value`, got '\\x01\\x01")));
  EXPECT_LT(s.message().size(), 600u);

  s = ParseConfig("listen_insecure = \xff\xfe\n", "t.conf", &c);
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                          HasSubstr("t.conf:1: listen_insecure must be true or false, got "
                                    "'\\xff\\xfe'")));
}

// The shipped example names every key, set or commented out (`# key = value`), and no other.
TEST(ConfigKeys, AreTheKeysOfTheExampleFile) {
  std::set<std::string> example;
  std::istringstream lines(toporr::testing::ReadFileOrDie("deploy/toporrd.conf.example"));
  for (std::string line; std::getline(lines, line);) {
    const size_t start = line.find_first_not_of("# ");
    const size_t eq = line.find('=');
    if (start == std::string::npos || eq == std::string::npos || eq <= start) continue;
    const size_t end = line.find_last_not_of(' ', eq - 1) + 1;
    const std::string key = line.substr(start, end - start);
    if (key.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") == std::string::npos) {
      example.insert(key);
    }
  }
  std::set<std::string> table;
  for (std::string_view key : ConfigKeys()) {
    EXPECT_TRUE(table.insert(std::string(key)).second) << "duplicate key " << key;
  }
  EXPECT_FALSE(table.empty());
  EXPECT_EQ(example, table);
}

// The unknown-key refusal lists the table's keys in its order.
TEST(ConfigKeys, AreListedByTheUnknownKeyRefusal) {
  DaemonConfig c;
  std::string known;
  for (std::string_view key : ConfigKeys()) {
    known += (known.empty() ? "" : ", ") + std::string(key);
  }
  EXPECT_THAT(ParseConfig("bogus = 1\n", "t.conf", &c),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("t.conf:1: unknown key 'bogus' (known: " + known + ")")));
}

TEST(LoadConfigFile, MissingFileIsNotFound) {
  DaemonConfig c;
  EXPECT_THAT(LoadConfigFile("/nonexistent/toporrd.conf", &c),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("/nonexistent/toporrd.conf")));
}

}  // namespace
}  // namespace toporr::daemon

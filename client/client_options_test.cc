#include "client/client_options.h"

#include <map>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::client {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

EnvironmentOptions FromMap(const std::map<std::string, std::string>& env) {
  return OptionsFromEnvironment({}, [&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

TEST(ClientOptionsTest, DefaultsWithoutEnvironment) {
  EnvironmentOptions e = FromMap({});
  EXPECT_EQ(e.options.socket, "/run/toporr/toporrd.sock");
  EXPECT_EQ(e.options.deadline_ms, 2000);
  EXPECT_FALSE(e.options.disable);
  EXPECT_TRUE(e.options.costs_path.empty());
  EXPECT_TRUE(e.warnings.empty());
}

TEST(ClientOptionsTest, EveryVariableApplies) {
  EnvironmentOptions e = FromMap({{"TOPORR_SOCKET", "/tmp/s"},
                                  {"TOPORR_ADDRESS", "mgmt:50051"},
                                  {"TOPORR_COSTS", "c.bin"},
                                  {"TOPORR_DEADLINE_MS", "250"},
                                  {"TOPORR_DISABLE", "yes"},
                                  {"TOPORR_VERBOSE", "2"},
                                  {"TOPORR_REPORT", "r.jsonl"},
                                  {"TOPORR_HOSTMAP", "h.txt"}});
  EXPECT_EQ(e.options.socket, "/tmp/s");
  EXPECT_EQ(e.options.address, "mgmt:50051");
  EXPECT_EQ(e.options.costs_path, "c.bin");
  EXPECT_EQ(e.options.deadline_ms, 250);
  EXPECT_TRUE(e.options.disable);
  EXPECT_EQ(e.options.verbose, 2);
  EXPECT_EQ(e.options.report_path, "r.jsonl");
  EXPECT_EQ(e.options.hostmap_path, "h.txt");
  EXPECT_TRUE(e.warnings.empty());
}

TEST(ClientOptionsTest, MalformedValuesKeepDefaultsAndWarn) {
  EnvironmentOptions e = FromMap(
      {{"TOPORR_DEADLINE_MS", "soon"}, {"TOPORR_DISABLE", "maybe"}, {"TOPORR_VERBOSE", "-1"}});
  EXPECT_EQ(e.options.deadline_ms, 2000);
  EXPECT_FALSE(e.options.disable);
  EXPECT_EQ(e.options.verbose, 0);
  ASSERT_EQ(e.warnings.size(), 3u);
  EXPECT_THAT(e.warnings[0], HasSubstr("TOPORR_DEADLINE_MS=soon ignored"));
  EXPECT_THAT(e.warnings[1], HasSubstr("TOPORR_DISABLE=maybe"));
}

TEST(ClientOptionsTest, ZeroDeadlineIsRefused) {
  EnvironmentOptions e = FromMap({{"TOPORR_DEADLINE_MS", "0"}});
  EXPECT_EQ(e.options.deadline_ms, 2000);
  EXPECT_THAT(e.warnings, ElementsAre(HasSubstr("1..600000")));
}

}  // namespace
}  // namespace toporr::client

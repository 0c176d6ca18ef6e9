#include "client/config/client_options.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

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
                                  {"TOPORR_HOSTMAP", "h.txt"},
                                  {"TOPORR_PROFILE", "job.prof"}});
  EXPECT_EQ(e.options.socket, "/tmp/s");
  EXPECT_EQ(e.options.address, "mgmt:50051");
  EXPECT_EQ(e.options.costs_path, "c.bin");
  EXPECT_EQ(e.options.deadline_ms, 250);
  EXPECT_TRUE(e.options.disable);
  EXPECT_EQ(e.options.verbose, 2);
  EXPECT_EQ(e.options.report_path, "r.jsonl");
  EXPECT_EQ(e.options.hostmap_path, "h.txt");
  EXPECT_EQ(e.options.profile_path, "job.prof");
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

TEST(ClientOptionsTest, TlsSettingsHaveOneNameEach) {
  EnvironmentOptions e = FromMap({{"TOPORR_TLS_CA", "ca.pem"},
                                  {"TOPORR_TLS_CERT", "c.pem"},
                                  {"TOPORR_TLS_KEY", "c.key"},
                                  {"TOPORR_TLS_SERVER_NAME", "mgmt01"},
                                  {"TOPORR_INSECURE", "1"}});
  EXPECT_EQ(e.options.tls_ca, "ca.pem");
  EXPECT_EQ(e.options.tls_cert, "c.pem");
  EXPECT_EQ(e.options.tls_key, "c.key");
  EXPECT_EQ(e.options.tls_server_name, "mgmt01");
  EXPECT_TRUE(e.options.insecure);
  ClientOptions o;
  ASSERT_TRUE(ParseClientConfig("tls_ca = ca.pem\ntls_cert = c.pem\ntls_key = c.key\n"
                                "tls_server_name = mgmt01\ninsecure = true\n",
                                "client.conf", &o)
                  .ok());
  EXPECT_EQ(o.tls_ca, e.options.tls_ca);
  EXPECT_EQ(o.tls_cert, e.options.tls_cert);
  EXPECT_EQ(o.tls_key, e.options.tls_key);
  EXPECT_EQ(o.tls_server_name, e.options.tls_server_name);
  EXPECT_TRUE(o.insecure);
}

TEST(DaemonAddressesTest, ListsSplitInOrderWithBlanksAroundCommas) {
  using V = std::vector<std::string>;
  EXPECT_EQ(*SplitDaemonAddresses(""), V{});
  EXPECT_EQ(*SplitDaemonAddresses("mgmt01:7575"), V{"mgmt01:7575"});
  EXPECT_EQ(*SplitDaemonAddresses(" mgmt01:7575 ,\tmgmt02.site.org:7575,10.0.0.3:1 "),
            (V{"mgmt01:7575", "mgmt02.site.org:7575", "10.0.0.3:1"}));
  EXPECT_EQ(*SplitDaemonAddresses("[fd00::1]:7575,[::1]:65535"),
            (V{"[fd00::1]:7575", "[::1]:65535"}));
}

TEST(DaemonAddressesTest, BadElementsAreNamedByPositionAndText) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {",mgmt01:7575", "element 1 \"\" is empty"},
      {"mgmt01:7575,,mgmt02:7575", "element 2 \"\" is empty"},
      {"mgmt01:7575,", "element 2 \"\" is empty"},
      {"mgmt01:7575,mgmt02", "element 2 \"mgmt02\" has no :PORT"},
      {"mgmt01:0", "element 1 \"mgmt01:0\" has no port in 1..65535"},
      {"mgmt01:65536", "has no port in 1..65535"},
      {"mgmt01:75x", "has no port"},
      {":7575", "has no HOST"},
      {"fd00::1:7575", "IPv6 address without [ ]"},
      {"[fd00::1:7575", "unclosed '['"},
      {"[zz]:7575", "no IPv6 address in its brackets"},
      {"mgmt 01:7575", "neither a host name nor an IP address"},
      {"dns:///mgmt01:7575", "element 1"},
      {"mgmt01:7575, MGMT01:7575", "element 2 \"MGMT01:7575\" repeats element 1"},
  };
  for (const auto& [list, why] : cases) {
    absl::StatusOr<std::vector<std::string>> got = SplitDaemonAddresses(list);
    ASSERT_FALSE(got.ok()) << list;
    EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument) << list;
    EXPECT_THAT(std::string(got.status().message()), HasSubstr(why)) << list;
  }
}

TEST(DaemonAddressesTest, TheVariableTakesAListAndABadOneIsRefusedNamingTheElement) {
  EnvironmentOptions e = FromMap({{"TOPORR_ADDRESS", "mgmt01:7575 , mgmt02:7575"}});
  EXPECT_EQ(e.options.address, "mgmt01:7575,mgmt02:7575");  // normalised
  EXPECT_TRUE(e.warnings.empty());
  e = FromMap({{"TOPORR_ADDRESS", "mgmt01:7575,mgmt02"}});
  EXPECT_TRUE(e.options.address.empty());  // the earlier layer's value
  ASSERT_EQ(e.warnings.size(), 1u);
  EXPECT_THAT(e.warnings[0], HasSubstr("TOPORR_ADDRESS=mgmt01:7575,mgmt02 ignored"));
  EXPECT_THAT(e.warnings[0], HasSubstr("element 2 \"mgmt02\" has no :PORT"));
  ClientOptions o;
  std::string expected;
  EXPECT_FALSE(ApplyClientSetting("address", "a:1,a:1", &o, &expected));
  EXPECT_THAT(expected, HasSubstr("element 2 \"a:1\" repeats element 1"));
  EXPECT_TRUE(ApplyClientSetting("address", "a:1,b:2", &o, &expected));
  EXPECT_EQ(ClientSettingText(o, "address"), "a:1,b:2");
}

// A site configuration file written under a test temp dir; removed with the fixture.
class SiteConfigTest : public ::testing::Test {
 protected:
  void Write(const std::string& text) { std::ofstream(path_) << text; }
  void TearDown() override { std::remove(path_.c_str()); }
  EnvironmentOptions Load(const std::map<std::string, std::string>& env) {
    return LoadClientOptions(
        [&](const char* name) -> const char* {
          auto it = env.find(name);
          return it == env.end() ? nullptr : it->second.c_str();
        },
        path_);
  }
  std::string path_ = ::testing::TempDir() + "/client.conf";
};

TEST_F(SiteConfigTest, MissingDefaultFileMeansDefaultsWithoutWarning) {
  EnvironmentOptions e = Load({});
  EXPECT_EQ(e.options.deadline_ms, 2000);
  EXPECT_TRUE(e.options.config_path.empty());
  EXPECT_TRUE(e.warnings.empty());
}

TEST_F(SiteConfigTest, FileAppliesAndEnvironmentOverridesIt) {
  Write(
      "# site\naddress = mgmt01:50051\ntls_ca = /etc/toporr/ca.pem\ndeadline_ms = 500\n"
      "min_bytes = 1048576\ndisable = false\n");
  EnvironmentOptions e = Load({{"TOPORR_DEADLINE_MS", "300"}});
  EXPECT_EQ(e.options.address, "mgmt01:50051");
  EXPECT_EQ(e.options.tls_ca, "/etc/toporr/ca.pem");
  EXPECT_EQ(e.options.deadline_ms, 300);
  EXPECT_EQ(e.options.min_bytes, 1048576);
  EXPECT_EQ(e.options.config_path, path_);
  EXPECT_TRUE(e.warnings.empty());
}

TEST_F(SiteConfigTest, MalformedFileIsIgnoredWholeWithOneWarningNamingTheLine) {
  Write("address = mgmt01:50051\ndeadline_ms = soon\n");
  EnvironmentOptions e = Load({});
  EXPECT_TRUE(e.options.address.empty());  // not half-applied
  EXPECT_EQ(e.options.deadline_ms, 2000);
  ASSERT_EQ(e.warnings.size(), 1u);
  EXPECT_THAT(e.warnings[0], HasSubstr(path_ + ":2: deadline_ms must be milliseconds"));
}

TEST_F(SiteConfigTest, AnAddressListAppliesAndABadOneRefusesTheFileNamingKeyAndElement) {
  Write("address = mgmt01:7575, mgmt02:7575\n");
  EnvironmentOptions e = Load({});
  EXPECT_EQ(e.options.address, "mgmt01:7575,mgmt02:7575");
  EXPECT_TRUE(e.warnings.empty());
  Write("deadline_ms = 500\naddress = mgmt01:7575, ,mgmt02:7575\n");
  e = Load({});
  EXPECT_TRUE(e.options.address.empty());
  EXPECT_EQ(e.options.deadline_ms, 2000);  // the whole file ignored
  ASSERT_EQ(e.warnings.size(), 1u);
  EXPECT_THAT(e.warnings[0], HasSubstr(path_ + ":2: address must be HOST:PORT"));
  EXPECT_THAT(e.warnings[0], HasSubstr("element 2 \"\" is empty"));
}

TEST_F(SiteConfigTest, UnknownKeysQuotesAndRepeatsAreSkippedWithOneWarningEach) {
  Write(
      "adress = mgmt01:50051\ntls_ca = /etc/toporr/ca.pem\nsocket = \"/run/x.sock\n"
      "deadline_ms = 500\ndeadline_ms = 700\naddress = mgmt02:50051\n");
  EnvironmentOptions e = Load({});
  EXPECT_EQ(e.options.tls_ca, "/etc/toporr/ca.pem");  // the rest is kept
  EXPECT_EQ(e.options.address, "mgmt02:50051");
  EXPECT_EQ(e.options.socket, "/run/toporr/toporrd.sock");  // the unbalanced quote: skipped
  EXPECT_EQ(e.options.deadline_ms, 700);                    // the last one wins
  EXPECT_EQ(e.options.config_path, path_);
  ASSERT_EQ(e.warnings.size(), 3u) << ::testing::PrintToString(e.warnings);
  EXPECT_THAT(e.warnings[0], HasSubstr(":1: adress must be one of the known keys"));
  EXPECT_THAT(e.warnings[1], HasSubstr(":3: socket must be a value with both its double quotes"));
  EXPECT_THAT(e.warnings[2], HasSubstr(":5: deadline_ms was already set on line 4"));
  // Without notes (a strict reader) each of them refuses the file.
  ClientOptions o;
  EXPECT_FALSE(ParseClientConfig("adress = x\n", "f", &o).ok());
  EXPECT_FALSE(ParseClientConfig("verbose = 1\nverbose = 2\n", "f", &o).ok());
}

TEST_F(SiteConfigTest, FilesOthersCanChangeAreNotTrusted) {
  Write("address = mgmt01:50051\n");
  ASSERT_EQ(::chmod(path_.c_str(), 0666), 0);
  EnvironmentOptions e = Load({});
  EXPECT_TRUE(e.options.address.empty());
  EXPECT_THAT(e.warnings, ElementsAre(HasSubstr("writable by every user: not trusted")));
  ASSERT_EQ(::chmod(path_.c_str(), 0644), 0);
  if (::geteuid() == 0) {
    ASSERT_EQ(::chown(path_.c_str(), 65534, 65534), 0);
    e = Load({});
    EXPECT_TRUE(e.options.address.empty());
    EXPECT_THAT(e.warnings, ElementsAre(HasSubstr("owned by uid 65534")));
  }
}

TEST_F(SiteConfigTest, AFileBeyondItsBoundIsRefusedUnread) {
  Write("");
  ASSERT_EQ(::truncate(path_.c_str(), int64_t{1} << 30), 0);  // sparse: no disk used
  EnvironmentOptions e = Load({});
  EXPECT_THAT(
      e.warnings,
      ElementsAre(HasSubstr("larger than the 1048576 bytes a configuration file may have")));
}

TEST_F(SiteConfigTest, NamedFileMustExistAndBeARegularFile) {
  EnvironmentOptions e = Load({{"TOPORR_CONFIG", path_ + ".absent"}});
  EXPECT_THAT(e.warnings, ElementsAre(HasSubstr("cannot open")));
  e = Load({{"TOPORR_CONFIG", ::testing::TempDir()}});
  EXPECT_THAT(e.warnings, ElementsAre(HasSubstr("not a regular file")));
}

TEST(ReportPathForJob, ExpandsTheJobIdOnlyUnderSlurm) {
  EXPECT_EQ(ReportPathForJob("/r/rep-%j-%%-%x.jsonl", "4711"), "/r/rep-4711-%-%x.jsonl");
  EXPECT_EQ(ReportPathForJob("/r/rep-%j.jsonl", nullptr), "/r/rep-%j.jsonl");
  EXPECT_EQ(ReportPathForJob("/r/rep-%j.jsonl", ""), "/r/rep-%j.jsonl");
  EXPECT_EQ(ReportPathForJob("/r/rep%", "7"), "/r/rep%");
}

TEST(McaSettings, EveryParameterRoundTripsThroughItsText) {
  ClientOptions set;
  std::string expected;
  for (const auto& [key, value] :
       std::vector<std::pair<std::string, std::string>>{{"socket", "/s"},
                                                        {"address", "h:1"},
                                                        {"tls_ca", "/ca.pem"},
                                                        {"costs", "/c"},
                                                        {"deadline_ms", "700"},
                                                        {"disable", "1"},
                                                        {"verbose", "2"},
                                                        {"report", "/r"},
                                                        {"hostmap", "/h"},
                                                        {"algorithm", "ring"},
                                                        {"min_bytes", "4096"},
                                                        {"verify", "0"},
                                                        {"verify_calls", "7"},
                                                        {"check_arguments", "0"},
                                                        {"reproducible", "1"}}) {
    ASSERT_TRUE(ApplyClientSetting(key, value, &set, &expected)) << key;
  }
  std::vector<std::string> keys;
  for (const McaSetting& m : McaSettings()) {
    keys.push_back(m.key);
    EXPECT_NE(m.mca.help, nullptr) << m.key;
    EXPECT_GE(m.mca.level, 1) << m.key;
    EXPECT_LE(m.mca.level, 9) << m.key;
    ClientOptions copy;
    ASSERT_TRUE(ApplyClientSetting(m.key, ClientSettingText(set, m.key), &copy, &expected))
        << m.key;
    EXPECT_EQ(ClientSettingText(copy, m.key), ClientSettingText(set, m.key)) << m.key;
    EXPECT_NE(ClientSettingText(copy, m.key), ClientSettingText(ClientOptions{}, m.key)) << m.key;
  }
  EXPECT_THAT(keys, ElementsAre("socket", "address", "tls_ca", "costs", "deadline_ms", "disable",
                                "verbose", "report", "hostmap", "algorithm", "min_bytes", "verify",
                                "verify_calls", "check_arguments", "reproducible"));
}

}  // namespace
}  // namespace toporr::client

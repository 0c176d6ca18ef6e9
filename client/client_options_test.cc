#include "client/client_options.h"

#include <cstdio>
#include <fstream>
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
  Write("adress = mgmt01:50051\n");
  e = Load({});
  ASSERT_EQ(e.warnings.size(), 1u);
  EXPECT_THAT(e.warnings[0], HasSubstr(":1: adress must be one of the known keys"));
}

TEST_F(SiteConfigTest, NamedFileMustExistAndBeARegularFile) {
  EnvironmentOptions e = Load({{"TOPORR_CONFIG", path_ + ".absent"}});
  EXPECT_THAT(e.warnings, ElementsAre(HasSubstr("cannot open")));
  e = Load({{"TOPORR_CONFIG", ::testing::TempDir()}});
  EXPECT_THAT(e.warnings, ElementsAre(HasSubstr("not a regular file")));
}

}  // namespace
}  // namespace toporr::client

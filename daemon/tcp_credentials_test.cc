// The settings that do not go together are refused naming them; plain TCP only on loopback
// or when asked for. TLS with real certificates: //daemon:ops_test.
#include "daemon/tcp_credentials.h"

#include "common/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::daemon {
namespace {

using ::testing::HasSubstr;
using ::toporr::testing::StatusIs;

DaemonConfig Listening(const std::string& address) {
  DaemonConfig config;
  config.listen_address = address;
  return config;
}

TEST(TcpCredentialsTest, PlainTcpOnlyOnLoopbackOrWhenAllowed) {
  EXPECT_OK(TcpCredentials(Listening("127.0.0.1:7000")));
  EXPECT_OK(TcpCredentials(Listening("[::1]:7000")));
  EXPECT_THAT(TcpCredentials(Listening("0.0.0.0:7000")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("listen_address 0.0.0.0:7000 without TLS")));
  DaemonConfig insecure = Listening("0.0.0.0:7000");
  insecure.listen_insecure = true;
  EXPECT_OK(TcpCredentials(insecure));
}

TEST(TcpCredentialsTest, SettingsThatDoNotGoTogetherAreNamed) {
  DaemonConfig cert_only = Listening("127.0.0.1:7000");
  cert_only.tls_cert_path = "/etc/toporr/server.pem";
  EXPECT_THAT(TcpCredentials(cert_only), StatusIs(absl::StatusCode::kInvalidArgument,
                                                  HasSubstr("tls_cert_path and tls_key_path")));
  DaemonConfig ca_without_tls = Listening("127.0.0.1:7000");
  ca_without_tls.tls_client_ca_path = "/etc/toporr/ca.pem";
  EXPECT_THAT(TcpCredentials(ca_without_tls),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("need tls_cert_path")));
  DaemonConfig admins_without_tls = Listening("127.0.0.1:7000");
  admins_without_tls.tls_admin_clients = "admin1";
  EXPECT_THAT(TcpCredentials(admins_without_tls),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("need tls_cert_path")));
}

TEST(TcpCredentialsTest, UnreadableFilesAreNamed) {
  DaemonConfig config = Listening("127.0.0.1:7000");
  config.tls_cert_path = "/nonexistent/server.pem";
  config.tls_key_path = "/nonexistent/server.key";
  EXPECT_THAT(TcpCredentials(config),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("/nonexistent/server.key")));
}

}  // namespace
}  // namespace toporr::daemon

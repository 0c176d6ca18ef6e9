// Server's contract, in this process on a real database and socket: what Create refuses before
// anything is opened, Start once and its errors, Reload applying the host map and keeping the
// running configuration when the new one does not read, Shutdown once.
#include "daemon/server.h"

#include <unistd.h>

#include <memory>
#include <string>

#include "common/status_matchers.h"
#include "common/test_data.h"
#include "daemon/testing/server_fixture.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::daemon {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::toporr::testing::RunResult;
using ::toporr::testing::StatusIs;

// node01's HCA in ibnetdiscover_fattree_default.txt.
constexpr char kNode01Guid[] = "0x0002c903000e0b10";

class ServerTest : public toporr::testing::ServerFixture {
 protected:
  ServerOptions Options() const {
    ServerOptions options;
    options.config.db_path = db_path();
    options.config.socket_path = socket_path();
    return options;
  }

  // Occurrences of `text` in the log.
  int Logged(const std::string& text) const {
    const std::string log = ServerLog();
    int n = 0;
    for (size_t at = 0; (at = log.find(text, at)) != std::string::npos; at += text.size()) ++n;
    return n;
  }
};

TEST_F(ServerTest, CreateRefusesTheConfigurationBeforeOpeningAnything) {
  const std::string map = WriteFile("hostmap", "not-a-guid node01\n");
  EXPECT_THAT(StartServer("host_map_path = " + map + "\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("host map: " + map + ":1:")));
  EXPECT_THAT(StartServer("listen_address = 127.0.0.1:1\ntls_cert_path = /x.pem\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("configuration: tls_cert_path and tls_key_path go together")));
  ServerOptions options = Options();
  options.config.listen_allowed_networks = "10.0.0.1/8";  // not checked by a parser here
  EXPECT_THAT(Server::Create(options).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("listen_allowed_networks")));
  EXPECT_NE(access(db_path().c_str(), F_OK), 0) << "no database was created";
  EXPECT_NE(access(socket_path().c_str(), F_OK), 0) << "no socket was created";
}

TEST_F(ServerTest, StartErrorsNameWhatCannotBeOpened) {
  EXPECT_THAT(StartServer("db_path = " + dir() + "/missing/toporr.db\n"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("cannot open " + dir() + "/missing/toporr.db: ")));
  EXPECT_THAT(StartServer("socket_path = " + dir() + "/missing/toporrd.sock\n"),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("/missing/toporrd.sock")));
  // What the failed Start opened is closed again: the database serves a new server.
  ASSERT_OK(StartServer());
  EXPECT_EQ(Ctl({"health"}).exit_code, 0);
}

TEST_F(ServerTest, StartsOnceAndShutsDownOnce) {
  ASSERT_OK(StartServer());
  EXPECT_THAT(server()->Start(), StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("")));
  EXPECT_EQ(Ctl({"health"}).exit_code, 0);
  server()->Shutdown();
  EXPECT_NE(access(socket_path().c_str(), F_OK), 0) << "socket file left behind";
  server()->Shutdown();
  server()->Reload();
  server()->Maintain();
  EXPECT_EQ(Logged("] stopped"), 1);
  EXPECT_EQ(Logged("reload:"), 0) << "no reload after Shutdown";
}

TEST_F(ServerTest, ReloadAppliesTheHostMapAndKeepsTheRunningConfigurationOnErrors) {
  const std::string fattree = WriteFile(
      "fattree.topo", toporr::testing::ReadSharedFabric("ibnetdiscover_fattree_default.txt"));
  const std::string map = WriteFile("hostmap", "");
  ServerOptions options = Options();
  options.config.host_map_path = map;
  absl::Status read_error;  // what the next reload's configuration read returns
  options.reload_config = [&](DaemonConfig* config) {
    if (!read_error.ok()) return read_error;
    *config = Options().config;
    config->host_map_path = map;
    config->discovery_interval_s = 60;
    return absl::OkStatus();
  };
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Server> server, Server::Create(std::move(options)));
  ASSERT_OK(server->Start());
  ASSERT_EQ(Ctl({"ingest", "--format", "ibnetdiscover", fattree}).exit_code, 0);

  WriteFile("hostmap", std::string(kNode01Guid) + " renamed01\n");
  server->Reload();
  EXPECT_THAT(ServerLog(),
              HasSubstr("reload: host map " + map +
                        ", admin group toporr-admin applied; serving snapshot 1 (ibnetdiscover "
                        "fattree.topo, 16 hosts); changed settings that need a restart: "
                        "discovery_*"));
  EXPECT_THAT(Ctl({"hosts"}).out, Not(HasSubstr("renamed01"))) << "the served snapshot stays";
  RunResult r = Ctl({"ingest", "--format", "ibnetdiscover", fattree});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(Ctl({"hosts"}).out, HasSubstr("renamed01"));

  WriteFile("hostmap", "not-a-guid node02\n");
  server->Reload();
  EXPECT_THAT(ServerLog(), HasSubstr("reload: host map: " + map + ":1:"));
  read_error = absl::InvalidArgumentError("toporrd.conf:3: unknown key 'bogus'");
  server->Reload();
  EXPECT_THAT(ServerLog(),
              HasSubstr("reload: configuration: toporrd.conf:3: unknown key 'bogus'; keeping the "
                        "old one"));
  EXPECT_EQ(Ctl({"health", "--ready"}).exit_code, 0);
  server->Shutdown();
}

}  // namespace
}  // namespace toporr::daemon

// End-to-end operations checks with toporrd's server and the real toporrctl: health before and
// after the first snapshot, metrics over HTTP and in a textfile checked by the real promtool,
// TLS and mutual TLS with certificates made by the real openssl, file modes and symlink
// refusal (the server in this process); sd_notify messages on a NOTIFY_SOCKET this test
// listens on, SIGHUP reload, configuration files, one daemon per database and per TCP port
// (the toporrd binary as a process).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/status_matchers.h"
#include "common/test_data.h"
#include "daemon/testing/server_fixture.h"
#include "daemon/testing/subprocess.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using ::toporr::testing::DaemonProcess;
using ::toporr::testing::FreeLoopbackPort;
using ::toporr::testing::RunfilePath;
using ::toporr::testing::RunProcess;
using ::toporr::testing::RunResult;
using ::toporr::testing::StatusIs;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteAll(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

// GET http://127.0.0.1:port/path, the whole response (headers and body).
std::string HttpGet(int port, const std::string& path) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    close(fd);
    return "";
  }
  const std::string req =
      "GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
  (void)!write(fd, req.data(), req.size());
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = read(fd, buf, sizeof(buf))) > 0;) out.append(buf, n);
  close(fd);
  return out;
}

// The server runs in this process (ServerFixture) unless the test is about the toporrd
// process: then DaemonProcess on the same directory.
class OpsTest : public toporr::testing::ServerFixture {
 protected:
  void SetUp() override {
    ServerFixture::SetUp();
    fattree_ = WriteFile("fattree.topo",
                         toporr::testing::ReadSharedFabric("ibnetdiscover_fattree_default.txt"));
  }

  // toporrctl with `args` only (no --socket: the test names its --target).
  RunResult Toporrctl(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {RunfilePath("client/ctl/toporrctl")};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunProcess(argv);
  }

  std::string fattree_;
};

TEST_F(OpsTest, HealthIsNotServingUntilASnapshotIsLoadedAndSaysWhy) {
  ASSERT_OK(StartServer());
  RunResult r = Ctl({"health"});
  EXPECT_EQ(r.exit_code, 0) << "alive";
  EXPECT_THAT(r.out, HasSubstr("NOT_SERVING: no fabric has been ingested yet"));
  EXPECT_EQ(Ctl({"health", "--ready"}).exit_code, 1);
  r = Ctl({"--json", "health"});
  EXPECT_THAT(r.out, HasSubstr("\"status\":\"NOT_SERVING\",\"serving\":false,\"reason\":"));
  ASSERT_EQ(Ctl({"ingest", "--format", "ibnetdiscover", fattree_}).exit_code, 0);
  r = Ctl({"health", "--ready"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "SERVING\n");
  // A restart on the database serves at once.
  StopServer();
  ASSERT_OK(StartServer());
  EXPECT_EQ(Ctl({"health", "--ready"}).exit_code, 0);
}

// sd_notify(3) messages as systemd would receive them: a datagram socket named by
// NOTIFY_SOCKET, WATCHDOG_USEC for the keep-alives.
TEST_F(OpsTest, NotifiesReadinessStatusWatchdogReloadAndStop) {
  const std::string notify_path = dir() + "/notify";
  int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, notify_path.c_str(), sizeof(addr.sun_path) - 1);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  std::vector<std::string> messages;
  auto receive_until = [&](const std::string& want, int timeout_ms) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (std::chrono::steady_clock::now() < deadline) {
      pollfd p{fd, POLLIN, 0};
      if (poll(&p, 1, 100) <= 0) continue;
      char buf[4096];
      ssize_t n = recv(fd, buf, sizeof(buf), 0);
      if (n <= 0) continue;
      messages.emplace_back(buf, n);
      if (messages.back().find(want) != std::string::npos) return true;
    }
    return false;
  };
  DaemonProcess d(db_path(), socket_path(), {},
                  {{"NOTIFY_SOCKET", notify_path}, {"WATCHDOG_USEC", "1000000"}});
  ASSERT_TRUE(d.Start()) << d.log();
  ASSERT_TRUE(receive_until("READY=1", 5000)) << ::testing::PrintToString(messages);
  EXPECT_THAT(messages.back(), HasSubstr("STATUS=no snapshot yet"));
  EXPECT_THAT(messages.back(), HasSubstr("MAINPID=" + std::to_string(d.pid())));
  ASSERT_EQ(d.Ctl({"ingest", "--format", "ibnetdiscover", fattree_}).exit_code, 0);
  EXPECT_TRUE(
      receive_until("STATUS=serving snapshot 1 (ibnetdiscover fattree.topo, 16 hosts)", 3000))
      << ::testing::PrintToString(messages);
  // Keep-alives at least every WatchdogSec / 2.
  messages.clear();
  EXPECT_TRUE(receive_until("WATCHDOG=1", 1500));
  EXPECT_TRUE(receive_until("WATCHDOG=1", 1500));
  kill(d.pid(), SIGHUP);
  EXPECT_TRUE(receive_until("RELOADING=1", 3000)) << ::testing::PrintToString(messages);
  EXPECT_TRUE(receive_until("READY=1", 3000));
  EXPECT_THAT(messages.back(), HasSubstr("STATUS=serving snapshot 1"));
  EXPECT_EQ(d.Ctl({"health", "--ready"}).exit_code, 0) << "the snapshot stays over a reload";
  kill(d.pid(), SIGTERM);
  EXPECT_TRUE(receive_until("STOPPING=1", 5000)) << ::testing::PrintToString(messages);
  EXPECT_EQ(d.WaitExit(10), 0);
  close(fd);
}

TEST_F(OpsTest, MetricsOverHttpAndTextfilePassPromtool) {
  const int port = FreeLoopbackPort();
  const std::string textdir = dir() + "/textfile";
  mkdir(textdir.c_str(), 0755);
  ASSERT_OK(StartServer("metrics_listen = 127.0.0.1:" + std::to_string(port) +
                        "\nmetrics_textfile_dir = " + textdir + "\n"));
  ASSERT_EQ(Ctl({"ingest", "--format", "ibnetdiscover", fattree_}).exit_code, 0);
  const std::string bad = WriteFile("bad.topo", "garbage\n");
  EXPECT_NE(Ctl({"ingest", "--format", "ibnetdiscover", bad}).exit_code, 0);
  EXPECT_EQ(Ctl({"cost", "node01", "node02"}).exit_code, 0);
  EXPECT_NE(Ctl({"cost", "node01", "nodeX"}).exit_code, 0);

  const std::string response = HttpGet(port, "/metrics");
  ASSERT_THAT(response, HasSubstr("200 OK"));
  EXPECT_THAT(response, HasSubstr("Content-Type: text/plain; version=0.0.4"));
  const std::string body = response.substr(response.find("\r\n\r\n") + 4);
  EXPECT_THAT(body,
              HasSubstr("toporr_ingests_total{format=\"ibnetdiscover\",result=\"created\"} 1"));
  EXPECT_THAT(body,
              HasSubstr("toporr_ingests_total{format=\"ibnetdiscover\",result=\"refused\"} 1"));
  EXPECT_THAT(body, HasSubstr("toporr_rpc_requests_total{method=\"GetPath\",code=\"OK\"}"));
  EXPECT_THAT(body, HasSubstr("code=\"NOT_FOUND\""));
  EXPECT_THAT(body, HasSubstr("toporr_snapshot_id 1\n"));
  EXPECT_THAT(body, HasSubstr("toporr_snapshot_hosts 16\n"));
  RunResult r = RunProcess(
      {"/bin/sh", "-c", "/usr/bin/promtool check metrics < " + WriteFile("http.prom", body)});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out + r.err, "");
  EXPECT_THAT(HttpGet(port, "/other"), HasSubstr("404"));

  // The textfile appears within metrics_interval_s (15 s; the first one at start).
  const std::string textfile = textdir + "/toporrd.prom";
  for (int i = 0; i < 100 && access(textfile.c_str(), F_OK) != 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  r = RunProcess({"/bin/sh", "-c", "/usr/bin/promtool check metrics < " + textfile});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(ReadAll(textfile), HasSubstr("toporr_start_time_seconds"));

  // toporrctl stats shows the same metrics for humans.
  r = Ctl({"stats"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("toporr_ingests_total"));
  EXPECT_THAT(r.out, HasSubstr("format=ibnetdiscover result=refused"));
  r = Ctl({"stats", "--prometheus"});
  EXPECT_THAT(r.out, HasSubstr("# TYPE toporr_rpc_duration_seconds histogram"));
}

TEST_F(OpsTest, FileModesAndSymlinksAreRefused) {
  ASSERT_OK(StartServer());
  ASSERT_EQ(Ctl({"ingest", "--format", "ibnetdiscover", fattree_}).exit_code, 0);
  struct stat st;
  ASSERT_EQ(lstat(db_path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640);
  ASSERT_EQ(lstat(socket_path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0666);
  StopServer();

  const std::string link_db = dir() + "/link.db";
  ASSERT_EQ(symlink(db_path().c_str(), link_db.c_str()), 0);
  EXPECT_THAT(StartServer("db_path = " + link_db + "\nsocket_path = " + dir() + "/other.sock\n"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("is a symbolic link; refusing to follow it")));

  const std::string link_sock = dir() + "/link.sock";
  ASSERT_EQ(symlink((dir() + "/elsewhere").c_str(), link_sock.c_str()), 0);
  EXPECT_THAT(StartServer("socket_path = " + link_sock + "\n"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("socket path " + link_sock + " is a symbolic link")));
  EXPECT_NE(access((dir() + "/elsewhere").c_str(), F_OK), 0);
}

TEST_F(OpsTest, SighupReloadsTheHostMapAndKeepsTheSnapshot) {
  const std::string map = dir() + "/hostmap";
  WriteAll(map, "");
  const std::string conf = dir() + "/toporrd.conf";
  WriteAll(conf, "host_map_path = " + map + "\n");
  DaemonProcess d(db_path(), socket_path(), {"--config=" + conf});
  ASSERT_TRUE(d.Start()) << d.log();
  ASSERT_EQ(d.Ctl({"ingest", "--format", "ibnetdiscover", fattree_}).exit_code, 0);
  RunResult hosts = d.Ctl({"--json", "hosts"});
  ASSERT_THAT(hosts.out, HasSubstr("\"name\":\"node01\""));
  // node01's HCA GUID, from the hosts listing.
  const size_t at = hosts.out.find("\"name\":\"node01\"");
  const size_t guid_at = hosts.out.find("\"guid\":\"", at) + 8;
  const std::string guid = hosts.out.substr(guid_at, hosts.out.find('"', guid_at) - guid_at);
  WriteAll(map, guid + " renamed01\n");
  kill(d.pid(), SIGHUP);
  for (int i = 0; i < 50 && d.log().find("reload: host map") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_THAT(d.log(), HasSubstr("reload: host map " + map));
  EXPECT_EQ(d.Ctl({"cost", "node01", "node02"}).exit_code, 0) << "snapshot 1 still served";
  RunResult r = d.Ctl({"ingest", "--format", "ibnetdiscover", fattree_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("snapshot 2 created"));
  EXPECT_THAT(d.Ctl({"hosts"}).out, HasSubstr("renamed01"));
  // A broken config keeps the running one.
  WriteAll(conf, "bogus = 1\n");
  kill(d.pid(), SIGHUP);
  for (int i = 0; i < 50 && d.log().find("keeping the old one") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_THAT(d.log(), HasSubstr("unknown key 'bogus'"));
  EXPECT_EQ(d.Ctl({"health", "--ready"}).exit_code, 0);
}

// A directory given as the configuration, or a malformed host map, is refused at start; on
// SIGHUP the running configuration stays and the log says why (ingests keep working).
TEST_F(OpsTest, ConfigurationErrorsAreRefusedAtStartAndKeptOverOnReload) {
  const std::string conf = dir() + "/toporrd.conf";
  const std::string map = dir() + "/hostmap";
  ASSERT_EQ(mkdir(conf.c_str(), 0755), 0);
  DaemonProcess as_dir(db_path(), socket_path(), {"--config=" + conf});
  EXPECT_FALSE(as_dir.Start());
  EXPECT_THAT(as_dir.log(), HasSubstr(conf + ": not a regular file"));
  ASSERT_EQ(rmdir(conf.c_str()), 0);
  WriteAll(map, "0x0002c903000e0a11 node01\nnot-a-guid node02\n");
  WriteAll(conf, "host_map_path = " + map + "\n");
  DaemonProcess bad_map(db_path(), socket_path(), {"--config=" + conf});
  EXPECT_FALSE(bad_map.Start());
  EXPECT_THAT(bad_map.log(), HasSubstr(map + ":2:"));

  WriteAll(map, "# no entries yet\n");
  DaemonProcess d(db_path(), socket_path(), {"--config=" + conf});
  ASSERT_TRUE(d.Start()) << d.log();
  auto reload_and_wait = [&](const std::string& expected) {
    kill(d.pid(), SIGHUP);
    for (int i = 0; i < 50 && d.log().find(expected) == std::string::npos; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    EXPECT_THAT(d.log(), HasSubstr(expected));
  };
  WriteAll(map, "0x0002c903000e0a11 node01\nnot-a-guid node02\n");
  reload_and_wait("reload: host map: " + map + ":2:");
  RunResult r = d.Ctl({"ingest", "--format", "ibnetdiscover", fattree_});
  EXPECT_EQ(r.exit_code, 0) << "the running (empty) map stays: " << r.err;
  ASSERT_EQ(unlink(conf.c_str()), 0);
  ASSERT_EQ(mkdir(conf.c_str(), 0755), 0);
  reload_and_wait("reload: configuration: " + conf + ": not a regular file; keeping the old one");
  EXPECT_EQ(d.Ctl({"health", "--ready"}).exit_code, 0);
}

// Certificates made by the real openssl: a CA, the daemon's (SAN 127.0.0.1), an admin client
// (CN admin1, listed), another client (CN intruder, signed by the same CA, not listed).
class TlsTest : public OpsTest {
 protected:
  void SetUp() override {
    OpsTest::SetUp();
    const std::string script = R"(
set -e
cd ")" + dir() + R"("
openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 -subj /CN=toporr-test-ca 2>/dev/null
mk() {
  openssl req -newkey rsa:2048 -nodes -keyout $1.key -out $1.csr -subj "$2" 2>/dev/null
  printf '%s\n' "$3" > $1.ext
  openssl x509 -req -in $1.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out $1.pem -days 2 -extfile $1.ext 2>/dev/null
}
mk server /CN=localhost "subjectAltName=IP:127.0.0.1,DNS:localhost"
mk admin /CN=admin1 "extendedKeyUsage=clientAuth"
mk intruder /CN=intruder "extendedKeyUsage=clientAuth"
mk admin_first "/CN=admin1/CN=someuser" "extendedKeyUsage=clientAuth"
mk admin_last "/CN=someuser/CN=admin1" "extendedKeyUsage=clientAuth"
)";
    RunResult r = RunProcess({"/bin/bash", "-c", script});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    port_ = FreeLoopbackPort();
    target_ = "127.0.0.1:" + std::to_string(port_);
  }
  RunResult Tcp(const std::string& client, const std::vector<std::string>& args) {
    std::vector<std::string> argv = {"--target", target_, "--tls-ca", dir() + "/ca.pem"};
    if (!client.empty()) {
      argv.insert(argv.end(), {"--tls-cert", dir() + "/" + client + ".pem", "--tls-key",
                               dir() + "/" + client + ".key"});
    }
    argv.insert(argv.end(), args.begin(), args.end());
    return Toporrctl(argv);
  }
  int port_;
  std::string target_;
};

TEST_F(TlsTest, ReadsOverTlsAdminOnlyWithAnAllowedClientCertificate) {
  ASSERT_OK(StartServer("listen_address = " + target_ + "\ntls_cert_path = " + dir() +
                        "/server.pem\ntls_key_path = " + dir() +
                        "/server.key\ntls_client_ca_path = " + dir() +
                        "/ca.pem\ntls_admin_clients = admin1, admin2\n"));
  RunResult r = Tcp("admin", {"ingest", "--format", "ibnetdiscover", fattree_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("snapshot 1 created"));
  r = Tcp("", {"cost", "node01", "node02"});  // reads need no client certificate
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = Tcp("", {"ingest", "--format", "ibnetdiscover", fattree_});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("tls_admin_clients"));
  r = Tcp("intruder", {"ingest", "--format", "ibnetdiscover", fattree_});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("admin RPCs need"));
  EXPECT_THAT(ServerLog(), HasSubstr("certificate CN=intruder"));
  // Plain TCP to the TLS port gets nothing.
  r = Toporrctl({"--target", target_, "--timeout", "2", "health"});
  EXPECT_EQ(r.exit_code, 1);
  // A subject of two common names names no one, whichever comes first.
  for (const char* two : {"admin_first", "admin_last"}) {
    r = Tcp(two, {"ingest", "--format", "ibnetdiscover", fattree_});
    EXPECT_EQ(r.exit_code, 1) << two;
    EXPECT_THAT(r.err, HasSubstr("admin RPCs need")) << two;
  }
  EXPECT_THAT(ServerLog(), HasSubstr("subject has 2 common names"));
  RunResult m = Ctl({"stats", "--prometheus"});
  EXPECT_THAT(m.out, HasSubstr("toporr_peers_refused_total{reason=\"tls_client_not_allowed\"} 3"));
  EXPECT_THAT(m.out, HasSubstr("toporr_peers_refused_total{reason=\"admin_denied\"} 1"));
}

TEST_F(TlsTest, TcpReadsOnlyFromTheAllowedNetworks) {
  const std::string tls = "listen_address = " + target_ + "\ntls_cert_path = " + dir() +
                          "/server.pem\ntls_key_path = " + dir() + "/server.key\n";
  ASSERT_OK(StartServer(tls + "listen_allowed_networks = 10.0.0.0/8\n"));
  ASSERT_EQ(Ctl({"ingest", "--format", "ibnetdiscover", fattree_}).exit_code, 0);
  for (int i = 0; i < 3; ++i) {
    RunResult r = Tcp("", {"cost", "node01", "node02"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_THAT(r.err, HasSubstr("not in the daemon's listen_allowed_networks"));
  }
  EXPECT_EQ(Ctl({"cost", "node01", "node02"}).exit_code, 0) << "the Unix socket is local";
  RunResult m = Ctl({"stats", "--prometheus"});
  EXPECT_THAT(m.out, HasSubstr("toporr_peers_refused_total{reason=\"network_not_allowed\"} 3"));
  // Logged once per address, however often it calls.
  const std::string log = ServerLog();
  size_t lines = 0;
  for (size_t at = 0;
       (at = log.find("refused: not in listen_allowed_networks", at)) != std::string::npos; ++at) {
    ++lines;
  }
  EXPECT_EQ(lines, 1u) << log;

  ASSERT_OK(StartServer(tls + "listen_allowed_networks = 10.0.0.0/8, 127.0.0.0/8 fd00::/8\n"));
  RunResult r = Tcp("", {"cost", "node01", "node02"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // A prefix that is not a network is refused, naming the file and line.
  StopServer();
  EXPECT_THAT(StartServer(tls + "\nlisten_allowed_networks = 127.0.0.1/8\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("toporrd.conf:5: network '127.0.0.1/8': host bits are set")));
}

TEST_F(TlsTest, ClientsNameTheTlsFailure) {
  ASSERT_OK(StartServer("listen_address = " + target_ + "\ntls_cert_path = " + dir() +
                        "/server.pem\ntls_key_path = " + dir() + "/server.key\n"));
  // A CA that did not sign the daemon's certificate.
  RunResult r = Toporrctl({"--target", target_, "--tls-ca", dir() + "/admin.pem", "health"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("the daemon's certificate is not valid for tls_ca"));
  // Plaintext to the TLS listener.
  r = Toporrctl({"--target", target_, "--timeout", "2", "health"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("is the daemon's listener TLS? (set tls_ca)"));
  // A name the certificate does not carry.
  r = Toporrctl({"--target", target_, "--tls-ca", dir() + "/ca.pem", "--tls-server-name",
                 "mgmt01.example", "health"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("does not name this address"));
  // Plaintext TCP outside loopback only when asked for.
  r = Toporrctl({"--target", "192.0.2.1:1", "health"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("over plaintext TCP: set tls_ca"));
}

// A key that is not the certificate's, a CA file that holds no certificate or cannot be
// read: refused at start naming the file, not reported as a listener that cannot bind.
TEST_F(TlsTest, BadTlsFilesAreNamedAtStart) {
  const std::string base =
      "listen_address = " + target_ + "\ntls_cert_path = " + dir() + "/server.pem\n";
  WriteFile("garbage.pem", "not a certificate\n");
  struct Case {
    std::string extra;
    absl::StatusCode code;
    std::string expected;
  };
  for (const Case& c :
       std::vector<Case>{{"tls_key_path = " + dir() + "/admin.key\n",
                          absl::StatusCode::kInvalidArgument, "the private key does not match"},
                         {"tls_key_path = " + dir() + "/server.key\ntls_client_ca_path = " + dir() +
                              "/garbage.pem\n",
                          absl::StatusCode::kInvalidArgument, "garbage.pem: no PEM CA certificate"},
                         {"tls_key_path = " + dir() + "/server.key\ntls_client_ca_path = " + dir() +
                              "/absent.pem\n",
                          absl::StatusCode::kNotFound, "absent.pem: cannot open"}}) {
    EXPECT_THAT(StartServer(base + c.extra),
                StatusIs(c.code, AllOf(HasSubstr("configuration: "), HasSubstr(c.expected),
                                       Not(HasSubstr("address in use")))));
  }
}

TEST_F(TlsTest, PlainTcpOnlyOnLoopbackOrWithInsecure) {
  const std::string listen = "listen_address = 0.0.0.0:" + std::to_string(port_) + "\n";
  EXPECT_THAT(StartServer(listen),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("without TLS: set tls_cert_path and tls_key_path, or "
                                 "listen_insecure = true")));
  ASSERT_OK(StartServer(listen + "listen_insecure = true\n"));
  ASSERT_EQ(Ctl({"ingest", "--format", "ibnetdiscover", fattree_}).exit_code, 0);
  RunResult r = Toporrctl({"--target", target_, "cost", "node01", "node02"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = Toporrctl({"--target", target_, "ingest", "--format", "ibnetdiscover", fattree_});
  EXPECT_EQ(r.exit_code, 1) << "never admin over plain TCP";
}

// A second toporrd on the same database refuses to start, naming the first one's pid; a
// database file removed under a running daemon is named by the next ingest, which is refused.
TEST_F(OpsTest, OneDatabaseOneDaemon) {
  DaemonProcess first(db_path(), socket_path(), {});
  ASSERT_TRUE(first.Start()) << first.log();
  DaemonProcess second(db_path(), dir() + "/second.sock", {});
  EXPECT_FALSE(second.Start());
  EXPECT_THAT(second.log(), HasSubstr(db_path() + " is in use by another toporrd (pid " +
                                      std::to_string(first.pid())));
  ASSERT_EQ(first.Ctl({"ingest", "--format", "ibnetdiscover", fattree_}).exit_code, 0);
  ASSERT_EQ(unlink(db_path().c_str()), 0);
  RunResult r = first.Ctl({"ingest", "--format", "ibnetdiscover", fattree_});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("was removed while toporrd ran"));
  EXPECT_EQ(first.Ctl({"cost", "node01", "node02"}).exit_code, 0) << "the snapshot stays";
}

// gRPC's default SO_REUSEPORT would let a second toporrd share the TCP
// port (queries alternating between two fabrics); it must fail to start, saying why.
TEST_F(OpsTest, SecondDaemonOnTheSameTcpPortFailsToStart) {
  const std::string listen = "127.0.0.1:" + std::to_string(FreeLoopbackPort());
  DaemonProcess first(db_path(), socket_path(), {"--listen", listen});
  ASSERT_TRUE(first.Start()) << first.log();
  DaemonProcess second(dir() + "/second.db", dir() + "/second.sock", {"--listen", listen});
  EXPECT_FALSE(second.Start());
  EXPECT_NE(second.WaitExit(10), 0);
  EXPECT_THAT(second.log(), HasSubstr("cannot listen on " + listen));
  EXPECT_THAT(second.log(), HasSubstr("another toporrd"));
  EXPECT_TRUE(first.running());
  EXPECT_EQ(first.Ctl({"health"}).exit_code, 0);
}

}  // namespace
}  // namespace toporr

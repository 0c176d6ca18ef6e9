#include "daemon/testing/server_fixture.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <utility>

#include "common/logging.h"
#include "common/status_macros.h"
#include "daemon/config.h"

namespace toporr::testing {

int FreeLoopbackPort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

void ServerFixture::SetUp() {
  char tmpl[] = "/tmp/toporrd-test.XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  dir_ = tmpl;
  chmod(dir_.c_str(), 0755);
  db_path_ = dir_ + "/toporr.db";
  socket_path_ = dir_ + "/toporrd.sock";
  // toporrd ignores SIGPIPE: a reader that goes away must not end the server.
  signal(SIGPIPE, SIG_IGN);
  SetLogSink([this](LogSeverity, const std::string& line) { AppendLog(line); });
}

void ServerFixture::TearDown() {
  StopServer();
  SetLogSink(nullptr);
  if (!dir_.empty()) RunProcess({"/bin/rm", "-rf", dir_});
}

void ServerFixture::AppendLog(const std::string& line) {
  std::fprintf(stderr, "%s\n", line.c_str());
  absl::MutexLock lock(&log_mu_);
  log_ += line;
  log_ += '\n';
}

std::string ServerFixture::ServerLog() const {
  absl::MutexLock lock(&log_mu_);
  return log_;
}

absl::Status ServerFixture::StartServer(const std::string& config) {
  StopServer();
  daemon::ServerOptions options;
  options.config.db_path = db_path_;
  options.config.socket_path = socket_path_;
  RETURN_IF_ERROR(daemon::ParseConfig(config, dir_ + "/toporrd.conf", &options.config));
  ASSIGN_OR_RETURN(std::unique_ptr<daemon::Server> server,
                   daemon::Server::Create(std::move(options)));
  RETURN_IF_ERROR(server->Start());
  server_ = std::move(server);
  {
    absl::MutexLock lock(&upkeep_mu_);
    stop_upkeep_ = false;
  }
  upkeep_ = std::thread([this, server = server_.get()] {
    while (true) {
      {
        absl::MutexLock lock(&upkeep_mu_);
        if (upkeep_mu_.AwaitWithTimeout(absl::Condition(&stop_upkeep_),
                                        server->maintain_interval())) {
          return;
        }
      }
      server->Maintain();
    }
  });
  return absl::OkStatus();
}

void ServerFixture::StopServer() {
  if (server_ == nullptr) return;
  {
    absl::MutexLock lock(&upkeep_mu_);
    stop_upkeep_ = true;
  }
  upkeep_.join();
  server_->Shutdown();
  server_.reset();
}

RunResult ServerFixture::Ctl(const std::vector<std::string>& args) const {
  std::vector<std::string> argv = {RunfilePath("client/ctl/toporrctl"), "--socket", socket_path_};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunProcess(argv);
}

std::string ServerFixture::WriteFile(const std::string& name, const std::string& text) const {
  const std::string path = dir_ + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

}  // namespace toporr::testing

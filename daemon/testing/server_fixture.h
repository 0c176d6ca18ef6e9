// Test support: toporrd's Server (daemon/server.h) in the test's own process, on a fresh
// directory that holds its SQLite file and Unix socket, and optionally a TCP listener (plain
// on loopback, or TLS with the certificates the test names in its configuration). It is the
// daemon's own code over real storage, gRPC and sockets, driven by the real toporrctl or a
// gRPC stub: no mocks, no process to start. Tests only.
//
// Tests of what only the toporrd binary does as a process (signals, sd_notify, exit codes,
// the test-hook crash points, its own memory, one database per process) run DaemonProcess
// (daemon/testing/subprocess.h) on the same directory: DaemonProcess(db_path(),
// socket_path()).
#ifndef TOPORR_DAEMON_TESTING_SERVER_FIXTURE_H_
#define TOPORR_DAEMON_TESTING_SERVER_FIXTURE_H_

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "daemon/server.h"
#include "daemon/testing/subprocess.h"
#include "gtest/gtest.h"

namespace toporr::testing {

// A TCP port of 127.0.0.1 that was free when asked.
int FreeLoopbackPort();

class ServerFixture : public ::testing::Test {
 protected:
  // Makes the directory, /tmp/toporrd-test.XXXXXX mode 0755 (under /tmp rather than
  // $TEST_TMPDIR so that an unprivileged uid can reach the socket and its path stays short),
  // and starts collecting the process's log lines.
  void SetUp() override;
  // Stops the server, removes the directory with everything in it, and gives the log lines
  // back to stderr.
  void TearDown() override;

  // Starts a server on `config` (toporrd.conf lines, parsed by ParseConfig as the file
  // dir()/toporrd.conf) over the defaults, with the database at db_path() and the socket at
  // socket_path() unless `config` says otherwise. Its upkeep (Server::Maintain: status,
  // metrics textfile) runs on a thread of the fixture, as toporrd's serving loop runs it.
  // Returns ParseConfig's, Server::Create's or Server::Start's error, the server then not
  // running. One server at a time: a running one is stopped first.
  absl::Status StartServer(const std::string& config = "");
  // Shuts the server down and destroys it, as toporrd on SIGTERM: the socket is removed, the
  // database closed, and a new server may start on it. No-op when none runs.
  void StopServer();
  // The running server, or nullptr.
  daemon::Server* server() const { return server_.get(); }

  // Every line the process logged since SetUp (the servers' lines as toporrd writes them to
  // stderr), each followed by a newline. Thread-safe.
  std::string ServerLog() const;

  // The real toporrctl with `args`, against socket_path().
  RunResult Ctl(const std::vector<std::string>& args) const;

  // Writes `text` to dir()/`name` and returns its path.
  std::string WriteFile(const std::string& name, const std::string& text) const;

  const std::string& dir() const { return dir_; }
  const std::string& db_path() const { return db_path_; }
  const std::string& socket_path() const { return socket_path_; }

 private:
  void AppendLog(const std::string& line) ABSL_LOCKS_EXCLUDED(log_mu_);

  std::string dir_, db_path_, socket_path_;
  std::unique_ptr<daemon::Server> server_;
  // The upkeep thread and how it is told to stop.
  std::thread upkeep_;
  absl::Mutex upkeep_mu_;
  bool stop_upkeep_ ABSL_GUARDED_BY(upkeep_mu_) = false;
  mutable absl::Mutex log_mu_;
  std::string log_ ABSL_GUARDED_BY(log_mu_);
};

}  // namespace toporr::testing

#endif  // TOPORR_DAEMON_TESTING_SERVER_FIXTURE_H_

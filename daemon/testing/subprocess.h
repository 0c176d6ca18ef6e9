// Test support: real toporrd / toporrctl processes (no mocks). Tests only.
#ifndef TOPORR_DAEMON_TESTING_SUBPROCESS_H_
#define TOPORR_DAEMON_TESTING_SUBPROCESS_H_

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

namespace toporr::testing {

struct RunResult {
  int exit_code = -1;  // 128 + signal when killed by a signal
  std::string out;
  std::string err;
};

// Runs `argv` to completion with extra environment variables; captures stdout/stderr.
RunResult RunProcess(const std::vector<std::string>& argv,
                     const std::map<std::string, std::string>& env = {});

// Path of a binary built by Bazel and listed in the test's `data`, e.g.
// RunfilePath("daemon/toporrd").
std::string RunfilePath(const std::string& workspace_relative);

// A toporrd process on its own database and socket.
class DaemonProcess {
 public:
  DaemonProcess(std::string db_path, std::string socket_path,
                std::vector<std::string> extra_args = {},
                std::map<std::string, std::string> env = {});
  ~DaemonProcess();  // Stop()s if still running

  // Starts the daemon and waits (up to 20 s) until `toporrctl health` answers. Returns
  // false (with the daemon's stderr in `log()`) if it exits or never becomes healthy.
  bool Start();
  // SIGTERM and wait; returns the exit code (128 + signal if killed).
  int Stop();
  // Waits for the process to exit by itself (e.g. after a crash point), up to timeout.
  int WaitExit(int timeout_s);
  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  std::string log() const;  // the daemon's stderr so far

  // The daemon binary to run (workspace-relative, in the test's `data`), before Start():
  // "daemon/toporrd" by default, "daemon/toporrd_test_hooks" for crash-point tests.
  void set_binary(std::string workspace_relative) { binary_ = std::move(workspace_relative); }

  // toporrctl against this daemon's socket.
  RunResult Ctl(const std::vector<std::string>& args) const;

 private:
  std::string db_path_, socket_path_, log_path_;
  std::string binary_ = "daemon/toporrd";
  std::vector<std::string> extra_args_;
  std::map<std::string, std::string> env_;
  pid_t pid_ = -1;
};

}  // namespace toporr::testing

#endif  // TOPORR_DAEMON_TESTING_SUBPROCESS_H_

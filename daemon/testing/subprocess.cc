#include "daemon/testing/subprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "common/subprocess.h"

namespace toporr::testing {

std::string RunfilePath(const std::string& rel) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* ws = std::getenv("TEST_WORKSPACE");
  if (srcdir && ws) return std::string(srcdir) + "/" + ws + "/" + rel;
  return rel;
}

RunResult RunProcess(const std::vector<std::string>& argv,
                     const std::map<std::string, std::string>& env) {
  SpawnOptions spawn;
  spawn.env = env;
  spawn.stdin_fd = 0;
  spawn.stdout_fd = OutputTempFile();
  spawn.stderr_fd = OutputTempFile();
  RunResult r;
  absl::StatusOr<pid_t> pid = Spawn(argv, spawn);
  if (pid.ok()) {
    int status = 0;
    waitpid(*pid, &status, 0);
    r.exit_code = ExitCodeOf(status);
  }
  r.out = ReadAndClose(spawn.stdout_fd);
  r.err = ReadAndClose(spawn.stderr_fd);
  return r;
}

DaemonProcess::DaemonProcess(std::string db_path, std::string socket_path,
                             std::vector<std::string> extra_args,
                             std::map<std::string, std::string> env)
    : db_path_(std::move(db_path)),
      socket_path_(std::move(socket_path)),
      log_path_(socket_path_ + ".log"),
      extra_args_(std::move(extra_args)),
      env_(std::move(env)) {}

DaemonProcess::~DaemonProcess() {
  if (pid_ > 0) Stop();
}

bool DaemonProcess::Start() {
  std::vector<std::string> argv = {RunfilePath(binary_), "--config=", "--db", db_path_,
                                   "--socket",           socket_path_};
  argv.insert(argv.end(), extra_args_.begin(), extra_args_.end());
  SpawnOptions spawn;
  spawn.env = env_;
  spawn.stdin_fd = 0;
  spawn.stdout_fd = spawn.stderr_fd = open(log_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  absl::StatusOr<pid_t> pid = Spawn(argv, spawn);
  close(spawn.stdout_fd);
  if (!pid.ok()) return false;
  pid_ = *pid;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    int status;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return false;
    }
    if (access(socket_path_.c_str(), F_OK) == 0 && Ctl({"health"}).exit_code == 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

int DaemonProcess::Stop() {
  if (pid_ <= 0) return -1;
  kill(pid_, SIGTERM);
  return WaitExit(20);
}

int DaemonProcess::WaitExit(int timeout_s) {
  if (pid_ <= 0) return -1;
  const WaitResult waited = WaitOrKill(pid_, std::chrono::seconds(timeout_s));
  pid_ = -1;
  return waited.exit_code;
}

std::string DaemonProcess::log() const {
  std::ifstream in(log_path_);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

RunResult DaemonProcess::Ctl(const std::vector<std::string>& args) const {
  std::vector<std::string> argv = {RunfilePath("client/ctl/toporrctl"), "--socket", socket_path_};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunProcess(argv);
}

}  // namespace toporr::testing

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

namespace toporr::testing {
namespace {

std::string Slurp(int fd) {
  std::string s;
  char buf[65536];
  ssize_t n;
  while ((n = read(fd, buf, sizeof(buf))) > 0) s.append(buf, n);
  return s;
}

[[noreturn]] void ExecChild(const std::vector<std::string>& argv,
                            const std::map<std::string, std::string>& env) {
  for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
  std::vector<char*> cargv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  execv(cargv[0], cargv.data());
  std::fprintf(stderr, "exec %s: %s\n", cargv[0], std::strerror(errno));
  _exit(127);
}

int DecodeStatus(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace

std::string RunfilePath(const std::string& rel) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* ws = std::getenv("TEST_WORKSPACE");
  if (srcdir && ws) return std::string(srcdir) + "/" + ws + "/" + rel;
  return rel;
}

RunResult RunProcess(const std::vector<std::string>& argv,
                     const std::map<std::string, std::string>& env) {
  // Output goes to temp files, not pipes, so a chatty child can never block.
  char out_tmpl[] = "/tmp/toporr-out.XXXXXX";
  char err_tmpl[] = "/tmp/toporr-err.XXXXXX";
  int out_fd = mkstemp(out_tmpl);
  int err_fd = mkstemp(err_tmpl);
  unlink(out_tmpl);
  unlink(err_tmpl);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out_fd, 1);
    dup2(err_fd, 2);
    ExecChild(argv, env);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  RunResult r;
  r.exit_code = DecodeStatus(status);
  lseek(out_fd, 0, SEEK_SET);
  lseek(err_fd, 0, SEEK_SET);
  r.out = Slurp(out_fd);
  r.err = Slurp(err_fd);
  close(out_fd);
  close(err_fd);
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
  std::vector<std::string> argv = {
      RunfilePath("daemon/toporrd"), "--config=", "--db", db_path_, "--socket", socket_path_};
  argv.insert(argv.end(), extra_args_.begin(), extra_args_.end());
  int log_fd = open(log_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  pid_ = fork();
  if (pid_ == 0) {
    dup2(log_fd, 2);
    dup2(log_fd, 1);
    ExecChild(argv, env_);
  }
  close(log_fd);
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
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  int status = 0;
  while (waitpid(pid_, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  pid_ = -1;
  return DecodeStatus(status);
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

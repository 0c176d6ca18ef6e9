#include "common/subprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace toporr {

absl::StatusOr<pid_t> Spawn(const std::vector<std::string>& argv, const SpawnOptions& options) {
  std::vector<char*> cargv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) return absl::UnavailableError(absl::StrCat("fork: ", std::strerror(errno)));
  if (pid > 0) return pid;
  int devnull = open("/dev/null", O_RDWR);
  dup2(options.stdin_fd >= 0 ? options.stdin_fd : devnull, 0);
  dup2(options.stdout_fd >= 0 ? options.stdout_fd : devnull, 1);
  dup2(options.stderr_fd >= 0 ? options.stderr_fd : devnull, 2);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  for (const auto& [k, v] : options.env) setenv(k.c_str(), v.c_str(), 1);
  execvp(cargv[0], cargv.data());
  dprintf(2, "cannot run %s: %s\n", cargv[0], std::strerror(errno));
  _exit(127);
}

int ExitCodeOf(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return -1;
}

WaitResult WaitOrKill(pid_t pid, std::chrono::milliseconds timeout,
                      const std::atomic<bool>* cancel) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  WaitResult result;
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    result.cancelled = cancel != nullptr && cancel->load();
    result.timed_out = !result.cancelled && std::chrono::steady_clock::now() > deadline;
    if (result.cancelled || result.timed_out) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  result.exit_code = ExitCodeOf(status);
  return result;
}

int OutputTempFile() {
  char tmpl[] = "/tmp/toporr-out.XXXXXX";
  int fd = mkstemp(tmpl);
  if (fd >= 0) unlink(tmpl);
  return fd;
}

std::string ReadAndClose(int fd) {
  std::string s;
  if (fd < 0) return s;
  lseek(fd, 0, SEEK_SET);
  char buf[65536];
  ssize_t n;
  while ((n = read(fd, buf, sizeof(buf))) > 0) s.append(buf, n);
  close(fd);
  return s;
}

}  // namespace toporr

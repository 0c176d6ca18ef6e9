// Child processes: start a program with its standard streams redirected, wait for it with a
// deadline (and a cancel flag), and read what it wrote to a temp file. The one fork/exec
// used by the daemon (running the live-discovery collector) and by the tests (real toporrd
// and toporrctl processes).
// Thread-safety: the functions are thread-compatible; fork() from a threaded process only
// runs async-signal-safe code in the child before exec.
#ifndef TOPORR_COMMON_SUBPROCESS_H_
#define TOPORR_COMMON_SUBPROCESS_H_

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace toporr {

struct SpawnOptions {
  // Added to (or replacing in) the child's environment.
  std::map<std::string, std::string> env;
  // File descriptors the child gets as stdin/stdout/stderr; -1: /dev/null.
  int stdin_fd = -1;
  int stdout_fd = -1;
  int stderr_fd = -1;
};

// Starts argv[0] (searched in PATH when it has no '/') with `argv`. The child gets an empty
// signal mask (a daemon that blocks its shutdown signals must not pass that on). When exec
// fails the child writes "cannot run <program>: <reason>" to its stderr and exits 127.
// kUnavailable when fork fails.
absl::StatusOr<pid_t> Spawn(const std::vector<std::string>& argv, const SpawnOptions& options);

// waitpid status -> exit code: the code of a normal exit, 128 + signal when killed, -1 else.
int ExitCodeOf(int wait_status);

struct WaitResult {
  int exit_code = -1;      // ExitCodeOf the final status
  bool timed_out = false;  // killed (SIGKILL) at the deadline
  bool cancelled = false;  // killed (SIGKILL) because *cancel became true
};

// Waits for `pid` (polling every 20 ms), killing it with SIGKILL when `timeout` passes or
// `*cancel` (may be null) becomes true.
WaitResult WaitOrKill(pid_t pid, std::chrono::milliseconds timeout,
                      const std::atomic<bool>* cancel = nullptr);

// An unnamed temp file (already unlinked) for a child's output, so that a chatty child can
// never block on a pipe. -1 when it cannot be created.
int OutputTempFile();
// Everything in `fd` from its start; closes it.
std::string ReadAndClose(int fd);

}  // namespace toporr

#endif  // TOPORR_COMMON_SUBPROCESS_H_

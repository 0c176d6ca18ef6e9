#include "daemon/remote_sweep.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace toporr::daemon {
namespace {

// Closes its descriptor on every return path.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// How often a wait for the helper looks at `cancel`.
constexpr absl::Duration kCancelPoll = absl::Milliseconds(100);

}  // namespace

absl::StatusOr<collectors::SweepResult> RequestSweep(const std::string& socket_path,
                                                     const collectors::SweepRequest& request,
                                                     absl::Duration timeout,
                                                     const std::atomic<bool>* cancel) {
  const std::string who = "discovery helper unix:" + socket_path;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (socket_path.size() >= sizeof(addr.sun_path)) {
    return absl::InvalidArgumentError(absl::StrCat(who, ": socket path too long"));
  }
  std::memcpy(addr.sun_path, socket_path.c_str(), socket_path.size() + 1);
  Fd fd(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) {
    return absl::UnavailableError(absl::StrCat(who, ": socket: ", std::strerror(errno)));
  }
  if (connect(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) != 0) {
    const int err = errno;
    return absl::UnavailableError(
        absl::StrCat(who, ": cannot connect: ", std::strerror(err),
                     err == EACCES ? " (toporrd's user must be in the socket's group, toporr)"
                                   : " (is toporr-discover.socket running? systemctl enable --now "
                                     "toporr-discover.socket)"));
  }
  // The request is a few dozen bytes: one send() fits in any socket buffer.
  const std::string line = collectors::FormatSweepRequest(request);
  if (send(fd.get(), line.data(), line.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(line.size())) {
    return absl::UnavailableError(
        absl::StrCat(who, ": cannot send the request: ", std::strerror(errno)));
  }
  const absl::Time deadline = absl::Now() + timeout;
  std::string reply;
  char buf[1 << 16];
  while (true) {
    if (cancel != nullptr && cancel->load()) {
      return absl::CancelledError(absl::StrCat(who, ": sweep stopped: shutting down"));
    }
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) {
      return absl::DeadlineExceededError(
          absl::StrCat(who, ": no complete reply within ", absl::FormatDuration(timeout), " (",
                       reply.size(), " bytes received); the sweep was abandoned"));
    }
    pollfd p{fd.get(), POLLIN, 0};
    const int ready =
        poll(&p, 1, static_cast<int>(absl::ToInt64Milliseconds(std::min(left, kCancelPoll))) + 1);
    if (ready < 0 && errno != EINTR) {
      return absl::UnavailableError(absl::StrCat(who, ": poll: ", std::strerror(errno)));
    }
    if (ready <= 0) continue;
    const ssize_t n = read(fd.get(), buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return absl::UnavailableError(
          absl::StrCat(who, ": reading the reply: ", std::strerror(errno)));
    }
    if (n == 0) break;
    reply.append(buf, static_cast<size_t>(n));
  }
  absl::StatusOr<collectors::SweepResult> result = collectors::ParseSweepReply(reply);
  if (!result.ok()) {
    return absl::Status(result.status().code(), absl::StrCat(who, ": ", result.status().message()));
  }
  return result;
}

}  // namespace toporr::daemon

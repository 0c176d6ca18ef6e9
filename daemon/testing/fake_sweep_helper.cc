#include "daemon/testing/fake_sweep_helper.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/memory/memory.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace toporr::testing {

absl::StatusOr<std::unique_ptr<FakeSweepHelper>> FakeSweepHelper::Start(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof(addr.sun_path)) return absl::InvalidArgumentError("path too long");
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::UnavailableError(std::strerror(errno));
  if (bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) != 0 || listen(fd, 4) != 0) {
    const int err = errno;
    close(fd);
    return absl::UnavailableError(absl::StrCat("bind ", path, ": ", std::strerror(err)));
  }
  const int wake = eventfd(0, EFD_CLOEXEC);
  if (wake < 0) {
    close(fd);
    return absl::UnavailableError(std::strerror(errno));
  }
  return absl::WrapUnique(new FakeSweepHelper(path, fd, wake));
}

FakeSweepHelper::FakeSweepHelper(std::string path, int listen_fd, int wake_fd)
    : path_(std::move(path)), listen_fd_(listen_fd), wake_fd_(wake_fd) {
  thread_ = std::thread([this] { Loop(); });
}

FakeSweepHelper::~FakeSweepHelper() {
  const uint64_t one = 1;
  (void)!write(wake_fd_, &one, sizeof(one));
  thread_.join();
  close(listen_fd_);
  close(wake_fd_);
  unlink(path_.c_str());
}

void FakeSweepHelper::set_reply(std::string reply) {
  std::lock_guard<std::mutex> l(mu_);
  reply_ = std::move(reply);
  silent_ = false;
}

void FakeSweepHelper::set_silent() {
  std::lock_guard<std::mutex> l(mu_);
  silent_ = true;
}

std::vector<std::string> FakeSweepHelper::requests() const {
  std::lock_guard<std::mutex> l(mu_);
  return requests_;
}

int FakeSweepHelper::hangups() const {
  std::lock_guard<std::mutex> l(mu_);
  return hangups_;
}

void FakeSweepHelper::Loop() {
  while (true) {
    pollfd p[2] = {{listen_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    if (poll(p, 2, -1) < 0) continue;
    if (p[1].revents != 0) return;
    const int conn = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (conn < 0) continue;
    Answer(conn);
    close(conn);
  }
}

void FakeSweepHelper::Answer(int conn) {
  std::string line;
  char c;
  while (read(conn, &c, 1) == 1 && c != '\n') line.push_back(c);
  std::string reply;
  bool silent;
  {
    std::lock_guard<std::mutex> l(mu_);
    requests_.push_back(line);
    reply = reply_;
    silent = silent_;
  }
  if (silent) {
    // Like the real helper while it sweeps: nothing to say until the caller goes away (or the
    // fake is destroyed).
    while (true) {
      pollfd p[2] = {{conn, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
      if (poll(p, 2, -1) < 0) continue;
      if (p[1].revents != 0) return;
      char buf[64];
      if (read(conn, buf, sizeof(buf)) <= 0) break;
    }
    std::lock_guard<std::mutex> l(mu_);
    ++hangups_;
    return;
  }
  size_t done = 0;
  while (done < reply.size()) {
    const ssize_t n = send(conn, reply.data() + done, reply.size() - done, MSG_NOSIGNAL);
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

}  // namespace toporr::testing

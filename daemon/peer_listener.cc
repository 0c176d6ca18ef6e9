#include "daemon/peer_listener.h"

#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"

namespace toporr::daemon {
namespace {

absl::Status Errno(const std::string& what) {
  return absl::UnavailableError(absl::StrCat(what, ": ", std::strerror(errno)));
}

}  // namespace

bool IsAdminPeer(const PeerCredentials& peer, uid_t self_uid, gid_t admin_gid) {
  if (peer.uid == 0 || peer.uid == self_uid) return true;
  if (admin_gid == static_cast<gid_t>(-1)) return false;
  if (peer.gid == admin_gid) return true;
  passwd pw;
  passwd* result = nullptr;
  std::vector<char> buf(16384);
  if (getpwuid_r(peer.uid, &pw, buf.data(), buf.size(), &result) != 0 || result == nullptr) {
    return false;
  }
  int n = 64;
  std::vector<gid_t> groups(n);
  if (getgrouplist(pw.pw_name, pw.pw_gid, groups.data(), &n) < 0) {
    groups.resize(n);
    if (getgrouplist(pw.pw_name, pw.pw_gid, groups.data(), &n) < 0) return false;
  }
  groups.resize(n);
  for (gid_t g : groups)
    if (g == admin_gid) return true;
  return false;
}

gid_t LookupGroup(const std::string& name) {
  if (name.empty()) return static_cast<gid_t>(-1);
  group gr;
  group* result = nullptr;
  std::vector<char> buf(16384);
  if (getgrnam_r(name.c_str(), &gr, buf.data(), buf.size(), &result) != 0 || result == nullptr) {
    return static_cast<gid_t>(-1);
  }
  return gr.gr_gid;
}

absl::StatusOr<std::unique_ptr<PeerListener>> PeerListener::Start(const std::string& path,
                                                                  Handoff handoff) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof(addr.sun_path)) {
    return absl::InvalidArgumentError(absl::StrCat("socket path too long (", path.size(), " > ",
                                                   sizeof(addr.sun_path) - 1, " bytes): ", path));
  }
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  struct stat st;
  if (lstat(path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode)) {
      return absl::FailedPreconditionError(
          absl::StrCat(path, " exists and is not a socket; refusing to replace it"));
    }
    // A live daemon would still accept; a stale file from a crash is removed.
    int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    bool live = probe >= 0 && connect(probe, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
    if (probe >= 0) close(probe);
    if (live) {
      return absl::FailedPreconditionError(
          absl::StrCat(path, ": another toporrd is already serving this socket"));
    }
    unlink(path.c_str());
  }
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return Errno("socket");
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    absl::Status s = Errno(absl::StrCat("bind ", path));
    close(fd);
    return s;
  }
  chmod(path.c_str(), 0666);
  if (listen(fd, 128) != 0) {
    absl::Status s = Errno(absl::StrCat("listen ", path));
    close(fd);
    unlink(path.c_str());
    return s;
  }
  int wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake < 0) {
    close(fd);
    unlink(path.c_str());
    return Errno("eventfd");
  }
  return std::unique_ptr<PeerListener>(new PeerListener(path, fd, wake, std::move(handoff)));
}

PeerListener::PeerListener(std::string path, int listen_fd, int wake_fd, Handoff handoff)
    : path_(std::move(path)),
      listen_fd_(listen_fd),
      wake_fd_(wake_fd),
      handoff_(std::move(handoff)),
      thread_([this] { Loop(); }) {}

PeerListener::~PeerListener() {
  uint64_t one = 1;
  (void)!write(wake_fd_, &one, sizeof(one));
  thread_.join();
  close(listen_fd_);
  close(wake_fd_);
  unlink(path_.c_str());
}

void PeerListener::Loop() {
  pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
  while (true) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents) return;
    if (!(fds[0].revents & POLLIN)) continue;
    int conn = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (conn < 0) continue;
    ucred cred{};
    socklen_t len = sizeof(cred);
    if (getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
      close(conn);
      continue;
    }
    handoff_(conn, PeerCredentials{cred.pid, cred.uid, cred.gid});
  }
}

}  // namespace toporr::daemon

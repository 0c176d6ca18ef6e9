// Accepts connections on the daemon's Unix socket and hands each one to one of two gRPC
// servers depending on who is calling, as reported by the kernel (SO_PEERCRED):
//   - uid 0, the daemon's own uid, or a member of the admin group -> the admin server
//     (read + admin services);
//   - anyone else -> the read server, whose Admin service answers PERMISSION_DENIED.
// gRPC offers no portable way to learn a Unix peer's credentials inside a handler, so the
// decision is made once per connection, before gRPC sees it.
#ifndef TOPORR_DAEMON_PEER_LISTENER_H_
#define TOPORR_DAEMON_PEER_LISTENER_H_

#include <sys/types.h>

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"

namespace toporr::daemon {

struct PeerCredentials {
  pid_t pid = 0;
  uid_t uid = 0;
  gid_t gid = 0;
};

// True when `peer` may call admin RPCs: uid 0, `self_uid`, primary or supplementary member
// of `admin_gid` (pass (gid_t)-1 for "no admin group").
bool IsAdminPeer(const PeerCredentials& peer, uid_t self_uid, gid_t admin_gid);

// Resolves a group name; (gid_t)-1 with no error when the group does not exist.
gid_t LookupGroup(const std::string& name);

class PeerListener {
 public:
  // Called on the accept thread with a connected fd; takes ownership of the fd.
  using Handoff = std::function<void(int fd, const PeerCredentials& peer)>;

  // Binds `path` (removing a stale socket file first, refusing to remove anything that is
  // not a socket), mode 0666, and starts the accept thread.
  static absl::StatusOr<std::unique_ptr<PeerListener>> Start(const std::string& path,
                                                             Handoff handoff);
  ~PeerListener();  // Stops accepting, closes and unlinks the socket.

 private:
  PeerListener(std::string path, int listen_fd, int wake_fd, Handoff handoff);
  void Loop();

  std::string path_;
  int listen_fd_;
  int wake_fd_;  // eventfd to interrupt poll()
  Handoff handoff_;
  std::thread thread_;
};

}  // namespace toporr::daemon

#endif  // TOPORR_DAEMON_PEER_LISTENER_H_

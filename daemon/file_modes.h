// The modes of the daemon's files, and the refusal to follow symbolic links where an
// attacker with write access to a directory could redirect the daemon (running as root):
//   - database: mode 0640 (and its -wal/-shm files), owner root, in /var/lib/toporr (0750);
//   - Unix socket: mode 0666 (read RPCs are for every local user), group admin_group (admin
//     RPCs are decided per connection with SO_PEERCRED, the group documents who they are).
// A symlinked database or socket path is refused (kFailedPrecondition naming the path).
#ifndef TOPORR_DAEMON_FILE_MODES_H_
#define TOPORR_DAEMON_FILE_MODES_H_

#include <sys/types.h>

#include <string>

#include "absl/status/status.h"

namespace toporr::daemon {

inline constexpr mode_t kDatabaseMode = 0640;
inline constexpr mode_t kSocketMode = 0666;

// kFailedPrecondition when `path` exists and is a symbolic link (`what` names it: "database").
absl::Status RefuseSymlink(const std::string& path, const std::string& what);

// Sets the database file (and its -wal / -shm files when present) to kDatabaseMode, without
// following symbolic links.
absl::Status SecureDatabaseFiles(const std::string& db_path);

// Gives the socket kSocketMode and group `gid` ((gid_t)-1: leave the group).
absl::Status SecureSocket(const std::string& socket_path, gid_t gid);

}  // namespace toporr::daemon

#endif  // TOPORR_DAEMON_FILE_MODES_H_

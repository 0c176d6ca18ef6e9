#include "daemon/file_modes.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace toporr::daemon {

absl::Status RefuseSymlink(const std::string& path, const std::string& what) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) return absl::OkStatus();  // absent: created later
  if (S_ISLNK(st.st_mode)) {
    return absl::FailedPreconditionError(
        absl::StrCat(what, " ", path,
                     " is a symbolic link; refusing to follow it (give the "
                     "real path)"));
  }
  return absl::OkStatus();
}

absl::Status SecureDatabaseFiles(const std::string& db_path) {
  for (const char* suffix : {"", "-wal", "-shm"}) {
    const std::string path = db_path + suffix;
    int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
      if (errno == ENOENT && *suffix != '\0') continue;
      return absl::FailedPreconditionError(
          absl::StrCat("database file ", path, ": ", std::strerror(errno),
                       errno == ELOOP ? " (a symbolic link; refusing to follow it)" : ""));
    }
    const int rc = fchmod(fd, kDatabaseMode);
    const int err = errno;
    close(fd);
    if (rc != 0) {
      return absl::PermissionDeniedError(
          absl::StrCat("chmod 0640 ", path, ": ", std::strerror(err)));
    }
  }
  return absl::OkStatus();
}

absl::Status SecureSocket(const std::string& socket_path, gid_t gid) {
  if (fchmodat(AT_FDCWD, socket_path.c_str(), kSocketMode, 0) != 0) {
    return absl::PermissionDeniedError(
        absl::StrCat("chmod ", socket_path, ": ", std::strerror(errno)));
  }
  if (gid != static_cast<gid_t>(-1) &&
      fchownat(AT_FDCWD, socket_path.c_str(), static_cast<uid_t>(-1), gid, AT_SYMLINK_NOFOLLOW) !=
          0 &&
      errno != EPERM) {
    return absl::PermissionDeniedError(
        absl::StrCat("chgrp ", socket_path, ": ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

}  // namespace toporr::daemon

#include "common/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"

namespace toporr {
namespace {

absl::Status IoError(const std::string& what, const std::string& path, int err) {
  return absl::UnavailableError(absl::StrCat(what, " ", path, ": ", std::strerror(err)));
}

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// The kernel's protected_symlinks rule: a link in a sticky world-writable directory is
// followed only when the caller or the directory's owner owns it.
bool LinkMayBeFollowed(const std::string& path, const struct stat& link) {
  struct stat dir;
  if (::stat(DirectoryOf(path).c_str(), &dir) != 0) return false;
  const bool shared = (dir.st_mode & S_ISVTX) != 0 && (dir.st_mode & S_IWOTH) != 0;
  return !shared || link.st_uid == ::geteuid() || link.st_uid == dir.st_uid;
}

absl::Status WriteAll(int fd, std::string_view data, const std::string& path) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return IoError("cannot write to", path, errno);
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return absl::OkStatus();
}

}  // namespace

ReplacingFile::~ReplacingFile() { Abandon(); }

absl::Status ReplacingFile::Open(const std::string& path) {
  Abandon();
  path_ = path;
  status_ = absl::OkStatus();
  const size_t slash = path.rfind('/');
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (name.empty() || name == "." || name == "..") {
    return status_ = absl::InvalidArgumentError(absl::StrCat(path, ": not a file name"));
  }
  std::string pattern = path + ".tmp.XXXXXX";
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  fd_ = ::mkostemp(buf.data(), O_CLOEXEC);  // O_CREAT | O_EXCL: a new file, never a link
  if (fd_ < 0) return status_ = IoError("cannot create a temporary file for", path, errno);
  tmp_ = buf.data();
  if (::fchmod(fd_, 0644) != 0) {
    const int err = errno;
    Abandon();
    return status_ = IoError("cannot set the mode of", tmp_, err);
  }
  return absl::OkStatus();
}

absl::Status ReplacingFile::Write(std::string_view data) {
  if (!status_.ok()) return status_;
  if (fd_ < 0) return status_ = absl::FailedPreconditionError("output file not open");
  status_ = WriteAll(fd_, data, tmp_);
  return status_;
}

absl::Status ReplacingFile::Commit() {
  if (fd_ < 0 && status_.ok()) status_ = absl::FailedPreconditionError("output file not open");
  if (status_.ok() && ::fsync(fd_) != 0 && errno != EINVAL) {
    status_ = IoError("cannot flush", tmp_, errno);
  }
  if (fd_ >= 0 && ::close(fd_) != 0 && status_.ok()) status_ = IoError("cannot close", tmp_, errno);
  fd_ = -1;
  if (status_.ok() && std::rename(tmp_.c_str(), path_.c_str()) != 0) {
    status_ = IoError(absl::StrCat("cannot rename ", tmp_, " to"), path_, errno);
  }
  if (status_.ok()) {
    tmp_.clear();
  } else {
    Abandon();
  }
  return status_;
}

void ReplacingFile::Abandon() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!tmp_.empty()) ::unlink(tmp_.c_str());
  tmp_.clear();
}

absl::Status WriteFileReplacing(const std::string& path, std::string_view content) {
  ReplacingFile f;
  absl::Status s = f.Open(path);
  if (s.ok()) s = f.Write(content);
  if (s.ok()) s = f.Commit();
  return s;
}

absl::Status AppendToFile(const std::string& path, std::string_view data) {
  constexpr int kFlags = O_WRONLY | O_APPEND | O_CLOEXEC | O_NONBLOCK;
  int fd = -1;
  // Bounded: each retry means the name appeared or vanished between two system calls.
  for (int attempt = 0; attempt < 3 && fd < 0; ++attempt) {
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0) {
      if (errno != ENOENT) return IoError("cannot open", path, errno);
      fd = ::open(path.c_str(), kFlags | O_CREAT | O_EXCL | O_NOFOLLOW, 0644);
      if (fd < 0 && errno == EEXIST) continue;
      if (fd < 0) return IoError("cannot create", path, errno);
      break;
    }
    int flags = kFlags | O_NOFOLLOW;
    if (S_ISLNK(st.st_mode)) {
      if (!LinkMayBeFollowed(path, st)) {
        return absl::FailedPreconditionError(
            absl::StrCat(path, " is a symbolic link of another user (uid ", st.st_uid,
                         ") in a shared sticky directory: not followed"));
      }
      flags = kFlags;
    }
    fd = ::open(path.c_str(), flags);
    if (fd < 0 && errno == ENOENT) continue;
    if (fd < 0 && errno == ELOOP) {
      return absl::FailedPreconditionError(
          absl::StrCat(path, " became a symbolic link while it was opened: not followed"));
    }
    if (fd < 0 && errno == ENXIO) {
      return absl::FailedPreconditionError(absl::StrCat(path, " is not a regular file"));
    }
    if (fd < 0) return IoError("cannot open", path, errno);
  }
  if (fd < 0)
    return absl::UnavailableError(absl::StrCat("cannot open ", path, ": it keeps changing"));
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return absl::FailedPreconditionError(absl::StrCat(path, " is not a regular file"));
  }
  const ssize_t n = ::write(fd, data.data(), data.size());
  const int err = errno;
  ::close(fd);
  if (n < 0) return IoError("cannot append to", path, err);
  if (static_cast<size_t>(n) != data.size()) {
    return absl::UnavailableError(absl::StrCat("cannot append to ", path, ": short write"));
  }
  return absl::OkStatus();
}

}  // namespace toporr

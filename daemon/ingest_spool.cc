#include "daemon/ingest_spool.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"

namespace toporr::daemon {

absl::StatusOr<std::unique_ptr<IngestSpool>> IngestSpool::Create(const std::string& dir) {
  int fd = open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
    std::string name = dir + "/.toporrd-ingest.XXXXXX";
    fd = mkostemp(name.data(), O_CLOEXEC);
    if (fd >= 0) unlink(name.c_str());
  }
  if (fd < 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot create the ingest spool file in ", dir, ": ", std::strerror(errno)));
  }
  return std::unique_ptr<IngestSpool>(new IngestSpool(fd, dir));
}

IngestSpool::~IngestSpool() { close(fd_); }

absl::Status IngestSpool::Append(std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = write(fd_, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      const std::string what = absl::StrCat("cannot write the ingest spool file in ", dir_,
                                            " after ", size_, " bytes: ", std::strerror(err));
      // Out of space: retrying the same upload fails the same way until an admin frees some.
      if (err == ENOSPC || err == EDQUOT || err == EFBIG) {
        return absl::ResourceExhaustedError(absl::StrCat(
            what, " (the ingest needs as much free space beside the database as the file)"));
      }
      return absl::UnavailableError(what);
    }
    data.remove_prefix(n);
    size_ += n;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> IngestSpool::ReadAll() const {
  std::string out(static_cast<size_t>(size_), '\0');
  int64_t done = 0;
  while (done < size_) {
    const ssize_t n = pread(fd_, out.data() + done, size_ - done, done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      return absl::UnavailableError(absl::StrCat("cannot read back the ingest spool file in ", dir_,
                                                 ": ",
                                                 n == 0 ? "short file" : std::strerror(errno)));
    }
    done += n;
  }
  return out;
}

}  // namespace toporr::daemon

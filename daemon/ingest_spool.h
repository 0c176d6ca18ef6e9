// Where a streamed ingest (Admin.IngestStream) keeps its content while it arrives: an
// unlinked file in a directory (toporrd: the database's), so that a slow or large upload
// holds disk, not memory, and nothing is left behind if the daemon dies. Not thread-safe;
// one per ingest.
#ifndef TOPORR_DAEMON_INGEST_SPOOL_H_
#define TOPORR_DAEMON_INGEST_SPOOL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace toporr::daemon {

class IngestSpool {
 public:
  // An empty spool file in `dir` (O_TMPFILE: never visible; where the file system cannot,
  // a named file unlinked at once). kUnavailable naming `dir` when it cannot be created.
  static absl::StatusOr<std::unique_ptr<IngestSpool>> Create(const std::string& dir);
  ~IngestSpool();
  IngestSpool(const IngestSpool&) = delete;
  IngestSpool& operator=(const IngestSpool&) = delete;

  // kResourceExhausted naming the directory when its file system is full (or the file
  // exceeds a quota or size limit); kUnavailable for other write errors.
  absl::Status Append(std::string_view data);
  int64_t size() const { return size_; }

  // The whole content in one string of exactly size() bytes (one allocation: the memory the
  // parse needs anyway).
  absl::StatusOr<std::string> ReadAll() const;

 private:
  IngestSpool(int fd, std::string dir) : fd_(fd), dir_(std::move(dir)) {}

  int fd_;
  std::string dir_;
  int64_t size_ = 0;
};

}  // namespace toporr::daemon

#endif  // TOPORR_DAEMON_INGEST_SPOOL_H_

#include "client/mpi/profile_file.h"

#include <utility>

#include "absl/status/status.h"
#include "client/profile/traffic_profile.h"

namespace toporr::client::mpi {

ProfileFile::ProfileFile(std::string path) : path_(std::move(path)) {}

bool ProfileFile::Open(int ranks) {
  const absl::Status s = file_.Open(path_);
  if (!s.ok()) {
    error_ = std::string(s.message());
    return false;
  }
  Write(TrafficProfileHeader(ranks));
  return true;
}

void ProfileFile::AddRow(absl::Span<const uint64_t> row, int rank, int ranks) {
  if (!error_.empty()) return;
  lines_.clear();
  const absl::Status s = AppendRankLines(row, rank, ranks, &next_communicator_, &lines_);
  if (!s.ok()) {
    error_ = std::string(s.message());
    return;
  }
  Write(lines_);
}

std::string ProfileFile::Close() {
  Write(kTrafficProfileEnd);
  if (error_.empty()) {
    const absl::Status s = file_.Commit();
    if (!s.ok()) error_ = std::string(s.message());
  }
  file_.Abandon();
  return error_;
}

void ProfileFile::Write(std::string_view s) {
  if (!error_.empty()) return;
  const absl::Status written = file_.Write(s);
  if (!written.ok()) error_ = std::string(written.message());
}

}  // namespace toporr::client::mpi

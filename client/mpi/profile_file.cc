#include "client/mpi/profile_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/status/status.h"
#include "client/traffic_profile.h"

namespace toporr::client::mpi {

ProfileFile::ProfileFile(std::string path) : path_(std::move(path)), tmp_(path_ + ".tmp") {}

ProfileFile::~ProfileFile() {
  if (f_ != nullptr) std::fclose(f_);
}

bool ProfileFile::Open(int ranks) {
  f_ = std::fopen(tmp_.c_str(), "w");
  if (f_ == nullptr) {
    error_ = std::strerror(errno);
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
  if (std::fclose(f_) != 0 && error_.empty()) error_ = std::strerror(errno);
  f_ = nullptr;
  if (error_.empty() && std::rename(tmp_.c_str(), path_.c_str()) != 0) {
    error_ = std::string("renaming ") + tmp_ + ": " + std::strerror(errno);
  }
  if (!error_.empty()) unlink(tmp_.c_str());
  return error_;
}

void ProfileFile::Write(std::string_view s) {
  if (error_.empty() && std::fwrite(s.data(), 1, s.size(), f_) != s.size()) {
    error_ = std::strerror(errno);
  }
}

}  // namespace toporr::client::mpi

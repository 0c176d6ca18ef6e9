// Rank 0's traffic profile file (client/profile/traffic_profile.h): a new temporary file of its own
// beside FILE (common/output_file.h ReplacingFile: created exclusively, never a planted link
// or FIFO) written row by row as the processes' counts arrive, renamed to FILE when complete,
// so that FILE appears only whole, and two jobs writing one FILE each leave a whole file (the
// last wins). The first failure is kept and everything after it is skipped.
#ifndef TOPORR_CLIENT_MPI_PROFILE_FILE_H_
#define TOPORR_CLIENT_MPI_PROFILE_FILE_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/types/span.h"
#include "common/output_file.h"

namespace toporr::client::mpi {

class ProfileFile {
 public:
  explicit ProfileFile(std::string path);
  ProfileFile(const ProfileFile&) = delete;
  ProfileFile& operator=(const ProfileFile&) = delete;

  // Creates the temporary file and writes the header of a job of `ranks`; false (error() says why)
  // when it cannot be created.
  bool Open(int ranks);
  // World rank `rank`'s encoded row (RankTraffic::Encode), as its lines.
  void AddRow(absl::Span<const uint64_t> row, int rank, int ranks);
  // "" once FILE is in place, else why not (the temporary file removed).
  std::string Close();
  const std::string& error() const { return error_; }

 private:
  void Write(std::string_view s);

  const std::string path_;
  ReplacingFile file_;
  std::string error_;
  std::string lines_;
  int next_communicator_ = 0;
};

}  // namespace toporr::client::mpi

#endif  // TOPORR_CLIENT_MPI_PROFILE_FILE_H_

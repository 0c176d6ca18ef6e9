#include "client/mpi/collective_status.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace toporr::client::mpi {

std::string MpiError(const char* call, int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (PMPI_Error_string(code, text, &len) != MPI_SUCCESS) len = 0;
  return absl::StrCat(call, " failed: ", std::string(text, len));
}

absl::Status MpiStatus(const char* call, int code) {
  return code == MPI_SUCCESS ? absl::OkStatus() : absl::InternalError(MpiError(call, code));
}

void CopyReason(const std::string& s, char* out) {
  const size_t n = std::min(s.size(), static_cast<size_t>(kReasonBytes - 1));
  std::memcpy(out, s.data(), n);
  out[n] = '\0';
}

int SameOnEveryRank(MPI_Comm comm, uint64_t value, bool* same) {
  uint64_t mine[2] = {value, ~value}, max[2] = {0, 0};
  const int rc = PMPI_Allreduce(mine, max, 2, MPI_UINT64_T, MPI_MAX, comm);
  *same = rc == MPI_SUCCESS && max[0] == ~max[1];
  return rc;
}

absl::Status Agree(MPI_Comm work, const absl::Status& mine) {
  int rank = 0, size = 1;
  PMPI_Comm_rank(work, &rank);
  PMPI_Comm_size(work, &size);
  int first = mine.ok() ? size : rank;
  int agreed = size;
  if (int rc = PMPI_Allreduce(&first, &agreed, 1, MPI_INT, MPI_MIN, work); rc != MPI_SUCCESS) {
    return absl::InternalError(MpiError("MPI_Allreduce", rc));
  }
  if (agreed == size) return absl::OkStatus();
  // The failing rank's code travels in the message's first byte.
  char msg[kReasonBytes + 1] = {0};
  if (rank == agreed) {
    msg[0] = static_cast<char>(mine.code());
    CopyReason(std::string(mine.message()), msg + 1);
  }
  if (int rc = PMPI_Bcast(msg, kReasonBytes + 1, MPI_CHAR, agreed, work); rc != MPI_SUCCESS) {
    return absl::InternalError(MpiError("MPI_Bcast", rc));
  }
  const char* reason = msg + 1;
  msg[kReasonBytes] = '\0';
  const auto code = static_cast<absl::StatusCode>(static_cast<unsigned char>(msg[0]));
  return absl::Status(code == absl::StatusCode::kOk ? absl::StatusCode::kUnknown : code,
                      agreed == 0 || std::strstr(reason, "rank ") == reason
                          ? std::string(reason)
                          : absl::StrCat("rank ", agreed, ": ", reason));
}

}  // namespace toporr::client::mpi

// Collective agreement on errors, for libtoporr's protocol: every step that can fail on
// some ranks ends with Agree(), so all ranks take the same branch (go on, or fall back with
// the same reason). All on communicators that return errors (MPI_ERRORS_RETURN).
#ifndef TOPORR_CLIENT_MPI_COLLECTIVE_STATUS_H_
#define TOPORR_CLIENT_MPI_COLLECTIVE_STATUS_H_

#include <mpi.h>

#include <cstdint>
#include <string>

#include "absl/status/status.h"

namespace toporr::client::mpi {

// Longest reason carried between ranks (longer ones are cut).
constexpr int kReasonBytes = 512;

// "<call> failed: <MPI's error string>".
std::string MpiError(const char* call, int code);

// OK for MPI_SUCCESS, else kInternal MpiError(call, code).
absl::Status MpiStatus(const char* call, int code);

// Copies `s` into a kReasonBytes buffer, cut and NUL-terminated.
void CopyReason(const std::string& s, char* out);

// Collective on `comm`: *same = every rank passed the same `value` (one 16-byte allreduce of
// the MPI library's own, PMPI_Allreduce: the value and its complement under MPI_MAX). Returns
// MPI_SUCCESS or the allreduce's error (then *same is false).
int SameOnEveryRank(MPI_Comm comm, uint64_t value, bool* same);

// Every rank passes its own status; all get the first failing rank's (lowest rank) status,
// its code and "rank R: <message>" (rank 0's without the prefix), or OK when none failed.
// Collective on `work`.
absl::Status Agree(MPI_Comm work, const absl::Status& mine);

}  // namespace toporr::client::mpi

#endif  // TOPORR_CLIENT_MPI_COLLECTIVE_STATUS_H_

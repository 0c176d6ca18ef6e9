// job_report.h's summary and causes, apart from the transport (job_report.cc), so that a
// build without gRPC (the SMPI build of the benchmarks) has them.
#include <string>

#include "absl/strings/match.h"
#include "client/costs/job_report.h"

namespace toporr::client {

void JobSummary::AddGain(double predicted, double measured) {
  if (gains.size() < static_cast<size_t>(kJobReportMaxEntries))
    gains.emplace_back(predicted, measured);
}

bool JobSummary::empty() const {
  return decisions.empty() && fallbacks.empty() && verified_toporr == 0 && verified_library == 0;
}

std::string JobFallbackCause(const absl::Status& why) {
  const std::string m(why.message());
  if (absl::IsCancelled(why)) return "disabled";
  if (absl::StrContains(m, "TLS") || absl::StrContains(m, "certificate")) return "tls";
  if (absl::IsDeadlineExceeded(why)) return "timeout";
  if (absl::StrContains(m, "came from snapshot") || absl::StrContains(m, "snapshot mismatch") ||
      absl::StrContains(m, "came from another toporrd")) {
    return "snapshot_mismatch";
  }
  if (absl::IsNotFound(why) && absl::StrContains(m, "not in snapshot")) return "unknown_host";
  if (absl::StrContains(m, "disagree")) return "disagreement";
  if (absl::IsUnavailable(why) && !absl::StartsWith(m, "hwloc")) return "no_daemon";
  if (absl::StrContains(m, "MPI_")) return "mpi_error";
  return "other";
}

}  // namespace toporr::client

// A finished job's summary of libtoporr's decisions, sent to toporrd once (Topology.ReportJob)
// so that the daemon's metrics show what the library did on the cluster (toporr_job_*,
// daemon/job_metrics.h). Sending never holds a job up for long: one call, at most
// kJobReportDeadlineMs (or deadline_ms when shorter) over every configured daemon together,
// no retry; its failure is returned, never printed. Thread-compatible (JobSummary) and
// stateless (the functions).
#ifndef TOPORR_CLIENT_COSTS_JOB_REPORT_H_
#define TOPORR_CLIENT_COSTS_JOB_REPORT_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "client/config/client_options.h"

namespace toporr::client {

inline constexpr int kJobReportDeadlineMs = 500;
// Entries per repeated field of the request; the daemon refuses more (JobMetrics::kMaxEntries).
inline constexpr int kJobReportMaxEntries = 64;

struct JobSummary {
  // Decisions by (collective, source): "allreduce", "daemon".
  std::map<std::pair<std::string, std::string>, int64_t> decisions;
  // Identity-order fallbacks by cause (JobFallbackCause).
  std::map<std::string, int64_t> fallbacks;
  int64_t verified_toporr = 0, verified_library = 0;
  // (predicted, measured) gains, the library order's time / toporr's; 0: not known. At most
  // kJobReportMaxEntries are kept (AddGain).
  std::vector<std::pair<double, double>> gains;

  void AddGain(double predicted, double measured);
  bool empty() const;
};

// The label of a fallback's cause: "no_daemon" (no daemon answered), "timeout", "tls",
// "unknown_host", "snapshot_mismatch" (leaders' rows from different snapshots, or from
// different daemons of a standby list),
// "disagreement" (ranks' outcomes or arguments differ), "mpi_error", "disabled"
// (TOPORR_DISABLE: kCancelled), else "other".
std::string JobFallbackCause(const absl::Status& why);

// Sends `summary` to the daemon `options` names. kUnavailable / kDeadlineExceeded when no
// daemon answered in time; the daemon's refusal (kResourceExhausted past its per-caller rate,
// kInvalidArgument) as is. Waits at most min(options.deadline_ms, kJobReportDeadlineMs).
absl::Status SendJobReport(const ClientOptions& options, const JobSummary& summary);

}  // namespace toporr::client

#endif  // TOPORR_CLIENT_COSTS_JOB_REPORT_H_

// What libtoporr tells about its decisions, and where (rank 0 of the communicator a decision
// is about, unless said otherwise):
//   - TOPORR_REPORT: one JSON line per decision and per completed run-time check
//     (decision_report.h). The first failure to append is reported once on stderr and the
//     report is not written again: the job never waits for or fails on it.
//   - warnings on stderr: one line per cause per job, from the process of MPI_COMM_WORLD
//     rank 0 when it is in the communicator (with verbose, also from each communicator's
//     rank 0). A cause is printed once per process, across every DecisionLog in it (a job may
//     hold more than one Library: Open MPI's coll and topo components each have theirs), and
//     "rank R: <cause>" counts as <cause> whichever rank met it.
//   - the configuration's warnings (ClientOptions' parse), once per job, at the first
//     decision of MPI_COMM_WORLD rank 0's process.
//   - with verbose (TOPORR_VERBOSE): one stderr line per decision and per completed check.
//   - the daemon's job metrics (job_metrics, client/costs/job_report.h): the process of
//     MPI_COMM_WORLD rank 0 tallies the new decisions (not those reused from the cache),
//     fallback causes, check verdicts and gains of every communicator it belongs to, across
//     every DecisionLog in it, and sends the tally once when MPI_Finalize deletes
//     MPI_COMM_SELF's attributes (at most kJobReportDeadlineMs; a failure is silent).
// Thread-safe.
#ifndef TOPORR_CLIENT_MPI_DECISION_LOG_H_
#define TOPORR_CLIENT_MPI_DECISION_LOG_H_

#include <mpi.h>

#include <mutex>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "client/config/client_options.h"
#include "client/report/decision_report.h"
#include "client/report/verification.h"

namespace toporr::client::mpi {

class DecisionLog {
 public:
  // Reads options.verbose and options.report_path; `option_warnings` are the configuration's.
  DecisionLog(const ClientOptions& options, std::vector<std::string> option_warnings);

  // The warning that `reason` keeps the identity order; `rank` is the caller's rank in the
  // communicator the warning is about.
  void Warn(int rank, const std::string& reason);

  // Marks `d` as the identity-order fallback for `why` (no predictions, no candidates) and
  // warns, unless toporr was disabled (kCancelled: silent).
  void Fallback(int rank, const absl::Status& why, Decision* d);

  // `d` is final on every rank of `comm`: its report line and verbose line on rank 0.
  void Decided(MPI_Comm comm, const Decision& d);

  // A run-time check of decision `d` completed: its report line and verbose line on rank 0.
  void Checked(MPI_Comm comm, const Decision& d, const Verification& v,
               bool library_leaf_sorted = false);

 private:
  void WriteReport(const std::string& line);

  const ClientOptions options_;  // where the job's summary goes (job_metrics)
  const int verbose_;
  const std::string report_path_;
  std::mutex mu_;
  std::vector<std::string> option_warnings_ ABSL_GUARDED_BY(mu_);
  bool report_failed_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace toporr::client::mpi

#endif  // TOPORR_CLIENT_MPI_DECISION_LOG_H_

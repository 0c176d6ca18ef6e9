#include "client/mpi/decision_log.h"

#include <cstdio>
#include <cstdlib>
#include <set>
#include <string_view>

#include "client/costs/job_report.h"

namespace toporr::client::mpi {
namespace {

// Whether this process prints `warning` now: once per process, across every DecisionLog in
// it.
bool FirstInProcess(const std::string& warning) {
  static std::mutex mu;
  static std::set<std::string>* printed = new std::set<std::string>;
  std::lock_guard<std::mutex> lock(mu);
  return printed->insert(warning).second;
}

bool IsWorldRankZero() {
  int world_rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  return world_rank == 0;
}

// The job's summary in MPI_COMM_WORLD rank 0's process: one per process, whichever
// DecisionLog tallies, sent by the first one's options.
struct JobTally {
  std::mutex mu;
  JobSummary summary ABSL_GUARDED_BY(mu);
  ClientOptions options ABSL_GUARDED_BY(mu);
  bool armed ABSL_GUARDED_BY(mu) = false;
};

JobTally& Tally() {
  static JobTally* tally = new JobTally;
  return *tally;
}

// MPI_COMM_SELF's attribute deleter, run by MPI_Finalize: sends the summary once.
int SendTally(MPI_Comm, int, void*, void*) {
  JobTally& t = Tally();
  JobSummary summary;
  ClientOptions options;
  {
    std::lock_guard<std::mutex> lock(t.mu);
    summary = std::move(t.summary);
    t.summary = JobSummary();
    options = t.options;
  }
  if (!summary.empty()) SendJobReport(options, summary).IgnoreError();
  return MPI_SUCCESS;
}

// Runs `count` on the tally of MPI_COMM_WORLD rank 0's process (nothing elsewhere, nothing
// when `options` switch job metrics off); the first call arranges the sending at finalize.
template <typename Count>
void Tallied(const ClientOptions& options, Count count) {
  if (!options.job_metrics || !IsWorldRankZero()) return;
  JobTally& t = Tally();
  std::lock_guard<std::mutex> lock(t.mu);
  if (!t.armed) {
    t.armed = true;
    t.options = options;
    int keyval = MPI_KEYVAL_INVALID;
    if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, SendTally, &keyval, nullptr) ==
        MPI_SUCCESS) {
      PMPI_Comm_set_attr(MPI_COMM_SELF, keyval, nullptr);
    }
  }
  count(t.summary);
}

}  // namespace

DecisionLog::DecisionLog(const ClientOptions& options, std::vector<std::string> option_warnings)
    : options_(options),
      verbose_(options.verbose),
      report_path_(ReportPathForJob(options.report_path, std::getenv("SLURM_JOB_ID"))),
      option_warnings_(std::move(option_warnings)) {}

void DecisionLog::Warn(int rank, const std::string& reason) {
  if (!IsWorldRankZero() && !(rank == 0 && verbose_ > 0)) return;
  // One cause, whichever rank of whichever communicator met it ("rank 5: <cause>").
  std::string_view cause = reason;
  if (cause.substr(0, 5) == "rank ") {
    const size_t colon = cause.find(": ");
    if (colon != std::string_view::npos && cause.find_first_not_of("0123456789", 5) == colon) {
      cause.remove_prefix(colon + 2);
    }
  }
  if (!FirstInProcess("fallback: " + std::string(cause))) return;
  std::fprintf(stderr, "toporr: warning: keeping the identity rank order: %s\n", reason.c_str());
  std::fflush(stderr);
}

void DecisionLog::Fallback(int rank, const absl::Status& why, Decision* d) {
  d->source = "fallback";
  d->fallback_reason = std::string(why.message());
  d->predicted_before_ns = d->predicted_after_ns = -1;
  d->cost_form.clear();
  d->contention.clear();
  d->candidates.clear();
  d->leaf_sorted.reset();
  Tallied(options_, [&](JobSummary& s) { ++s.fallbacks[JobFallbackCause(why)]; });
  if (!absl::IsCancelled(why)) Warn(rank, d->fallback_reason);  // TOPORR_DISABLE: silent
}

void DecisionLog::Decided(MPI_Comm comm, const Decision& d) {
  if (IsWorldRankZero()) {  // the configuration's warnings, once per job
    std::lock_guard<std::mutex> lock(mu_);
    for (const std::string& w : option_warnings_) {
      if (FirstInProcess("option: " + w)) std::fprintf(stderr, "toporr: warning: %s\n", w.c_str());
    }
    option_warnings_.clear();
  }
  if (!d.cached) {
    Tallied(options_, [&](JobSummary& s) {
      ++s.decisions[{d.collective, d.source}];
      if (d.predicted_before_ns > 0 && d.predicted_after_ns > 0) {
        s.AddGain(d.predicted_before_ns / d.predicted_after_ns, 0);
      }
    });
  }
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  if (rank != 0) return;
  WriteReport(DecisionJsonLine(d));
  if (verbose_ > 0) {
    std::fprintf(stderr,
                 "toporr: %s %s %lld B root %d: %d ranks on %d hosts, source %s%s, snapshot %lld, "
                 "predicted %.0f -> %.0f ns, %lld us\n",
                 d.collective.c_str(), d.chosen_algorithm.c_str(), static_cast<long long>(d.bytes),
                 d.root, d.size, d.hosts, d.source.c_str(), d.cached ? " (cached)" : "",
                 static_cast<long long>(d.snapshot_id), d.predicted_before_ns, d.predicted_after_ns,
                 static_cast<long long>(d.elapsed_us));
  }
}

void DecisionLog::Checked(MPI_Comm comm, const Decision& d, const Verification& v,
                          bool library_leaf_sorted) {
  Tallied(options_, [&](JobSummary& s) {
    if (v.verdict() == Verification::Verdict::kToporr) ++s.verified_toporr;
    if (v.verdict() == Verification::Verdict::kLibrary) ++s.verified_library;
    const double toporr_s = v.toporr_median_s(), library_s = v.library_median_s();
    if (toporr_s > 0 && library_s > 0) s.AddGain(0, library_s / toporr_s);
  });
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  if (rank != 0) return;
  WriteReport(VerificationJsonLine(d, v, library_leaf_sorted));
  if (verbose_ > 0) {
    std::fprintf(stderr,
                 "toporr: verified %s %s %lld B: toporr %.0f us, MPI library%s %.0f us (medians "
                 "of %zu): %s stays\n",
                 d.collective.c_str(), d.chosen_algorithm.c_str(), static_cast<long long>(d.bytes),
                 v.toporr_median_s() * 1e6, library_leaf_sorted ? " (leaf-sorted order)" : "",
                 v.library_median_s() * 1e6, v.library_s().size(),
                 Verification::VerdictName(v.verdict()));
  }
}

void DecisionLog::WriteReport(const std::string& line) {
  if (report_path_.empty()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (report_failed_) return;
  }
  absl::Status s = AppendReportLine(report_path_, line);
  if (s.ok()) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (report_failed_) return;
  report_failed_ = true;
  std::fprintf(stderr, "toporr: warning: TOPORR_REPORT not written (the job goes on): %s\n",
               std::string(s.message()).c_str());
  std::fflush(stderr);
}

}  // namespace toporr::client::mpi

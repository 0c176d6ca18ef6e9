// Finished jobs' summaries of libtoporr's decisions (Topology.ReportJob), aggregated into
// counters for the daemon's Prometheus metrics. Every label set is fixed: a collective,
// source or fallback cause outside the known names counts as "other", so a client cannot
// grow the metrics. Each caller (PeerBook::Identity: a uid, a certificate, a TCP host) may
// report at most `burst` summaries at once and `per_minute` on average (a token bucket);
// past it, RESOURCE_EXHAUSTED. Thread-safe.
//
// Families (AppendPrometheusText):
//   toporr_job_reports_total                    counter: summaries accepted
//   toporr_job_reports_refused_total{reason}    counter: reason rate_limit or invalid
//   toporr_job_decisions_total{collective,source} counter (pairs seen so far only)
//   toporr_job_fallbacks_total{cause}           counter (every cause, 0 included)
//   toporr_job_verified_total{verdict}          counter (verdict toporr or library)
//   toporr_job_gain_ratio{kind}                 histogram: kind predicted or measured; the
//                                               MPI library order's time / toporr's
#ifndef TOPORR_DAEMON_JOB_METRICS_H_
#define TOPORR_DAEMON_JOB_METRICS_H_

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "toporr/v1/toporr.pb.h"

namespace toporr::daemon {

class JobMetrics {
 public:
  struct Options {
    int burst = 20;          // summaries a caller may send at once (>= 1)
    double per_minute = 60;  // and on average (> 0)
    // Callers tracked at once; past it, idle callers are forgotten (a forgotten caller
    // starts with a full bucket), and with none idle a new caller is refused.
    int max_callers = 4096;
    std::function<absl::Time()> now = [] { return absl::Now(); };  // seam for tests
  };

  // The limits of each field of a ReportJobRequest.
  static constexpr int kMaxEntries = 64;    // per repeated field
  static constexpr int kMaxNameBytes = 64;  // collective, source, cause
  static constexpr int64_t kMaxCount = 1000000000;
  static constexpr double kMaxGain = 1000;

  JobMetrics() : JobMetrics(Options()) {}
  explicit JobMetrics(Options options) : options_(std::move(options)) {}

  // kInvalidArgument naming the first field out of bounds (nothing counted);
  // kResourceExhausted when `caller` is past its rate (nothing counted); else counts `job`.
  absl::Status Record(const std::string& caller, const v1::ReportJobRequest& job);

  // The families above, each with HELP and TYPE lines.
  void AppendPrometheusText(std::string* out) const;

  // The label a name maps to ("other" when unknown).
  static std::string CollectiveLabel(const std::string& name);
  static std::string SourceLabel(const std::string& name);
  static std::string CauseLabel(const std::string& name);

  static constexpr std::array<double, 9> kGainBuckets = {0.5, 0.8, 0.95, 1.0, 1.05,
                                                         1.2, 1.5, 2.0,  4.0};

 private:
  struct Gain {
    std::array<int64_t, kGainBuckets.size() + 1> counts{};  // last: +Inf
    double sum = 0;
    int64_t count = 0;
    void Add(double v);
  };
  struct Bucket {
    double tokens = 0;
    absl::Time at;
  };

  // Takes one token of `caller`'s bucket, or kResourceExhausted.
  absl::Status Admit(const std::string& caller) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const Options options_;
  mutable std::mutex mu_;
  std::map<std::string, Bucket> callers_ ABSL_GUARDED_BY(mu_);
  int64_t reports_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t refused_rate_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t refused_invalid_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<std::pair<std::string, std::string>, int64_t> decisions_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, int64_t> fallbacks_ ABSL_GUARDED_BY(mu_);
  int64_t verified_toporr_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t verified_library_ ABSL_GUARDED_BY(mu_) = 0;
  Gain predicted_ ABSL_GUARDED_BY(mu_);
  Gain measured_ ABSL_GUARDED_BY(mu_);
};

}  // namespace toporr::daemon

#endif  // TOPORR_DAEMON_JOB_METRICS_H_

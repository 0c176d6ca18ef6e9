#include "daemon/job_metrics.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace toporr::daemon {
namespace {

constexpr const char* kCollectives[] = {
    "allreduce", "bcast",   "reduce", "allgather", "alltoall", "reduce_scatter", "gather",
    "scatter",   "barrier", "scan",   "graph",     "cart",     "dist_graph"};
constexpr const char* kSources[] = {"daemon", "file", "local", "fallback"};
constexpr const char* kCauses[] = {"no_daemon", "timeout",   "unknown_host", "snapshot_mismatch",
                                   "tls",       "mpi_error", "disagreement", "disabled"};

template <size_t N>
std::string LabelOf(const char* const (&known)[N], const std::string& name) {
  for (const char* k : known) {
    if (name == k) return name;
  }
  return "other";
}

absl::Status CheckName(const std::string& field, const std::string& value) {
  if (value.size() > static_cast<size_t>(JobMetrics::kMaxNameBytes)) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, " is ", value.size(), " bytes long (at most ", JobMetrics::kMaxNameBytes, ")"));
  }
  return absl::OkStatus();
}

absl::Status CheckCount(const std::string& field, int64_t value) {
  if (value < 0 || value > JobMetrics::kMaxCount) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, " is ", value, " (0 to ", JobMetrics::kMaxCount, ")"));
  }
  return absl::OkStatus();
}

absl::Status CheckEntries(const char* field, int size) {
  if (size > JobMetrics::kMaxEntries) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, " has ", size, " entries (at most ", JobMetrics::kMaxEntries, ")"));
  }
  return absl::OkStatus();
}

// A gain is 0 (absent) or in (0, kMaxGain].
absl::Status CheckGain(const std::string& field, double value) {
  if (!std::isfinite(value) || value < 0 || value > JobMetrics::kMaxGain) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s is %g (0: none, else up to %g)", field, value, JobMetrics::kMaxGain));
  }
  return absl::OkStatus();
}

absl::Status Validate(const v1::ReportJobRequest& job) {
  if (absl::Status s = CheckEntries("decisions", job.decisions_size()); !s.ok()) return s;
  if (absl::Status s = CheckEntries("fallbacks", job.fallbacks_size()); !s.ok()) return s;
  if (absl::Status s = CheckEntries("gains", job.gains_size()); !s.ok()) return s;
  for (int i = 0; i < job.decisions_size(); ++i) {
    const auto& d = job.decisions(i);
    const std::string at = absl::StrCat("decisions[", i, "].");
    for (absl::Status s :
         {CheckName(at + "collective", d.collective()), CheckName(at + "source", d.source()),
          CheckCount(at + "count", d.count())}) {
      if (!s.ok()) return s;
    }
  }
  for (int i = 0; i < job.fallbacks_size(); ++i) {
    const auto& f = job.fallbacks(i);
    const std::string at = absl::StrCat("fallbacks[", i, "].");
    for (absl::Status s :
         {CheckName(at + "cause", f.cause()), CheckCount(at + "count", f.count())}) {
      if (!s.ok()) return s;
    }
  }
  for (absl::Status s : {CheckCount("verified_toporr", job.verified_toporr()),
                         CheckCount("verified_library", job.verified_library())}) {
    if (!s.ok()) return s;
  }
  for (int i = 0; i < job.gains_size(); ++i) {
    const std::string at = absl::StrCat("gains[", i, "].");
    for (absl::Status s : {CheckGain(at + "predicted", job.gains(i).predicted()),
                           CheckGain(at + "measured", job.gains(i).measured())}) {
      if (!s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

std::string Number(double v) { return absl::StrFormat("%.15g", v); }

void Family(std::string* out, const char* name, const char* type, const char* help) {
  absl::StrAppend(out, "# HELP ", name, " ", help, "\n# TYPE ", name, " ", type, "\n");
}

}  // namespace

std::string JobMetrics::CollectiveLabel(const std::string& name) {
  return LabelOf(kCollectives, name);
}
std::string JobMetrics::SourceLabel(const std::string& name) { return LabelOf(kSources, name); }
std::string JobMetrics::CauseLabel(const std::string& name) { return LabelOf(kCauses, name); }

void JobMetrics::Gain::Add(double v) {
  size_t i = 0;
  while (i < kGainBuckets.size() && v > kGainBuckets[i]) ++i;
  ++counts[i];
  sum += v;
  ++count;
}

absl::Status JobMetrics::Admit(const std::string& caller) {
  const absl::Time now = options_.now();
  const double burst = std::max(1, options_.burst);
  const double per_second = options_.per_minute / 60.0;
  auto refill = [&](Bucket& b) {
    b.tokens = std::min(burst, b.tokens + absl::ToDoubleSeconds(now - b.at) * per_second);
    b.at = now;
  };
  auto it = callers_.find(caller);
  if (it == callers_.end()) {
    if (callers_.size() >= static_cast<size_t>(std::max(1, options_.max_callers))) {
      for (auto j = callers_.begin(); j != callers_.end();) {
        refill(j->second);
        j = j->second.tokens >= burst ? callers_.erase(j) : std::next(j);
      }
    }
    if (callers_.size() >= static_cast<size_t>(std::max(1, options_.max_callers))) {
      return absl::ResourceExhaustedError("too many callers reporting jobs at once; try later");
    }
    it = callers_.emplace(caller, Bucket{burst, now}).first;
  }
  refill(it->second);
  if (it->second.tokens < 1) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "%s reports jobs faster than %g per minute (burst %d; toporrd.conf job_reports_per_minute, "
        "job_reports_burst); this summary is dropped",
        caller, options_.per_minute, options_.burst));
  }
  it->second.tokens -= 1;
  return absl::OkStatus();
}

absl::Status JobMetrics::Record(const std::string& caller, const v1::ReportJobRequest& job) {
  absl::Status valid = Validate(job);
  std::lock_guard<std::mutex> lock(mu_);
  if (!valid.ok()) {
    ++refused_invalid_;
    return valid;
  }
  if (absl::Status s = Admit(caller); !s.ok()) {
    ++refused_rate_;
    return s;
  }
  ++reports_;
  for (const auto& d : job.decisions()) {
    decisions_[{CollectiveLabel(d.collective()), SourceLabel(d.source())}] += d.count();
  }
  for (const auto& f : job.fallbacks()) fallbacks_[CauseLabel(f.cause())] += f.count();
  verified_toporr_ += job.verified_toporr();
  verified_library_ += job.verified_library();
  for (const auto& g : job.gains()) {
    if (g.predicted() > 0) predicted_.Add(g.predicted());
    if (g.measured() > 0) measured_.Add(g.measured());
  }
  return absl::OkStatus();
}

void JobMetrics::AppendPrometheusText(std::string* out) const {
  std::lock_guard<std::mutex> lock(mu_);
  Family(out, "toporr_job_reports_total", "counter",
         "Job summaries (ReportJob) accepted since start.");
  absl::StrAppend(out, "toporr_job_reports_total ", reports_, "\n");
  Family(out, "toporr_job_reports_refused_total", "counter",
         "Job summaries refused, by reason (rate_limit: the caller's per-caller rate; invalid: "
         "out of bounds).");
  absl::StrAppend(out, "toporr_job_reports_refused_total{reason=\"rate_limit\"} ", refused_rate_,
                  "\n", "toporr_job_reports_refused_total{reason=\"invalid\"} ", refused_invalid_,
                  "\n");
  Family(out, "toporr_job_decisions_total", "counter",
         "Rank-order decisions of finished jobs, by collective and cost source (fallback: the "
         "identity order was kept).");
  for (const auto& [key, n] : decisions_) {
    absl::StrAppend(out, "toporr_job_decisions_total{collective=\"", key.first, "\",source=\"",
                    key.second, "\"} ", n, "\n");
  }
  Family(out, "toporr_job_fallbacks_total", "counter",
         "Decisions of finished jobs that kept the identity order, by cause.");
  for (const char* cause : kCauses) {
    auto it = fallbacks_.find(cause);
    absl::StrAppend(out, "toporr_job_fallbacks_total{cause=\"", cause, "\"} ",
                    it == fallbacks_.end() ? 0 : it->second, "\n");
  }
  auto other = fallbacks_.find("other");
  absl::StrAppend(out, "toporr_job_fallbacks_total{cause=\"other\"} ",
                  other == fallbacks_.end() ? 0 : other->second, "\n");
  Family(out, "toporr_job_verified_total", "counter",
         "Completed run-time checks of finished jobs, by verdict (toporr: its order stayed; "
         "library: the MPI library's order was faster).");
  absl::StrAppend(out, "toporr_job_verified_total{verdict=\"toporr\"} ", verified_toporr_, "\n",
                  "toporr_job_verified_total{verdict=\"library\"} ", verified_library_, "\n");
  Family(out, "toporr_job_gain_ratio", "histogram",
         "Gain of toporr's order per decision: the MPI library order's time / toporr's "
         "(> 1: toporr faster), predicted by the cost model or measured by the run-time check.");
  for (const auto& [kind, g] : {std::pair<const char*, const Gain*>{"predicted", &predicted_},
                                std::pair<const char*, const Gain*>{"measured", &measured_}}) {
    int64_t cumulative = 0;
    for (size_t i = 0; i < g->counts.size(); ++i) {
      cumulative += g->counts[i];
      const std::string le = i < kGainBuckets.size() ? Number(kGainBuckets[i]) : "+Inf";
      absl::StrAppend(out, "toporr_job_gain_ratio_bucket{kind=\"", kind, "\",le=\"", le, "\"} ",
                      cumulative, "\n");
    }
    absl::StrAppend(out, "toporr_job_gain_ratio_sum{kind=\"", kind, "\"} ", Number(g->sum), "\n",
                    "toporr_job_gain_ratio_count{kind=\"", kind, "\"} ", g->count, "\n");
  }
}

}  // namespace toporr::daemon

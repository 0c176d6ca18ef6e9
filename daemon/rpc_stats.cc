#include "daemon/rpc_stats.h"

#include <algorithm>

namespace toporr::daemon {

void LatencyHistogram::Observe(double seconds) {
  const auto* bucket = std::lower_bound(kLatencyBucketsS.begin(), kLatencyBucketsS.end(), seconds);
  ++counts[bucket - kLatencyBucketsS.begin()];
  sum_s += seconds;
  ++count;
}

void RpcStats::Record(absl::string_view method, absl::StatusCode code, absl::Duration latency) {
  const double seconds = absl::ToDoubleSeconds(latency);
  std::lock_guard<std::mutex> l(mu_);
  rpcs_[{method, code}].Observe(seconds);
}

void RpcStats::RecordIngest(const std::string& format, const std::string& result,
                            absl::Duration took) {
  std::lock_guard<std::mutex> l(mu_);
  ingests_[{format, result}].Observe(absl::ToDoubleSeconds(took));
}

void RpcStats::RecordSweep(const std::string& result) {
  std::lock_guard<std::mutex> l(mu_);
  ++sweeps_[result];
}

void RpcStats::RecordPeerRefused(const std::string& reason) {
  std::lock_guard<std::mutex> l(mu_);
  ++peers_refused_[reason];
}

std::map<std::string, int64_t> RpcStats::Counts() const {
  std::map<std::string, int64_t> out;
  std::lock_guard<std::mutex> l(mu_);
  for (const auto& [key, histogram] : rpcs_) out[std::string(key.first)] += histogram.count;
  return out;
}

RpcStats::Values RpcStats::Snapshot() const {
  Values v;
  std::lock_guard<std::mutex> l(mu_);
  for (const auto& [key, histogram] : rpcs_) {
    v.rpcs[{std::string(key.first), absl::StatusCodeToString(key.second)}] = histogram;
  }
  v.ingests = ingests_;
  v.sweeps = sweeps_;
  v.peers_refused = peers_refused_;
  return v;
}

}  // namespace toporr::daemon

// The daemon's counters, read by GetStats and rendered for Prometheus (daemon/metrics_text.h):
//   - RPCs handled since start by method and status code, with a latency histogram. Counted
//     in the one place every gRPC method is wrapped (Serve, grpc_status.h), so a new method is
//     counted without further code;
//   - ingests by input format and result (created / unchanged / refused) with durations;
//   - discovery sweeps by result, peers refused by reason.
// Thread-safe.
#ifndef TOPORR_DAEMON_RPC_STATS_H_
#define TOPORR_DAEMON_RPC_STATS_H_

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <tuple>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace toporr::daemon {

// Upper bounds (seconds) of the latency histograms' buckets; +Inf is implied.
inline constexpr std::array<double, 14> kLatencyBucketsS = {
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5, 30};

struct LatencyHistogram {
  // counts[i]: observations <= kLatencyBucketsS[i] (not cumulative); counts.back(): above all.
  std::array<int64_t, kLatencyBucketsS.size() + 1> counts{};
  double sum_s = 0;
  int64_t count = 0;
  void Observe(double seconds);
};

class RpcStats {
 public:
  // One request of `method` answered with `code` after `latency`. `method` must outlive this
  // object (a string literal or __func__).
  void Record(absl::string_view method, absl::StatusCode code, absl::Duration latency);
  // One request of `method`, status OK and no latency (tests, old callers).
  void Count(absl::string_view method) {
    Record(method, absl::StatusCode::kOk, absl::ZeroDuration());
  }

  // One ingest of `format` (e.g. "ibnetdiscover", "discovery") with `result` "created",
  // "unchanged" or "refused".
  void RecordIngest(const std::string& format, const std::string& result, absl::Duration took);
  // One discovery sweep: "created", "unchanged" or "failed".
  void RecordSweep(const std::string& result);
  // One refused peer (admin RPC without the right, TLS client without an allowed
  // certificate) by `reason`: "admin_denied", "tls_client_not_allowed", ...
  void RecordPeerRefused(const std::string& reason);

  // Requests so far by method name (every status summed); methods never called are absent.
  std::map<std::string, int64_t> Counts() const;

  struct Values {
    // (method, status code name) -> latency histogram.
    std::map<std::pair<std::string, std::string>, LatencyHistogram> rpcs;
    // (format, result) -> duration histogram.
    std::map<std::pair<std::string, std::string>, LatencyHistogram> ingests;
    std::map<std::string, int64_t> sweeps;         // by result
    std::map<std::string, int64_t> peers_refused;  // by reason
  };
  Values Snapshot() const;

 private:
  mutable std::mutex mu_;
  absl::flat_hash_map<std::pair<absl::string_view, absl::StatusCode>, LatencyHistogram> rpcs_
      ABSL_GUARDED_BY(mu_);
  std::map<std::pair<std::string, std::string>, LatencyHistogram> ingests_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, int64_t> sweeps_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, int64_t> peers_refused_ ABSL_GUARDED_BY(mu_);
};

}  // namespace toporr::daemon

#endif  // TOPORR_DAEMON_RPC_STATS_H_

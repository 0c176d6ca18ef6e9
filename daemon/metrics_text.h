// The daemon's metrics in the Prometheus text exposition format (version 0.0.4), as served on
// `metrics_listen` (daemon/metrics_http.h), written to a node_exporter textfile directory and
// returned by GetStats for `toporrctl stats`. Every family has HELP and TYPE lines and metric
// names carry the `toporr_` prefix; `promtool check metrics` accepts the output (tested).
//
// Families:
//   toporr_rpc_requests_total{method,code}            counter
//   toporr_rpc_duration_seconds{method,code}          histogram
//   toporr_ingests_total{format,result}               counter (result: created, unchanged,
//                                                     refused)
//   toporr_ingest_duration_seconds{format,result}     histogram
//   toporr_discovery_sweeps_total{result}             counter
//   toporr_peers_refused_total{reason}                counter
//   toporr_host_lists_refused_total{reason}           counter (reason: peer_quota)
//   toporr_reply_cache_hits_total, _misses_total      counter (compact cost matrices)
//   toporr_snapshot_id, toporr_snapshot_age_seconds, toporr_snapshot_hosts,
//   toporr_snapshot_switches, toporr_snapshot_links, toporr_snapshot_forwarding_tables,
//   toporr_host_lists, toporr_up_since_seconds         gauge
//   toporr_job_* (finished jobs' decisions)           see daemon/job_metrics.h
#ifndef TOPORR_DAEMON_METRICS_TEXT_H_
#define TOPORR_DAEMON_METRICS_TEXT_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "daemon/fabric_state.h"
#include "daemon/host_lists.h"
#include "daemon/job_metrics.h"
#include "daemon/matrix_cache.h"
#include "daemon/rpc_stats.h"

namespace toporr::daemon {

// Gauges read from the serving state at rendering time.
struct ServingGauges {
  bool has_snapshot = false;  // false: the snapshot_* gauges are 0
  int64_t snapshot_id = 0;
  int64_t snapshot_created_unix_ms = 0;
  int64_t hosts = 0, switches = 0, links = 0, forwarding_tables = 0;
  int64_t host_lists = 0;
  int64_t host_lists_refused_peer_quota = 0;  // registrations past max_host_lists_per_peer
  int64_t cache_hits = 0, cache_misses = 0;
  int64_t shrink_refusals = 0;  // topologies refused for losing too many hosts
  int64_t started_unix_ms = 0;
  int64_t now_unix_ms = 0;
};

std::string RenderPrometheusText(const RpcStats::Values& values, const ServingGauges& gauges);

// Where the daemon's metrics come from; every pointer may be null (its metrics are 0).
struct MetricsSources {
  const FabricState* state = nullptr;
  const HostLists* host_lists = nullptr;
  const MatrixCache* cache = nullptr;
  const RpcStats* stats = nullptr;
  int64_t started_unix_ms = 0;
  const JobMetrics* jobs = nullptr;  // finished jobs' summaries (toporr_job_*)
};

// The daemon's metrics now.
std::string RenderDaemonMetrics(const MetricsSources& sources);

// Writes `text` to `dir`/toporrd.prom atomically (a temporary file in `dir`, fsync, rename),
// the way node_exporter's textfile collector expects; mode 0644.
absl::Status WriteTextfile(const std::string& dir, const std::string& text);

}  // namespace toporr::daemon

#endif  // TOPORR_DAEMON_METRICS_TEXT_H_

#include "daemon/metrics_text.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "common/output_file.h"

namespace toporr::daemon {
namespace {

std::string Escape(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

std::string Number(double v) { return absl::StrFormat("%.15g", v); }

void Family(std::string* out, const std::string& name, const std::string& type,
            const std::string& help) {
  absl::StrAppend(out, "# HELP ", name, " ", help, "\n# TYPE ", name, " ", type, "\n");
}

void Sample(std::string* out, const std::string& name, const std::string& labels, double value) {
  absl::StrAppend(out, name, labels.empty() ? "" : absl::StrCat("{", labels, "}"), " ",
                  Number(value), "\n");
}

void Histogram(std::string* out, const std::string& name, const std::string& labels,
               const LatencyHistogram& h) {
  int64_t cumulative = 0;
  for (size_t i = 0; i < h.counts.size(); ++i) {
    cumulative += h.counts[i];
    const std::string le = i < kLatencyBucketsS.size() ? Number(kLatencyBucketsS[i]) : "+Inf";
    Sample(out, name + "_bucket", absl::StrCat(labels, ",le=\"", le, "\""), cumulative);
  }
  Sample(out, name + "_sum", labels, h.sum_s);
  Sample(out, name + "_count", labels, h.count);
}

std::string Labels2(const char* a, const std::string& va, const char* b, const std::string& vb) {
  return absl::StrCat(a, "=\"", Escape(va), "\",", b, "=\"", Escape(vb), "\"");
}

}  // namespace

std::string RenderPrometheusText(const RpcStats::Values& v, const ServingGauges& g) {
  std::string out;
  Family(&out, "toporr_rpc_requests_total", "counter",
         "gRPC requests handled since start, by method and status code.");
  for (const auto& [key, h] : v.rpcs) {
    Sample(&out, "toporr_rpc_requests_total", Labels2("method", key.first, "code", key.second),
           h.count);
  }
  Family(&out, "toporr_rpc_duration_seconds", "histogram",
         "Time to handle a gRPC request, by method and status code.");
  for (const auto& [key, h] : v.rpcs) {
    Histogram(&out, "toporr_rpc_duration_seconds", Labels2("method", key.first, "code", key.second),
              h);
  }
  Family(&out, "toporr_ingests_total", "counter",
         "Fabric ingests (dumps and discovery sweeps) by input format and result "
         "(created, unchanged, refused).");
  for (const auto& [key, h] : v.ingests) {
    Sample(&out, "toporr_ingests_total", Labels2("format", key.first, "result", key.second),
           h.count);
  }
  Family(&out, "toporr_ingest_duration_seconds", "histogram",
         "Time to parse, check and store one ingest, by input format and result.");
  for (const auto& [key, h] : v.ingests) {
    Histogram(&out, "toporr_ingest_duration_seconds",
              Labels2("format", key.first, "result", key.second), h);
  }
  Family(&out, "toporr_discovery_sweeps_total", "counter",
         "Live discovery sweeps by result (created, unchanged, failed).");
  for (const auto& [result, n] : v.sweeps) {
    Sample(&out, "toporr_discovery_sweeps_total", absl::StrCat("result=\"", Escape(result), "\""),
           n);
  }
  Family(&out, "toporr_peers_refused_total", "counter",
         "Requests or connections refused for lack of rights, by reason.");
  for (const auto& [reason, n] : v.peers_refused) {
    Sample(&out, "toporr_peers_refused_total", absl::StrCat("reason=\"", Escape(reason), "\""), n);
  }
  Family(&out, "toporr_ingest_shrink_refusals_total", "counter",
         "Topologies refused because they would remove all hosts or more than "
         "max_host_loss_percent of them (also counted as refused ingests).");
  Sample(&out, "toporr_ingest_shrink_refusals_total", "", g.shrink_refusals);
  Family(&out, "toporr_host_lists_refused_total", "counter",
         "Host list registrations refused, by reason (peer_quota: the caller held "
         "max_host_lists_per_peer lists, all in use).");
  Sample(&out, "toporr_host_lists_refused_total", "reason=\"peer_quota\"",
         g.host_lists_refused_peer_quota);
  Family(&out, "toporr_reply_cache_hits_total", "counter",
         "Compact cost-matrix requests answered from the reply cache.");
  Sample(&out, "toporr_reply_cache_hits_total", "", g.cache_hits);
  Family(&out, "toporr_reply_cache_misses_total", "counter",
         "Compact cost-matrix requests computed (not in the reply cache).");
  Sample(&out, "toporr_reply_cache_misses_total", "", g.cache_misses);
  const struct {
    const char* name;
    const char* help;
    double value;
  } gauges[] = {
      {"toporr_snapshot_id", "Id of the snapshot being served (0: none yet).",
       static_cast<double>(g.snapshot_id)},
      {"toporr_snapshot_age_seconds", "Seconds since the served snapshot was created (0: none).",
       g.has_snapshot ? (g.now_unix_ms - g.snapshot_created_unix_ms) / 1000.0 : 0.0},
      {"toporr_snapshot_hosts", "Hosts in the served snapshot.", static_cast<double>(g.hosts)},
      {"toporr_snapshot_switches", "Switches in the served snapshot.",
       static_cast<double>(g.switches)},
      {"toporr_snapshot_links", "Links in the served snapshot.", static_cast<double>(g.links)},
      {"toporr_snapshot_forwarding_tables",
       "Switches with a forwarding table in the served snapshot (0: shortest paths).",
       static_cast<double>(g.forwarding_tables)},
      {"toporr_host_lists", "Registered host lists held in memory.",
       static_cast<double>(g.host_lists)},
      {"toporr_start_time_seconds", "Start time of the daemon since the Unix epoch.",
       g.started_unix_ms / 1000.0},
  };
  for (const auto& gauge : gauges) {
    Family(&out, gauge.name, "gauge", gauge.help);
    Sample(&out, gauge.name, "", gauge.value);
  }
  return out;
}

std::string RenderDaemonMetrics(const MetricsSources& sources) {
  ServingGauges g;
  g.started_unix_ms = sources.started_unix_ms;
  g.now_unix_ms = absl::ToUnixMillis(absl::Now());
  if (sources.state != nullptr) {
    if (auto current = sources.state->Current()) {
      g.has_snapshot = true;
      g.snapshot_id = current->info.id;
      g.snapshot_created_unix_ms = current->info.created_unix_ms;
      g.hosts = current->info.num_hosts;
      g.switches = current->info.num_switches;
      g.links = current->info.num_links;
      g.forwarding_tables = current->info.num_forwarding_tables;
    }
    g.shrink_refusals = sources.state->shrink_refusals();
  }
  if (sources.host_lists != nullptr) {
    g.host_lists = static_cast<int64_t>(sources.host_lists->size());
    g.host_lists_refused_peer_quota = sources.host_lists->refused_peer_quota();
  }
  if (sources.cache != nullptr) {
    g.cache_hits = sources.cache->hits();
    g.cache_misses = sources.cache->misses();
  }
  std::string text = RenderPrometheusText(
      sources.stats != nullptr ? sources.stats->Snapshot() : RpcStats::Values(), g);
  static const JobMetrics* const no_jobs = new JobMetrics();
  (sources.jobs != nullptr ? sources.jobs : no_jobs)->AppendPrometheusText(&text);
  return text;
}

absl::Status WriteTextfile(const std::string& dir, const std::string& text) {
  // node_exporter reads only *.prom: the temporary name ("toporrd.prom.tmp.XXXXXX") is never
  // picked up half written.
  return WriteFileReplacing(dir + "/toporrd.prom", text);
}

}  // namespace toporr::daemon

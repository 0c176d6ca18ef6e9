#include "client/ctl/query_commands.h"

#include <algorithm>
#include <ctime>
#include <iomanip>
#include <map>
#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "client/costs/cost_matrix_codec.h"
#include "common/status_macros.h"

namespace toporr::client::ctl {
namespace {

using HealthResponse = grpc::health::v1::HealthCheckResponse;

std::string FormatTime(int64_t unix_ms) {
  time_t t = static_cast<time_t>(unix_ms / 1000);
  tm tm_utc;
  gmtime_r(&t, &tm_utc);
  char buf[32];
  strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm_utc);
  return buf;
}

void HcaJson(const v1::Hca& h, JsonWriter& w) {
  w.BeginObject();
  w.Field("guid", h.guid());
  w.Field("description", h.description());
  w.Key("ports");
  w.BeginArray();
  for (const auto& p : h.ports()) {
    w.BeginObject();
    w.Field("port", p.number());
    w.Field("lid", static_cast<int64_t>(p.lid()));
    w.Field("switch_guid", p.switch_guid());
    w.Field("switch", p.switch_description());
    w.Field("switch_port", p.switch_port());
    w.Field("rate_gbps", p.rate_gbps());
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

void HostsJson(const v1::ListHostsResponse& resp, JsonWriter& w) {
  w.BeginObject();
  w.Field("snapshot_id", resp.snapshot_id());
  w.Key("hosts");
  w.BeginArray();
  for (const auto& h : resp.hosts()) {
    w.BeginObject();
    w.Field("name", h.name());
    w.Key("hcas");
    w.BeginArray();
    for (const auto& hca : h.hcas()) HcaJson(hca, w);
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.Key("anonymous_endpoints");
  w.BeginArray();
  for (const auto& hca : resp.anonymous_endpoints()) HcaJson(hca, w);
  w.EndArray();
  w.EndObject();
}

void HostsText(const v1::ListHostsResponse& resp, std::ostream& out) {
  out << std::left << std::setw(20) << "HOST" << std::setw(20) << "HCA" << std::setw(6) << "PORT"
      << std::setw(7) << "LID" << std::setw(26) << "SWITCH" << std::setw(6) << "SWP"
      << "GB/S\n";
  for (const auto& h : resp.hosts()) {
    bool first = true;
    for (const auto& hca : h.hcas()) {
      std::string hca_name = hca.description().substr(hca.description().find(' ') + 1);
      for (const auto& p : hca.ports()) {
        out << std::setw(20) << (first ? h.name() : "") << std::setw(20) << hca_name << std::setw(6)
            << p.number() << std::setw(7) << p.lid() << std::setw(26)
            << (p.switch_description().empty() ? p.switch_guid() : p.switch_description())
            << std::setw(6) << p.switch_port() << Fixed(p.rate_gbps(), 1) << "\n";
        first = false;
      }
    }
  }
  out << resp.hosts_size() << " hosts";
  if (resp.anonymous_endpoints_size() > 0) {
    out << ", " << resp.anonymous_endpoints_size()
        << " anonymous endpoints (vendor-default descriptions; not hosts)";
  }
  out << " in snapshot " << resp.snapshot_id() << "\n";
}

absl::StatusOr<Reply> Hosts(Invocation& inv, const CommandArgs& args) {
  RETURN_IF_ERROR(NoArguments("hosts", args));
  ASSIGN_OR_RETURN(auto resp,
                   inv.daemon.Call(&v1::Topology::Stub::ListHosts, v1::ListHostsRequest(), 10));
  return ReplyOf(std::move(resp), HostsJson, HostsText);
}

// `cost` and `path` both answer from one GetPath call between two hosts.
struct PathAnswer {
  std::string src, dst;
  v1::GetPathResponse resp;
};

absl::StatusOr<PathAnswer> FetchPath(Invocation& inv, const CommandArgs& args,
                                     absl::string_view usage) {
  if (args.size() != 2) return UsageError(usage);
  v1::GetPathRequest req;
  req.set_src_host(args[0]);
  req.set_dst_host(args[1]);
  ASSIGN_OR_RETURN(auto resp, inv.daemon.Call(&v1::Topology::Stub::GetPath, req, 10));
  return PathAnswer{args[0], args[1], std::move(resp)};
}

void CostJson(const PathAnswer& a, JsonWriter& w) {
  const v1::Cost& c = a.resp.cost();
  w.BeginObject();
  w.Field("src", a.src);
  w.Field("dst", a.dst);
  w.Field("hops", c.hops());
  w.Field("bottleneck_gbps", c.bottleneck_gbps());
  w.Field("latency_ns", c.latency_ns());
  w.Field("alpha_ns", c.alpha_ns());
  w.Field("beta_ns_per_byte", c.beta_ns_per_byte());
  w.Field("route_kind", v1::RouteKind_Name(a.resp.route_kind()));
  w.Field("snapshot_id", a.resp.snapshot_id());
  w.EndObject();
}

void CostText(const PathAnswer& a, std::ostream& out) {
  const v1::Cost& c = a.resp.cost();
  out << a.src << " -> " << a.dst << ": " << c.hops() << " switch hops, bottleneck "
      << Fixed(c.bottleneck_gbps(), 1) << " Gb/s, latency " << Fixed(c.latency_ns(), 0)
      << " ns (snapshot " << a.resp.snapshot_id() << ", "
      << (a.resp.route_kind() == v1::SHORTEST_PATH ? "shortest path"
          : a.resp.route_kind() == v1::MEASURED    ? "measured"
                                                   : "forwarding tables")
      << ")\n";
}

absl::StatusOr<Reply> Cost(Invocation& inv, const CommandArgs& args) {
  ASSIGN_OR_RETURN(auto answer, FetchPath(inv, args, "cost takes HOST_A HOST_B"));
  return ReplyOf(std::move(answer), CostJson, CostText);
}

void PathJson(const PathAnswer& a, JsonWriter& w) {
  const v1::GetPathResponse& resp = a.resp;
  w.BeginObject();
  w.Field("src", a.src);
  w.Field("dst", a.dst);
  w.Field("snapshot_id", resp.snapshot_id());
  w.Field("route_kind", v1::RouteKind_Name(resp.route_kind()));
  w.Field("hops", resp.cost().hops());
  w.Field("bottleneck_gbps", resp.cost().bottleneck_gbps());
  w.Field("latency_ns", resp.cost().latency_ns());
  w.Key("path");
  w.BeginArray();
  for (const auto& h : resp.hops()) {
    w.BeginObject();
    w.Field("guid", h.node_guid());
    w.Field("type", h.node_type());
    w.Field("description", h.description());
    w.Field("in_port", h.in_port());
    w.Field("out_port", h.out_port());
    w.Field("out_rate_gbps", h.out_rate_gbps());
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

void PathText(const PathAnswer& a, std::ostream& out) {
  const v1::GetPathResponse& resp = a.resp;
  out << "path " << a.src << " -> " << a.dst << " (snapshot " << resp.snapshot_id() << ", "
      << resp.cost().hops() << " switch hops, bottleneck "
      << Fixed(resp.cost().bottleneck_gbps(), 1) << " Gb/s):\n";
  for (const auto& h : resp.hops()) {
    out << "  " << std::left << std::setw(7) << h.node_type() << std::setw(20) << h.node_guid()
        << std::setw(34) << ("\"" + h.description() + "\"");
    if (h.in_port() > 0)
      out << " in " << std::setw(3) << h.in_port();
    else
      out << "       ";
    if (h.out_port() > 0) {
      out << " out " << std::setw(3) << h.out_port() << " " << Fixed(h.out_rate_gbps(), 1)
          << " Gb/s";
    }
    out << "\n";
  }
}

absl::StatusOr<Reply> Path(Invocation& inv, const CommandArgs& args) {
  ASSIGN_OR_RETURN(auto answer, FetchPath(inv, args, "path takes HOST_A HOST_B"));
  return ReplyOf(std::move(answer), PathJson, PathText);
}

void RowJson(const v1::GetCostRowResponse& resp, JsonWriter& w) {
  const v1::CostArrays& c = resp.costs();
  w.BeginObject();
  w.Field("host", resp.host());
  w.Field("snapshot_id", resp.snapshot_id());
  w.Field("route_kind", v1::RouteKind_Name(resp.route_kind()));
  w.Key("costs");
  w.BeginArray();
  for (int j = 0; j < resp.hosts_size(); ++j) {
    w.BeginObject();
    w.Field("host", resp.hosts(j));
    w.Field("hops", c.hops(j));
    w.Field("bottleneck_gbps", static_cast<double>(c.bottleneck_gbps(j)));
    w.Field("latency_ns", static_cast<double>(c.latency_ns(j)));
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

void RowText(const v1::GetCostRowResponse& resp, std::ostream& out) {
  const v1::CostArrays& c = resp.costs();
  out << std::left << std::setw(24) << "HOST" << std::setw(6) << "HOPS" << std::setw(10) << "GB/S"
      << "LATENCY_NS\n";
  for (int j = 0; j < resp.hosts_size(); ++j) {
    out << std::setw(24) << resp.hosts(j) << std::setw(6) << c.hops(j) << std::setw(10)
        << Fixed(c.bottleneck_gbps(j), 1) << Fixed(c.latency_ns(j), 0) << "\n";
  }
}

absl::StatusOr<Reply> Row(Invocation& inv, const CommandArgs& args) {
  std::string host_list;
  std::vector<std::string> positional;
  RETURN_IF_ERROR(ParseOptions("row", args, {{"--hosts", &host_list}}, &positional));
  if (positional.size() > 1) return UsageError("row takes HOST [--hosts H1,H2,...]");
  if (positional.empty()) return UsageError("row: HOST is required");
  v1::GetCostRowRequest req;
  req.set_host(positional[0]);
  if (!host_list.empty()) {
    std::vector<std::string> columns;
    RETURN_IF_ERROR(AppendHostList("row", host_list, &columns));
    for (std::string& h : columns) req.add_hosts(std::move(h));
  }
  ASSIGN_OR_RETURN(auto resp, inv.daemon.Call(&v1::Topology::Stub::GetCostRow, req, 10));
  return ReplyOf(std::move(resp), RowJson, RowText);
}

void MatrixJson(const CostMatrixAnswer& a, JsonWriter& w) {
  const int n = a.costs.n;
  const CostMatrixArrays& c = a.costs;
  w.BeginObject();
  w.Field("snapshot_id", a.resp.snapshot_id());
  w.Key("hosts");
  w.BeginArray();
  for (const auto& h : a.resp.hosts()) w.String(h);
  w.EndArray();
  w.Key("hops");
  w.BeginArray();
  for (int k = 0; k < n * n; ++k) w.Int(c.hops[k]);
  w.EndArray();
  w.Key("bottleneck_gbps");
  w.BeginArray();
  for (int k = 0; k < n * n; ++k) w.Double(c.bottleneck_gbps[k]);
  w.EndArray();
  w.Key("latency_ns");
  w.BeginArray();
  for (int k = 0; k < n * n; ++k) w.Double(c.latency_ns[k]);
  w.EndArray();
  w.EndObject();
}

void MatrixText(const CostMatrixAnswer& a, std::ostream& out) {
  const int n = a.costs.n;
  out << "switch hops (snapshot " << a.resp.snapshot_id() << ")\n" << std::setw(16) << "";
  for (const auto& h : a.resp.hosts()) out << std::setw(10) << h.substr(0, 9);
  out << "\n";
  for (int i = 0; i < n; ++i) {
    out << std::left << std::setw(16) << a.resp.hosts(i);
    for (int j = 0; j < n; ++j) out << std::setw(10) << a.costs.hops[i * n + j];
    out << "\n";
  }
}

absl::StatusOr<Reply> Matrix(Invocation& inv, const CommandArgs& args) {
  if (args.empty()) return UsageError("matrix takes HOST...");
  ASSIGN_OR_RETURN(CostMatrixAnswer answer, FetchCostMatrix(inv.daemon, args, 10));
  return ReplyOf(std::move(answer), MatrixJson, MatrixText);
}

// `snapshot` and `snapshots` share one table and one JSON array.
using SnapshotList = std::vector<v1::SnapshotInfo>;

void SnapshotsJson(const SnapshotList& list, JsonWriter& w) {
  w.BeginArray();
  for (const auto& s : list) WriteSnapshotJson(s, w);
  w.EndArray();
}

void SnapshotsText(const SnapshotList& list, std::ostream& out) {
  out << std::left << std::setw(6) << "ID" << std::setw(22) << "CREATED" << std::setw(16)
      << "SOURCE" << std::setw(34) << "NAME" << std::setw(7) << "HOSTS" << std::setw(9)
      << "SWITCHES" << std::setw(7) << "LINKS" << std::setw(8) << "ROUTES"
      << "HASH\n";
  for (const auto& s : list) {
    out << std::setw(6) << (std::to_string(s.id()) + (s.current() ? "*" : "")) << std::setw(22)
        << FormatTime(s.created_unix_ms()) << std::setw(16) << s.source_kind() << std::setw(34)
        << s.source_name() << std::setw(7) << s.num_hosts() << std::setw(9) << s.num_switches()
        << std::setw(7) << s.num_links() << std::setw(8)
        << (s.num_forwarding_tables() > 0 ? "lft" : "-") << s.content_hash().substr(0, 12) << "\n";
  }
}

absl::StatusOr<Reply> Snapshot(Invocation& inv, const CommandArgs& args) {
  RETURN_IF_ERROR(NoArguments("snapshot", args));
  ASSIGN_OR_RETURN(auto resp,
                   inv.daemon.Call(&v1::Topology::Stub::GetSnapshot, v1::GetSnapshotRequest(), 10));
  return ReplyOf(SnapshotList{resp.snapshot()}, SnapshotsJson, SnapshotsText);
}

absl::StatusOr<Reply> Snapshots(Invocation& inv, const CommandArgs& args) {
  RETURN_IF_ERROR(NoArguments("snapshots", args));
  ASSIGN_OR_RETURN(
      auto resp, inv.daemon.Call(&v1::Admin::Stub::ListSnapshots, v1::ListSnapshotsRequest(), 10));
  return ReplyOf(SnapshotList(resp.snapshots().begin(), resp.snapshots().end()), SnapshotsJson,
                 SnapshotsText);
}

void StatsJson(const v1::GetStatsResponse& resp, JsonWriter& w) {
  const std::map<std::string, int64_t> requests(resp.requests().begin(), resp.requests().end());
  w.BeginObject();
  w.Field("snapshot_id", resp.snapshot_id());
  w.Field("host_lists", resp.host_lists());
  w.Key("requests");
  w.BeginObject();
  for (const auto& [method, count] : requests) w.Field(method, count);
  w.EndObject();
  w.EndObject();
}

void StatsText(const v1::GetStatsResponse& resp, std::ostream& out) {
  const std::map<std::string, int64_t> requests(resp.requests().begin(), resp.requests().end());
  out << "snapshot " << resp.snapshot_id() << ", " << resp.host_lists() << " registered host list"
      << (resp.host_lists() == 1 ? "" : "s") << "\n"
      << std::left << std::setw(26) << "METHOD"
      << "REQUESTS\n";
  for (const auto& [method, count] : requests) out << std::setw(26) << method << count << "\n";
  if (resp.metrics_text().empty()) return;
  // The daemon's Prometheus metrics, one per line as `name  label=value ...  value`; the
  // histograms' buckets are left out (their _count and _sum stay; mean = sum / count).
  out << "\nMETRICS (toporrctl stats --prometheus for the exposition text)\n";
  for (absl::string_view line : absl::StrSplit(resp.metrics_text(), '\n', absl::SkipEmpty())) {
    if (line[0] == '#') continue;
    const size_t space = line.rfind(' ');
    absl::string_view series = line.substr(0, space);
    const absl::string_view value = line.substr(space + 1);
    std::string name(series.substr(0, series.find('{')));
    if (absl::EndsWith(name, "_bucket")) continue;
    std::string labels;
    if (const size_t brace = series.find('{'); brace != absl::string_view::npos) {
      labels = std::string(series.substr(brace + 1, series.size() - brace - 2));
      labels = absl::StrReplaceAll(labels, {{"\",", " "}, {"\"", ""}});
    }
    out << std::setw(40) << name << std::setw(44) << labels << value << "\n";
  }
}

// `stats [--prometheus]`: the request counts and the metrics (daemon/metrics_text.h), or the
// raw exposition text.
absl::StatusOr<Reply> Stats(Invocation& inv, const CommandArgs& args) {
  const bool prometheus = args.size() == 1 && args[0] == "--prometheus";
  if (!prometheus) RETURN_IF_ERROR(NoArguments("stats", args));
  ASSIGN_OR_RETURN(auto resp,
                   inv.daemon.Call(&v1::Topology::Stub::GetStats, v1::GetStatsRequest(), 10));
  if (prometheus) {
    return ReplyOf(
        std::move(resp),
        [](const v1::GetStatsResponse& r, JsonWriter& w) { w.String(r.metrics_text()); },
        [](const v1::GetStatsResponse& r, std::ostream& out) { out << r.metrics_text(); });
  }
  return ReplyOf(std::move(resp), StatsJson, StatsText);
}

// `health`: the daemon's gRPC health status and, when it does not serve queries, why (the
// answer of GetSnapshot). Exit 0 whenever the daemon answers (it is alive: scripts waiting
// for it to start, then ingesting, rely on that), 1 when it cannot be reached; `--ready`
// exits 1 unless SERVING (what a readiness probe wants). Other arguments are ignored, as they
// always were.
struct HealthAnswer {
  std::string status;
  std::string reason;  // empty when SERVING
};

absl::StatusOr<Reply> Health(Invocation& inv, const CommandArgs& args) {
  const bool ready = std::find(args.begin(), args.end(), "--ready") != args.end();
  ASSIGN_OR_RETURN(auto resp, inv.daemon.Call(&grpc::health::v1::Health::Stub::Check,
                                              grpc::health::v1::HealthCheckRequest(), 5));
  HealthAnswer answer{HealthResponse::ServingStatus_Name(resp.status()), ""};
  const bool serving = resp.status() == HealthResponse::SERVING;
  if (!serving) {
    auto snapshot = inv.daemon.Call(&v1::Topology::Stub::GetSnapshot, v1::GetSnapshotRequest(), 5);
    answer.reason =
        snapshot.ok() ? "the daemon serves no snapshot" : std::string(snapshot.status().message());
  }
  Reply reply = ReplyOf(
      std::move(answer),
      [](const HealthAnswer& a, JsonWriter& w) {
        w.BeginObject();
        w.Field("status", a.status);
        w.Field("serving", a.reason.empty());
        if (!a.reason.empty()) w.Field("reason", a.reason);
        w.EndObject();
      },
      [](const HealthAnswer& a, std::ostream& out) {
        out << a.status << (a.reason.empty() ? "" : ": " + a.reason) << "\n";
      });
  reply.exit_code = serving || !ready ? 0 : 1;
  return reply;
}

}  // namespace

void WriteSnapshotJson(const v1::SnapshotInfo& s, JsonWriter& w) {
  w.BeginObject();
  w.Field("id", s.id());
  w.Field("created_unix_ms", s.created_unix_ms());
  w.Field("source_kind", s.source_kind());
  w.Field("source_name", s.source_name());
  w.Field("content_hash", s.content_hash());
  w.Field("switches", s.num_switches());
  w.Field("cas", s.num_cas());
  w.Field("routers", s.num_routers());
  w.Field("aggregation_nodes", s.num_aggregation());
  w.Field("links", s.num_links());
  w.Field("hosts", s.num_hosts());
  w.Field("anonymous_endpoints", s.num_anonymous());
  w.Field("current", s.current());
  w.Field("forwarding_tables", s.num_forwarding_tables());
  w.EndObject();
}

std::vector<Command> QueryCommands() {
  return {
      {"hosts", "  hosts                list hosts with their HCAs and attachment switches\n",
       Hosts},
      {"cost",
       "  cost HOST_A HOST_B   hops, bottleneck rate and modelled latency between two hosts\n",
       Cost},
      {"row",
       "  row HOST [--hosts H1,H2,...]\n"
       "                       cost of HOST against a host list (default: all hosts)\n",
       Row},
      {"matrix", "  matrix HOST...       full cost matrix over the given hosts\n", Matrix},
      {"path", "  path HOST_A HOST_B   the path between two hosts, switch by switch, with ports\n",
       Path},
      {"snapshot", "  snapshot             the snapshot being served\n", Snapshot},
      {"snapshots", "  snapshots            all stored snapshots, newest first\n", Snapshots},
      {"health",
       "  health [--ready]     the daemon's gRPC health status and why it is not serving\n"
       "                       (--ready: exit 1 unless SERVING)\n",
       Health},
      {"stats",
       "  stats [--prometheus] requests served by method, and the daemon's metrics (ingests,\n"
       "                       latencies, sweeps, refusals; --prometheus: exposition text)\n",
       Stats},
  };
}

}  // namespace toporr::client::ctl

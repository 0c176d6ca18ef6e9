#include "client/ctl.h"

#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <map>
#include <memory>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "client/cost_matrix_codec.h"
#include "client/job_costs.h"
#include "client/node_topology.h"
#include "client/plan.h"
#include "collectors/fabric_input.h"
#include "collectors/hwloc_topology.h"
#include "common/json_writer.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "toporr/v1/toporr.grpc.pb.h"

namespace toporr::client {
namespace {

constexpr char kUsage[] = R"(usage: toporrctl [options] COMMAND [args]

options:
  --socket PATH        daemon Unix socket (default $TOPORR_SOCKET or /run/toporr/toporrd.sock)
  --target HOST:PORT   use the daemon's TCP listener instead (read commands only)
  --json               machine-readable output (see README.md for field names)
  --timeout SECONDS    deadline of each RPC (default 30 for ingest, 10 otherwise)

commands:
  ingest --format FORMAT [--host-map FILE] FILE
                       store FILE as a new snapshot (admin: root or the admin group).
                       Topologies: ibnetdiscover, opareport-xml, opareport-links;
                       forwarding tables over the current topology: lft (ibroute,
                       dump_fts, dump_lfts.sh), opensm-lfts (opensm-lfts.dump);
                       ibtracert: traces checked against the current routes
  hosts                list hosts with their HCAs and attachment switches
  cost HOST_A HOST_B   hops, bottleneck rate and modelled latency between two hosts
  row HOST [--hosts H1,H2,...]
                       cost of HOST against a host list (default: all hosts)
  matrix HOST...       full cost matrix over the given hosts
  path HOST_A HOST_B   the path between two hosts, switch by switch, with ports
  snapshot             the snapshot being served
  snapshots            all stored snapshots, newest first
  discover             sweep the fabric now with the daemon's live collector (admin)
  diff SNAP_A [SNAP_B] links added, removed or degraded, hosts moved and routes changed
                       from SNAP_A to SNAP_B (default: the current snapshot)
  health               the daemon's gRPC health status
  plan --hostfile FILE --collective C --size BYTES [--algorithm A|auto]
       [--map-by core|node | --ranks FILE] [--np N] [--root R] [--radix K]
       [--fabric DUMP [--format ibnetdiscover]] [--node-topology HWLOC.xml]
       [--rankfile OUT] [--hostfile-out OUT]
                       topology-aware rank order for a job: the new order, the predicted
                       time before/after and the maximum link load; writes an Open MPI
                       rankfile or a reordered hostfile (`mpirun --map-by seq`). Costs come
                       from the daemon, or offline from a fabric dump (which also models link
                       contention). C: allreduce|bcast|allgather|gather|reduce; A: ring,
                       segmented_ring, recursive_doubling, rabenseifner, binomial,
                       binary_tree, split_binary_tree, knomial, chain, pipeline,
                       scatter_allgather, scatter_allgather_ring, bruck, linear.
                       --node-topology: an hwloc XML of the compute nodes (lstopo --of xml);
                       ranks get its cores, intra-node costs its NUMA distances
)";

struct Options {
  std::string socket;
  std::string target;
  bool json = false;
  double timeout_s = 0;
};

class UsageError {
 public:
  explicit UsageError(std::string m) : message(std::move(m)) {}
  std::string message;
};

class Ctl {
 public:
  Ctl(Options opts, std::ostream& out, std::ostream& err)
      : opts_(std::move(opts)), out_(out), err_(err) {
    std::string target = opts_.target.empty() ? "unix:" + opts_.socket : opts_.target;
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(-1);
    args.SetMaxSendMessageSize(-1);
    channel_ = grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args);
    topo_ = v1::Topology::NewStub(channel_);
    admin_ = v1::Admin::NewStub(channel_);
  }

  int Run(const std::string& cmd, const std::vector<std::string>& args);

 private:
  // One RPC with this invocation's deadline (--timeout, else `default_s`).
  template <typename Stub, typename Req, typename Resp>
  grpc::Status Call(Stub* stub,
                    grpc::Status (Stub::*method)(grpc::ClientContext*, const Req&, Resp*),
                    const Req& req, Resp* resp, double default_s) {
    grpc::ClientContext ctx;
    Context(&ctx, default_s);
    return (stub->*method)(&ctx, req, resp);
  }
  void Context(grpc::ClientContext* ctx, double default_s) {
    double s = opts_.timeout_s > 0 ? opts_.timeout_s : default_s;
    ctx->set_deadline(std::chrono::system_clock::now() +
                      std::chrono::milliseconds(static_cast<int64_t>(s * 1000)));
  }
  int Fail(const grpc::Status& s) {
    std::string where = opts_.target.empty() ? opts_.socket : opts_.target;
    if (s.error_code() == grpc::StatusCode::UNAVAILABLE) {
      err_ << "toporrctl: cannot reach toporrd at " << where << ": " << s.error_message()
           << "\n(is the daemon running? see `systemctl status toporrd`)\n";
    } else if (s.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
      err_ << "toporrctl: toporrd at " << where << " did not answer in time "
           << "(raise --timeout)\n";
    } else {
      err_ << "toporrctl: " << s.error_message() << "\n";
    }
    return 1;
  }

  int Ingest(const std::vector<std::string>& args);
  int Hosts();
  // `cost` and `path` both answer from one GetPath call between args[0] and
  // args[1].
  grpc::Status FetchPath(const std::vector<std::string>& args, v1::GetPathResponse* resp);
  int Cost(const std::vector<std::string>& args);
  int Row(const std::vector<std::string>& args);
  int Matrix(const std::vector<std::string>& args);
  int Path(const std::vector<std::string>& args);
  int Snapshot();
  int Snapshots();
  int Health();
  int Diff(const std::vector<std::string>& args);
  int Discover();
  int PrintIngest(const v1::IngestResponse& resp, bool traces);
  int PlanJob(const std::vector<std::string>& args);
  void PrintSnapshots(const std::vector<const v1::SnapshotInfo*>& list);
  void SnapshotJson(JsonWriter& w, const v1::SnapshotInfo& s);

  Options opts_;
  std::ostream& out_;
  std::ostream& err_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::Topology::Stub> topo_;
  std::unique_ptr<v1::Admin::Stub> admin_;
};

void Expect(bool ok, const std::string& what) {
  if (!ok) throw UsageError(what);
}

std::string ReadFileOr(const std::string& path, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = path + ": cannot open";
    return "";
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Basename(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string FormatTime(int64_t unix_ms) {
  time_t t = static_cast<time_t>(unix_ms / 1000);
  tm tm_utc;
  gmtime_r(&t, &tm_utc);
  char buf[32];
  strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm_utc);
  return buf;
}

std::string Fixed(double v, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

int Ctl::Run(const std::string& cmd, const std::vector<std::string>& args) {
  if (cmd == "ingest") return Ingest(args);
  if (cmd == "hosts") return Expect(args.empty(), "hosts takes no arguments"), Hosts();
  if (cmd == "cost") return Cost(args);
  if (cmd == "row") return Row(args);
  if (cmd == "matrix") return Matrix(args);
  if (cmd == "path") return Path(args);
  if (cmd == "snapshot") return Expect(args.empty(), "snapshot takes no arguments"), Snapshot();
  if (cmd == "snapshots") return Expect(args.empty(), "snapshots takes no arguments"), Snapshots();
  if (cmd == "health") return Health();
  if (cmd == "plan") return PlanJob(args);
  if (cmd == "diff") return Diff(args);
  if (cmd == "discover") return Expect(args.empty(), "discover takes no arguments"), Discover();
  throw UsageError("unknown command '" + cmd + "'");
}

int Ctl::Ingest(const std::vector<std::string>& args) {
  std::string format, file, host_map_file;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--format" && i + 1 < args.size()) {
      format = args[++i];
    } else if (args[i] == "--host-map" && i + 1 < args.size()) {
      host_map_file = args[++i];
    } else if (!args[i].empty() && args[i][0] == '-') {
      throw UsageError("ingest: unknown option " + args[i]);
    } else {
      Expect(file.empty(), "ingest takes one FILE");
      file = args[i];
    }
  }
  Expect(!file.empty(), "ingest: FILE is required");
  Expect(!format.empty(),
         "ingest: --format is required (" + collectors::SupportedInputFormats() + ")");
  v1::IngestRequest req;
  auto known = collectors::ParseInputFormat(format);
  if (!known.ok()) throw UsageError("ingest: " + std::string(known.status().message()));
  // Wire names are the CLI names upper-cased with '_' for '-'.
  std::string wire = format;
  for (char& c : wire) c = c == '-' ? '_' : static_cast<char>(std::toupper(c));
  v1::InputFormat wire_format;
  if (!v1::InputFormat_Parse(wire, &wire_format)) {
    throw UsageError("ingest: format '" + format + "' has no wire name");
  }
  req.set_format(wire_format);
  std::string error;
  std::string content = ReadFileOr(file, &error);
  if (!error.empty()) return err_ << "toporrctl: " << error << "\n", 1;
  if (!host_map_file.empty()) {
    req.set_host_map(ReadFileOr(host_map_file, &error));
    if (!error.empty()) return err_ << "toporrctl: " << error << "\n", 1;
  }
  req.set_source_name(Basename(file));
  req.set_content(std::move(content));
  v1::IngestResponse resp;
  grpc::Status s = Call(admin_.get(), &v1::Admin::Stub::Ingest, req, &resp, 30);
  if (!s.ok()) return Fail(s);
  return PrintIngest(resp, req.format() == v1::IBTRACERT);
}

int Ctl::PrintIngest(const v1::IngestResponse& resp, bool traces) {
  for (const auto& w : resp.warnings()) err_ << "toporrctl: warning: " << w << "\n";
  if (traces && resp.trace_disagreements() > 0 && !opts_.json) {
    // Disagreements are findings, not failures of the command; the exit code
    // says so.
    out_ << resp.trace_disagreements() << " of " << resp.traces_checked()
         << " traces disagree with the forwarding tables (details above)\n";
    return 3;
  }
  const v1::SnapshotInfo& snap = resp.snapshot();
  if (opts_.json) {
    JsonWriter w(&out_);
    w.BeginObject();
    w.Field("created", resp.created());
    if (traces) {
      w.Field("traces_checked", resp.traces_checked());
      w.Field("trace_disagreements", resp.trace_disagreements());
    }
    w.Key("snapshot");
    SnapshotJson(w, snap);
    w.EndObject();
    out_ << "\n";
  } else if (traces) {
    out_ << resp.traces_checked() << " traces checked against the forwarding tables of snapshot "
         << snap.id() << ": " << resp.trace_disagreements() << " disagree\n";
  } else if (resp.created()) {
    out_ << "snapshot " << snap.id() << " created from " << snap.source_name() << ": "
         << snap.num_hosts() << " hosts, " << snap.num_switches() << " switches, " << snap.num_cas()
         << " CAs, " << snap.num_links() << " links";
    if (snap.num_forwarding_tables() > 0) {
      out_ << ", forwarding tables of " << snap.num_forwarding_tables() << " switches";
    }
    out_ << "\n";
  } else {
    out_ << "unchanged: same content as snapshot " << snap.id() << " (" << snap.source_kind() << " "
         << snap.source_name() << "); no new snapshot\n";
  }
  return 0;
}

int Ctl::Discover() {
  v1::IngestResponse resp;
  grpc::Status s =
      Call(admin_.get(), &v1::Admin::Stub::Discover, v1::DiscoverRequest(), &resp, 660);
  if (!s.ok()) return Fail(s);
  return PrintIngest(resp, false);
}

int Ctl::Hosts() {
  v1::ListHostsResponse resp;
  grpc::Status s =
      Call(topo_.get(), &v1::Topology::Stub::ListHosts, v1::ListHostsRequest(), &resp, 10);
  if (!s.ok()) return Fail(s);
  auto hca_json = [](JsonWriter& w, const v1::Hca& h) {
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
  };
  if (opts_.json) {
    JsonWriter w(&out_);
    w.BeginObject();
    w.Field("snapshot_id", resp.snapshot_id());
    w.Key("hosts");
    w.BeginArray();
    for (const auto& h : resp.hosts()) {
      w.BeginObject();
      w.Field("name", h.name());
      w.Key("hcas");
      w.BeginArray();
      for (const auto& hca : h.hcas()) hca_json(w, hca);
      w.EndArray();
      w.EndObject();
    }
    w.EndArray();
    w.Key("anonymous_endpoints");
    w.BeginArray();
    for (const auto& hca : resp.anonymous_endpoints()) hca_json(w, hca);
    w.EndArray();
    w.EndObject();
    out_ << "\n";
    return 0;
  }
  out_ << std::left << std::setw(20) << "HOST" << std::setw(20) << "HCA" << std::setw(6) << "PORT"
       << std::setw(7) << "LID" << std::setw(26) << "SWITCH" << std::setw(6) << "SWP"
       << "GB/S\n";
  for (const auto& h : resp.hosts()) {
    bool first = true;
    for (const auto& hca : h.hcas()) {
      std::string hca_name = hca.description().substr(hca.description().find(' ') + 1);
      for (const auto& p : hca.ports()) {
        out_ << std::setw(20) << (first ? h.name() : "") << std::setw(20) << hca_name
             << std::setw(6) << p.number() << std::setw(7) << p.lid() << std::setw(26)
             << (p.switch_description().empty() ? p.switch_guid() : p.switch_description())
             << std::setw(6) << p.switch_port() << Fixed(p.rate_gbps(), 1) << "\n";
        first = false;
      }
    }
  }
  out_ << resp.hosts_size() << " hosts";
  if (resp.anonymous_endpoints_size() > 0) {
    out_ << ", " << resp.anonymous_endpoints_size()
         << " anonymous endpoints (vendor-default descriptions; not hosts)";
  }
  out_ << " in snapshot " << resp.snapshot_id() << "\n";
  return 0;
}

grpc::Status Ctl::FetchPath(const std::vector<std::string>& args, v1::GetPathResponse* resp) {
  v1::GetPathRequest req;
  req.set_src_host(args[0]);
  req.set_dst_host(args[1]);
  return Call(topo_.get(), &v1::Topology::Stub::GetPath, req, resp, 10);
}

int Ctl::Cost(const std::vector<std::string>& args) {
  Expect(args.size() == 2, "cost takes HOST_A HOST_B");
  v1::GetPathResponse resp;
  if (grpc::Status s = FetchPath(args, &resp); !s.ok()) return Fail(s);
  const v1::Cost& c = resp.cost();
  if (opts_.json) {
    JsonWriter w(&out_);
    w.BeginObject();
    w.Field("src", args[0]);
    w.Field("dst", args[1]);
    w.Field("hops", c.hops());
    w.Field("bottleneck_gbps", c.bottleneck_gbps());
    w.Field("latency_ns", c.latency_ns());
    w.Field("alpha_ns", c.alpha_ns());
    w.Field("beta_ns_per_byte", c.beta_ns_per_byte());
    w.Field("route_kind", v1::RouteKind_Name(resp.route_kind()));
    w.Field("snapshot_id", resp.snapshot_id());
    w.EndObject();
    out_ << "\n";
    return 0;
  }
  out_ << args[0] << " -> " << args[1] << ": " << c.hops() << " switch hops, bottleneck "
       << Fixed(c.bottleneck_gbps(), 1) << " Gb/s, latency " << Fixed(c.latency_ns(), 0)
       << " ns (snapshot " << resp.snapshot_id() << ", "
       << (resp.route_kind() == v1::SHORTEST_PATH ? "shortest path" : "forwarding tables") << ")\n";
  return 0;
}

int Ctl::Row(const std::vector<std::string>& args) {
  v1::GetCostRowRequest req;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--hosts" && i + 1 < args.size()) {
      for (auto h : absl::StrSplit(args[++i], ',', absl::SkipEmpty()))
        req.add_hosts(std::string(h));
    } else {
      Expect(req.host().empty() && args[i][0] != '-', "row takes HOST [--hosts H1,H2,...]");
      req.set_host(args[i]);
    }
  }
  Expect(!req.host().empty(), "row: HOST is required");
  v1::GetCostRowResponse resp;
  grpc::Status s = Call(topo_.get(), &v1::Topology::Stub::GetCostRow, req, &resp, 10);
  if (!s.ok()) return Fail(s);
  const v1::CostArrays& c = resp.costs();
  if (opts_.json) {
    JsonWriter w(&out_);
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
    out_ << "\n";
    return 0;
  }
  out_ << std::left << std::setw(24) << "HOST" << std::setw(6) << "HOPS" << std::setw(10) << "GB/S"
       << "LATENCY_NS\n";
  for (int j = 0; j < resp.hosts_size(); ++j) {
    out_ << std::setw(24) << resp.hosts(j) << std::setw(6) << c.hops(j) << std::setw(10)
         << Fixed(c.bottleneck_gbps(j), 1) << Fixed(c.latency_ns(j), 0) << "\n";
  }
  return 0;
}

int Ctl::Matrix(const std::vector<std::string>& args) {
  Expect(!args.empty(), "matrix takes HOST...");
  v1::GetCostMatrixRequest req;
  for (const auto& a : args) req.add_hosts(a);
  req.set_compact(true);
  v1::GetCostMatrixResponse resp;
  grpc::Status s = Call(topo_.get(), &v1::Topology::Stub::GetCostMatrix, req, &resp, 10);
  if (!s.ok()) return Fail(s);
  absl::StatusOr<CostMatrixArrays> decoded = DecodeCostMatrix(resp);
  if (!decoded.ok()) {
    err_ << "toporrctl: " << decoded.status().message() << "\n";
    return 1;
  }
  const int n = decoded->n;
  const CostMatrixArrays& c = *decoded;
  if (opts_.json) {
    JsonWriter w(&out_);
    w.BeginObject();
    w.Field("snapshot_id", resp.snapshot_id());
    w.Key("hosts");
    w.BeginArray();
    for (const auto& h : resp.hosts()) w.String(h);
    w.EndArray();
    for (const char* field : {"hops", "bottleneck_gbps", "latency_ns"}) {
      w.Key(field);
      w.BeginArray();
      for (int k = 0; k < n * n; ++k) {
        if (field[0] == 'h')
          w.Int(c.hops[k]);
        else if (field[0] == 'b')
          w.Double(c.bottleneck_gbps[k]);
        else
          w.Double(c.latency_ns[k]);
      }
      w.EndArray();
    }
    w.EndObject();
    out_ << "\n";
    return 0;
  }
  out_ << "switch hops (snapshot " << resp.snapshot_id() << ")\n" << std::setw(16) << "";
  for (const auto& h : resp.hosts()) out_ << std::setw(10) << h.substr(0, 9);
  out_ << "\n";
  for (int i = 0; i < n; ++i) {
    out_ << std::left << std::setw(16) << resp.hosts(i);
    for (int j = 0; j < n; ++j) out_ << std::setw(10) << c.hops[i * n + j];
    out_ << "\n";
  }
  return 0;
}

int Ctl::Path(const std::vector<std::string>& args) {
  Expect(args.size() == 2, "path takes HOST_A HOST_B");
  v1::GetPathResponse resp;
  if (grpc::Status s = FetchPath(args, &resp); !s.ok()) return Fail(s);
  if (opts_.json) {
    JsonWriter w(&out_);
    w.BeginObject();
    w.Field("src", args[0]);
    w.Field("dst", args[1]);
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
    out_ << "\n";
    return 0;
  }
  out_ << "path " << args[0] << " -> " << args[1] << " (snapshot " << resp.snapshot_id() << ", "
       << resp.cost().hops() << " switch hops, bottleneck "
       << Fixed(resp.cost().bottleneck_gbps(), 1) << " Gb/s):\n";
  for (const auto& h : resp.hops()) {
    out_ << "  " << std::left << std::setw(7) << h.node_type() << std::setw(20) << h.node_guid()
         << std::setw(34) << ("\"" + h.description() + "\"");
    if (h.in_port() > 0)
      out_ << " in " << std::setw(3) << h.in_port();
    else
      out_ << "       ";
    if (h.out_port() > 0) {
      out_ << " out " << std::setw(3) << h.out_port() << " " << Fixed(h.out_rate_gbps(), 1)
           << " Gb/s";
    }
    out_ << "\n";
  }
  return 0;
}

void Ctl::SnapshotJson(JsonWriter& w, const v1::SnapshotInfo& s) {
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

void Ctl::PrintSnapshots(const std::vector<const v1::SnapshotInfo*>& list) {
  if (opts_.json) {
    JsonWriter w(&out_);
    w.BeginArray();
    for (const auto* s : list) SnapshotJson(w, *s);
    w.EndArray();
    out_ << "\n";
    return;
  }
  out_ << std::left << std::setw(6) << "ID" << std::setw(22) << "CREATED" << std::setw(16)
       << "SOURCE" << std::setw(34) << "NAME" << std::setw(7) << "HOSTS" << std::setw(9)
       << "SWITCHES" << std::setw(7) << "LINKS" << std::setw(8) << "ROUTES"
       << "HASH\n";
  for (const auto* s : list) {
    out_ << std::setw(6) << (std::to_string(s->id()) + (s->current() ? "*" : "")) << std::setw(22)
         << FormatTime(s->created_unix_ms()) << std::setw(16) << s->source_kind() << std::setw(34)
         << s->source_name() << std::setw(7) << s->num_hosts() << std::setw(9) << s->num_switches()
         << std::setw(7) << s->num_links() << std::setw(8)
         << (s->num_forwarding_tables() > 0 ? "lft" : "-") << s->content_hash().substr(0, 12)
         << "\n";
  }
}

int Ctl::Snapshot() {
  v1::GetSnapshotResponse resp;
  grpc::Status s =
      Call(topo_.get(), &v1::Topology::Stub::GetSnapshot, v1::GetSnapshotRequest(), &resp, 10);
  if (!s.ok()) return Fail(s);
  PrintSnapshots({&resp.snapshot()});
  return 0;
}

int Ctl::Snapshots() {
  v1::ListSnapshotsResponse resp;
  grpc::Status s =
      Call(admin_.get(), &v1::Admin::Stub::ListSnapshots, v1::ListSnapshotsRequest(), &resp, 10);
  if (!s.ok()) return Fail(s);
  std::vector<const v1::SnapshotInfo*> list;
  for (const auto& snap : resp.snapshots()) list.push_back(&snap);
  PrintSnapshots(list);
  return 0;
}

int Ctl::Health() {
  auto stub = grpc::health::v1::Health::NewStub(channel_);
  grpc::health::v1::HealthCheckResponse resp;
  grpc::Status s = Call(stub.get(), &grpc::health::v1::Health::Stub::Check,
                        grpc::health::v1::HealthCheckRequest(), &resp, 5);
  if (!s.ok()) return Fail(s);
  const bool serving = resp.status() == grpc::health::v1::HealthCheckResponse::SERVING;
  if (opts_.json) {
    JsonWriter w(&out_);
    w.BeginObject();
    w.Field("status", grpc::health::v1::HealthCheckResponse::ServingStatus_Name(resp.status()));
    w.EndObject();
    out_ << "\n";
  } else {
    out_ << grpc::health::v1::HealthCheckResponse::ServingStatus_Name(resp.status()) << "\n";
  }
  return serving ? 0 : 1;
}

int Ctl::Diff(const std::vector<std::string>& args) {
  Expect(args.size() == 1 || args.size() == 2, "diff takes SNAP_A [SNAP_B]");
  v1::GetDiffRequest req;
  auto id = [&](const std::string& v) -> int64_t {
    char* end = nullptr;
    long long n = std::strtoll(v.c_str(), &end, 10);
    Expect(end && *end == '\0' && n > 0, "diff: snapshot ids are positive numbers");
    return n;
  };
  req.set_from_snapshot(id(args[0]));
  if (args.size() == 2) req.set_to_snapshot(id(args[1]));
  v1::GetDiffResponse resp;
  grpc::Status s = Call(admin_.get(), &v1::Admin::Stub::GetDiff, req, &resp, 30);
  if (!s.ok()) return Fail(s);
  if (opts_.json) {
    JsonWriter w(&out_);
    w.BeginObject();
    w.Field("from_snapshot", resp.from_snapshot());
    w.Field("to_snapshot", resp.to_snapshot());
    w.Field("identical", resp.identical());
    w.Field("links_added", resp.links_added());
    w.Field("links_removed", resp.links_removed());
    w.Field("links_degraded", resp.links_degraded());
    w.Field("links_upgraded", resp.links_upgraded());
    w.Field("hosts_moved", resp.hosts_moved());
    w.Field("hosts_added", resp.hosts_added());
    w.Field("hosts_removed", resp.hosts_removed());
    w.Field("routes_compared", resp.routes_compared());
    w.Field("switches_with_route_changes", resp.switches_with_route_changes());
    w.Field("route_entries_changed", resp.route_entries_changed());
    w.Field("host_pairs_changed", resp.host_pairs_changed());
    w.Field("report", resp.report());
    w.EndObject();
    out_ << "\n";
    return 0;
  }
  out_ << resp.report();
  if (!resp.report().empty() && resp.report().back() != '\n') out_ << "\n";
  return 0;
}

int Ctl::PlanJob(const std::vector<std::string>& args) {
  std::string hostfile, ranks_file, fabric_file, rankfile_out, hostfile_out, node_xml;
  std::string format = "ibnetdiscover", map_by = "core", collective, algorithm = "auto", size;
  int np = 0;
  PlanRequest req;
  const std::map<std::string, std::string*> text_options = {
      {"--hostfile", &hostfile},     {"--ranks", &ranks_file},
      {"--fabric", &fabric_file},    {"--format", &format},
      {"--map-by", &map_by},         {"--collective", &collective},
      {"--algorithm", &algorithm},   {"--size", &size},
      {"--rankfile", &rankfile_out}, {"--hostfile-out", &hostfile_out},
      {"--node-topology", &node_xml}};
  const std::map<std::string, int*> int_options = {
      {"--np", &np}, {"--root", &req.root}, {"--radix", &req.radix}};
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::string {
      Expect(i + 1 < args.size(), "plan: " + a + " needs a value");
      return args[++i];
    };
    auto int_value = [&]() -> int {
      std::string v = value();
      char* end = nullptr;
      long n = std::strtol(v.c_str(), &end, 10);
      Expect(end && *end == '\0' && n >= 0 && n < (1l << 30), "plan: " + a + " needs a number");
      return static_cast<int>(n);
    };
    if (auto it = text_options.find(a); it != text_options.end()) {
      *it->second = value();
    } else if (auto it = int_options.find(a); it != int_options.end()) {
      *it->second = int_value();
    } else {
      throw UsageError("plan: unknown argument " + a);
    }
  }
  Expect(!hostfile.empty(), "plan: --hostfile is required");
  Expect(!collective.empty(), "plan: --collective is required");
  Expect(!size.empty(), "plan: --size is required");
  Expect(map_by == "core" || map_by == "node" || map_by == "slot",
         "plan: --map-by must be core or node");
  Expect(req.radix >= 2, "plan: --radix must be >= 2");
  auto fail = [&](const absl::Status& s) {
    err_ << "toporrctl: " << s.message() << "\n";
    return 1;
  };
  auto coll = mapping::ParseCollective(collective);
  if (!coll.ok()) throw UsageError("plan: " + std::string(coll.status().message()));
  req.collective = *coll;
  if (algorithm != "auto") {
    auto alg = mapping::ParseAlgorithm(algorithm);
    if (!alg.ok()) throw UsageError("plan: " + std::string(alg.status().message()));
    req.algorithm = *alg;
  }
  auto bytes = ParseBytes(size);
  if (!bytes.ok()) throw UsageError("plan: " + std::string(bytes.status().message()));
  req.message_bytes = *bytes;

  std::string error;
  std::string host_text = ReadFileOr(hostfile, &error);
  if (!error.empty()) return err_ << "toporrctl: " << error << "\n", 1;
  auto hosts = ParseHostfile(host_text, hostfile);
  if (!hosts.ok()) return fail(hosts.status());
  NodeShape shape;
  mapping::IntraHostModel intra;
  if (!node_xml.empty()) {
    collectors::HwlocTopology::Options hopts;
    hopts.source = collectors::HwlocSource::XmlFile(node_xml);
    auto topo = collectors::HwlocTopology::Create(hopts);
    if (!topo.ok()) return fail(topo.status());
    shape.core_slots = CoreSlots(**topo);
    auto model = IntraHostModelFromHwloc(**topo);
    if (!model.ok()) return fail(model.status());
    intra = *model;
  }
  absl::StatusOr<mapping::Placement> placement;
  if (!ranks_file.empty()) {
    std::string ranks_text = ReadFileOr(ranks_file, &error);
    if (!error.empty()) return err_ << "toporrctl: " << error << "\n", 1;
    placement = ExplicitPlacement(*hosts, ranks_text, ranks_file, shape);
  } else {
    placement = InitialPlacement(*hosts, map_by == "node" ? MapBy::kNode : MapBy::kCore, np, shape);
  }
  if (!placement.ok()) return fail(placement.status());

  absl::StatusOr<JobCosts> costs;
  fabric::Fabric fabric;  // must outlive `costs` when loaded offline
  std::string source;
  if (!fabric_file.empty()) {
    auto fmt = collectors::ParseInputFormat(format);
    if (!fmt.ok()) throw UsageError("plan: " + std::string(fmt.status().message()));
    std::string content = ReadFileOr(fabric_file, &error);
    if (!error.empty()) return err_ << "toporrctl: " << error << "\n", 1;
    collectors::FabricInput input;
    input.format = *fmt;
    input.source_name = Basename(fabric_file);
    input.content = content;
    auto parsed = collectors::ParseFabricInput(input);
    if (!parsed.ok()) return fail(parsed.status());
    fabric = std::move(*parsed);
    costs = JobCostsFromFabric(fabric, hosts->names);
    source = "fabric " + Basename(fabric_file) + " (routes modelled)";
  } else {
    v1::GetCostMatrixRequest mreq;
    for (const auto& h : hosts->names) mreq.add_hosts(h);
    mreq.set_compact(true);
    v1::GetCostMatrixResponse mresp;
    grpc::Status s = Call(topo_.get(), &v1::Topology::Stub::GetCostMatrix, mreq, &mresp, 10);
    if (!s.ok()) return Fail(s);
    absl::StatusOr<CostMatrixArrays> m = DecodeCostMatrix(mresp);
    if (!m.ok()) return fail(m.status());
    costs = JobCostsFromMatrix(
        m->n, std::vector<double>(m->latency_ns.begin(), m->latency_ns.end()),
        std::vector<double>(m->bottleneck_gbps.begin(), m->bottleneck_gbps.end()));
    source = "toporrd snapshot " + std::to_string(mresp.snapshot_id()) +
             " (no routes: contention not modelled)";
  }
  if (!costs.ok()) return fail(costs.status());
  auto plan = Plan(req, *placement, *costs->costs, costs->routes.get(), intra);
  if (!plan.ok()) return fail(plan.status());

  auto write = [&](const std::string& path, const std::string& text) {
    std::ofstream f(path);
    f << text;
    if (!f) {
      err_ << "toporrctl: cannot write " << path << "\n";
      return false;
    }
    return true;
  };
  if (!rankfile_out.empty() && !write(rankfile_out, Rankfile(*plan, *placement, *hosts))) return 1;
  if (!hostfile_out.empty() && !write(hostfile_out, ReorderedHostfile(*plan, *placement, *hosts))) {
    return 1;
  }
  const double speedup = plan->after.time_ns > 0 ? plan->before.time_ns / plan->after.time_ns : 1;
  if (opts_.json) {
    JsonWriter w(&out_);
    auto cand = [&](const PlanCandidate& c) {
      w.BeginObject();
      w.Field("algorithm", c.algorithm);
      w.Field("effective_algorithm", c.effective);
      w.Field("mapping", c.mapping);
      w.Field("time_ns", c.time_ns);
      w.Field("max_link_load", static_cast<int64_t>(c.max_link_load));
      w.Field("hop_bytes", c.hop_bytes);
      w.EndObject();
    };
    w.BeginObject();
    w.Field("collective", collective);
    w.Field("algorithm", plan->algorithm);
    w.Field("message_bytes", req.message_bytes);
    w.Field("ranks", static_cast<int64_t>(placement->size()));
    w.Field("hosts", static_cast<int64_t>(hosts->names.size()));
    w.Field("cost_source", source);
    w.Field("reordered", plan->reordered);
    w.Field("speedup", speedup);
    w.Key("before");
    cand(plan->before);
    w.Key("after");
    cand(plan->after);
    w.Key("new_order");
    w.BeginArray();
    for (int32_t old_rank : plan->mapping) w.Int(old_rank);
    w.EndArray();
    w.Key("candidates");
    w.BeginArray();
    for (const auto& c : plan->candidates) cand(c);
    w.EndArray();
    w.EndObject();
    out_ << "\n";
    return 0;
  }
  out_ << collective << " of " << req.message_bytes << " bytes over " << placement->size()
       << " ranks on " << hosts->names.size() << " hosts; costs from " << source << "\n";
  out_ << "algorithm: " << plan->algorithm
       << (plan->after.effective != plan->algorithm
               ? " (Open MPI runs " + plan->after.effective + " at this size)"
               : "")
       << "\n";
  const bool contention = costs->routes != nullptr;
  auto load = [&](const PlanCandidate& c) {
    return contention ? " (max link load " + std::to_string(c.max_link_load) + ")" : std::string();
  };
  out_ << "predicted time: before " << Fixed(plan->before.time_ns / 1000, 1) << " us"
       << load(plan->before) << ", after " << Fixed(plan->after.time_ns / 1000, 1) << " us"
       << load(plan->after) << ", speedup " << Fixed(speedup, 2) << "x\n";
  if (!plan->reordered) {
    out_ << "no reordering is predicted to help: keep the current order\n";
  } else {
    out_ << "new rank order (new rank: old rank@host):\n";
    for (size_t r = 0; r < plan->mapping.size(); ++r) {
      const auto& loc = placement->ranks[plan->mapping[r]];
      out_ << "  " << r << ": " << plan->mapping[r] << "@" << hosts->names[loc.host]
           << ((r + 1) % 8 == 0 || r + 1 == plan->mapping.size() ? "\n" : "");
    }
  }
  out_ << "candidates:\n";
  for (const auto& c : plan->candidates) {
    out_ << "  " << std::left << std::setw(24) << c.algorithm << std::setw(16) << c.mapping
         << std::right << std::setw(12) << Fixed(c.time_ns / 1000, 1) << " us"
         << (contention ? "  load " + std::to_string(c.max_link_load) : std::string()) << "\n";
  }
  if (!rankfile_out.empty()) out_ << "rankfile written to " << rankfile_out << "\n";
  if (!hostfile_out.empty()) {
    out_ << "reordered hostfile written to " << hostfile_out << " (use: mpirun --hostfile "
         << hostfile_out << " --map-by seq ...)\n";
  }
  return 0;
}

}  // namespace

int RunCtl(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  Options opts;
  const char* env_socket = std::getenv("TOPORR_SOCKET");
  opts.socket = env_socket && *env_socket ? env_socket : "/run/toporr/toporrd.sock";
  std::string cmd;
  std::vector<std::string> rest;
  try {
    for (size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      auto value = [&]() -> std::string {
        Expect(i + 1 < args.size(), a + " needs a value");
        return args[++i];
      };
      if (a == "-h" || a == "--help" || (cmd.empty() && a == "help")) {
        out << kUsage;
        return 0;
      } else if (a == "--socket") {
        opts.socket = value();
      } else if (a == "--target") {
        opts.target = value();
      } else if (a == "--json") {
        opts.json = true;
      } else if (a == "--timeout") {
        std::string v = value();
        char* end = nullptr;
        opts.timeout_s = std::strtod(v.c_str(), &end);
        Expect(end && *end == '\0' && opts.timeout_s > 0, "--timeout needs seconds > 0");
      } else if (cmd.empty()) {
        Expect(a.empty() || a[0] != '-', "unknown option " + a);
        cmd = a;
      } else {
        rest.push_back(a);
      }
    }
    Expect(!cmd.empty(), "a COMMAND is required");
    Ctl ctl(opts, out, err);
    return ctl.Run(cmd, rest);
  } catch (const UsageError& e) {
    err << "toporrctl: " << e.message << "\n\n" << kUsage;
    return 2;
  }
}

}  // namespace toporr::client

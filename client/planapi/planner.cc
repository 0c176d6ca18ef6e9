#include "client/planapi/planner.h"

#include <fstream>
#include <sstream>
#include <unordered_map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "client/costs/cost_file.h"
#include "client/costs/cost_matrix_codec.h"
#include "client/costs/daemon_channel.h"
#include "client/costs/daemon_failover.h"
#include "client/plan/plan.h"
#include "collectors/fabric_input.h"
#include "common/json_writer.h"
#include "common/status_macros.h"
#include "fabric/fabric.h"
#include "mapping/costs/host_costs.h"
#include "mapping/routes/table_routes.h"
#include "toporr/v1/toporr.grpc.pb.h"

namespace toporr::client::planapi {

// The daemons of the configuration (one, or a standby list), each with one channel for the
// planner's life, asked as client/costs/daemon_failover.h says under the configured deadline.
// A failure a daemon answered keeps its code and reason; one none answered names each daemon
// and what kept it from answering (ExplainRpcFailure, BriefRpcFailure for a list).
class Planner::Daemon {
 public:
  static absl::StatusOr<std::shared_ptr<Daemon>> Create(const ClientOptions& options) {
    const DaemonEndpoint configured = DaemonEndpoint::Of(options);
    absl::StatusOr<std::vector<DaemonEndpoint>> endpoints = DaemonEndpoints(configured);
    if (!endpoints.ok()) {
      return absl::Status(
          endpoints.status().code(),
          absl::StrCat("toporrd at ", configured.Describe(), ": ", endpoints.status().message()));
    }
    auto daemon = std::shared_ptr<Daemon>(new Daemon(options.deadline_ms));
    std::vector<std::string> names;
    for (DaemonEndpoint& endpoint : *endpoints) {
      absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = NewDaemonChannel(endpoint);
      if (!channel.ok()) {
        return absl::Status(
            channel.status().code(),
            absl::StrCat("toporrd at ", endpoint.Describe(), ": ", channel.status().message()));
      }
      names.push_back(endpoint.Name());
      daemon->stubs_.push_back(v1::Topology::NewStub(*channel));
      daemon->endpoints_.push_back(std::move(endpoint));
    }
    daemon->target_ =
        daemon->endpoints_.size() == 1 ? daemon->endpoints_[0].Describe() : configured.Describe();
    daemon->failover_ = std::make_unique<DaemonFailover>(DaemonFailover::Options{std::move(names)});
    return daemon;
  }

  const std::string& target() const { return target_; }

  template <typename Request, typename Response>
  absl::Status Call(const char* method,
                    grpc::Status (v1::Topology::Stub::*rpc)(grpc::ClientContext*, const Request&,
                                                            Response*),
                    const Request& request, Response* response) const {
    auto ask = [&](int i, std::chrono::steady_clock::time_point until) -> DaemonFailover::Attempt {
      const DaemonEndpoint& endpoint = endpoints_[i];
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() +
                           (until - std::chrono::steady_clock::now()));
      response->Clear();
      const grpc::Status s = (stubs_[i].get()->*rpc)(&context, request, response);
      if (s.ok()) return {absl::OkStatus(), false};
      const bool list = endpoints_.size() > 1;
      std::string why;
      if (s.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
        why = list ? absl::StrCat("no answer within its share of deadline_ms=", deadline_ms_)
                   : absl::StrCat("no answer within deadline_ms=", deadline_ms_, " ms");
      } else {
        why = list ? BriefRpcFailure(endpoint, s) : ExplainRpcFailure(endpoint, s);
      }
      const bool failover = DaemonDidNotAnswerCall(endpoint, s);
      if (failover && s.error_code() == grpc::StatusCode::UNAVAILABLE) {
        absl::StrAppend(&why, " (is toporrd running?)");
      }
      return {
          absl::Status(static_cast<absl::StatusCode>(s.error_code()),
                       absl::StrCat("toporrd at ", endpoint.Describe(), ": ", method, ": ", why)),
          failover};
    };
    const DaemonFailover::Result r = failover_->Run(
        std::chrono::steady_clock::now() + std::chrono::milliseconds(deadline_ms_), ask);
    if (r.daemon >= 0 || r.unanswered.size() <= 1) return r.status;
    return absl::Status(r.status.code(),
                        absl::StrCat("cannot reach toporrd: ", r.status.message()));
  }

  // The matrix over `hosts`, compact, with routes up to kMaxRouteHosts hosts.
  absl::StatusOr<ServedCostMatrix> Matrix(const std::vector<std::string>& hosts) const {
    v1::GetCostMatrixRequest req;
    for (const std::string& h : hosts) req.add_hosts(h);
    req.set_compact(true);
    req.set_with_routes(hosts.size() <= kMaxRouteHosts);
    v1::GetCostMatrixResponse resp;
    RETURN_IF_ERROR(Call("GetCostMatrix", &v1::Topology::Stub::GetCostMatrix, req, &resp));
    auto bad = [&](const absl::Status& status) {
      return absl::DataLossError(absl::StrCat("toporrd at ", target_, ": ", status.message()));
    };
    absl::StatusOr<CostMatrixArrays> m = DecodeCostMatrix(resp);
    if (!m.ok()) return bad(m.status());
    ServedCostMatrix served;
    served.snapshot_id = resp.snapshot_id();
    served.n = m->n;
    served.latency_ns.assign(m->latency_ns.begin(), m->latency_ns.end());
    served.bottleneck_gbps.assign(m->bottleneck_gbps.begin(), m->bottleneck_gbps.end());
    served.routes_missing = resp.routes_missing();
    if (resp.routes().offsets_size() > 0) {
      const int n = static_cast<int>(hosts.size());
      absl::StatusOr<std::vector<mapping::RouteRow>> rows = DecodeRouteRows(resp.routes(), n, n);
      if (!rows.ok()) return bad(rows.status());
      absl::StatusOr<std::unique_ptr<mapping::TableRoutes>> routes =
          mapping::TableRoutes::Create(*rows);
      if (!routes.ok()) return bad(routes.status());
      served.routes = *std::move(routes);
    }
    return served;
  }

 private:
  explicit Daemon(int deadline_ms) : deadline_ms_(deadline_ms) {}

  const int deadline_ms_;
  std::string target_;
  std::vector<DaemonEndpoint> endpoints_;
  std::vector<std::unique_ptr<v1::Topology::Stub>> stubs_;
  std::unique_ptr<DaemonFailover> failover_;  // its state is under its own lock
};

namespace {

std::string BaseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The matrix of a TOPORRC cost file over `hosts` (costs only: its routes are not used).
absl::StatusOr<ServedCostMatrix> CostFileMatrix(const std::string& path,
                                                const std::vector<std::string>& hosts) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open the cost file"));
  std::stringstream bytes;
  bytes << in.rdbuf();
  ASSIGN_OR_RETURN(CostFile file, DecodeCostFile(bytes.str(), path));
  std::unordered_map<std::string, int> index;
  for (size_t i = 0; i < file.hosts.size(); ++i) index[file.hosts[i]] = static_cast<int>(i);
  std::vector<int> ids;
  for (const std::string& h : hosts) {
    auto it = index.find(h);
    if (it == index.end()) {
      return absl::NotFoundError(absl::StrCat(path, ": host '", h, "' is not in the cost file (",
                                              file.hosts.size(), " hosts)"));
    }
    ids.push_back(it->second);
  }
  const int n = static_cast<int>(ids.size());
  const int fn = file.costs.n;
  ServedCostMatrix served;
  served.snapshot_id = file.snapshot_id;
  served.n = n;
  served.routes_missing = "a cost file's routes are not used by the planner";
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const size_t k = static_cast<size_t>(ids[i]) * fn + ids[j];
      served.latency_ns.push_back(file.costs.latency_ns[k]);
      served.bottleneck_gbps.push_back(file.costs.bottleneck_gbps[k]);
    }
  }
  return served;
}

}  // namespace

absl::StatusOr<PlannerOptions> ApplyPlannerSettings(PlannerOptions base,
                                                    const std::vector<std::string>& settings) {
  for (const std::string& setting : settings) {
    const size_t eq = setting.find('=');
    if (eq == std::string::npos || eq == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("setting '", setting, "': expected key=value"));
    }
    const std::string key = setting.substr(0, eq), value = setting.substr(eq + 1);
    if (key == "fabric") {
      base.offline.fabric_path = value;
    } else if (key == "format") {
      absl::StatusOr<collectors::InputFormat> format = collectors::ParseInputFormat(value);
      if (!format.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("setting format=", value, ": ", format.status().message()));
      }
      base.offline.fabric_format = *format;
    } else {
      std::string expected;
      if (!ApplyClientSetting(key, value, &base.client, &expected)) {
        return absl::InvalidArgumentError(
            expected.empty() ? absl::StrCat("unknown setting '", key, "'")
                             : absl::StrCat("setting ", key, "=", value, ": expected ", expected));
      }
    }
  }
  return base;
}

absl::StatusOr<std::unique_ptr<Planner>> Planner::Create(PlannerOptions options) {
  auto planner = std::unique_ptr<Planner>(new Planner(std::move(options)));
  const PlannerOptions& o = planner->options_;
  if (!o.offline.fabric_path.empty()) {
    planner->source_ = absl::StrCat("fabric ", BaseName(o.offline.fabric_path));
  } else if (!o.client.costs_path.empty()) {
    planner->source_ = absl::StrCat("cost file ", o.client.costs_path);
  } else {
    ASSIGN_OR_RETURN(planner->daemon_, Daemon::Create(o.client));
    planner->source_ = absl::StrCat("toporrd at ", planner->daemon_->target());
  }
  return planner;
}

absl::StatusOr<JobCosts> Planner::CostsFor(const std::vector<std::string>& hosts,
                                           int64_t* snapshot_id) const {
  CostMatrixFetcher fetch;
  if (daemon_ != nullptr) {
    std::shared_ptr<Daemon> daemon = daemon_;
    fetch = [daemon, snapshot_id](const std::vector<std::string>& h) {
      absl::StatusOr<ServedCostMatrix> m = daemon->Matrix(h);
      if (m.ok()) *snapshot_id = m->snapshot_id;
      return m;
    };
  } else if (!options_.client.costs_path.empty()) {
    const std::string path = options_.client.costs_path;
    fetch = [path, snapshot_id](const std::vector<std::string>& h) {
      absl::StatusOr<ServedCostMatrix> m = CostFileMatrix(path, h);
      if (m.ok()) *snapshot_id = m->snapshot_id;
      return m;
    };
  }
  return JobCostsFor(options_.offline, hosts, fetch);
}

absl::StatusOr<RankOrder> Planner::Order(const OrderRequest& request) const {
  absl::StatusOr<RankOrder> planned = Planned(request);
  if (daemon_ == nullptr) return planned;
  std::lock_guard<std::mutex> lock(summary_mu_);
  if (!planned.ok()) {
    ++summary_.fallbacks[JobFallbackCause(planned.status())];
    return planned;
  }
  ++summary_.decisions[{request.collective, "daemon"}];
  if (planned->planned_ns > 0) summary_.AddGain(planned->launch_ns / planned->planned_ns, 0);
  return planned;
}

void Planner::RecordFallback(const absl::Status& why) const {
  if (daemon_ == nullptr || why.ok()) return;
  std::lock_guard<std::mutex> lock(summary_mu_);
  ++summary_.fallbacks[JobFallbackCause(why)];
}

absl::Status Planner::SendJobReport() const {
  if (daemon_ == nullptr || !options_.client.job_metrics) return absl::OkStatus();
  std::lock_guard<std::mutex> lock(summary_mu_);
  if (summary_.empty()) return absl::OkStatus();
  RETURN_IF_ERROR(client::SendJobReport(options_.client, summary_));
  summary_ = JobSummary();
  return absl::OkStatus();
}

absl::StatusOr<RankOrder> Planner::Planned(const OrderRequest& request) const {
  const int n = static_cast<int>(request.rank_hosts.size());
  if (n < 1) return absl::InvalidArgumentError("no processes: the host list is empty");
  PlanRequest plan;
  ASSIGN_OR_RETURN(plan.collective, mapping::ParseCollective(request.collective));
  if (!request.algorithm.empty() && request.algorithm != "auto") {
    ASSIGN_OR_RETURN(plan.algorithm, mapping::ParseAlgorithm(request.algorithm));
  }
  if (request.message_bytes < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("message size ", request.message_bytes, ": must be at least 1 byte"));
  }
  if (request.root < 0 || request.root >= n) {
    return absl::InvalidArgumentError(
        absl::StrCat("root ", request.root, " is not one of the ", n, " processes"));
  }
  plan.message_bytes = request.message_bytes;
  plan.root = request.root;
  plan.leaf_sorted = true;
  // The job's hosts in order of first appearance, each process on its host's next slot: the
  // placement `toporrctl plan --hostfile H --ranks R` makes of the same list.
  std::vector<std::string> hosts;
  std::unordered_map<std::string, int> index;
  std::vector<int> used;
  mapping::Placement placement;
  for (const std::string& h : request.rank_hosts) {
    if (h.empty()) return absl::InvalidArgumentError("an empty host name in the host list");
    auto [it, added] = index.emplace(h, static_cast<int>(hosts.size()));
    if (added) {
      hosts.push_back(h);
      used.push_back(0);
    }
    placement.ranks.push_back(SlotLocation(it->second, used[it->second]++));
  }
  placement.num_hosts = static_cast<int32_t>(hosts.size());
  RankOrder out;
  ASSIGN_OR_RETURN(JobCosts costs, CostsFor(hosts, &out.snapshot_id));
  ASSIGN_OR_RETURN(PlanResult result, Plan(plan, placement, *costs.costs, costs.routes.get()));
  out.order = std::move(result.mapping);
  out.algorithm = result.algorithm;
  out.source = costs.source.empty() ? source_ : costs.source;
  out.reordered = result.reordered;
  out.launch_ns = result.before.time_ns;
  out.planned_ns = result.after.time_ns;
  out.leaf_sorted_ns = result.leaf_sorted.time_ns;
  return out;
}

absl::StatusOr<PairCost> Planner::Cost(const std::string& a, const std::string& b) const {
  int64_t snapshot_id = 0;
  const std::vector<std::string> hosts =
      a == b ? std::vector<std::string>{a} : std::vector<std::string>{a, b};
  ASSIGN_OR_RETURN(JobCosts costs, CostsFor(hosts, &snapshot_id));
  PairCost out;
  if (a == b) return out;
  out.latency_ns = costs.costs->AlphaNs(0, 1);
  const double beta = costs.costs->BetaNs(0, 1);
  out.bottleneck_gbps = beta > 0 ? 8.0 / beta : 0;
  return out;
}

absl::StatusOr<std::string> Planner::PathJson(const std::string& a, const std::string& b) const {
  std::ostringstream text;
  JsonWriter w(&text);
  auto hop = [&w](const std::string& guid, const std::string& type, const std::string& description,
                  int in_port, int out_port, double out_rate_gbps) {
    w.BeginObject();
    w.Field("guid", guid);
    w.Field("type", type);
    w.Field("description", description);
    w.Field("in_port", in_port);
    w.Field("out_port", out_port);
    w.Field("out_rate_gbps", out_rate_gbps);
    w.EndObject();
  };
  w.BeginObject();
  if (daemon_ != nullptr) {
    v1::GetPathRequest req;
    req.set_src_host(a);
    req.set_dst_host(b);
    v1::GetPathResponse resp;
    RETURN_IF_ERROR(daemon_->Call("GetPath", &v1::Topology::Stub::GetPath, req, &resp));
    w.Field("snapshot_id", static_cast<int64_t>(resp.snapshot_id()));
    w.Field("hops", resp.cost().hops());
    w.Field("latency_ns", resp.cost().latency_ns());
    w.Field("bottleneck_gbps", resp.cost().bottleneck_gbps());
    w.Key("path");
    w.BeginArray();
    for (const v1::PathHop& h : resp.hops()) {
      hop(h.node_guid(), h.node_type(), h.description(), h.in_port(), h.out_port(),
          h.out_rate_gbps());
    }
    w.EndArray();
  } else {
    if (options_.offline.fabric_path.empty()) {
      return absl::FailedPreconditionError(
          "paths come from toporrd or a fabric dump; a cost file has none");
    }
    int64_t snapshot_id = 0;
    ASSIGN_OR_RETURN(JobCosts costs, CostsFor({a, b}, &snapshot_id));
    const fabric::Fabric& fabric = *costs.fabric;
    ASSIGN_OR_RETURN(auto host_costs,
                     mapping::HostCosts::Create(fabric, options_.offline.cost_model));
    ASSIGN_OR_RETURN(mapping::HostPath path,
                     host_costs->Path(fabric.FindHost(a), fabric.FindHost(b)));
    w.Field("snapshot_id", int64_t{0});
    w.Field("hops", path.cost.hops);
    w.Field("latency_ns", path.cost.latency_ns);
    w.Field("bottleneck_gbps", path.cost.bottleneck_gbps);
    w.Key("path");
    w.BeginArray();
    for (const mapping::PathHop& h : path.hops) {
      const fabric::Node& node = fabric.nodes[h.node];
      double rate = 0;
      if (h.out_port >= 0) {
        const fabric::Port* p = node.FindPort(h.out_port);
        if (p != nullptr && p->link >= 0) rate = fabric.links[p->link].data_rate_gbps;
      }
      hop(fabric::FormatGuid(node.guid), fabric::NodeTypeName(node.type), node.description,
          h.in_port < 0 ? 0 : h.in_port, h.out_port < 0 ? 0 : h.out_port, rate);
    }
    w.EndArray();
  }
  w.EndObject();
  return text.str();
}

}  // namespace toporr::client::planapi

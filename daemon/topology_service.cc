#include "daemon/topology_service.h"

#include <string>
#include <unordered_set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/printable.h"
#include "common/status_macros.h"
#include "daemon/cost_matrices.h"
#include "daemon/service_common.h"

namespace toporr::daemon {
namespace {

using fabric::FormatGuid;
using fabric::NodeType;

// Resolves host names against the snapshot; kNotFound names the first unknown host.
absl::StatusOr<std::vector<int>> ResolveHosts(
    const Serving& s, const google::protobuf::RepeatedPtrField<std::string>& names,
    bool allow_duplicates) {
  RETURN_IF_ERROR(CheckTexts("host name", names));
  std::vector<int> out;
  out.reserve(names.size());
  std::unordered_set<int> seen;
  for (const std::string& name : names) {
    int h = s.fabric.FindHost(name);
    if (h < 0) {
      return absl::NotFoundError(absl::StrCat("host ", Quoted(name), " is not in snapshot ",
                                              s.info.id, " (", s.fabric.hosts.size(),
                                              " hosts; see `toporrctl hosts`)"));
    }
    if (!allow_duplicates && !seen.insert(h).second) {
      return absl::InvalidArgumentError(absl::StrCat("host ", Quoted(name), " is listed twice"));
    }
    out.push_back(h);
  }
  return out;
}

void ToProto(const mapping::HostPairCost& c, v1::Cost* out) {
  out->set_hops(c.hops);
  out->set_bottleneck_gbps(c.bottleneck_gbps);
  out->set_latency_ns(c.latency_ns);
  out->set_alpha_ns(c.alpha_ns);
  out->set_beta_ns_per_byte(c.beta_ns_per_byte);
}

void HcaToProto(const fabric::Fabric& f, int ca, v1::Hca* out) {
  const fabric::Node& n = f.nodes[ca];
  out->set_guid(FormatGuid(n.guid));
  out->set_description(n.description);
  for (const fabric::Port& p : n.ports) {
    v1::HcaPort* port = out->add_ports();
    port->set_number(p.number);
    port->set_guid(FormatGuid(p.guid));
    port->set_lid(p.lid);
    port->set_lmc(p.lmc);
    if (p.link >= 0) {
      const fabric::Link& link = f.links[p.link];
      const fabric::LinkEnd& peer = f.Peer(p.link, {ca, p.number});
      const fabric::Node& pn = f.nodes[peer.node];
      if (pn.type == NodeType::kSwitch) {
        port->set_switch_guid(FormatGuid(pn.guid));
        port->set_switch_description(pn.description);
        port->set_switch_port(peer.port);
      }
      port->set_rate_gbps(link.data_rate_gbps);
    }
  }
}

constexpr int kMaxMatrixHosts = 4096;  // 16M pairs, ~150 MB on the wire

}  // namespace

absl::Status TopologyService::HoldHeavySlot(size_t hosts, HoldingReactor* reactor) {
  if (heavy_limiter_ == nullptr || hosts < static_cast<size_t>(heavy_hosts_)) {
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(RequestLimiter::Slot slot, heavy_limiter_->TryAcquire());
  reactor->Hold(std::make_shared<RequestLimiter::Slot>(std::move(slot)));
  return absl::OkStatus();
}

grpc::ServerUnaryReactor* TopologyService::GetSnapshot(grpc::CallbackServerContext* context,
                                                       const v1::GetSnapshotRequest*,
                                                       v1::GetSnapshotResponse* resp) {
  return Answer(context, __func__, [&]() -> absl::Status {
    ASSIGN_OR_RETURN(auto current, RequireCurrent(*state_));
    ToProto(current->info, true, resp->mutable_snapshot());
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* TopologyService::ListHosts(grpc::CallbackServerContext* context,
                                                     const v1::ListHostsRequest*,
                                                     v1::ListHostsResponse* resp) {
  return Answer(context, __func__, [&]() -> absl::Status {
    ASSIGN_OR_RETURN(auto current, RequireCurrent(*state_));
    const Serving& s = *current;
    resp->set_snapshot_id(s.info.id);
    for (const fabric::Host& h : s.fabric.hosts) {
      v1::Host* host = resp->add_hosts();
      host->set_name(h.name);
      for (int ca : h.cas) HcaToProto(s.fabric, ca, host->add_hcas());
    }
    for (int ca : s.fabric.anonymous_endpoints) {
      HcaToProto(s.fabric, ca, resp->add_anonymous_endpoints());
    }
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* TopologyService::GetCostRow(grpc::CallbackServerContext* context,
                                                      const v1::GetCostRowRequest* req,
                                                      v1::GetCostRowResponse* resp) {
  return Answer(context, __func__, [&]() -> absl::Status {
    if (req->host().empty()) return absl::InvalidArgumentError("host is required");
    RETURN_IF_ERROR(CheckText("host", req->host()));
    RETURN_IF_ERROR(CheckText("host_list", req->host_list()));
    if (!req->host_list().empty() && !req->hosts().empty()) {
      return absl::InvalidArgumentError("give the columns as hosts or as host_list, not both");
    }
    ASSIGN_OR_RETURN(auto current, RequireCurrent(*state_));
    const Serving& s = *current;
    int self = s.fabric.FindHost(req->host());
    if (self < 0) {
      return absl::NotFoundError(
          absl::StrCat("host ", Quoted(req->host()), " is not in snapshot ", s.info.id));
    }
    resp->set_host(req->host());
    if (!req->host_list().empty()) {
      ASSIGN_OR_RETURN(HostLists::View list,
                       host_lists_->Find(req->host_list(), s, /*want_rows=*/req->compact()));
      RETURN_IF_ERROR(FillListedCostRow(s, self, list, req->compact(), resp));
      if (req->with_routes()) {
        FillRouteTable(s, {self}, list.list->hosts, resp->mutable_routes(),
                       resp->mutable_routes_missing());
      }
      return absl::OkStatus();
    }
    std::vector<int> cols;
    if (req->hosts().empty()) {
      cols.resize(s.fabric.hosts.size());
      for (size_t i = 0; i < cols.size(); ++i) cols[i] = static_cast<int>(i);
    } else {
      ASSIGN_OR_RETURN(cols, ResolveHosts(s, req->hosts(), /*allow_duplicates=*/true));
    }
    RETURN_IF_ERROR(FillCostRow(s, self, cols, req->compact(), resp));
    if (req->with_routes()) {
      FillRouteTable(s, {self}, cols, resp->mutable_routes(), resp->mutable_routes_missing());
    }
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* TopologyService::GetCostMatrix(grpc::CallbackServerContext* context,
                                                         const v1::GetCostMatrixRequest* req,
                                                         v1::GetCostMatrixResponse* resp) {
  return AnswerQueued(context, __func__, [=](HoldingReactor* reactor) -> absl::Status {
    if (req->hosts().empty()) return absl::InvalidArgumentError("hosts must not be empty");
    if (req->hosts_size() > kMaxMatrixHosts) {
      return absl::InvalidArgumentError(
          absl::StrCat(req->hosts_size(), " hosts requested; at most ", kMaxMatrixHosts,
                       " per matrix (ask for rows with GetCostRow instead)"));
    }
    if (req->with_routes() && req->hosts_size() > kMaxRouteMatrixHosts) {
      return absl::InvalidArgumentError(
          absl::StrCat(req->hosts_size(), " hosts requested with routes; at most ",
                       kMaxRouteMatrixHosts, " (ask for rows with routes instead)"));
    }
    RETURN_IF_ERROR(HoldHeavySlot(req->hosts_size(), reactor));
    ASSIGN_OR_RETURN(auto current, RequireCurrent(*state_));
    const Serving& s = *current;
    ASSIGN_OR_RETURN(std::vector<int> hosts,
                     ResolveHosts(s, req->hosts(), /*allow_duplicates=*/false));
    // Answers with routes are not cached: the cache keeps compact matrices only.
    RETURN_IF_ERROR(FillCostMatrix(s, hosts, *req, req->with_routes() ? nullptr : cache_, resp));
    if (req->with_routes()) {
      FillRouteTable(s, hosts, hosts, resp->mutable_routes(), resp->mutable_routes_missing());
    }
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* TopologyService::GetQuantizedCostMatrix(
    grpc::CallbackServerContext* context, const v1::GetQuantizedCostMatrixRequest* req,
    v1::GetQuantizedCostMatrixResponse* resp) {
  return AnswerQueued(context, __func__, [=](HoldingReactor* reactor) -> absl::Status {
    if (req->hosts().empty()) return absl::InvalidArgumentError("hosts must not be empty");
    if (req->hosts_size() > kMaxMatrixHosts * 4) {
      return absl::InvalidArgumentError(
          absl::StrCat(req->hosts_size(), " hosts requested; at most ", kMaxMatrixHosts * 4));
    }
    if (req->reference_bytes() < 0) {
      return absl::InvalidArgumentError("reference_bytes must be >= 0");
    }
    RETURN_IF_ERROR(HoldHeavySlot(req->hosts_size(), reactor));
    ASSIGN_OR_RETURN(auto current, RequireCurrent(*state_));
    const Serving& s = *current;
    ASSIGN_OR_RETURN(std::vector<int> hosts,
                     ResolveHosts(s, req->hosts(), /*allow_duplicates=*/false));
    RETURN_IF_ERROR(FillQuantizedCostMatrix(s, hosts, req->reference_bytes(), resp));
    *resp->mutable_hosts() = req->hosts();
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* TopologyService::GetPath(grpc::CallbackServerContext* context,
                                                   const v1::GetPathRequest* req,
                                                   v1::GetPathResponse* resp) {
  return Answer(context, __func__, [&]() -> absl::Status {
    if (req->src_host().empty() || req->dst_host().empty()) {
      return absl::InvalidArgumentError("src_host and dst_host are required");
    }
    ASSIGN_OR_RETURN(auto current, RequireCurrent(*state_));
    const Serving& s = *current;
    google::protobuf::RepeatedPtrField<std::string> names;
    *names.Add() = req->src_host();
    *names.Add() = req->dst_host();
    ASSIGN_OR_RETURN(std::vector<int> ends, ResolveHosts(s, names, /*allow_duplicates=*/true));
    ASSIGN_OR_RETURN(mapping::HostPath path, s.costs->Path(ends[0], ends[1]));
    resp->set_snapshot_id(s.info.id);
    resp->set_route_kind(RouteKindOf(s));
    ToProto(path.cost, resp->mutable_cost());
    for (const mapping::PathHop& hop : path.hops) {
      const fabric::Node& n = s.fabric.nodes[hop.node];
      v1::PathHop* out = resp->add_hops();
      out->set_node_guid(FormatGuid(n.guid));
      out->set_node_type(fabric::NodeTypeName(n.type));
      out->set_description(n.description);
      out->set_in_port(hop.in_port < 0 ? 0 : hop.in_port);
      out->set_out_port(hop.out_port < 0 ? 0 : hop.out_port);
      if (hop.out_port >= 0) {
        const fabric::Port* p = n.FindPort(hop.out_port);
        if (p != nullptr && p->link >= 0) {
          out->set_out_rate_gbps(s.fabric.links[p->link].data_rate_gbps);
        }
      }
    }
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* TopologyService::RegisterHostList(grpc::CallbackServerContext* context,
                                                            const v1::RegisterHostListRequest* req,
                                                            v1::RegisterHostListResponse* resp) {
  std::string peer = peers_ != nullptr
                         ? peers_->Identity(context->peer(), context->auth_context().get())
                         : context->peer();
  return AnswerQueued(context, __func__, [=](HoldingReactor* reactor) -> absl::Status {
    if (req->hosts().empty()) return absl::InvalidArgumentError("hosts must not be empty");
    RETURN_IF_ERROR(CheckTexts("host name", req->hosts()));
    ASSIGN_OR_RETURN(auto current, RequireCurrent(*state_));
    ASSIGN_OR_RETURN(std::string token, host_lists_->Register(req->hosts(), *current, peer));
    resp->set_host_list(token);
    resp->set_snapshot_id(current->info.id);
    resp->set_num_hosts(req->hosts_size());
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* TopologyService::GetStats(grpc::CallbackServerContext* context,
                                                    const v1::GetStatsRequest*,
                                                    v1::GetStatsResponse* resp) {
  return Answer(context, __func__, [&]() -> absl::Status {
    if (stats_ != nullptr) {
      for (const auto& [method, count] : stats_->Counts()) {
        (*resp->mutable_requests())[method] = count;
      }
    }
    auto current = state_->Current();
    resp->set_snapshot_id(current != nullptr ? current->info.id : 0);
    resp->set_host_lists(static_cast<int64_t>(host_lists_->size()));
    // This call is recorded once answered: count it here already.
    ++(*resp->mutable_requests())["GetStats"];
    if (metrics_ != nullptr) resp->set_metrics_text(RenderDaemonMetrics(*metrics_));
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* TopologyService::GetTopology(grpc::CallbackServerContext* context,
                                                       const v1::GetTopologyRequest*,
                                                       v1::GetTopologyResponse* resp) {
  return AnswerQueued(context, __func__, [=](HoldingReactor* reactor) -> absl::Status {
    ASSIGN_OR_RETURN(auto current, RequireCurrent(*state_));
    RETURN_IF_ERROR(HoldHeavySlot(current->fabric.hosts.size(), reactor));
    TopologyToProto(*current, resp);
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* TopologyService::ReportJob(grpc::CallbackServerContext* context,
                                                     const v1::ReportJobRequest* req,
                                                     v1::ReportJobResponse*) {
  return Answer(context, __func__, [&]() -> absl::Status {
    if (jobs_ == nullptr) return absl::UnimplementedError("this server does not count jobs");
    const std::string caller =
        peers_ != nullptr ? peers_->Identity(context->peer(), context->auth_context().get())
                          : context->peer();
    return jobs_->Record(caller, *req);
  });
}

}  // namespace toporr::daemon

#include "daemon/grpc_services.h"

#include <algorithm>
#include <unordered_set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/logging.h"
#include "common/printable.h"
#include "common/status_macros.h"
#include "daemon/client_identity.h"
#include "daemon/cost_matrices.h"
#include "daemon/grpc_status.h"
#include "daemon/ingest_spool.h"

namespace toporr::daemon {
namespace {

using fabric::FormatGuid;
using fabric::NodeType;

absl::StatusOr<std::shared_ptr<const Serving>> RequireCurrent(const FabricState& state) {
  auto current = state.Current();
  if (current == nullptr) {
    return absl::FailedPreconditionError(
        "no fabric has been ingested yet; an admin must run `toporrctl ingest`");
  }
  return current;
}

// A request field that must hold printable UTF-8 (a `bytes` field on the wire, see the
// proto): kInvalidArgument naming the field and the first bad byte.
absl::Status CheckText(const char* field, const std::string& value) {
  if (const size_t bad = FirstUnprintable(value); bad != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, " ", Quoted(value, 80), ": ", DescribeUnprintable(value, bad)));
  }
  return absl::OkStatus();
}

absl::Status CheckTexts(const char* field,
                        const google::protobuf::RepeatedPtrField<std::string>& values) {
  for (const std::string& v : values) RETURN_IF_ERROR(CheckText(field, v));
  return absl::OkStatus();
}

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

// The wire enum and the collectors' formats, one to one.
constexpr std::pair<v1::InputFormat, collectors::InputFormat> kFormats[] = {
    {v1::IBNETDISCOVER, collectors::InputFormat::kIbnetdiscover},
    {v1::OPAREPORT_XML, collectors::InputFormat::kOpareportXml},
    {v1::OPAREPORT_LINKS, collectors::InputFormat::kOpareportLinks},
    {v1::LFT, collectors::InputFormat::kLft},
    {v1::OPENSM_LFTS, collectors::InputFormat::kOpensmLfts},
    {v1::IBTRACERT, collectors::InputFormat::kIbtracert},
    {v1::PLOGP, collectors::InputFormat::kPlogp},
};

constexpr int kMaxMatrixHosts = 4096;

// Log lines quote at most this much of a message or a name (one line each).
constexpr size_t kMaxLoggedMessage = 1024;  // 16M pairs, ~150 MB on the wire

}  // namespace

void ToProto(const IngestOutcome& outcome, v1::IngestResponse* resp) {
  ToProto(outcome.snapshot, true, resp->mutable_snapshot());
  resp->set_created(outcome.created);
  for (const auto& w : outcome.warnings) resp->add_warnings(w);
  resp->set_traces_checked(outcome.traces_checked);
  resp->set_trace_disagreements(outcome.trace_disagreements);
}

void TopologyToProto(const Serving& s, v1::GetTopologyResponse* out) {
  const fabric::Fabric& f = s.fabric;
  ToProto(s.info, true, out->mutable_snapshot());
  std::vector<int> order(f.nodes.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::sort(order.begin(), order.end(), [&](int x, int y) {
    return std::make_pair(f.nodes[x].type, f.nodes[x].guid) <
           std::make_pair(f.nodes[y].type, f.nodes[y].guid);
  });
  std::vector<int> position(f.nodes.size());
  for (size_t i = 0; i < order.size(); ++i) {
    position[order[i]] = static_cast<int>(i);
    const fabric::Node& n = f.nodes[order[i]];
    v1::TopologyNode* node = out->add_nodes();
    node->set_guid(FormatGuid(n.guid));
    node->set_type(fabric::NodeTypeName(n.type));
    node->set_description(n.description);
    node->set_lid(n.lid);
    node->set_num_ports(n.num_ports);
    if (n.host >= 0) node->set_host(f.hosts[n.host].name);
  }
  struct Ends {
    int a_node, a_port, b_node, b_port, link;
  };
  std::vector<Ends> links;
  links.reserve(f.links.size());
  for (size_t i = 0; i < f.links.size(); ++i) {
    const fabric::Link& l = f.links[i];
    Ends e{position[l.a.node], l.a.port, position[l.b.node], l.b.port, static_cast<int>(i)};
    if (std::make_pair(e.b_node, e.b_port) < std::make_pair(e.a_node, e.a_port)) {
      std::swap(e.a_node, e.b_node);
      std::swap(e.a_port, e.b_port);
    }
    links.push_back(e);
  }
  std::sort(links.begin(), links.end(), [](const Ends& x, const Ends& y) {
    return std::make_pair(x.a_node, x.a_port) < std::make_pair(y.a_node, y.a_port);
  });
  for (const Ends& e : links) {
    const fabric::Link& l = f.links[e.link];
    v1::TopologyLink* link = out->add_links();
    link->set_a_node(e.a_node);
    link->set_a_port(e.a_port);
    link->set_b_node(e.b_node);
    link->set_b_port(e.b_port);
    link->set_width_lanes(l.width_lanes);
    link->set_speed(fabric::LinkSpeedName(l.speed));
    link->set_rate_gbps(l.data_rate_gbps);
  }
  for (const fabric::Host& h : f.hosts) out->add_hosts(h.name);
}

void ToProto(const db::SnapshotInfo& info, bool current, v1::SnapshotInfo* out) {
  out->set_id(info.id);
  out->set_created_unix_ms(info.created_unix_ms);
  out->set_source_kind(info.source_kind);
  out->set_source_name(info.source_name);
  out->set_content_hash(info.content_hash);
  out->set_num_switches(info.num_switches);
  out->set_num_cas(info.num_cas);
  out->set_num_routers(info.num_routers);
  out->set_num_aggregation(info.num_aggregation);
  out->set_num_links(info.num_links);
  out->set_num_hosts(info.num_hosts);
  out->set_num_anonymous(info.num_anonymous);
  out->set_current(current);
  out->set_num_forwarding_tables(info.num_forwarding_tables);
}

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

grpc::Status AdminService::Ingest(grpc::ServerContext* context, const v1::IngestRequest* req,
                                  v1::IngestResponse* resp) {
  return Serve(context, stats_, __func__, [&]() -> absl::Status {
    RETURN_IF_ERROR(Authorize(context, "Ingest"));
    return IngestLogged(req, resp);
  });
}

grpc::Status AdminService::IngestStream(grpc::ServerContext* context,
                                        grpc::ServerReader<v1::IngestChunk>* reader,
                                        v1::IngestResponse* resp) {
  return Serve(context, stats_, __func__, [&]() -> absl::Status {
    RETURN_IF_ERROR(Authorize(context, "IngestStream"));
    v1::IngestRequest req;
    absl::Status received = ReceiveChunks(reader, &req);
    // Before a header arrived, nothing names an ingest to log.
    if (!received.ok() && req.source_name().empty()) return received;
    return IngestLogged(&req, resp, std::move(received));
  });
}

absl::Status AdminService::ReceiveChunks(grpc::ServerReader<v1::IngestChunk>* reader,
                                         v1::IngestRequest* req) {
  v1::IngestChunk chunk;
  if (!reader->Read(&chunk)) {
    return absl::InvalidArgumentError("IngestStream: the client sent no chunk");
  }
  if (!chunk.has_header()) {
    return absl::InvalidArgumentError("IngestStream: the first chunk must carry the header");
  }
  *req = std::move(*chunk.mutable_header());
  if (!req->content().empty()) {
    return absl::InvalidArgumentError(
        "IngestStream: the header's content must be empty (the content comes as chunk data)");
  }
  ASSIGN_OR_RETURN(std::unique_ptr<IngestSpool> spool, IngestSpool::Create(spool_dir_));
  do {
    if (chunk.has_header() && spool->size() > 0) {
      return absl::InvalidArgumentError("IngestStream: only the first chunk carries a header");
    }
    if (max_ingest_bytes_ > 0 &&
        spool->size() + static_cast<int64_t>(chunk.data().size()) > max_ingest_bytes_) {
      return absl::InvalidArgumentError(absl::StrCat(Printable(req->source_name(), kMaxQuotedName),
                                                     ": more than max_ingest_bytes ",
                                                     max_ingest_bytes_, " bytes"));
    }
    RETURN_IF_ERROR(spool->Append(chunk.data()));
    chunk.Clear();
  } while (reader->Read(&chunk));
  ASSIGN_OR_RETURN(*req->mutable_content(), spool->ReadAll());
  return absl::OkStatus();
}

absl::Status AdminService::IngestLogged(const v1::IngestRequest* req, v1::IngestResponse* resp,
                                        absl::Status received) {
  const absl::Time start = absl::Now();
  absl::Status s = received.ok() ? IngestChecked(req, resp) : std::move(received);
  const std::string format = absl::AsciiStrToLower(v1::InputFormat_Name(req->format()));
  // One line per ingest, whatever the source name and the refusal hold.
  const std::string source = Printable(req->source_name(), kMaxQuotedName);
  if (req->verify_only()) {  // a question, not an ingest: logged, not counted as one
    TOPORR_LOG(INFO) << "ingest " << format << " " << source << " verified: "
                     << (s.ok() ? absl::StrCat("stored as snapshot ", resp->snapshot().id())
                                : Printable(std::string(s.message()), kMaxLoggedMessage));
    return s;
  }
  const std::string result = !s.ok() ? "refused" : resp->created() ? "created" : "unchanged";
  if (stats_ != nullptr) stats_->RecordIngest(format, result, absl::Now() - start);
  if (!s.ok()) {
    TOPORR_LOG(WARNING) << "ingest " << format << " " << source
                        << " refused: " << Printable(std::string(s.message()), kMaxLoggedMessage);
  } else {
    TOPORR_LOG(INFO) << "ingest " << format << " " << source << ": "
                     << (resp->created() ? "new snapshot " : "unchanged, snapshot ")
                     << resp->snapshot().id() << " (" << resp->snapshot().num_hosts() << " hosts, "
                     << resp->snapshot().num_switches() << " switches, "
                     << resp->snapshot().num_forwarding_tables() << " forwarding tables)";
  }
  return s;
}

absl::Status AdminService::Authorize(const grpc::ServerContext* context, const char* method) {
  if (privileged_) return absl::OkStatus();
  if (network_filter_ != nullptr) RETURN_IF_ERROR(network_filter_->Admit(*context, method));
  std::string who = describe_peer_ ? describe_peer_(context->peer()) : context->peer();
  std::string reason = "admin_denied";
  std::shared_ptr<const grpc::AuthContext> auth = context->auth_context();
  if (auth != nullptr && auth->IsPeerAuthenticated()) {
    // The identity is the certificate's one common name (client_identity.h).
    absl::StatusOr<std::string> cn = CertificateIdentity(*auth);
    if (cn.ok() && std::find(tls_admin_clients_.begin(), tls_admin_clients_.end(), *cn) !=
                       tls_admin_clients_.end()) {
      return absl::OkStatus();
    }
    who = absl::StrCat(who, cn.ok() ? " (certificate CN=" + Printable(*cn, kMaxQuotedName) + ")"
                                    : " (" + std::string(cn.status().message()) + ")");
    reason = "tls_client_not_allowed";
  }
  if (stats_ != nullptr) stats_->RecordPeerRefused(reason);
  std::string denial;
  {
    std::lock_guard<std::mutex> lock(denial_mu_);
    denial = denial_reason_;
  }
  TOPORR_LOG(WARNING) << method << " from " << who << " refused: " << denial;
  return absl::PermissionDeniedError(denial);
}

namespace {

// A unary admin method served as streamed unary: the privilege check first, the request
// message read only for an allowed client, then `serve` (the AdminService method).
template <typename Request, typename Body>
grpc::Status AuthorizeThenServe(AdminService* admin, const char* method,
                                grpc::ServerContext* context,
                                grpc::ServerUnaryStreamer<Request, v1::IngestResponse>* streamer,
                                Body&& serve) {
  if (absl::Status denied = admin->Authorize(context, method); !denied.ok()) {
    return daemon::Serve(context, admin->stats(), method, [&] { return denied; });
  }
  Request req;
  if (!streamer->Read(&req)) {
    MarkDaemonAnswer(context);
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        absl::StrCat(method, ": the client sent no request message"));
  }
  v1::IngestResponse resp;
  grpc::Status status = serve(&req, &resp);
  if (status.ok()) streamer->Write(resp);
  return status;
}

}  // namespace

grpc::Status ReadServerAdminService::StreamedIngest(
    grpc::ServerContext* context,
    grpc::ServerUnaryStreamer<v1::IngestRequest, v1::IngestResponse>* streamer) {
  return AuthorizeThenServe(admin_, "Ingest", context, streamer,
                            [&](const v1::IngestRequest* req, v1::IngestResponse* resp) {
                              return admin_->Ingest(context, req, resp);
                            });
}

grpc::Status ReadServerAdminService::StreamedDiscover(
    grpc::ServerContext* context,
    grpc::ServerUnaryStreamer<v1::DiscoverRequest, v1::IngestResponse>* streamer) {
  return AuthorizeThenServe(admin_, "Discover", context, streamer,
                            [&](const v1::DiscoverRequest* req, v1::IngestResponse* resp) {
                              return admin_->Discover(context, req, resp);
                            });
}

absl::Status AdminService::IngestChecked(const v1::IngestRequest* req, v1::IngestResponse* resp) {
  const auto* known = std::find_if(std::begin(kFormats), std::end(kFormats),
                                   [&](const auto& f) { return f.first == req->format(); });
  if (known == std::end(kFormats)) {
    return absl::InvalidArgumentError(
        absl::StrCat("unsupported input format ", v1::InputFormat_Name(req->format()),
                     " (supported: ", collectors::SupportedInputFormats(), ")"));
  }
  const InputFormat format = known->second;
  if (req->source_name().empty()) return absl::InvalidArgumentError("source_name is required");
  RETURN_IF_ERROR(CheckText("source_name", req->source_name()));
  if (req->content().empty()) {
    return absl::InvalidArgumentError(req->source_name() + ": file is empty");
  }
  if (max_ingest_bytes_ > 0 && static_cast<int64_t>(req->content().size()) > max_ingest_bytes_) {
    return absl::InvalidArgumentError(absl::StrCat(req->source_name(), ": ", req->content().size(),
                                                   " bytes exceeds max_ingest_bytes ",
                                                   max_ingest_bytes_));
  }
  IngestMode mode;
  mode.allow_shrink = req->allow_shrink();
  mode.verify_only = req->verify_only();
  ASSIGN_OR_RETURN(IngestOutcome outcome, state_->Ingest(format, req->source_name(), req->content(),
                                                         req->host_map(), mode));
  ToProto(outcome, resp);
  return absl::OkStatus();
}

grpc::Status AdminService::ListSnapshots(grpc::ServerContext* context,
                                         const v1::ListSnapshotsRequest*,
                                         v1::ListSnapshotsResponse* resp) {
  // Read-only: allowed on every connection.
  return Serve(context, stats_, __func__, [&]() -> absl::Status {
    ASSIGN_OR_RETURN(std::vector<db::SnapshotInfo> list, state_->ListSnapshots());
    auto current = state_->Current();
    for (const auto& info : list) {
      ToProto(info, current != nullptr && current->info.id == info.id, resp->add_snapshots());
    }
    return absl::OkStatus();
  });
}

grpc::Status AdminService::GetDiff(grpc::ServerContext* context, const v1::GetDiffRequest* req,
                                   v1::GetDiffResponse* resp) {
  return Serve(context, stats_, __func__, [&]() -> absl::Status {
    int64_t to = req->to_snapshot();
    if (to == 0) {
      ASSIGN_OR_RETURN(auto current, RequireCurrent(*state_));
      to = current->info.id;
    }
    if (req->from_snapshot() <= 0 || to <= 0) {
      return absl::InvalidArgumentError("from_snapshot must be a snapshot id (see snapshots)");
    }
    ASSIGN_OR_RETURN(SnapshotDiff d, state_->Diff(req->from_snapshot(), to));
    const fabric::FabricDiff& diff = d.diff;
    resp->set_from_snapshot(req->from_snapshot());
    resp->set_to_snapshot(to);
    resp->set_identical(diff.empty());
    resp->set_links_added(diff.links_added.size());
    resp->set_links_removed(diff.links_removed.size());
    resp->set_links_degraded(diff.links_degraded.size());
    resp->set_links_upgraded(diff.links_upgraded.size());
    resp->set_hosts_moved(diff.hosts_moved.size());
    resp->set_hosts_added(diff.hosts_added.size());
    resp->set_hosts_removed(diff.hosts_removed.size());
    resp->set_routes_compared(diff.routes_compared);
    resp->set_switches_with_route_changes(diff.route_changes.size());
    int64_t entries = 0;
    for (const auto& c : diff.route_changes) entries += c.entries_changed;
    resp->set_route_entries_changed(entries);
    resp->set_host_pairs_changed(diff.host_pairs_changed);
    resp->set_report(d.report);
    return absl::OkStatus();
  });
}

grpc::Status AdminService::Discover(grpc::ServerContext* context, const v1::DiscoverRequest* req,
                                    v1::IngestResponse* resp) {
  return Serve(context, stats_, __func__, [&]() -> absl::Status {
    RETURN_IF_ERROR(Authorize(context, "Discover"));
    if (sweeper_ == nullptr) {
      return absl::FailedPreconditionError("live discovery is not configured on this daemon");
    }
    absl::StatusOr<IngestOutcome> swept = sweeper_->SweepNow(req->allow_shrink());
    LogSweep("toporrctl discover", swept);
    ASSIGN_OR_RETURN(IngestOutcome outcome, std::move(swept));
    ToProto(outcome, resp);
    return absl::OkStatus();
  });
}

}  // namespace toporr::daemon

#include "daemon/admin_service.h"

#include <algorithm>
#include <iterator>
#include <memory>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/logging.h"
#include "common/printable.h"
#include "common/status_macros.h"
#include "daemon/client_identity.h"
#include "daemon/grpc_status.h"
#include "daemon/ingest_spool.h"
#include "daemon/service_common.h"

namespace toporr::daemon {
namespace {

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

// Log lines quote at most this much of a message or a name (one line each).
constexpr size_t kMaxLoggedMessage = 1024;

}  // namespace

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

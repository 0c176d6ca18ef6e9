// The `Admin` service (toporr.proto), a gRPC adapter over FabricState: ingests (whole or
// streamed through a spool), discovery sweeps, the snapshot list and diffs, with the check of
// who may change the daemon; and the form the read server offers it in. Each method
// validates, calls plain functions returning absl::Status(Or) and converts. No parsing,
// storage or cost logic lives here.
#ifndef TOPORR_DAEMON_ADMIN_SERVICE_H_
#define TOPORR_DAEMON_ADMIN_SERVICE_H_

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "daemon/discovery.h"
#include "daemon/fabric_state.h"
#include "daemon/network_filter.h"
#include "daemon/rpc_stats.h"
#include "toporr/v1/toporr.grpc.pb.h"

namespace toporr::daemon {

// `privileged` is decided per connection by the Unix-socket listener (SO_PEERCRED); the
// daemon runs one instance of each kind on two gRPC servers.
class AdminService final : public toporr::v1::Admin::Service {
 public:
  // `sweeper` may be null (Discover then answers FAILED_PRECONDITION); `stats` (may be
  // null) counts every request.
  AdminService(FabricState* state, DiscoverySweeper* sweeper, bool privileged,
               std::string denial_reason, int64_t max_ingest_bytes, RpcStats* stats)
      : state_(state),
        sweeper_(sweeper),
        privileged_(privileged),
        denial_reason_(std::move(denial_reason)),
        max_ingest_bytes_(max_ingest_bytes),
        stats_(stats) {}

  // Over TCP with mutual TLS, an unprivileged instance allows admin RPCs to clients whose
  // verified certificate's common name is one of `names`.
  void set_tls_admin_clients(std::vector<std::string> names) {
    tls_admin_clients_ = std::move(names);
  }

  // Over TCP, callers are first admitted by `filter` (not owned; may be null).
  void set_network_filter(NetworkFilter* filter) { network_filter_ = filter; }

  // The refusal's reason from now on (e.g. after a SIGHUP changed the admin group).
  void set_denial_reason(std::string reason) {
    std::lock_guard<std::mutex> lock(denial_mu_);
    denial_reason_ = std::move(reason);
  }

  // How a refusal's log line names the caller: `describe` turns gRPC's peer string (for a
  // Unix-socket connection "fd:N") into the caller's uid, gid and pid. Unset: the peer string.
  void set_peer_describer(std::function<std::string(const std::string& peer)> describe) {
    describe_peer_ = std::move(describe);
  }

  // Streamed ingests spool their content into `dir` (toporrd: the database's directory).
  void set_spool_dir(std::string dir) { spool_dir_ = std::move(dir); }

  grpc::Status Ingest(grpc::ServerContext*, const v1::IngestRequest*, v1::IngestResponse*) override;
  grpc::Status IngestStream(grpc::ServerContext*, grpc::ServerReader<v1::IngestChunk>*,
                            v1::IngestResponse*) override;
  grpc::Status ListSnapshots(grpc::ServerContext*, const v1::ListSnapshotsRequest*,
                             v1::ListSnapshotsResponse*) override;
  grpc::Status GetDiff(grpc::ServerContext*, const v1::GetDiffRequest*,
                       v1::GetDiffResponse*) override;
  grpc::Status Discover(grpc::ServerContext*, const v1::DiscoverRequest*,
                        v1::IngestResponse*) override;

  // OK when this connection may call admin RPCs (privileged, or an allowed TLS client);
  // else PERMISSION_DENIED with the denial reason, counted and logged.
  absl::Status Authorize(const grpc::ServerContext* context, const char* method);

  RpcStats* stats() const { return stats_; }

 private:
  absl::Status IngestChecked(const v1::IngestRequest* req, v1::IngestResponse* resp);
  // IngestChecked, counted and logged (one line per ingest). An ingest whose content could
  // not be `received` (e.g. the spool's disk is full) is logged and counted as refused with
  // that status, unchecked.
  absl::Status IngestLogged(const v1::IngestRequest* req, v1::IngestResponse* resp,
                            absl::Status received = absl::OkStatus());
  // The request a stream of chunks makes, in `*req`: the first chunk's header (set as soon
  // as it arrived, also when receiving fails later) with the content spooled and read back.
  absl::Status ReceiveChunks(grpc::ServerReader<v1::IngestChunk>* reader, v1::IngestRequest* req);

  FabricState* state_;
  DiscoverySweeper* sweeper_;
  bool privileged_;
  std::vector<std::string> tls_admin_clients_;
  NetworkFilter* network_filter_ = nullptr;
  std::mutex denial_mu_;
  std::string denial_reason_;  // under denial_mu_
  std::function<std::string(const std::string&)> describe_peer_;
  int64_t max_ingest_bytes_;  // 0: no limit
  RpcStats* stats_;
  std::string spool_dir_ = "/tmp";
};

// The admin service as the read server (non-admin Unix connections, the TCP listener)
// offers it: the methods that change the daemon are served as streamed unary, so that the
// privilege check runs before gRPC reads the request message. A client that is not allowed
// is refused with PERMISSION_DENIED whatever it sends; an allowed one (a TLS admin client)
// is served by `admin`, within the read server's message size limit.
using ReadServerAdminBase = v1::Admin::WithStreamedUnaryMethod_Ingest<
    v1::Admin::WithStreamedUnaryMethod_Discover<v1::Admin::Service>>;

class ReadServerAdminService final : public ReadServerAdminBase {
 public:
  // `admin` (an unprivileged instance) decides who is allowed and does the work; not owned.
  explicit ReadServerAdminService(AdminService* admin) : admin_(admin) {}

  grpc::Status StreamedIngest(
      grpc::ServerContext*,
      grpc::ServerUnaryStreamer<v1::IngestRequest, v1::IngestResponse>*) override;
  grpc::Status StreamedDiscover(
      grpc::ServerContext*,
      grpc::ServerUnaryStreamer<v1::DiscoverRequest, v1::IngestResponse>*) override;
  grpc::Status ListSnapshots(grpc::ServerContext* context, const v1::ListSnapshotsRequest* req,
                             v1::ListSnapshotsResponse* resp) override {
    return admin_->ListSnapshots(context, req, resp);
  }
  grpc::Status GetDiff(grpc::ServerContext* context, const v1::GetDiffRequest* req,
                       v1::GetDiffResponse* resp) override {
    return admin_->GetDiff(context, req, resp);
  }
  // Checks the caller before it reads the first chunk.
  grpc::Status IngestStream(grpc::ServerContext* context,
                            grpc::ServerReader<v1::IngestChunk>* reader,
                            v1::IngestResponse* resp) override {
    return admin_->IngestStream(context, reader, resp);
  }

 private:
  AdminService* admin_;
};

}  // namespace toporr::daemon

#endif  // TOPORR_DAEMON_ADMIN_SERVICE_H_

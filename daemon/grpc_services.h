// gRPC adapters over FabricState: each method validates the request, calls plain
// functions returning absl::Status(Or), and converts. No parsing, storage or cost logic
// lives here.
#ifndef TOPORR_DAEMON_GRPC_SERVICES_H_
#define TOPORR_DAEMON_GRPC_SERVICES_H_

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "daemon/discovery.h"
#include "daemon/fabric_state.h"
#include "daemon/grpc_status.h"
#include "daemon/host_lists.h"
#include "daemon/matrix_cache.h"
#include "daemon/metrics_text.h"
#include "daemon/network_filter.h"
#include "daemon/peer_book.h"
#include "daemon/request_limiter.h"
#include "daemon/rpc_stats.h"
#include "daemon/work_queue.h"
#include "toporr/v1/toporr.grpc.pb.h"

namespace toporr::daemon {

// Every method on gRPC's callback API. The light reads (GetSnapshot, ListHosts, GetCostRow,
// GetPath, GetStats: linear in the host count at most) are answered on gRPC's own threads as
// soon as their request is read (ServeCallback, grpc_status.h). The methods whose work grows
// with the fabric or the request (matrices, topologies, host lists) run on a WorkQueue at a
// lower CPU priority (ServeQueued), so that a flood of them does not hold up the light reads
// of other clients (//daemon:limits_test).
using TopologyServiceBase =
    v1::Topology::WithCallbackMethod_GetSnapshot<v1::Topology::WithCallbackMethod_ListHosts<
        v1::Topology::WithCallbackMethod_GetCostRow<v1::Topology::WithCallbackMethod_GetCostMatrix<
            v1::Topology::WithCallbackMethod_GetQuantizedCostMatrix<
                v1::Topology::WithCallbackMethod_GetPath<
                    v1::Topology::WithCallbackMethod_RegisterHostList<
                        v1::Topology::WithCallbackMethod_GetStats<
                            v1::Topology::WithCallbackMethod_GetTopology<
                                v1::Topology::Service>>>>>>>>>;

class TopologyService final : public TopologyServiceBase {
 public:
  // `cache` (may be null) keeps recent compact matrix replies, `host_lists` the registered
  // host lists, `stats` (may be null) counts every request; several services (the daemon's
  // two servers) share them.
  TopologyService(FabricState* state, MatrixCache* cache, HostLists* host_lists, RpcStats* stats)
      : state_(state), cache_(cache), host_lists_(host_lists), stats_(stats) {}

  // GetStats answers with these metrics too (GetStatsResponse.metrics_text); may be null.
  void set_metrics(const MetricsSources* metrics) { metrics_ = metrics; }

  // Heavy requests (GetCostMatrix and GetQuantizedCostMatrix over at least `heavy_hosts`
  // hosts, GetTopology of a snapshot with at least `heavy_hosts` hosts) run only while they
  // hold a slot of `limiter` (not owned), else RESOURCE_EXHAUSTED. The slot is held until
  // the reply is sent (or the call cancelled): at most max_running replies are in memory.
  // Rows (GetCostRow) are linear in the host count and never heavy.
  void set_heavy_limit(RequestLimiter* limiter, int heavy_hosts) {
    heavy_limiter_ = limiter;
    heavy_hosts_ = heavy_hosts;
  }

  // Matrices, topologies and host lists run on `queue` (not owned; inline when null).
  void set_work_queue(WorkQueue* queue) { work_queue_ = queue; }

  // Every request is first admitted by `filter` (not owned; may be null: all admitted).
  void set_network_filter(NetworkFilter* filter) { network_filter_ = filter; }

  // Who registers a host list, the unit of HostLists' per-peer bound, is told by `peers`
  // (not owned; null: gRPC's peer string, one per connection).
  void set_peer_book(const PeerBook* peers) { peers_ = peers; }

  grpc::ServerUnaryReactor* GetSnapshot(grpc::CallbackServerContext*, const v1::GetSnapshotRequest*,
                                        v1::GetSnapshotResponse*) override;
  grpc::ServerUnaryReactor* ListHosts(grpc::CallbackServerContext*, const v1::ListHostsRequest*,
                                      v1::ListHostsResponse*) override;
  grpc::ServerUnaryReactor* GetCostRow(grpc::CallbackServerContext*, const v1::GetCostRowRequest*,
                                       v1::GetCostRowResponse*) override;
  grpc::ServerUnaryReactor* GetCostMatrix(grpc::CallbackServerContext*,
                                          const v1::GetCostMatrixRequest*,
                                          v1::GetCostMatrixResponse*) override;
  grpc::ServerUnaryReactor* GetQuantizedCostMatrix(grpc::CallbackServerContext*,
                                                   const v1::GetQuantizedCostMatrixRequest*,
                                                   v1::GetQuantizedCostMatrixResponse*) override;
  grpc::ServerUnaryReactor* GetPath(grpc::CallbackServerContext*, const v1::GetPathRequest*,
                                    v1::GetPathResponse*) override;
  grpc::ServerUnaryReactor* RegisterHostList(grpc::CallbackServerContext*,
                                             const v1::RegisterHostListRequest*,
                                             v1::RegisterHostListResponse*) override;
  grpc::ServerUnaryReactor* GetStats(grpc::CallbackServerContext*, const v1::GetStatsRequest*,
                                     v1::GetStatsResponse*) override;
  grpc::ServerUnaryReactor* GetTopology(grpc::CallbackServerContext*, const v1::GetTopologyRequest*,
                                        v1::GetTopologyResponse*) override;

 private:
  FabricState* state_;
  MatrixCache* cache_;
  HostLists* host_lists_;
  RpcStats* stats_;
  const MetricsSources* metrics_ = nullptr;
  RequestLimiter* heavy_limiter_ = nullptr;
  int heavy_hosts_ = 0;
  WorkQueue* work_queue_ = nullptr;
  NetworkFilter* network_filter_ = nullptr;
  const PeerBook* peers_ = nullptr;

  // ServeCallback / ServeQueued (grpc_status.h) of a request the network filter admits.
  template <typename Body>
  grpc::ServerUnaryReactor* Answer(grpc::CallbackServerContext* context, const char* method,
                                   Body&& body) {
    return ServeCallback(context, stats_, method, [&]() -> absl::Status {
      if (network_filter_ != nullptr) {
        if (absl::Status s = network_filter_->Admit(*context, method); !s.ok()) return s;
      }
      return body();
    });
  }
  template <typename Body>
  grpc::ServerUnaryReactor* AnswerQueued(grpc::CallbackServerContext* context, const char* method,
                                         Body body) {
    if (network_filter_ != nullptr) {
      if (absl::Status s = network_filter_->Admit(*context, method); !s.ok()) {
        return ServeCallback(context, stats_, method, [&] { return s; });
      }
    }
    return ServeQueued(context, work_queue_, stats_, method, std::move(body));
  }

  // For a request over `hosts` hosts: a slot of heavy_limiter_ held by `reactor` (nothing
  // when the request is not heavy or there is no limit), or RESOURCE_EXHAUSTED.
  absl::Status HoldHeavySlot(size_t hosts, HoldingReactor* reactor);
};

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

void ToProto(const db::SnapshotInfo& info, bool current, v1::SnapshotInfo* out);
void ToProto(const IngestOutcome& outcome, v1::IngestResponse* out);
// The whole snapshot (nodes sorted by type then GUID, links by their first end, hosts by
// name), as GetTopology answers it.
void TopologyToProto(const Serving& s, v1::GetTopologyResponse* out);

}  // namespace toporr::daemon

#endif  // TOPORR_DAEMON_GRPC_SERVICES_H_

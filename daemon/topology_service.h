// The `Topology` service (toporr.proto), a gRPC adapter over FabricState: each method
// validates the request, calls plain functions returning absl::Status(Or) (cost_matrices.h,
// host_lists.h, the snapshot's costs) and converts. No parsing, storage or cost logic lives
// here.
#ifndef TOPORR_DAEMON_TOPOLOGY_SERVICE_H_
#define TOPORR_DAEMON_TOPOLOGY_SERVICE_H_

#include <cstddef>

#include "daemon/fabric_state.h"
#include "daemon/grpc_status.h"
#include "daemon/host_lists.h"
#include "daemon/job_metrics.h"
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
                                v1::Topology::WithCallbackMethod_ReportJob<
                                    v1::Topology::Service>>>>>>>>>>;

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

  // ReportJob counts into `jobs` (not owned; null: ReportJob answers UNIMPLEMENTED), each
  // caller (the peer book's identity) bounded by its rate limit.
  void set_job_metrics(JobMetrics* jobs) { jobs_ = jobs; }

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
  grpc::ServerUnaryReactor* ReportJob(grpc::CallbackServerContext*, const v1::ReportJobRequest*,
                                      v1::ReportJobResponse*) override;

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
  JobMetrics* jobs_ = nullptr;

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

}  // namespace toporr::daemon

#endif  // TOPORR_DAEMON_TOPOLOGY_SERVICE_H_

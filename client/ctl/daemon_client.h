// The one way toporrctl talks to toporrd: a channel to the daemon's Unix socket or TCP
// listener, and Call(), which runs one unary RPC under this invocation's deadline and turns a
// failed RPC into an absl::Status whose message an operator can act on: the daemon's own
// reason when it answered (common/daemon_answer.h), else what kept it from answering
// ("cannot reach toporrd at /run/toporr/toporrd.sock: ... (is the daemon running? ...)").
//
// Not thread-safe; one per toporrctl invocation. The channel connects lazily, so creating a
// DaemonClient never fails and costs nothing when a command ends in a usage error.
#ifndef TOPORR_CLIENT_CTL_DAEMON_CLIENT_H_
#define TOPORR_CLIENT_CTL_DAEMON_CLIENT_H_

#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "client/costs/cost_matrix_codec.h"
#include "client/costs/daemon_channel.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "mapping/routes/table_routes.h"
#include "toporr/v1/toporr.grpc.pb.h"

namespace toporr::client::ctl {

class DaemonClient {
 public:
  struct Options {
    // The daemon and how to reach it (client/costs/daemon_channel.h): the Unix socket, or the TCP
    // listener with TLS (for admin RPCs over TCP with this client's certificate: mutual TLS).
    DaemonEndpoint endpoint;
    // Deadline of every RPC in seconds; <= 0: each call's own default.
    double timeout_s = 0;
  };

  explicit DaemonClient(Options options);

  // Runs `method` (e.g. &v1::Topology::Stub::ListHosts) on the matching stub with a deadline
  // of --timeout, else `default_deadline_s`. Errors keep the RPC's code. A status the daemon
  // answered keeps its message; one it did not (DaemonDidNotAnswer) names the daemon and,
  // for UNAVAILABLE and DEADLINE_EXCEEDED, what to do about it.
  template <typename Stub, typename Request, typename Response>
  absl::StatusOr<Response> Call(grpc::Status (Stub::*method)(grpc::ClientContext*, const Request&,
                                                             Response*),
                                const Request& request, double default_deadline_s) {
    if (!init_error_.ok()) return init_error_;
    grpc::ClientContext context;
    SetDeadline(&context, default_deadline_s);
    Response response;
    grpc::Status status = (StubFor<Stub>()->*method)(&context, request, &response);
    if (!status.ok()) return RpcError(status, context);
    return response;
  }

  // Admin.IngestStream of the file at `path`, read and sent `chunk_bytes` at a time, with
  // `header` (every IngestRequest field but content) in the first chunk: toporrctl never
  // holds more than a chunk of the file. Against a toporrd older than IngestStream
  // (UNIMPLEMENTED), the unary Ingest with the whole file. kNotFound when the file cannot
  // be read; RPC errors as Call().
  absl::StatusOr<v1::IngestResponse> IngestFile(const v1::IngestRequest& header,
                                                const std::string& path, size_t chunk_bytes,
                                                double default_deadline_s);

 private:
  template <typename Stub>
  Stub* StubFor() {
    if constexpr (std::is_same_v<Stub, v1::Topology::Stub>) {
      return topology_.get();
    } else if constexpr (std::is_same_v<Stub, v1::Admin::Stub>) {
      return admin_.get();
    } else {
      static_assert(std::is_same_v<Stub, grpc::health::v1::Health::Stub>, "unknown service");
      return health_.get();
    }
  }
  void SetDeadline(grpc::ClientContext* context, double default_deadline_s) const;
  absl::Status RpcError(const grpc::Status& status, const grpc::ClientContext& context) const;

  Options options_;
  absl::Status init_error_;  // a channel that cannot be made (plaintext refused, TLS files)
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::Topology::Stub> topology_;
  std::unique_ptr<v1::Admin::Stub> admin_;
  std::unique_ptr<grpc::health::v1::Health::Stub> health_;
};

// True for an error of DaemonClient's that toporrd did not answer: the connection could not
// be made or broke, or the deadline passed first (or the daemon predates the answer mark of
// common/daemon_answer.h). False for the daemon's own refusals, whatever their code, and for
// errors that are not an RPC's. Only such an error leaves an ingest's outcome unknown.
bool DaemonDidNotAnswer(const absl::Status& status);

// The daemon's cost matrix over `hosts`, asked for in the compact form and decoded, with the
// response it came in (snapshot id, host order, route kind). The one GetCostMatrix call of
// toporrctl: `matrix`, `plan` and `export` all go through it. `with_routes` (at most
// 1,024 hosts): also the routes along the snapshot's forwarding tables, null (and
// routes_missing saying why) when it has none.
// GetCostMatrix's limit for with_routes (toporr.proto).
inline constexpr size_t kMaxRouteMatrixHosts = 1024;

struct CostMatrixAnswer {
  v1::GetCostMatrixResponse resp;
  CostMatrixArrays costs;
  std::unique_ptr<mapping::TableRoutes> routes;
  std::string routes_missing;
};
absl::StatusOr<CostMatrixAnswer> FetchCostMatrix(DaemonClient& daemon,
                                                 const std::vector<std::string>& hosts,
                                                 double default_deadline_s,
                                                 bool with_routes = false);

}  // namespace toporr::client::ctl

#endif  // TOPORR_CLIENT_CTL_DAEMON_CLIENT_H_

// The one way toporrctl talks to toporrd: channels to the daemon's Unix socket or TCP
// listener (or to each daemon of a standby address list), and Call(), which runs one unary
// RPC under this invocation's deadline and turns a failed RPC into an absl::Status whose
// message an operator can act on: the daemon's own reason when it answered
// (common/daemon_answer.h), else what kept it from answering ("cannot reach toporrd at
// /run/toporr/toporrd.sock: ... (is the daemon running? ...)").
//
// With several addresses (--target a:p,b:p, or the configured list) every call follows
// client/costs/daemon_failover.h: the daemons in order, the one that answered last first, the
// deadline shared; only a daemon that did not answer sends the call on to the next.
//
// Not thread-safe; one per toporrctl invocation. The channels connect lazily, so creating a
// DaemonClient never fails and costs nothing when a command ends in a usage error.
#ifndef TOPORR_CLIENT_CTL_DAEMON_CLIENT_H_
#define TOPORR_CLIENT_CTL_DAEMON_CLIENT_H_

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "client/costs/cost_matrix_codec.h"
#include "client/costs/daemon_channel.h"
#include "client/costs/daemon_failover.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "mapping/routes/table_routes.h"
#include "toporr/v1/toporr.grpc.pb.h"

namespace toporr::client::ctl {

class DaemonClient {
 public:
  struct Options {
    // The daemon and how to reach it (client/costs/daemon_channel.h): the Unix socket, or the TCP
    // listener with TLS (for admin RPCs over TCP with this client's certificate: mutual TLS);
    // `address` may list several daemons.
    DaemonEndpoint endpoint;
    // Deadline of every RPC in seconds; <= 0: each call's own default.
    double timeout_s = 0;
  };

  explicit DaemonClient(Options options);

  // Runs `method` (e.g. &v1::Topology::Stub::ListHosts) on the matching stub with a deadline
  // of --timeout, else `default_deadline_s`. Errors keep the RPC's code. A status the daemon
  // answered keeps its message; one it did not (DaemonDidNotAnswer) names the daemon and,
  // for UNAVAILABLE and DEADLINE_EXCEEDED, what to do about it (with several daemons, all of
  // them, each with its cause, on one line).
  template <typename Stub, typename Request, typename Response>
  absl::StatusOr<Response> Call(grpc::Status (Stub::*method)(grpc::ClientContext*, const Request&,
                                                             Response*),
                                const Request& request, double default_deadline_s) {
    Response response;
    absl::Status s = OnDaemons(
        default_deadline_s,
        [&](Daemon& daemon, std::chrono::system_clock::time_point deadline) -> absl::Status {
          grpc::ClientContext context;
          context.set_deadline(deadline);
          response.Clear();
          grpc::Status status = (daemon.StubFor<Stub>()->*method)(&context, request, &response);
          if (!status.ok()) return RpcError(daemon, status, context);
          return absl::OkStatus();
        });
    if (!s.ok()) return s;
    return response;
  }

  // Admin.IngestStream of the file at `path`, read and sent `chunk_bytes` at a time, with
  // `header` (every IngestRequest field but content) in the first chunk: toporrctl never
  // holds more than a chunk of the file. Against a toporrd older than IngestStream
  // (UNIMPLEMENTED), the unary Ingest with the whole file. kNotFound when the file cannot
  // be read; RPC errors as Call(). With several daemons, the first that answers ingests
  // (load each daemon of a standby pair with its own --target).
  absl::StatusOr<v1::IngestResponse> IngestFile(const v1::IngestRequest& header,
                                                const std::string& path, size_t chunk_bytes,
                                                double default_deadline_s);

  // The daemon that answered this invocation's last call (DaemonEndpoint::Name(): HOST:PORT
  // or the socket's path); "" when none did.
  const std::string& answered_by() const { return answered_by_; }
  // Whether the configuration names more than one daemon (an address list).
  bool has_standby() const { return daemons_.size() > 1; }
  // One line for each call that a daemon other than the first asked answered: the daemons
  // that did not, each with its cause, and the one that did. toporrctl prints them as
  // warnings.
  const std::vector<std::string>& failover_notes() const { return failover_notes_; }

 private:
  // One daemon of the list: its endpoint and the channel and stubs to it.
  struct Daemon {
    DaemonEndpoint endpoint;
    absl::Status init_error;  // a channel that cannot be made (plaintext refused, TLS files)
    std::shared_ptr<grpc::Channel> channel;
    std::unique_ptr<v1::Topology::Stub> topology;
    std::unique_ptr<v1::Admin::Stub> admin;
    std::unique_ptr<grpc::health::v1::Health::Stub> health;

    template <typename Stub>
    Stub* StubFor() {
      if constexpr (std::is_same_v<Stub, v1::Topology::Stub>) {
        return topology.get();
      } else if constexpr (std::is_same_v<Stub, v1::Admin::Stub>) {
        return admin.get();
      } else {
        static_assert(std::is_same_v<Stub, grpc::health::v1::Health::Stub>, "unknown service");
        return health.get();
      }
    }
  };
  using Attempt =
      std::function<absl::Status(Daemon& daemon, std::chrono::system_clock::time_point deadline)>;

  // Runs `attempt` on the daemons as daemon_failover.h says, under one deadline (--timeout,
  // else `default_deadline_s`); records who answered.
  absl::Status OnDaemons(double default_deadline_s, const Attempt& attempt);
  absl::Status RpcError(const Daemon& daemon, const grpc::Status& status,
                        const grpc::ClientContext& context) const;

  Options options_;
  absl::Status init_error_;  // a malformed address list: every call fails with it
  std::vector<std::unique_ptr<Daemon>> daemons_;
  std::unique_ptr<DaemonFailover> failover_;
  int answered_index_ = -1;    // the daemon that answered first; later calls are its
  bool brief_errors_ = false;  // RpcError's errors are one of several on one line
  std::string answered_by_;
  std::vector<std::string> failover_notes_;
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

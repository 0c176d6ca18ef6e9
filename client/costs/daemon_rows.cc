// The daemon source: RegisterHostList once (rank 0), then one compact GetCostRow per
// leader, each under the configured deadline, asked of the daemons of the address list.
#include "client/costs/daemon_rows.h"

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "client/costs/cost_matrix_codec.h"
#include "client/costs/daemon_channel.h"
#include "client/costs/daemon_failover.h"
#include "client/costs/row_source.h"
#include "common/status_macros.h"
#include "grpcpp/grpcpp.h"
#include "toporr/v1/toporr.grpc.pb.h"

namespace toporr::client {
namespace {

const char* CodeName(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::UNAVAILABLE:
      return "UNAVAILABLE: is toporrd running?";
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::UNIMPLEMENTED:
      return "UNIMPLEMENTED: toporrd too old";
    case grpc::StatusCode::NOT_FOUND:
      return "NOT_FOUND";
    case grpc::StatusCode::FAILED_PRECONDITION:
      return "FAILED_PRECONDITION";
    case grpc::StatusCode::INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    default:
      return "RPC failed";
  }
}

thread_local std::string last_answering_daemon;

// One daemon of the list: its endpoint and the channel to it.
// The channel lives as long as the process. After a failed connection gRPC waits out a
// reconnect backoff (1 s, growing) and fails every call meanwhile, so a daemon that has
// restarted would be missed for seconds: a call on a failed channel first makes it try again
// at once (a refused connection still fails the call fast).
// A channel that cannot be made (plaintext refused, certificate files unreadable) fails
// every call with the reason, without a request.
// Thread-safe: the channel is made (or refused) once, under mu_, and never replaced; gRPC
// channels and stubs may be used from several threads.
class DaemonConnection {
 public:
  explicit DaemonConnection(DaemonEndpoint endpoint)
      : endpoint_(std::move(endpoint)), target_(endpoint_.Describe()) {}

  const DaemonEndpoint& endpoint() const { return endpoint_; }
  const std::string& target() const { return target_; }

  // The stub, the connection of a failed channel tried again (waiting for the attempt to
  // begin until `deadline` at most). Calls during the daemon's back-off never get here, so
  // this costs one attempt per back-off.
  absl::StatusOr<v1::Topology::Stub*> Stub(std::chrono::system_clock::time_point deadline) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stub_ == nullptr) {
        if (!channel_error_.ok()) return channel_error_;
        absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = NewDaemonChannel(endpoint_);
        if (!channel.ok()) {
          channel_error_ =
              absl::Status(channel.status().code(),
                           absl::StrCat("toporrd at ", target_, ": ", channel.status().message()));
          return channel_error_;
        }
        channel_ = *std::move(channel);
        stub_ = v1::Topology::NewStub(channel_);
        return stub_.get();
      }
    }
    if (channel_->GetState(false) == GRPC_CHANNEL_TRANSIENT_FAILURE) {
      grpc::experimental::ChannelResetConnectionBackoff(channel_.get());
      channel_->WaitForStateChange(GRPC_CHANNEL_TRANSIENT_FAILURE, deadline);
    }
    return stub_.get();
  }

 private:
  const DaemonEndpoint endpoint_;
  const std::string target_;
  std::mutex mu_;
  absl::Status channel_error_;              // set once, under mu_
  std::shared_ptr<grpc::Channel> channel_;  // set once, under mu_
  std::unique_ptr<v1::Topology::Stub> stub_;
};

// The daemons of the configuration, asked as daemon_failover.h says. With several, a host
// list is registered with one of them and its ticket names that one ("<index>@<token>"): the
// leaders' rows of a ticket all come from the daemon that resolved it.
class DaemonRowSource final : public RowSource {
 public:
  explicit DaemonRowSource(const ClientOptions& options) : deadline_ms_(options.deadline_ms) {
    absl::StatusOr<std::vector<DaemonEndpoint>> endpoints =
        DaemonEndpoints(DaemonEndpoint::Of(options));
    std::vector<std::string> names;
    if (endpoints.ok()) {
      for (DaemonEndpoint& e : *endpoints) {
        names.push_back(e.Name());
        connections_.push_back(std::make_unique<DaemonConnection>(std::move(e)));
      }
    } else {
      config_error_ = endpoints.status();
      names.push_back(options.address);
    }
    failover_ = std::make_unique<DaemonFailover>(DaemonFailover::Options{std::move(names)});
  }

  std::string_view kind() const override { return "daemon"; }

  absl::StatusOr<HostListTicket> Prepare(const std::vector<std::string>& hosts) override {
    v1::RegisterHostListRequest req;
    for (const std::string& h : hosts) req.add_hosts(h);
    v1::RegisterHostListResponse resp;
    int daemon = -1;
    RETURN_IF_ERROR(Call(
        "RegisterHostList", -1,
        [&](v1::Topology::Stub* stub, grpc::ClientContext* c) {
          return stub->RegisterHostList(c, req, &resp);
        },
        &daemon));
    if (resp.num_hosts() != static_cast<int>(hosts.size()) || resp.host_list().empty()) {
      return absl::DataLossError(absl::StrCat("toporrd at ", connections_[daemon]->target(),
                                              " registered ", resp.num_hosts(), " of ",
                                              hosts.size(), " hosts"));
    }
    if (connections_.size() == 1) return HostListTicket{resp.snapshot_id(), resp.host_list()};
    return HostListTicket{resp.snapshot_id(), absl::StrCat(daemon, "@", resp.host_list())};
  }

  absl::StatusOr<CostRow> Row(const HostListTicket& ticket, const std::vector<std::string>& hosts,
                              int host_index, bool with_routes) override {
    v1::GetCostRowRequest req;
    req.set_host(hosts[host_index]);
    int pinned = -1;
    if (ticket.token.empty()) {
      for (const std::string& h : hosts) req.add_hosts(h);
    } else {
      std::string token = ticket.token;
      if (connections_.size() > 1) {
        const size_t at = token.find('@');
        if (at == std::string::npos || !absl::SimpleAtoi(token.substr(0, at), &pinned) ||
            pinned < 0 || pinned >= static_cast<int>(connections_.size())) {
          return absl::InvalidArgumentError(absl::StrCat("host-list ticket ", token.substr(0, 64),
                                                         " names no daemon of ",
                                                         "the address list"));
        }
        token = token.substr(at + 1);
      }
      req.set_host_list(token);
      req.set_compact(true);  // served for a registered list
    }
    req.set_with_routes(with_routes);
    v1::GetCostRowResponse resp;
    int daemon = -1;
    RETURN_IF_ERROR(Call(
        "GetCostRow", pinned,
        [&](v1::Topology::Stub* stub, grpc::ClientContext* c) {
          return stub->GetCostRow(c, req, &resp);
        },
        &daemon));
    const std::string& target = connections_[daemon]->target();
    const int n = static_cast<int>(hosts.size());
    absl::StatusOr<CostRowArrays> decoded = DecodeCostRow(resp, n);
    if (!decoded.ok()) {
      return absl::DataLossError(absl::StrCat("toporrd at ", target, ": the row of ",
                                              hosts[host_index], ": ", decoded.status().message()));
    }
    const CostRowArrays& row = *decoded;
    CostRow out;
    out.snapshot_id = row.snapshot_id;
    out.values.resize(2 * static_cast<size_t>(n));
    for (int j = 0; j < n; ++j) {
      out.values[j] = static_cast<float>(row.latency_ns[j]);
      out.values[n + j] = static_cast<float>(row.bottleneck_gbps[j]);
    }
    if (with_routes && resp.routes().offsets_size() > 0) {
      absl::StatusOr<std::vector<mapping::RouteRow>> routes = DecodeRouteRows(resp.routes(), 1, n);
      if (!routes.ok()) {
        return absl::DataLossError(absl::StrCat("toporrd at ", target, ": the routes of ",
                                                hosts[host_index], ": ",
                                                routes.status().message()));
      }
      out.routes = std::move((*routes)[0]);
    }
    return out;
  }

 private:
  // Runs rpc under one deadline (deadline_ms) on the daemons of the list (daemon_failover.h),
  // or on daemon `pinned` alone when it is >= 0; *daemon: the one that answered. On one
  // daemon, a call that failed UNAVAILABLE on a daemon that has answered before (a connection
  // the daemon closed, e.g. when it restarted; not a TLS failure, which would repeat) is made
  // once more, on a new connection, while its share of the deadline allows: both requests
  // are reads (a host list registers to the same token), safe to repeat. A daemon never
  // reached (refused, no socket) is not asked twice.
  // The back-off of an unanswered daemon (row_source.h) applies to every call, per daemon.
  template <typename Rpc>
  absl::Status Call(const char* method, int pinned, Rpc rpc, int* daemon) {
    last_answering_daemon.clear();
    if (!config_error_.ok()) return config_error_;
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(deadline_ms_);
    auto ask = [&](int i, std::chrono::steady_clock::time_point until) {
      return Ask(i, until, method, rpc);
    };
    const DaemonFailover::Result r =
        pinned >= 0 ? failover_->RunOn(pinned, deadline, ask) : failover_->Run(deadline, ask);
    if (r.daemon >= 0) last_answering_daemon = connections_[r.daemon]->endpoint().Name();
    *daemon = r.daemon;
    return r.status;
  }

  template <typename Rpc>
  DaemonFailover::Attempt Ask(int i, std::chrono::steady_clock::time_point until,
                              const char* method, Rpc& rpc) {
    DaemonConnection& c = *connections_[i];
    const auto started = std::chrono::steady_clock::now();
    const auto deadline = std::chrono::system_clock::now() + (until - started);
    grpc::Status s;
    for (int attempt = 0; attempt < 2; ++attempt) {
      absl::StatusOr<v1::Topology::Stub*> stub = c.Stub(deadline);
      if (!stub.ok()) return {stub.status(), true};
      grpc::ClientContext context;
      context.set_deadline(deadline);
      s = rpc(*stub, &context);
      if (s.error_code() != grpc::StatusCode::UNAVAILABLE || !failover_->AnsweredBefore(i) ||
          std::chrono::system_clock::now() >= deadline || TlsFailureCause(c.endpoint(), s)) {
        break;
      }
    }
    return {Check(c, s, method), DaemonDidNotAnswerCall(c.endpoint(), s)};
  }

  absl::Status Check(const DaemonConnection& c, const grpc::Status& s, const char* method) const {
    if (s.ok()) return absl::OkStatus();
    const bool list = connections_.size() > 1;
    std::string msg = absl::StrCat("toporrd at ", c.target(), ": ", method, ": ");
    if (s.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
      if (list) {  // the share (daemon_failover.h) varies: the message stays one cause
        absl::StrAppend(&msg, "no answer within its share of TOPORR_DEADLINE_MS=", deadline_ms_);
      } else {
        absl::StrAppend(&msg, "no answer within TOPORR_DEADLINE_MS=", deadline_ms_, " ms");
      }
    } else {
      const std::string why =
          list ? BriefRpcFailure(c.endpoint(), s) : ExplainRpcFailure(c.endpoint(), s);
      absl::StrAppend(&msg, why.empty() ? "error" : why, " (", CodeName(s.error_code()), ")");
    }
    return absl::Status(static_cast<absl::StatusCode>(s.error_code()), msg);
  }

  const int deadline_ms_;
  absl::Status config_error_;  // a malformed address list: every call fails with it
  std::vector<std::unique_ptr<DaemonConnection>> connections_;
  std::unique_ptr<DaemonFailover> failover_;
};

}  // namespace

std::unique_ptr<RowSource> NewDaemonRowSource(const ClientOptions& options) {
  return std::make_unique<DaemonRowSource>(options);
}

std::string LastAnsweringDaemon() { return last_answering_daemon; }

}  // namespace toporr::client

// The daemon source: for a large job RegisterHostList once (rank 0), then one compact
// GetCostRow per leader by token; for a small one each leader's GetCostRow carries the host
// list. Each request under the configured deadline.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "client/costs/cost_matrix_codec.h"
#include "client/costs/daemon_channel.h"
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

class DaemonRowSource final : public RowSource {
 public:
  explicit DaemonRowSource(const ClientOptions& options)
      : endpoint_(DaemonEndpoint::Of(options)),
        target_(endpoint_.Describe()),
        deadline_ms_(options.deadline_ms) {}

  std::string_view kind() const override { return "daemon"; }

  absl::StatusOr<HostListTicket> Prepare(const std::vector<std::string>& hosts) override {
    v1::RegisterHostListRequest req;
    for (const std::string& h : hosts) req.add_hosts(h);
    v1::RegisterHostListResponse resp;
    RETURN_IF_ERROR(Call("RegisterHostList", [&](v1::Topology::Stub* stub, grpc::ClientContext* c) {
      return stub->RegisterHostList(c, req, &resp);
    }));
    if (resp.num_hosts() != static_cast<int>(hosts.size()) || resp.host_list().empty()) {
      return absl::DataLossError(absl::StrCat("toporrd at ", target_, " registered ",
                                              resp.num_hosts(), " of ", hosts.size(), " hosts"));
    }
    return HostListTicket{resp.snapshot_id(), resp.host_list()};
  }

  absl::StatusOr<CostRow> Row(const HostListTicket& ticket, const std::vector<std::string>& hosts,
                              int host_index, bool with_routes) override {
    v1::GetCostRowRequest req;
    req.set_host(hosts[host_index]);
    if (ticket.token.empty()) {
      for (const std::string& h : hosts) req.add_hosts(h);
    } else {
      req.set_host_list(ticket.token);
      req.set_compact(true);  // served for a registered list
    }
    req.set_with_routes(with_routes);
    v1::GetCostRowResponse resp;
    RETURN_IF_ERROR(Call("GetCostRow", [&](v1::Topology::Stub* stub, grpc::ClientContext* c) {
      return stub->GetCostRow(c, req, &resp);
    }));
    const int n = static_cast<int>(hosts.size());
    absl::StatusOr<CostRowArrays> decoded = DecodeCostRow(resp, n);
    if (!decoded.ok()) {
      return absl::DataLossError(absl::StrCat("toporrd at ", target_, ": the row of ",
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
        return absl::DataLossError(absl::StrCat("toporrd at ", target_, ": the routes of ",
                                                hosts[host_index], ": ",
                                                routes.status().message()));
      }
      out.routes = std::move((*routes)[0]);
    }
    return out;
  }

 private:
  // The channel lives as long as the process. After a failed connection gRPC waits out a
  // reconnect backoff (1 s, growing) and fails every call meanwhile, so a daemon that has
  // restarted would be missed for seconds: a call on a failed channel first makes it try again
  // at once (a refused connection still fails the call fast).
  // A channel that cannot be made (plaintext refused, certificate files unreadable) fails
  // every call with the reason, without a request.
  // Thread-safe: the channel is made (or refused) once, under stub_mu_, and never replaced;
  // gRPC channels and stubs may be used from several threads.
  absl::StatusOr<v1::Topology::Stub*> Stub() {
    {
      std::lock_guard<std::mutex> lock(stub_mu_);
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
    // A failed connection is tried again at once (gRPC would wait out its own reconnect
    // backoff, missing a daemon that has started or restarted since): the call waits until the
    // new attempt has begun, then fails with a refusal or gets its answer. Calls during the
    // back-off (Call) never get here, so this costs one attempt per back-off.
    if (channel_->GetState(false) == GRPC_CHANNEL_TRANSIENT_FAILURE) {
      grpc::experimental::ChannelResetConnectionBackoff(channel_.get());
      channel_->WaitForStateChange(
          GRPC_CHANNEL_TRANSIENT_FAILURE,
          std::chrono::system_clock::now() + std::chrono::milliseconds(deadline_ms_));
    }
    return stub_.get();
  }

  // Runs rpc under one deadline. A call that failed UNAVAILABLE on a daemon that has answered
  // before (a connection the daemon closed, e.g. when it restarted; not a TLS failure, which
  // would repeat) is made once more, on a new connection, while the deadline allows: both
  // requests are reads (a host list registers to the same token), safe to repeat. A daemon
  // never reached (refused, no socket) is not asked twice: the first failure, named as it is,
  // is the answer.
  // The back-off of an unanswered daemon (row_source.h) applies to every call: during it a
  // call fails at once with the last failure, without touching the network, whether the
  // daemon refused the connection or accepted it and stalled.
  template <typename Rpc>
  absl::Status Call(const char* method, Rpc rpc) {
    {
      std::lock_guard<std::mutex> lock(backoff_mu_);
      if (!unanswered_.ok() && std::chrono::steady_clock::now() < quiet_until_) {
        return unanswered_;
      }
    }
    const auto started = std::chrono::steady_clock::now();
    const auto deadline =
        std::chrono::system_clock::now() + std::chrono::milliseconds(deadline_ms_);
    grpc::Status s;
    for (int attempt = 0; attempt < 2; ++attempt) {
      ASSIGN_OR_RETURN(v1::Topology::Stub * stub, Stub());
      grpc::ClientContext context;
      context.set_deadline(deadline);
      s = rpc(stub, &context);
      if (s.error_code() != grpc::StatusCode::UNAVAILABLE || !answered_before_.load() ||
          std::chrono::system_clock::now() >= deadline || TlsFailureCause(endpoint_, s)) {
        break;
      }
    }
    absl::Status result = Check(s, method);
    std::lock_guard<std::mutex> lock(backoff_mu_);
    // A daemon never reached that refused before and now only lets the call time out is still
    // the refused daemon: one cause, one warning.
    if (absl::IsDeadlineExceeded(result) && !answered_before_.load() &&
        absl::IsUnavailable(unanswered_)) {
      result = unanswered_;
    }
    if (absl::IsUnavailable(result) || absl::IsDeadlineExceeded(result)) {
      const auto now = std::chrono::steady_clock::now();
      const auto base = std::max<std::chrono::milliseconds>(
          kMinBackoff, kBackoffPerCallTime *
                           std::chrono::duration_cast<std::chrono::milliseconds>(now - started));
      backoff_ = std::min(unanswered_.ok() ? base : std::max(2 * backoff_, base), kMaxBackoff);
      quiet_until_ = now + backoff_;
      unanswered_ = result;
    } else {
      unanswered_ = absl::OkStatus();
      answered_before_ = true;
    }
    return result;
  }

  absl::Status Check(const grpc::Status& s, const char* method) const {
    if (s.ok()) return absl::OkStatus();
    std::string msg = absl::StrCat("toporrd at ", target_, ": ", method, ": ");
    if (s.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
      absl::StrAppend(&msg, "no answer within TOPORR_DEADLINE_MS=", deadline_ms_, " ms");
    } else {
      const std::string why = ExplainRpcFailure(endpoint_, s);
      absl::StrAppend(&msg, why.empty() ? "error" : why, " (", CodeName(s.error_code()), ")");
    }
    return absl::Status(static_cast<absl::StatusCode>(s.error_code()), msg);
  }

  DaemonEndpoint endpoint_;
  std::string target_;
  int deadline_ms_;
  std::mutex stub_mu_;
  absl::Status channel_error_;              // set once, under stub_mu_
  std::shared_ptr<grpc::Channel> channel_;  // set once, under stub_mu_
  std::unique_ptr<v1::Topology::Stub> stub_;
  static constexpr std::chrono::milliseconds kMinBackoff{1000}, kMaxBackoff{600000};
  static constexpr int kBackoffPerCallTime = 30;
  std::mutex backoff_mu_;
  absl::Status unanswered_;  // the last unanswered call's failure; OK once answered
  std::chrono::steady_clock::time_point quiet_until_;
  std::chrono::milliseconds backoff_{0};
  std::atomic<bool> answered_before_{false};  // some call reached the daemon
};

}  // namespace

std::unique_ptr<RowSource> NewDaemonRowSource(const ClientOptions& options) {
  return std::make_unique<DaemonRowSource>(options);
}

}  // namespace toporr::client

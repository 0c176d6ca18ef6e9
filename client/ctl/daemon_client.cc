#include "client/ctl/daemon_client.h"

#include <chrono>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "common/daemon_answer.h"

namespace toporr::client::ctl {
namespace {

// The payload RpcError puts on the errors of calls toporrd did not answer.
constexpr char kNotAnsweredPayload[] = "type.toporr/toporrctl.DaemonDidNotAnswer";
// The payload RpcError puts on the errors after which the next daemon of a list is asked: no
// connection, or no answer in time (not a TLS failure, not the daemon's own answer).
constexpr char kUnreachedPayload[] = "type.toporr/toporrctl.DaemonUnreached";

}  // namespace

bool DaemonDidNotAnswer(const absl::Status& status) {
  return status.GetPayload(kNotAnsweredPayload).has_value();
}

DaemonClient::DaemonClient(Options options) : options_(std::move(options)) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(-1);
  args.SetMaxSendMessageSize(-1);
  // Reconnect quickly to a restarted daemon (an ingest whose connection broke waits for it).
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 200);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  absl::StatusOr<std::vector<DaemonEndpoint>> endpoints = DaemonEndpoints(options_.endpoint);
  if (!endpoints.ok()) {
    init_error_ = endpoints.status();
    endpoints = std::vector<DaemonEndpoint>{options_.endpoint};
  }
  DaemonFailover::Options failover;
  failover.backoff = false;
  for (DaemonEndpoint& endpoint : *endpoints) {
    auto daemon = std::make_unique<Daemon>();
    daemon->endpoint = std::move(endpoint);
    absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
        NewDaemonChannel(daemon->endpoint, args);
    if (!channel.ok()) {
      daemon->init_error = channel.status();
      // Stubs on a channel no call uses: every call returns init_error first.
      channel = grpc::CreateChannel("unix:/nonexistent", grpc::InsecureChannelCredentials());
    }
    daemon->channel = *std::move(channel);
    daemon->topology = v1::Topology::NewStub(daemon->channel);
    daemon->admin = v1::Admin::NewStub(daemon->channel);
    daemon->health = grpc::health::v1::Health::NewStub(daemon->channel);
    failover.names.push_back(daemon->endpoint.Name());
    daemons_.push_back(std::move(daemon));
  }
  failover_ = std::make_unique<DaemonFailover>(std::move(failover));
}

absl::Status DaemonClient::OnDaemons(double default_deadline_s, const Attempt& attempt) {
  if (!init_error_.ok()) return init_error_;
  const double s = options_.timeout_s > 0 ? options_.timeout_s : default_deadline_s;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(static_cast<int64_t>(s * 1000));
  auto ask = [&](int i, std::chrono::steady_clock::time_point until) -> DaemonFailover::Attempt {
    Daemon& daemon = *daemons_[i];
    if (!daemon.init_error.ok()) return {daemon.init_error, true};
    const absl::Status status = attempt(
        daemon, std::chrono::system_clock::now() + (until - std::chrono::steady_clock::now()));
    return {status, status.GetPayload(kUnreachedPayload).has_value()};
  };
  // Once a daemon has answered, the rest of the invocation is its: one command never mixes
  // two daemons' snapshots, and an ingest whose connection broke asks the daemon it went to.
  brief_errors_ = answered_index_ < 0 && daemons_.size() > 1;
  DaemonFailover::Result r = answered_index_ >= 0 ? failover_->RunOn(answered_index_, deadline, ask)
                                                  : failover_->Run(deadline, ask);
  brief_errors_ = false;
  if (r.daemon >= 0) {
    answered_index_ = r.daemon;
    answered_by_ = daemons_[r.daemon]->endpoint.Name();
    if (!r.unanswered.empty()) {
      std::string note;
      for (const auto& [index, failure] : r.unanswered) {
        absl::StrAppend(&note, failure.message(), "; ");
      }
      absl::StrAppend(&note, "toporrd at ", daemons_[r.daemon]->endpoint.Describe(), " answered");
      failover_notes_.push_back(std::move(note));
    }
    return r.status;
  }
  if (r.unanswered.size() == 1) return r.status;
  absl::Status none(r.status.code(), absl::StrCat("cannot reach toporrd: ", r.status.message()));
  none.SetPayload(kNotAnsweredPayload, absl::Cord());
  return none;
}

absl::Status DaemonClient::RpcError(const Daemon& daemon, const grpc::Status& status,
                                    const grpc::ClientContext& context) const {
  // grpc::StatusCode and absl::StatusCode share their numbering.
  const auto code = static_cast<absl::StatusCode>(status.error_code());
  if (context.GetServerTrailingMetadata().count(kDaemonAnswerKey) > 0) {
    return absl::Status(code, status.error_message());  // the daemon's own reason
  }
  const DaemonEndpoint& endpoint = daemon.endpoint;
  const std::string where = endpoint.Describe();
  const bool unreached = DaemonDidNotAnswerCall(endpoint, status);
  absl::Status error;
  if (brief_errors_ && unreached) {  // one of several, named on one line with the others
    error = absl::Status(
        code, status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED
                  ? absl::StrCat("toporrd at ", where, " did not answer in time")
                  : absl::StrCat("toporrd at ", where, ": ", BriefRpcFailure(endpoint, status)));
    error.SetPayload(kNotAnsweredPayload, absl::Cord());
    error.SetPayload(kUnreachedPayload, absl::Cord());
    return error;
  }
  switch (status.error_code()) {
    case grpc::StatusCode::UNAVAILABLE:
      if (std::string why = ExplainRpcFailure(endpoint, status); why != status.error_message()) {
        error = absl::Status(code, absl::StrCat("cannot reach toporrd at ", where, ": ", why));
      } else {
        error = absl::Status(
            code, absl::StrCat("cannot reach toporrd at ", where, ": ", status.error_message(),
                               "\n(is the daemon running? see `systemctl "
                               "status toporrd`)"));
      }
      break;
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      error = absl::Status(
          code, absl::StrCat("toporrd at ", where, " did not answer in time (raise --timeout)"));
      break;
    default:
      error = absl::Status(code, status.error_message());
  }
  error.SetPayload(kNotAnsweredPayload, absl::Cord());
  if (unreached) error.SetPayload(kUnreachedPayload, absl::Cord());
  return error;
}

absl::StatusOr<v1::IngestResponse> DaemonClient::IngestFile(const v1::IngestRequest& header,
                                                            const std::string& path,
                                                            size_t chunk_bytes,
                                                            double default_deadline_s) {
  if (!init_error_.ok()) return init_error_;
  if (!std::ifstream(path, std::ios::binary)) {
    return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
  }
  v1::IngestResponse response;
  bool unimplemented = false;
  absl::Status sent = OnDaemons(
      default_deadline_s,
      [&](Daemon& daemon, std::chrono::system_clock::time_point deadline) -> absl::Status {
        std::ifstream in(path, std::ios::binary);
        grpc::ClientContext context;
        context.set_deadline(deadline);
        response.Clear();
        std::unique_ptr<grpc::ClientWriter<v1::IngestChunk>> writer =
            daemon.admin->IngestStream(&context, &response);
        v1::IngestChunk chunk;
        *chunk.mutable_header() = header;
        chunk.mutable_header()->clear_content();
        std::string* data = chunk.mutable_data();
        bool first = true;
        while (true) {
          data->resize(chunk_bytes);
          in.read(data->data(), static_cast<std::streamsize>(chunk_bytes));
          data->resize(static_cast<size_t>(in.gcount()));
          if (in.bad()) return absl::UnavailableError(absl::StrCat(path, ": read error"));
          if (data->empty() && !first) break;
          // false: the daemon ended the call (refused it); Finish() says why.
          if (!writer->Write(chunk)) break;
          if (first) chunk.clear_header();
          first = false;
          if (in.eof()) break;
        }
        writer->WritesDone();
        grpc::Status status = writer->Finish();
        if (status.error_code() == grpc::StatusCode::UNIMPLEMENTED) {  // a toporrd before 2026-11
          unimplemented = true;
          return absl::OkStatus();
        }
        if (!status.ok()) return RpcError(daemon, status, context);
        return absl::OkStatus();
      });
  if (!sent.ok()) return sent;
  if (unimplemented) {  // the unary Ingest, of the same daemon (the one that answered)
    v1::IngestRequest whole = header;
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    whole.set_content(ss.str());
    return Call(&v1::Admin::Stub::Ingest, whole, default_deadline_s);
  }
  return response;
}

absl::StatusOr<CostMatrixAnswer> FetchCostMatrix(DaemonClient& daemon,
                                                 const std::vector<std::string>& hosts,
                                                 double default_deadline_s, bool with_routes) {
  v1::GetCostMatrixRequest req;
  for (const auto& h : hosts) req.add_hosts(h);
  req.set_compact(true);
  req.set_with_routes(with_routes);
  CostMatrixAnswer answer;
  auto resp = daemon.Call(&v1::Topology::Stub::GetCostMatrix, req, default_deadline_s);
  if (!resp.ok()) return resp.status();
  answer.resp = *std::move(resp);
  auto costs = DecodeCostMatrix(answer.resp);
  if (!costs.ok()) return costs.status();
  answer.costs = *std::move(costs);
  if (with_routes) {
    answer.routes_missing = answer.resp.routes_missing();
    if (answer.resp.routes().offsets_size() > 0) {
      const int n = static_cast<int>(hosts.size());
      auto rows = DecodeRouteRows(answer.resp.routes(), n, n);
      if (!rows.ok()) return rows.status();
      auto routes = mapping::TableRoutes::Create(*rows);
      if (!routes.ok()) return absl::DataLossError(routes.status().message());
      answer.routes = *std::move(routes);
    }
  }
  return answer;
}

}  // namespace toporr::client::ctl

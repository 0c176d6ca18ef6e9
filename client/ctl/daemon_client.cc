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
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
      NewDaemonChannel(options_.endpoint, args);
  if (!channel.ok()) {
    init_error_ = channel.status();
    // Stubs on a channel no call uses: every call returns init_error_ first.
    channel = grpc::CreateChannel("unix:/nonexistent", grpc::InsecureChannelCredentials());
  }
  channel_ = *std::move(channel);
  topology_ = v1::Topology::NewStub(channel_);
  admin_ = v1::Admin::NewStub(channel_);
  health_ = grpc::health::v1::Health::NewStub(channel_);
}

void DaemonClient::SetDeadline(grpc::ClientContext* context, double default_deadline_s) const {
  double s = options_.timeout_s > 0 ? options_.timeout_s : default_deadline_s;
  context->set_deadline(std::chrono::system_clock::now() +
                        std::chrono::milliseconds(static_cast<int64_t>(s * 1000)));
}

absl::Status DaemonClient::RpcError(const grpc::Status& status,
                                    const grpc::ClientContext& context) const {
  // grpc::StatusCode and absl::StatusCode share their numbering.
  const auto code = static_cast<absl::StatusCode>(status.error_code());
  if (context.GetServerTrailingMetadata().count(kDaemonAnswerKey) > 0) {
    return absl::Status(code, status.error_message());  // the daemon's own reason
  }
  const std::string where = options_.endpoint.Describe();
  absl::Status error;
  switch (status.error_code()) {
    case grpc::StatusCode::UNAVAILABLE:
      if (std::string why = ExplainRpcFailure(options_.endpoint, status);
          why != status.error_message()) {
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
  return error;
}

absl::StatusOr<v1::IngestResponse> DaemonClient::IngestFile(const v1::IngestRequest& header,
                                                            const std::string& path,
                                                            size_t chunk_bytes,
                                                            double default_deadline_s) {
  if (!init_error_.ok()) return init_error_;
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
  grpc::ClientContext context;
  SetDeadline(&context, default_deadline_s);
  v1::IngestResponse response;
  std::unique_ptr<grpc::ClientWriter<v1::IngestChunk>> writer =
      admin_->IngestStream(&context, &response);
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
    v1::IngestRequest whole = header;
    in.clear();
    in.seekg(0);
    std::stringstream ss;
    ss << in.rdbuf();
    whole.set_content(ss.str());
    return Call(&v1::Admin::Stub::Ingest, whole, default_deadline_s);
  }
  if (!status.ok()) return RpcError(status, context);
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

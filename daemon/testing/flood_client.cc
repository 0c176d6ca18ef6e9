// flood_client: one local client flooding a toporrd read server (tests only;
// //daemon:limits_test). It opens --connections connections to --target and keeps
// --in_flight requests in flight on each until --seconds have passed or --max_requests were
// sent, then prints one line on stdout: "sent=N" and a count per outcome ("ok=N
// resource_exhausted=N not_found=N code_14=N"), and the first error message on stderr.
//
// Kinds of request (--kind):
//   oversized   a GetCostMatrix request 64 KiB over --limit_bytes (gRPC refuses it by size)
//   near_limit  one 64 KiB under --limit_bytes (read and parsed: unknown hosts, NOT_FOUND)
//   heavy       an uncompressed GetCostMatrix over the first --hosts hosts "node0001"..
//   light       GetSnapshot
//   register    RegisterHostList, request k (from 0) of the names of --names picked by the
//               bits of k + 1: every request a list of its own
//   mixed       connection c sends oversized, near_limit, heavy for c % 3 = 0, 1, 2
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/marshalling.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "grpcpp/grpcpp.h"
#include "toporr/v1/toporr.grpc.pb.h"

ABSL_FLAG(std::string, target, "", "gRPC target (127.0.0.1:PORT or unix:PATH)");
ABSL_FLAG(std::string, kind, "mixed", "oversized, near_limit, heavy, light, register or mixed");
ABSL_FLAG(int, connections, 6, "Connections to open");
ABSL_FLAG(int, in_flight, 8, "Requests kept in flight per connection");
ABSL_FLAG(double, seconds, 5, "Stop sending after this many seconds");
ABSL_FLAG(int, max_requests, 100000, "Stop sending after this many requests");
ABSL_FLAG(int, limit_bytes, 4 << 20, "The daemon's max_read_message_bytes");
ABSL_FLAG(int, hosts, 2048, "Hosts of a heavy request");
ABSL_FLAG(std::vector<std::string>, names, {}, "Host names of register requests (comma-separated)");

namespace {

using toporr::v1::GetCostMatrixRequest;
using toporr::v1::GetCostMatrixResponse;
using toporr::v1::GetSnapshotRequest;
using toporr::v1::GetSnapshotResponse;
using toporr::v1::RegisterHostListRequest;
using toporr::v1::RegisterHostListResponse;
using toporr::v1::Topology;

// One request in flight; its address is the completion queue's tag.
struct Call {
  grpc::ClientContext context;
  GetCostMatrixResponse matrix;
  GetSnapshotResponse snapshot;
  RegisterHostListResponse registered;
  grpc::Status status;
  std::unique_ptr<grpc::ClientAsyncResponseReader<GetCostMatrixResponse>> matrix_reader;
  std::unique_ptr<grpc::ClientAsyncResponseReader<GetSnapshotResponse>> snapshot_reader;
  std::unique_ptr<grpc::ClientAsyncResponseReader<RegisterHostListResponse>> register_reader;
  int connection = 0;
};

// A matrix request of about `bytes` bytes of (unknown) host names.
GetCostMatrixRequest SizedRequest(int bytes) {
  GetCostMatrixRequest req;
  constexpr int kNameBytes = 64 << 10;
  for (int i = 0; i * kNameBytes < bytes; ++i) {
    req.add_hosts(absl::StrCat(i, std::string(std::min(kNameBytes, bytes - i * kNameBytes), 'f')));
  }
  return req;
}

GetCostMatrixRequest HeavyRequest(int hosts) {
  GetCostMatrixRequest req;
  for (int h = 0; h < hosts; ++h) {
    char name[16];
    snprintf(name, sizeof(name), "node%04d", h + 1);
    req.add_hosts(name);
  }
  return req;
}

// Request `k` of kind register: the names of `names` picked by the bits of k + 1.
RegisterHostListRequest RegisterRequest(const std::vector<std::string>& names, int k) {
  RegisterHostListRequest req;
  for (size_t i = 0; i < names.size() && i < 31; ++i) {
    if ((k + 1) >> i & 1) req.add_hosts(names[i]);
  }
  return req;
}

std::string CodeName(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
      return "ok";
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return "resource_exhausted";
    case grpc::StatusCode::NOT_FOUND:
      return "not_found";
    default:
      return absl::StrCat("code_", code);
  }
}

int Run() {
  const std::string kind = absl::GetFlag(FLAGS_kind);
  const int limit = absl::GetFlag(FLAGS_limit_bytes);
  std::map<std::string, GetCostMatrixRequest> requests = {
      {"oversized", SizedRequest(limit + (64 << 10))},
      {"near_limit", SizedRequest(limit - (64 << 10))},
      {"heavy", HeavyRequest(absl::GetFlag(FLAGS_hosts))},
  };
  const std::vector<std::string> mixed = {"oversized", "near_limit", "heavy"};
  if (kind != "mixed" && kind != "light" && kind != "register" && requests.count(kind) == 0) {
    fprintf(stderr, "flood_client: unknown --kind %s\n", kind.c_str());
    return 2;
  }
  std::vector<std::unique_ptr<Topology::Stub>> stubs;
  for (int c = 0; c < absl::GetFlag(FLAGS_connections); ++c) {
    grpc::ChannelArguments args;
    args.SetMaxSendMessageSize(-1);
    args.SetMaxReceiveMessageSize(-1);
    args.SetInt("toporr-flood-connection", c);  // a connection of its own
    stubs.push_back(Topology::NewStub(grpc::CreateCustomChannel(
        absl::GetFlag(FLAGS_target), grpc::InsecureChannelCredentials(), args)));
  }
  grpc::CompletionQueue cq;
  const auto end = std::chrono::steady_clock::now() +
                   std::chrono::microseconds(int64_t(absl::GetFlag(FLAGS_seconds) * 1e6));
  int sent = 0, running = 0;
  auto start_call = [&](int connection) {
    auto* call = new Call;
    call->connection = connection;
    call->context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
    const std::string& k = kind == "mixed" ? mixed[connection % mixed.size()] : kind;
    if (k == "light") {
      call->snapshot_reader =
          stubs[connection]->AsyncGetSnapshot(&call->context, GetSnapshotRequest(), &cq);
      call->snapshot_reader->Finish(&call->snapshot, &call->status, call);
    } else if (k == "register") {
      call->register_reader = stubs[connection]->AsyncRegisterHostList(
          &call->context, RegisterRequest(absl::GetFlag(FLAGS_names), sent), &cq);
      call->register_reader->Finish(&call->registered, &call->status, call);
    } else {
      call->matrix_reader = stubs[connection]->AsyncGetCostMatrix(&call->context, requests[k], &cq);
      call->matrix_reader->Finish(&call->matrix, &call->status, call);
    }
    ++sent;
    ++running;
  };
  auto may_send = [&] {
    return sent < absl::GetFlag(FLAGS_max_requests) && std::chrono::steady_clock::now() < end;
  };
  for (int c = 0; c < static_cast<int>(stubs.size()); ++c) {
    for (int i = 0; i < absl::GetFlag(FLAGS_in_flight) && may_send(); ++i) start_call(c);
  }
  std::map<std::string, int> outcomes;
  std::string first_error;
  void* tag;
  bool ok;
  while (running > 0 && cq.Next(&tag, &ok)) {
    std::unique_ptr<Call> call(static_cast<Call*>(tag));
    --running;
    outcomes[CodeName(call->status.error_code())]++;
    if (!call->status.ok() && first_error.empty()) first_error = call->status.error_message();
    if (may_send()) start_call(call->connection);
  }
  std::string line = absl::StrCat("sent=", sent);
  for (const auto& [name, count] : outcomes) absl::StrAppend(&line, " ", name, "=", count);
  printf("%s\n", line.c_str());
  fprintf(stderr, "first error: %s\n", first_error.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return Run();
}

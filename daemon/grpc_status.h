// The one place absl::Status becomes grpc::Status (codes map one to one).
#ifndef TOPORR_DAEMON_GRPC_STATUS_H_
#define TOPORR_DAEMON_GRPC_STATUS_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/time/clock.h"
#include "daemon/rpc_stats.h"
#include "grpcpp/server_context.h"
#include "grpcpp/support/server_callback.h"
#include "grpcpp/support/status.h"

namespace toporr::daemon {

// Status messages are cut at this many bytes (and escaped): far below gRPC's 8 KB limit on
// the metadata that carries them.
inline constexpr size_t kMaxStatusMessageBytes = 4096;

grpc::Status ToGrpcStatus(const absl::Status& status);

// Runs `body` and records it (the common part of Serve and ServeCallback).
template <typename Body>
grpc::Status RunRecorded(RpcStats* stats, const char* method, Body&& body) {
  const absl::Time start = absl::Now();
  const absl::Status status = body();
  if (stats != nullptr) stats->Record(method, status.code(), absl::Now() - start);
  return ToGrpcStatus(status);
}

// The synchronous methods are the ones whose work grows with the fabric or the request
// (matrices, topologies, host lists, ingest). The server's handler threads that run them are
// lowered to nice kHandlerThreadNice the first time they serve, so that under a flood of
// such requests gRPC's own threads, which read every request and answer the light reads on
// the callback API, still get the CPU (issue 12, class 5; //daemon:limits_test).
inline constexpr int kHandlerThreadNice = 10;
void LowerHandlerThreadPriority();

// How every synchronous gRPC method answers: runs `body` (the conversion and validation,
// returning absl::Status), records the request as `method` with its status and latency in
// `stats` (may be null; pass __func__, the method's own name) and converts the result with
// ToGrpcStatus. The calling thread is a handler thread (LowerHandlerThreadPriority).
template <typename Body>
grpc::Status Serve(RpcStats* stats, const char* method, Body&& body) {
  LowerHandlerThreadPriority();
  return RunRecorded(stats, method, std::forward<Body>(body));
}

// The same for a method served on gRPC's callback API: it answers through the context's
// default reactor. For the cheap methods a job start sends by the thousand at once (every
// node leader's GetCostRow): they run on gRPC's own threads, where the synchronous API
// hands every request to a handler thread (measured by bench/leader_rows_bench: 3x the
// daemon's CPU per request). Bodies should not block for long.
template <typename Body>
grpc::ServerUnaryReactor* ServeCallback(grpc::CallbackServerContext* context, RpcStats* stats,
                                        const char* method, Body&& body) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(RunRecorded(stats, method, std::forward<Body>(body)));
  return reactor;
}

}  // namespace toporr::daemon

#endif  // TOPORR_DAEMON_GRPC_STATUS_H_

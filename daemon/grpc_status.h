// The one place absl::Status becomes grpc::Status (codes map one to one).
#ifndef TOPORR_DAEMON_GRPC_STATUS_H_
#define TOPORR_DAEMON_GRPC_STATUS_H_

#include <memory>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/clock.h"
#include "common/daemon_answer.h"
#include "daemon/rpc_stats.h"
#include "daemon/work_queue.h"
#include "grpcpp/server_context.h"
#include "grpcpp/support/server_callback.h"
#include "grpcpp/support/status.h"

namespace toporr::daemon {

// Status messages are cut at this many bytes (and escaped): far below gRPC's 8 KB limit on
// the metadata that carries them.
inline constexpr size_t kMaxStatusMessageBytes = 4096;

grpc::Status ToGrpcStatus(const absl::Status& status);

// Marks the status of `context`'s call as toporrd's own answer (common/daemon_answer.h), so
// that a client does not take the daemon's refusal for an unreachable daemon.
inline void MarkDaemonAnswer(grpc::ServerContextBase* context) {
  context->AddTrailingMetadata(kDaemonAnswerKey, "1");
}

// How every gRPC method answers: runs `body` (the conversion and validation, returning
// absl::Status), records the request as `method` with its status and latency in `stats` (may
// be null; pass __func__, the method's own name), marks the answer as the daemon's
// (MarkDaemonAnswer) and converts the result with ToGrpcStatus.
template <typename Body>
grpc::Status Serve(grpc::ServerContextBase* context, RpcStats* stats, const char* method,
                   Body&& body) {
  const absl::Time start = absl::Now();
  const absl::Status status = body();
  if (stats != nullptr) stats->Record(method, status.code(), absl::Now() - start);
  MarkDaemonAnswer(context);
  return ToGrpcStatus(status);
}

// The same for a method served on gRPC's callback API: it answers through the context's
// default reactor. For the cheap methods a job start sends by the thousand at once (every
// node leader's GetCostRow): they run on gRPC's own threads, where the synchronous API
// hands every request to a handler thread at a several-fold CPU cost per request
// (bench/leader_rows_bench measures it). Bodies should not block for long.
template <typename Body>
grpc::ServerUnaryReactor* ServeCallback(grpc::CallbackServerContext* context, RpcStats* stats,
                                        const char* method, Body&& body) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(Serve(context, stats, method, std::forward<Body>(body)));
  return reactor;
}

// The reactor of a call served by ServeQueued: it keeps what the body hands to Hold (a slot
// of a RequestLimiter) until gRPC is done with the call, that is until the reply is sent
// (or the call cancelled), not only while the reply is computed.
class HoldingReactor final : public grpc::ServerUnaryReactor {
 public:
  void Hold(std::shared_ptr<void> held) { held_.push_back(std::move(held)); }
  void OnDone() override { delete this; }

 private:
  std::vector<std::shared_ptr<void>> held_;
};

// A method on gRPC's callback API whose work grows with the fabric or the request: `body`
// (HoldingReactor* -> absl::Status) runs on `queue` (inline when null), off gRPC's own
// threads, and is recorded and converted like Serve. A call cancelled while it waited (its
// deadline passed, its client went away) is answered CANCELLED without running `body`.
template <typename Body>
grpc::ServerUnaryReactor* ServeQueued(grpc::CallbackServerContext* context, WorkQueue* queue,
                                      RpcStats* stats, const char* method, Body body) {
  auto* reactor = new HoldingReactor;  // deletes itself in OnDone
  auto run = [context, reactor, stats, method, body = std::move(body)]() mutable {
    reactor->Finish(Serve(context, stats, method, [&] {
      if (context->IsCancelled()) {
        return absl::CancelledError("cancelled while waiting for a worker thread");
      }
      return body(reactor);
    }));
  };
  if (queue == nullptr) {
    run();
  } else {
    queue->Schedule(std::move(run));
  }
  return reactor;
}

}  // namespace toporr::daemon

#endif  // TOPORR_DAEMON_GRPC_STATUS_H_

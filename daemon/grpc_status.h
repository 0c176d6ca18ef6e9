// The one place absl::Status becomes grpc::Status (codes map one to one).
#ifndef TOPORR_DAEMON_GRPC_STATUS_H_
#define TOPORR_DAEMON_GRPC_STATUS_H_

#include "absl/status/status.h"
#include "daemon/rpc_stats.h"
#include "grpcpp/support/status.h"

namespace toporr::daemon {

grpc::Status ToGrpcStatus(const absl::Status& status);

// How every gRPC method answers: counts the request as `method` in `stats` (may be null;
// pass __func__, the method's own name), runs `body` (the conversion and validation,
// returning absl::Status) and converts its result with ToGrpcStatus.
template <typename Body>
grpc::Status Serve(RpcStats* stats, const char* method, Body&& body) {
  if (stats != nullptr) stats->Count(method);
  return ToGrpcStatus(body());
}

}  // namespace toporr::daemon

#endif  // TOPORR_DAEMON_GRPC_STATUS_H_

#include "daemon/grpc_status.h"

#include <string>

#include "common/printable.h"

namespace toporr::daemon {

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  // absl and gRPC share the canonical code numbering. The message is the last guard of the
  // printable-text policy (common/printable.h): whatever a layer below quoted, the client
  // gets a printable message that fits gRPC's metadata limit (8 KB by default).
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                      Printable(std::string(status.message()), kMaxStatusMessageBytes, "\n\t"));
}

}  // namespace toporr::daemon

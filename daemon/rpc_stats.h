// The daemon's request counters (GetStats): RPCs handled since start, by method name,
// whatever their status. Counted in the one place every gRPC method is wrapped (Serve,
// grpc_status.h), so a new method is counted without further code. Thread-safe.
#ifndef TOPORR_DAEMON_RPC_STATS_H_
#define TOPORR_DAEMON_RPC_STATS_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"

namespace toporr::daemon {

class RpcStats {
 public:
  // One more request of `method`, which must outlive this object (a string literal or
  // __func__).
  void Count(absl::string_view method);

  // The counts so far, by method name; methods never called are absent.
  std::map<std::string, int64_t> Counts() const;

 private:
  mutable std::mutex mu_;
  absl::flat_hash_map<absl::string_view, int64_t> counts_ ABSL_GUARDED_BY(mu_);
};

}  // namespace toporr::daemon

#endif  // TOPORR_DAEMON_RPC_STATS_H_

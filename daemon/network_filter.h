// The networks whose hosts may call toporrd over TCP (toporrd.conf listen_allowed_networks).
// The daemon's Unix socket is local and governed by file modes and SO_PEERCRED, not by this.
#ifndef TOPORR_DAEMON_NETWORK_FILTER_H_
#define TOPORR_DAEMON_NETWORK_FILTER_H_

#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/net_address.h"
#include "daemon/rpc_stats.h"
#include "grpcpp/grpcpp.h"

namespace toporr::daemon {

class NetworkFilter {
 public:
  // `allowed` empty: every source is admitted. `stats` (may be null) counts refusals as
  // peers refused with reason "network_not_allowed".
  NetworkFilter(std::vector<IpPrefix> allowed, RpcStats* stats)
      : allowed_(std::move(allowed)), stats_(stats) {}

  // OK for a caller that is not on TCP (gRPC peer "unix:..." or "fd:N") or whose address is in
  // an allowed network; else PERMISSION_DENIED naming the address. Refusals are counted, and
  // logged once per address (the first kMaxLoggedPeers addresses; later ones only counted), so
  // that a client retrying in a loop cannot flood the log.
  absl::Status Admit(const grpc::ServerContextBase& context, const char* method);

  static constexpr size_t kMaxLoggedPeers = 1024;

 private:
  const std::vector<IpPrefix> allowed_;
  RpcStats* const stats_;
  std::mutex mu_;
  std::set<std::string> logged_;
};

}  // namespace toporr::daemon

#endif  // TOPORR_DAEMON_NETWORK_FILTER_H_

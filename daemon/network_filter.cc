#include "daemon/network_filter.h"

#include "absl/strings/str_cat.h"
#include "common/logging.h"
#include "common/printable.h"

namespace toporr::daemon {

absl::Status NetworkFilter::Admit(const grpc::ServerContextBase& context, const char* method) {
  if (allowed_.empty()) return absl::OkStatus();
  const std::string peer = context.peer();
  std::optional<IpAddress> address = PeerIpAddress(peer);
  if (!address) {
    // Not TCP: the Unix socket's connections are handed to gRPC as file descriptors.
    if (peer.rfind("unix:", 0) == 0 || peer.rfind("fd:", 0) == 0) return absl::OkStatus();
  } else {
    for (const IpPrefix& p : allowed_) {
      if (p.Contains(*address)) return absl::OkStatus();
    }
  }
  if (stats_ != nullptr) stats_->RecordPeerRefused("network_not_allowed");
  const std::string shown = Printable(peer, kMaxQuotedName);
  {
    std::lock_guard<std::mutex> lock(mu_);
    const std::string host = shown.substr(0, shown.rfind(':'));
    if (logged_.size() < kMaxLoggedPeers && logged_.insert(host).second) {
      TOPORR_LOG(WARNING) << method << " from " << shown
                          << " refused: not in listen_allowed_networks (further requests from "
                          << host << " are counted in toporr_peers_refused_total, not logged)";
    }
  }
  return absl::PermissionDeniedError(absl::StrCat("toporrd does not serve ", shown,
                                                  ": its network is not in the daemon's "
                                                  "listen_allowed_networks"));
}

}  // namespace toporr::daemon

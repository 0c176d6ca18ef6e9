#include "daemon/peer_book.h"

#include <optional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/net_address.h"
#include "daemon/client_identity.h"

namespace toporr::daemon {
namespace {

// The descriptor of a gRPC peer "fd:N".
std::optional<int> PeerFd(const std::string& grpc_peer) {
  int fd = -1;
  if (grpc_peer.rfind("fd:", 0) != 0 || !absl::SimpleAtoi(grpc_peer.substr(3), &fd)) {
    return std::nullopt;
  }
  return fd;
}

}  // namespace

void PeerBook::Remember(int fd, const PeerCredentials& peer) {
  std::lock_guard<std::mutex> lock(mu_);
  peers_[fd] = peer;
}

std::string PeerBook::Describe(const std::string& grpc_peer) const {
  const std::optional<int> fd = PeerFd(grpc_peer);
  if (!fd) return grpc_peer;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = peers_.find(*fd);
  if (it == peers_.end()) return grpc_peer;
  return absl::StrCat("uid ", it->second.uid, " gid ", it->second.gid, " pid ", it->second.pid,
                      " (unix socket, ", grpc_peer, ")");
}

std::string PeerBook::Identity(const std::string& grpc_peer, const grpc::AuthContext* auth) const {
  if (const std::optional<int> fd = PeerFd(grpc_peer)) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = peers_.find(*fd);
    return it == peers_.end() ? grpc_peer : absl::StrCat("uid ", it->second.uid);
  }
  if (auth != nullptr && auth->IsPeerAuthenticated()) {
    if (absl::StatusOr<std::string> cn = CertificateIdentity(*auth); cn.ok()) {
      return "certificate CN=" + *cn;
    }
  }
  if (PeerIpAddress(grpc_peer)) return grpc_peer.substr(0, grpc_peer.rfind(':'));
  return grpc_peer;
}

}  // namespace toporr::daemon

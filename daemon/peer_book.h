// Who is calling toporrd, from gRPC's peer string. The Unix socket's connections reach gRPC
// as file descriptors (gRPC names such a peer "fd:N"); the book keeps the kernel's
// credentials (SO_PEERCRED) of each one, handed over by the socket's listener
// (daemon/peer_listener.h) before gRPC reads from it, so that a call names its caller by uid.
// An entry is replaced when its descriptor number is reused by a new connection. Thread-safe.
#ifndef TOPORR_DAEMON_PEER_BOOK_H_
#define TOPORR_DAEMON_PEER_BOOK_H_

#include <map>
#include <mutex>
#include <string>

#include "absl/base/thread_annotations.h"
#include "daemon/peer_listener.h"
#include "grpcpp/grpcpp.h"

namespace toporr::daemon {

class PeerBook {
 public:
  // The connection on descriptor `fd` comes from `peer`.
  void Remember(int fd, const PeerCredentials& peer);

  // For a log line: "uid 1000 gid 1000 pid 4242 (unix socket, fd:14)" for a known Unix-socket
  // connection, else `grpc_peer` as is.
  std::string Describe(const std::string& grpc_peer) const;

  // The caller as one principal, the unit of per-caller bounds (host lists):
  //   "uid 1000"                 a Unix-socket connection (every process of that user);
  //   "certificate CN=mgmt01"    a TCP client with a verified certificate (`auth`, may be null);
  //   "ipv4:10.1.2.3"            another TCP client: its address without the port (every
  //                              connection from that host), likewise "ipv6:[fd00::1]";
  //   `grpc_peer` as is          anything else (an unknown descriptor, in-process).
  std::string Identity(const std::string& grpc_peer, const grpc::AuthContext* auth) const;

 private:
  mutable std::mutex mu_;
  std::map<int, PeerCredentials> peers_ ABSL_GUARDED_BY(mu_);
};

}  // namespace toporr::daemon

#endif  // TOPORR_DAEMON_PEER_BOOK_H_

// How a client reaches toporrd: the Unix socket, or the TCP listener over TLS (the daemon's
// certificate verified against a CA file and its name checked, optionally a client
// certificate for mutual TLS), or plaintext TCP only where that was asked for or never
// leaves the machine. libtoporr (daemon_rows.cc) and toporrctl share it, with the same
// settings (client_options.h: address, tls_ca, tls_cert, tls_key, tls_server_name,
// insecure). `address` may list several daemons (a standby list, daemon_failover.h):
// DaemonEndpoints splits it into one endpoint per daemon, each with the same TLS settings.
#ifndef TOPORR_CLIENT_COSTS_DAEMON_CHANNEL_H_
#define TOPORR_CLIENT_COSTS_DAEMON_CHANNEL_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/config/client_options.h"
#include "grpcpp/grpcpp.h"

namespace toporr::client {

struct DaemonEndpoint {
  std::string socket;  // used when `address` is empty
  // HOST:PORT. As configured (ClientOptions::address, toporrctl --target) a comma-separated
  // list of them, which DaemonEndpoints splits before any channel is made.
  std::string address;
  std::string tls_ca, tls_cert, tls_key, tls_server_name;
  bool insecure = false;

  static DaemonEndpoint Of(const ClientOptions& o) {
    return {o.socket, o.address, o.tls_ca, o.tls_cert, o.tls_key, o.tls_server_name, o.insecure};
  }
  // "/run/toporr/toporrd.sock", "mgmt01:50051 (TLS)", "mgmt01:50051 (plaintext)".
  std::string Describe() const;
  // The daemon's address, or the socket's path when there is none: how a decision report
  // and toporrctl --json name the daemon that answered.
  const std::string& Name() const { return address.empty() ? socket : address; }
};

// The daemons `configured` names, in the order a client asks them: one endpoint per element
// of its address list (SplitDaemonAddresses), each with `configured`'s TLS settings; the
// socket alone when there is no address. kInvalidArgument "address: element 2 ..." for a
// malformed list (the site file and TOPORR_ADDRESS are checked when read; this catches a list
// given through the C API or --target).
absl::StatusOr<std::vector<DaemonEndpoint>> DaemonEndpoints(const DaemonEndpoint& configured);

// A channel to `endpoint` with `args`. Refused (kFailedPrecondition / kNotFound, the message
// naming the setting to change): a TCP address outside loopback without tls_ca unless
// `insecure`; tls_cert without tls_key or the reverse; a certificate file that cannot be
// read. gRPC's own log lines are silenced in the process unless GRPC_VERBOSITY is set (the
// caller reports the cause). Connection and handshake errors (wrong CA, expired certificate,
// plaintext to a TLS port or TLS to a plaintext one) surface on the first call; ExplainRpcFailure
// names them. Given an address list, the channel goes to its first daemon only (callers that
// fail over split the list with DaemonEndpoints and make one channel per daemon); a malformed
// list is refused as DaemonEndpoints refuses it.
absl::StatusOr<std::shared_ptr<grpc::Channel>> NewDaemonChannel(const DaemonEndpoint& endpoint,
                                                                grpc::ChannelArguments args = {});

// For a call that failed because of TLS (or plaintext against TLS): the cause in words, with
// the setting to check; nullopt for other failures. Such a failure repeats on every retry.
std::optional<std::string> TlsFailureCause(const DaemonEndpoint& endpoint,
                                           const grpc::Status& status);

// Whether a failed call went unanswered by the daemon at `endpoint` (DEADLINE_EXCEEDED, or
// UNAVAILABLE that is not a TLS failure: no connection, refused, reset): the failure that
// sends a request on to the next daemon of a standby list (client/costs/daemon_failover.h).
// A TLS failure with a daemon that was reached is its answer.
bool DaemonDidNotAnswerCall(const DaemonEndpoint& endpoint, const grpc::Status& status);

// The cause of a failed call in words a user acts on: for UNAVAILABLE over TCP, what the
// transport's message says about TLS (certificate not trusted or expired, name mismatch, a
// plaintext listener) with the setting to check; otherwise gRPC's message. When the daemon's
// certificate failed verification, the certificate is fetched once more and verified here
// (ServerCertificateProblem, at most kDiagnosisTimeoutMs) to name which: expired, not yet
// valid, signed by another CA.
std::string ExplainRpcFailure(const DaemonEndpoint& endpoint, const grpc::Status& status);

// A failed call's cause in a few words, for a message naming several daemons: the TLS cause
// (TlsFailureCause), else the last clause of gRPC's message ("Connection refused", "Socket
// closed", "Domain name not found"), at most 120 characters.
std::string BriefRpcFailure(const DaemonEndpoint& endpoint, const grpc::Status& status);

inline constexpr int kDiagnosisTimeoutMs = 1000;

// Connects to endpoint.address over TLS without verifying, takes the certificate chain the
// daemon presents and verifies it against endpoint.tls_ca: OpenSSL's reason when it fails
// ("certificate has expired", "unable to get local issuer certificate", ...); nullopt when
// it verifies or nothing can be learnt within `timeout_ms`.
std::optional<std::string> ServerCertificateProblem(const DaemonEndpoint& endpoint, int timeout_ms);

}  // namespace toporr::client

#endif  // TOPORR_CLIENT_COSTS_DAEMON_CHANNEL_H_

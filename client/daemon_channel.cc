#include "client/daemon_channel.h"

#include <cstdlib>
#include <mutex>
#include <optional>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/key_value_file.h"
#include "common/net_address.h"
#include "common/status_macros.h"
#include "grpc/support/log.h"

namespace toporr::client {
namespace {

absl::Status ReadPem(const char* setting, const std::string& path, std::string* pem) {
  absl::Status s = ReadRegularFile(path, pem);
  if (!s.ok()) return absl::Status(s.code(), absl::StrCat(setting, ": ", s.message()));
  if (pem->find("-----BEGIN ") == std::string::npos) {
    return absl::FailedPreconditionError(absl::StrCat(setting, ": ", path, ": not PEM"));
  }
  return absl::OkStatus();
}

// gRPC logs a failed TLS handshake or connection on stderr of every process that tried: in
// an MPI job, one line per host leader. toporr reports the cause itself, once (the caller's
// warning); gRPC's own log stays on only when the user asks for it with GRPC_VERBOSITY.
void QuietGrpcLog() {
  static std::once_flag once;
  std::call_once(once, [] {
    const char* v = std::getenv("GRPC_VERBOSITY");
    if (v == nullptr || *v == '\0') gpr_set_log_function([](gpr_log_func_args*) {});
  });
}

}  // namespace

std::string DaemonEndpoint::Describe() const {
  if (address.empty()) return socket;
  return absl::StrCat(address, tls_ca.empty() ? " (plaintext)" : " (TLS)");
}

absl::StatusOr<std::shared_ptr<grpc::Channel>> NewDaemonChannel(const DaemonEndpoint& endpoint,
                                                                grpc::ChannelArguments args) {
  QuietGrpcLog();
  if (endpoint.address.empty()) {
    return grpc::CreateCustomChannel("unix:" + endpoint.socket, grpc::InsecureChannelCredentials(),
                                     args);
  }
  if (endpoint.tls_ca.empty()) {
    if (!endpoint.tls_cert.empty() || !endpoint.tls_key.empty()) {
      return absl::FailedPreconditionError(
          absl::StrCat("tls_cert/tls_key without tls_ca for ", endpoint.address));
    }
    if (!endpoint.insecure && !IsLoopbackAddress(endpoint.address)) {
      return absl::FailedPreconditionError(
          absl::StrCat("toporrd at ", endpoint.address,
                       " over plaintext TCP: set tls_ca (TOPORR_TLS_CA) to the CA of the daemon's "
                       "certificate, or insecure = 1 (TOPORR_INSECURE=1) to allow plaintext"));
    }
    return grpc::CreateCustomChannel(endpoint.address, grpc::InsecureChannelCredentials(), args);
  }
  if (endpoint.tls_cert.empty() != endpoint.tls_key.empty()) {
    return absl::FailedPreconditionError("tls_cert and tls_key go together");
  }
  grpc::SslCredentialsOptions ssl;
  RETURN_IF_ERROR(ReadPem("tls_ca", endpoint.tls_ca, &ssl.pem_root_certs));
  if (!endpoint.tls_cert.empty()) {
    RETURN_IF_ERROR(ReadPem("tls_cert", endpoint.tls_cert, &ssl.pem_cert_chain));
    RETURN_IF_ERROR(ReadPem("tls_key", endpoint.tls_key, &ssl.pem_private_key));
  }
  if (!endpoint.tls_server_name.empty()) {
    args.SetSslTargetNameOverride(endpoint.tls_server_name);
  }
  return grpc::CreateCustomChannel(endpoint.address, grpc::SslCredentials(ssl), args);
}

std::optional<std::string> TlsFailureCause(const DaemonEndpoint& endpoint,
                                           const grpc::Status& status) {
  const std::string& m = status.error_message();
  if (status.error_code() != grpc::StatusCode::UNAVAILABLE || endpoint.address.empty()) {
    return std::nullopt;
  }
  if (absl::StrContains(m, "CERTIFICATE_VERIFY_FAILED") ||
      absl::StrContains(m, "certificate verify failed")) {
    return absl::StrCat("the daemon's certificate is not valid for tls_ca ", endpoint.tls_ca,
                        " (signed by another CA, expired or not yet valid)");
  }
  if (absl::StrContains(m, "Peer name") || absl::StrContains(m, "name mismatch")) {
    return "the daemon's certificate does not name this address (set tls_server_name)";
  }
  if (absl::StrContains(m, "WRONG_VERSION_NUMBER") ||
      absl::StrContains(m, "wrong version number")) {
    return "the daemon's listener does not speak TLS (plaintext listener: unset tls_ca)";
  }
  if (endpoint.tls_ca.empty() &&
      (absl::StrContains(m, "Socket closed") || absl::StrContains(m, "Connection reset") ||
       absl::StrContains(m, "GOAWAY"))) {
    return "the connection was closed: is the daemon's listener TLS? (set tls_ca)";
  }
  if (absl::StrContains(m, "andshake")) return "TLS handshake failed";
  return std::nullopt;
}

std::string ExplainRpcFailure(const DaemonEndpoint& endpoint, const grpc::Status& status) {
  std::optional<std::string> cause = TlsFailureCause(endpoint, status);
  if (!cause) return status.error_message();
  return absl::StrCat(*cause, " [", status.error_message().substr(0, 200), "]");
}

}  // namespace toporr::client

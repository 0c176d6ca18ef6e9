#include "daemon/tcp_credentials.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/key_value_file.h"
#include "common/net_address.h"
#include "common/status_macros.h"
#include "daemon/client_identity.h"
#include "grpcpp/security/server_credentials.h"

namespace toporr::daemon {

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> TcpCredentials(
    const DaemonConfig& config) {
  if (config.tls_cert_path.empty() != config.tls_key_path.empty()) {
    return absl::InvalidArgumentError("tls_cert_path and tls_key_path go together");
  }
  if (config.tls_cert_path.empty()) {
    if (!config.tls_client_ca_path.empty() || !config.tls_admin_clients.empty()) {
      return absl::InvalidArgumentError(
          "tls_client_ca_path / tls_admin_clients need tls_cert_path and tls_key_path");
    }
    if (!config.listen_insecure && !IsLoopbackAddress(config.listen_address)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "listen_address ", config.listen_address,
          " without TLS: set tls_cert_path and tls_key_path, or listen_insecure = true to "
          "serve read RPCs in plain TCP"));
    }
    return grpc::InsecureServerCredentials();
  }
  grpc::SslServerCredentialsOptions::PemKeyCertPair pair;
  RETURN_IF_ERROR(
      ReadRegularFile(config.tls_key_path, &pair.private_key, kPemFileMaxBytes, "PEM file"));
  RETURN_IF_ERROR(
      ReadRegularFile(config.tls_cert_path, &pair.cert_chain, kPemFileMaxBytes, "PEM file"));
  grpc::SslServerCredentialsOptions ssl(GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  if (!config.tls_client_ca_path.empty()) {
    RETURN_IF_ERROR(ReadRegularFile(config.tls_client_ca_path, &ssl.pem_root_certs,
                                    kPemFileMaxBytes, "PEM file"));
    // Read RPCs stay open to clients without a certificate; one that presents a certificate
    // must present a valid one.
    ssl.client_certificate_request = GRPC_SSL_REQUEST_CLIENT_CERTIFICATE_AND_VERIFY;
  } else if (!config.tls_admin_clients.empty()) {
    return absl::InvalidArgumentError("tls_admin_clients needs tls_client_ca_path");
  }
  RETURN_IF_ERROR(CheckServerTlsFiles(config.tls_cert_path, pair.cert_chain, config.tls_key_path,
                                      pair.private_key, config.tls_client_ca_path,
                                      ssl.pem_root_certs));
  ssl.pem_key_cert_pairs.push_back(std::move(pair));
  return grpc::SslServerCredentials(ssl);
}

}  // namespace toporr::daemon

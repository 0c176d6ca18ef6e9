// The credentials of toporrd's TCP listener (`listen_address`), from the configuration's
// tls_* keys and listen_insecure:
//   - TLS when tls_cert_path and tls_key_path are set. With tls_client_ca_path, clients are
//     asked for a certificate and one that presents a certificate must present one signed by
//     that CA (mutual TLS: the admin clients of tls_admin_clients are named by it); clients
//     without a certificate keep the read RPCs.
//   - Plain TCP only when listen_insecure is set or listen_address is a loopback address (the
//     traffic never leaves the machine); plain TCP never carries admin RPCs.
// The files are read and checked here, so that a bad key or certificate is named at start
// instead of surfacing as a listener gRPC cannot create.
#ifndef TOPORR_DAEMON_TCP_CREDENTIALS_H_
#define TOPORR_DAEMON_TCP_CREDENTIALS_H_

#include <memory>

#include "absl/status/statusor.h"
#include "daemon/config.h"
#include "grpcpp/security/server_credentials.h"

namespace toporr::daemon {

// The credentials for `config.listen_address`. Errors:
//   - kInvalidArgument for settings that do not go together: a certificate without its key
//     (or the reverse); tls_client_ca_path or tls_admin_clients without TLS;
//     tls_admin_clients without tls_client_ca_path; plain TCP on an address that is not
//     loopback without listen_insecure;
//   - ReadRegularFile's errors for a TLS file that cannot be read (common/key_value_file.h);
//   - CheckServerTlsFiles' kInvalidArgument for files that do not hold what they should
//     (daemon/client_identity.h).
// Every message names the setting or the file.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> TcpCredentials(const DaemonConfig& config);

}  // namespace toporr::daemon

#endif  // TOPORR_DAEMON_TCP_CREDENTIALS_H_

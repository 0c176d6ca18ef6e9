// TLS identities and files of toporrd.
//
// Who an mTLS client is: the one common name of its verified certificate's subject.
// A subject with no common name or with several ("CN=mgmt01, CN=someuser") names no one and
// is refused, whatever order its names come in: an admin certificate names exactly one.
#ifndef TOPORR_DAEMON_CLIENT_IDENTITY_H_
#define TOPORR_DAEMON_CLIENT_IDENTITY_H_

#include <string>

#include "absl/status/statusor.h"
#include "grpcpp/grpcpp.h"

namespace toporr::daemon {

// The common name of the peer certificate gRPC verified (x509_pem_cert of `auth`):
// kUnauthenticated without a verified certificate, kPermissionDenied naming the count for a
// subject with zero or several common names.
absl::StatusOr<std::string> CertificateIdentity(const grpc::AuthContext& auth);

// The same for a PEM certificate (tests, and the parsing behind CertificateIdentity).
absl::StatusOr<std::string> CertificateIdentityOfPem(const std::string& pem);

// The TCP listener's TLS files, checked before gRPC is given them (gRPC reports a bad key
// or certificate only as a listener that cannot be created): `cert_pem` holds at least one
// certificate, `key_pem` a private key that matches its first, `ca_pem` (when not empty) at
// least one CA certificate. kInvalidArgument naming the file (`*_path`) and the problem.
absl::Status CheckServerTlsFiles(const std::string& cert_path, const std::string& cert_pem,
                                 const std::string& key_path, const std::string& key_pem,
                                 const std::string& ca_path, const std::string& ca_pem);

}  // namespace toporr::daemon

#endif  // TOPORR_DAEMON_CLIENT_IDENTITY_H_

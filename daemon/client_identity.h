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

}  // namespace toporr::daemon

#endif  // TOPORR_DAEMON_CLIENT_IDENTITY_H_

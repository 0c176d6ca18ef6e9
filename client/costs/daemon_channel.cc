#include "client/costs/daemon_channel.h"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/key_value_file.h"
#include "common/net_address.h"
#include "common/status_macros.h"
#include "grpc/support/log.h"
#include "openssl/bio.h"
#include "openssl/err.h"
#include "openssl/pem.h"
#include "openssl/ssl.h"
#include "openssl/x509.h"

namespace toporr::client {
namespace {

absl::Status ReadPem(const char* setting, const std::string& path, std::string* pem) {
  absl::Status s = ReadRegularFile(path, pem, kPemFileMaxBytes, "PEM file");
  if (!s.ok()) return absl::Status(s.code(), absl::StrCat(setting, ": ", s.message()));
  if (pem->find("-----BEGIN ") == std::string::npos) {
    return absl::FailedPreconditionError(absl::StrCat(setting, ": ", path, ": not PEM"));
  }
  return absl::OkStatus();
}

// Whether the client certificate (the first of its chain) and the key belong together, so
// that a mismatch is refused at once with its reason rather than as a failed handshake.
absl::Status CheckKeyPair(const DaemonEndpoint& endpoint, const std::string& cert_pem,
                          const std::string& key_pem) {
  std::unique_ptr<BIO, decltype(&BIO_free)> cert_bio(
      BIO_new_mem_buf(cert_pem.data(), static_cast<int>(cert_pem.size())), BIO_free);
  std::unique_ptr<BIO, decltype(&BIO_free)> key_bio(
      BIO_new_mem_buf(key_pem.data(), static_cast<int>(key_pem.size())), BIO_free);
  if (cert_bio == nullptr || key_bio == nullptr) {
    return absl::ResourceExhaustedError("tls_cert/tls_key: out of memory");
  }
  std::unique_ptr<X509, decltype(&X509_free)> cert(
      PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr), X509_free);
  if (cert == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("tls_cert: ", endpoint.tls_cert, ": no certificate can be read from it"));
  }
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
      PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr), EVP_PKEY_free);
  ERR_clear_error();
  if (key == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "tls_key: ", endpoint.tls_key, ": no private key can be read from it (encrypted?)"));
  }
  if (X509_check_private_key(cert.get(), key.get()) != 1) {
    ERR_clear_error();
    return absl::FailedPreconditionError(absl::StrCat(
        "tls_key ", endpoint.tls_key, " is not the key of tls_cert ", endpoint.tls_cert));
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

absl::StatusOr<std::vector<DaemonEndpoint>> DaemonEndpoints(const DaemonEndpoint& configured) {
  if (configured.address.empty()) return std::vector<DaemonEndpoint>{configured};
  absl::StatusOr<std::vector<std::string>> addresses = SplitDaemonAddresses(configured.address);
  if (!addresses.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("address ", configured.address.substr(0, 200),
                                                   ": ", addresses.status().message()));
  }
  std::vector<DaemonEndpoint> out;
  for (std::string& a : *addresses) {
    out.push_back(configured);
    out.back().address = std::move(a);
  }
  return out;
}

absl::StatusOr<std::shared_ptr<grpc::Channel>> NewDaemonChannel(const DaemonEndpoint& endpoint,
                                                                grpc::ChannelArguments args) {
  QuietGrpcLog();
  if (endpoint.address.find(',') != std::string::npos) {
    ASSIGN_OR_RETURN(std::vector<DaemonEndpoint> each, DaemonEndpoints(endpoint));
    return NewDaemonChannel(each.front(), std::move(args));
  }
  if (endpoint.address.empty()) {
    return grpc::CreateCustomChannel("unix:" + endpoint.socket, grpc::InsecureChannelCredentials(),
                                     args);
  }
  if (endpoint.tls_ca.empty()) {
    // Any TLS setting means TLS: without the CA it is refused, never plaintext.
    for (const auto& [key, value] :
         {std::pair<const char*, const std::string*>("tls_cert", &endpoint.tls_cert),
          {"tls_key", &endpoint.tls_key},
          {"tls_server_name", &endpoint.tls_server_name}}) {
      if (!value->empty()) {
        return absl::FailedPreconditionError(
            absl::StrCat(key, " is set but tls_ca is not, for ", endpoint.address,
                         ": TLS needs tls_ca (TOPORR_TLS_CA); toporr does not fall back to "
                         "plaintext"));
      }
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
    RETURN_IF_ERROR(CheckKeyPair(endpoint, ssl.pem_cert_chain, ssl.pem_private_key));
  }
  if (!endpoint.tls_server_name.empty()) {
    args.SetSslTargetNameOverride(endpoint.tls_server_name);
  }
  return grpc::CreateCustomChannel(endpoint.address, grpc::SslCredentials(ssl), args);
}

bool DaemonDidNotAnswerCall(const DaemonEndpoint& endpoint, const grpc::Status& status) {
  return status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED ||
         (status.error_code() == grpc::StatusCode::UNAVAILABLE &&
          !TlsFailureCause(endpoint, status));
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

std::string BriefRpcFailure(const DaemonEndpoint& endpoint, const grpc::Status& status) {
  if (std::optional<std::string> cause = TlsFailureCause(endpoint, status)) {
    return cause->substr(0, 120);
  }
  std::string m = status.error_message();
  const size_t last = m.rfind(": ");
  if (last != std::string::npos) m = m.substr(last + 2);
  return m.substr(0, 120);
}

std::string ExplainRpcFailure(const DaemonEndpoint& endpoint, const grpc::Status& status) {
  std::optional<std::string> cause = TlsFailureCause(endpoint, status);
  if (!cause) return status.error_message();
  if (absl::StrContains(*cause, "is not valid for tls_ca")) {
    if (std::optional<std::string> problem =
            ServerCertificateProblem(endpoint, kDiagnosisTimeoutMs)) {
      cause = absl::StrCat("the daemon's certificate is not valid for tls_ca ", endpoint.tls_ca,
                           ": ", *problem);
    }
  }
  return absl::StrCat(*cause, " [", status.error_message().substr(0, 200), "]");
}

namespace {

// A TCP connection to "host:port" ("[v6]:port") within `timeout_ms`, blocking afterwards
// with the same timeout on reads and writes; -1 when none.
int ConnectWithin(const std::string& address, int timeout_ms) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos) return -1;
  std::string host = address.substr(0, colon);
  const std::string port = address.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), port.c_str(), &hints, &found) != 0) return -1;
  int fd = -1;
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    int rc = connect(fd, a->ai_addr, a->ai_addrlen);
    if (rc != 0 && errno == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      int err = 0;
      socklen_t len = sizeof(err);
      rc = poll(&p, 1, timeout_ms) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 &&
                   err == 0
               ? 0
               : -1;
    }
    if (rc != 0) {
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  if (fd < 0) return -1;
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  timeval tv{timeout_ms / 1000, (timeout_ms % 1000) * 1000};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  return fd;
}

}  // namespace

std::optional<std::string> ServerCertificateProblem(const DaemonEndpoint& endpoint,
                                                    int timeout_ms) {
  if (endpoint.address.empty() || endpoint.tls_ca.empty()) return std::nullopt;
  std::string ca_pem;
  if (!ReadRegularFile(endpoint.tls_ca, &ca_pem, kPemFileMaxBytes, "PEM file").ok()) {
    return std::nullopt;
  }
  const int fd = ConnectWithin(endpoint.address, timeout_ms);
  if (fd < 0) return std::nullopt;
  std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> ctx(SSL_CTX_new(TLS_client_method()),
                                                        SSL_CTX_free);
  std::unique_ptr<SSL, decltype(&SSL_free)> ssl(ctx ? SSL_new(ctx.get()) : nullptr, SSL_free);
  std::optional<std::string> problem;
  if (ssl != nullptr && SSL_set_fd(ssl.get(), fd) == 1) {
    SSL_set_verify(ssl.get(), SSL_VERIFY_NONE, nullptr);
    static const unsigned char kAlpn[] = {2, 'h', '2'};
    SSL_set_alpn_protos(ssl.get(), kAlpn, sizeof(kAlpn));
    if (!endpoint.tls_server_name.empty()) {
      SSL_set_tlsext_host_name(ssl.get(), endpoint.tls_server_name.c_str());
    }
    if (SSL_connect(ssl.get()) == 1) {
      std::unique_ptr<X509, decltype(&X509_free)> leaf(SSL_get1_peer_certificate(ssl.get()),
                                                       X509_free);
      STACK_OF(X509)* chain = SSL_get_peer_cert_chain(ssl.get());  // owned by ssl
      std::unique_ptr<X509_STORE, decltype(&X509_STORE_free)> store(X509_STORE_new(),
                                                                    X509_STORE_free);
      std::unique_ptr<BIO, decltype(&BIO_free)> bio(
          BIO_new_mem_buf(ca_pem.data(), static_cast<int>(ca_pem.size())), BIO_free);
      bool loaded = false;
      while (store != nullptr && bio != nullptr) {
        std::unique_ptr<X509, decltype(&X509_free)> ca(
            PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr), X509_free);
        if (ca == nullptr) break;
        loaded |= X509_STORE_add_cert(store.get(), ca.get()) == 1;
      }
      std::unique_ptr<X509_STORE_CTX, decltype(&X509_STORE_CTX_free)> check(X509_STORE_CTX_new(),
                                                                            X509_STORE_CTX_free);
      if (leaf != nullptr && loaded && check != nullptr &&
          X509_STORE_CTX_init(check.get(), store.get(), leaf.get(), chain) == 1 &&
          X509_verify_cert(check.get()) != 1) {
        problem = X509_verify_cert_error_string(X509_STORE_CTX_get_error(check.get()));
      }
      SSL_shutdown(ssl.get());
    }
  }
  ERR_clear_error();
  close(fd);
  return problem;
}

}  // namespace toporr::client

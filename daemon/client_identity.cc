#include "daemon/client_identity.h"

#include <openssl/bio.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <memory>

#include "absl/strings/str_cat.h"
#include "common/printable.h"

namespace toporr::daemon {

absl::StatusOr<std::string> CertificateIdentityOfPem(const std::string& pem) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(
      BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), BIO_free);
  if (bio == nullptr) return absl::InternalError("out of memory reading a certificate");
  std::unique_ptr<X509, decltype(&X509_free)> cert(
      PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr), X509_free);
  if (cert == nullptr) return absl::UnauthenticatedError("the client certificate is not PEM");
  X509_NAME* subject = X509_get_subject_name(cert.get());
  int count = 0, last = -1;
  for (int i = -1; (i = X509_NAME_get_index_by_NID(subject, NID_commonName, i)) >= 0;) {
    ++count;
    last = i;
  }
  if (count != 1) {
    return absl::PermissionDeniedError(
        absl::StrCat("the client certificate's subject has ", count,
                     " common names; an admin certificate names exactly one"));
  }
  ASN1_STRING* data = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, last));
  unsigned char* utf8 = nullptr;
  const int len = ASN1_STRING_to_UTF8(&utf8, data);
  if (len < 0)
    return absl::PermissionDeniedError("the client certificate's common name is not text");
  std::string cn(reinterpret_cast<char*>(utf8), static_cast<size_t>(len));
  OPENSSL_free(utf8);
  if (cn.find('\0') != std::string::npos) {
    return absl::PermissionDeniedError(
        absl::StrCat("the client certificate's common name ", Quoted(cn), " holds a NUL"));
  }
  return cn;
}

namespace {

using Bio = std::unique_ptr<BIO, decltype(&BIO_free)>;

Bio MemBio(const std::string& pem) {
  return Bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), BIO_free);
}

}  // namespace

absl::Status CheckServerTlsFiles(const std::string& cert_path, const std::string& cert_pem,
                                 const std::string& key_path, const std::string& key_pem,
                                 const std::string& ca_path, const std::string& ca_pem) {
  auto refuse = [](const std::string& path, const char* what) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", what));
  };
  Bio cert_bio = MemBio(cert_pem);
  std::unique_ptr<X509, decltype(&X509_free)> cert(
      cert_bio ? PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr) : nullptr, X509_free);
  if (cert == nullptr) return refuse(cert_path, "no PEM certificate (tls_cert_path)");
  Bio key_bio = MemBio(key_pem);
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
      key_bio ? PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr) : nullptr,
      EVP_PKEY_free);
  if (key == nullptr) return refuse(key_path, "no PEM private key (tls_key_path)");
  if (X509_check_private_key(cert.get(), key.get()) != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(key_path, ": the private key does not match the certificate of ", cert_path,
                     " (tls_key_path and tls_cert_path must be one pair)"));
  }
  if (!ca_pem.empty() || !ca_path.empty()) {
    Bio ca_bio = MemBio(ca_pem);
    std::unique_ptr<X509, decltype(&X509_free)> ca(
        ca_bio ? PEM_read_bio_X509(ca_bio.get(), nullptr, nullptr, nullptr) : nullptr, X509_free);
    if (ca == nullptr) return refuse(ca_path, "no PEM CA certificate (tls_client_ca_path)");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> CertificateIdentity(const grpc::AuthContext& auth) {
  if (!auth.IsPeerAuthenticated()) {
    return absl::UnauthenticatedError("no verified client certificate");
  }
  std::vector<grpc::string_ref> pem = auth.FindPropertyValues("x509_pem_cert");
  if (pem.size() != 1) return absl::UnauthenticatedError("no verified client certificate");
  return CertificateIdentityOfPem(std::string(pem[0].data(), pem[0].size()));
}

}  // namespace toporr::daemon

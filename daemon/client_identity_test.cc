#include "daemon/client_identity.h"

#include "common/status_matchers.h"
#include "common/test_data.h"
#include "daemon/testing/subprocess.h"
#include "gtest/gtest.h"

namespace toporr::daemon {
namespace {

using ::testing::HasSubstr;
using ::toporr::testing::StatusIs;

// A self-signed certificate for `subject`, made by the real openssl.
std::string Cert(const std::string& subject) {
  const std::string dir = ::toporr::testing::MakeTempDir("identity");
  ::toporr::testing::RunResult r = ::toporr::testing::RunProcess(
      {"openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", dir + "/k.pem",
       "-out", dir + "/c.pem", "-days", "1", "-subj", subject});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return ::toporr::testing::ReadFileOrDie(dir + "/c.pem");
}

TEST(ClientIdentityTest, OneCommonNameIsTheIdentity) {
  absl::StatusOr<std::string> id = CertificateIdentityOfPem(Cert("/O=site/CN=mgmt01"));
  ASSERT_TRUE(id.ok()) << id.status();
  EXPECT_EQ(*id, "mgmt01");
}

TEST(ClientIdentityTest, SeveralOrNoCommonNamesAreRefusedInEitherOrder) {
  for (const char* subject : {"/CN=mgmt01/CN=someuser", "/CN=someuser/CN=mgmt01"}) {
    EXPECT_THAT(CertificateIdentityOfPem(Cert(subject)),
                StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr("has 2 common names")))
        << subject;
  }
  EXPECT_THAT(CertificateIdentityOfPem(Cert("/O=site")),
              StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr("has 0 common names")));
  EXPECT_THAT(CertificateIdentityOfPem("not a certificate"),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("not PEM")));
}

}  // namespace
}  // namespace toporr::daemon

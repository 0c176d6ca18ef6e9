// gMock matchers for absl::Status / StatusOr (tests only).
//
//   EXPECT_OK(s);  ASSERT_OK_AND_ASSIGN(auto v, F());
//   EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("line 12")));
#ifndef TOPORR_COMMON_STATUS_MATCHERS_H_
#define TOPORR_COMMON_STATUS_MATCHERS_H_

#include <ostream>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/status_macros.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::testing {

inline const absl::Status& GetStatus(const absl::Status& s) { return s; }
template <typename T>
const absl::Status& GetStatus(const absl::StatusOr<T>& s) {
  return s.status();
}

MATCHER_P2(StatusIs, code, message_matcher, "has code " + ::testing::PrintToString(code)) {
  const absl::Status& s = ::toporr::testing::GetStatus(arg);
  *result_listener << "status is " << s;
  return s.code() == code && ::testing::Matches(message_matcher)(std::string(s.message()));
}

}  // namespace toporr::testing

#define EXPECT_OK(expr) \
  EXPECT_TRUE(::toporr::testing::GetStatus(expr).ok()) << ::toporr::testing::GetStatus(expr)
#define ASSERT_OK(expr) \
  ASSERT_TRUE(::toporr::testing::GetStatus(expr).ok()) << ::toporr::testing::GetStatus(expr)

#define ASSERT_OK_AND_ASSIGN(lhs, rexpr)                                                         \
  TOPORR_ASSERT_OK_AND_ASSIGN_IMPL_(TOPORR_STATUS_CONCAT_(toporr_statusor_test_, __LINE__), lhs, \
                                    rexpr)
#define TOPORR_ASSERT_OK_AND_ASSIGN_IMPL_(statusor, lhs, rexpr) \
  auto statusor = (rexpr);                                      \
  ASSERT_TRUE(statusor.ok()) << statusor.status();              \
  lhs = std::move(statusor).value()

#endif  // TOPORR_COMMON_STATUS_MATCHERS_H_

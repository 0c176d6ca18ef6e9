#include "common/status_macros.h"

#include <string>
#include <vector>

#include "common/logging.h"
#include "common/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr {
namespace {

using ::testing::HasSubstr;
using ::toporr::testing::StatusIs;

absl::StatusOr<int> Half(int x) {
  if (x % 2) return absl::InvalidArgumentError("odd: " + std::to_string(x));
  return x / 2;
}

absl::StatusOr<int> Quarter(int x) {
  ASSIGN_OR_RETURN(int h, Half(x));
  ASSIGN_OR_RETURN(h, Half(h));
  return h;
}

absl::Status CheckQuarter(int x) {
  RETURN_IF_ERROR(Quarter(x).status());
  return absl::OkStatus();
}

TEST(StatusMacros, PropagatesErrorsAndValues) {
  ASSERT_OK_AND_ASSIGN(int q, Quarter(12));
  EXPECT_EQ(q, 3);
  EXPECT_THAT(Quarter(6), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("odd: 3")));
  EXPECT_OK(CheckQuarter(8));
  EXPECT_THAT(CheckQuarter(2), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("odd")));
}

TEST(Logging, SinkReceivesFormattedLinesAboveMinimum) {
  std::vector<std::string> lines;
  SetLogSink([&](LogSeverity, const std::string& l) { lines.push_back(l); });
  SetMinLogSeverity(LogSeverity::kWARNING);
  TOPORR_LOG(INFO) << "dropped";
  TOPORR_LOG(WARNING) << "kept " << 42;
  SetLogSink(nullptr);
  SetMinLogSeverity(LogSeverity::kINFO);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0][0], 'W');
  EXPECT_THAT(lines[0], HasSubstr("status_macros_test.cc"));
  EXPECT_THAT(lines[0], HasSubstr("kept 42"));
}

}  // namespace
}  // namespace toporr

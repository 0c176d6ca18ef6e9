#include "daemon/request_limiter.h"

#include <optional>
#include <vector>

#include "common/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::daemon {
namespace {

using ::testing::HasSubstr;
using ::toporr::testing::StatusIs;

TEST(RequestLimiter, RefusesBeyondTheBoundAndFreesSlotsOnRelease) {
  RequestLimiter limiter(2, "large reads (max_heavy_requests = 2)");
  std::vector<RequestLimiter::Slot> held;
  for (int i = 0; i < 2; ++i) {
    auto slot = limiter.TryAcquire();
    ASSERT_OK(slot.status());
    held.push_back(*std::move(slot));
  }
  EXPECT_EQ(limiter.running(), 2);
  EXPECT_THAT(limiter.TryAcquire().status(),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       HasSubstr("already answering 2 large reads (max_heavy_requests = 2)")));
  EXPECT_EQ(limiter.refused(), 1);
  held.pop_back();
  EXPECT_EQ(limiter.running(), 1);
  {
    auto again = limiter.TryAcquire();
    EXPECT_OK(again.status());
    std::optional<RequestLimiter::Slot> moved(*std::move(again));  // the moved-from frees nothing
    EXPECT_EQ(limiter.running(), 2);
  }
  EXPECT_EQ(limiter.running(), 1);
}

}  // namespace
}  // namespace toporr::daemon

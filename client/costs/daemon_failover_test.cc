#include "client/costs/daemon_failover.h"

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "common/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::client {
namespace {

using ::testing::_;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::toporr::testing::StatusIs;
using Clock = DaemonFailover::Clock;
using Attempt = DaemonFailover::Attempt;
using std::chrono::milliseconds;

// A list of daemons on a fake clock. Each daemon behaves as `behaviour[i]` says when asked:
// answer, refuse at once, or hang until its deadline; every request is logged with its
// daemon and the share (ms from when it was asked to its deadline).
class FakeDaemons {
 public:
  enum Behaviour { kAnswer, kRefuse, kHang, kNotFound, kTlsFailure };

  explicit FakeDaemons(std::vector<Behaviour> behaviour)
      : behaviour(std::move(behaviour)),
        failover({Names(this->behaviour.size()), true, [this] { return now; }}) {}

  static std::vector<std::string> Names(size_t n) {
    std::vector<std::string> names;
    for (size_t i = 0; i < n; ++i) names.push_back("mgmt0" + std::to_string(i + 1) + ":7575");
    return names;
  }

  DaemonFailover::Ask Ask() {
    return [this](int i, Clock::time_point deadline) -> Attempt {
      asked.push_back(i);
      shares_ms.push_back(std::chrono::duration_cast<milliseconds>(deadline - now).count());
      const std::string name = failover.name(i);
      switch (behaviour[i]) {
        case kAnswer:
          return {absl::OkStatus(), false};
        case kRefuse:
          now += milliseconds(1);
          return {absl::UnavailableError(name + ": Connection refused"), true};
        case kHang:
          now = deadline;
          return {absl::DeadlineExceededError(name + ": no answer"), true};
        case kNotFound:
          return {absl::NotFoundError(name + ": host node99 is not in the fabric"), false};
        case kTlsFailure:
          return {absl::UnavailableError(name + ": certificate verify failed"), false};
      }
      return {};
    };
  }

  DaemonFailover::Result Run(milliseconds deadline) { return failover.Run(now + deadline, Ask()); }

  std::vector<Behaviour> behaviour;
  Clock::time_point now{};
  std::vector<int> asked;
  std::vector<int64_t> shares_ms;
  DaemonFailover failover;
};

TEST(DaemonShareTest, FairShareOfWhatIsLeftWithAFloorButNeverMoreThanLeft) {
  EXPECT_EQ(DaemonShare(milliseconds(2000), 2), milliseconds(1000));
  EXPECT_EQ(DaemonShare(milliseconds(2000), 1), milliseconds(2000));
  EXPECT_EQ(DaemonShare(milliseconds(900), 3), milliseconds(300));
  EXPECT_EQ(DaemonShare(milliseconds(300), 2), kMinDaemonShare);
  EXPECT_EQ(DaemonShare(milliseconds(100), 3), milliseconds(100));
}

TEST(DaemonFailoverTest, TheFirstAnsweringDaemonAnswersAndIsAskedFirstNextTime) {
  FakeDaemons d({FakeDaemons::kRefuse, FakeDaemons::kAnswer, FakeDaemons::kAnswer});
  DaemonFailover::Result r = d.Run(milliseconds(2000));
  EXPECT_OK(r.status);
  EXPECT_EQ(r.daemon, 1);
  ASSERT_EQ(r.unanswered.size(), 1u);
  EXPECT_EQ(r.unanswered[0].first, 0);
  EXPECT_THAT(r.unanswered[0].second, StatusIs(absl::StatusCode::kUnavailable,
                                               HasSubstr("mgmt01:7575: Connection refused")));
  EXPECT_THAT(d.asked, ElementsAre(0, 1));
  // A third each; a refusal costs nothing: the second had half of (nearly) all of it.
  EXPECT_THAT(d.shares_ms, ElementsAre(666, 999));
  EXPECT_EQ(d.failover.first(), 1);

  // The first daemon is back, but the process stays with the one that answered.
  d.behaviour[0] = FakeDaemons::kAnswer;
  d.now += milliseconds(3600000);  // long after any back-off
  d.asked.clear();
  r = d.Run(milliseconds(2000));
  EXPECT_EQ(r.daemon, 1);
  EXPECT_TRUE(r.unanswered.empty());
  EXPECT_THAT(d.asked, ElementsAre(1));
}

TEST(DaemonFailoverTest, AHangingDaemonTakesOnlyItsShareOfTheDeadline) {
  FakeDaemons d({FakeDaemons::kHang, FakeDaemons::kAnswer});
  const Clock::time_point start = d.now;
  DaemonFailover::Result r = d.Run(milliseconds(2000));
  EXPECT_OK(r.status);
  EXPECT_EQ(r.daemon, 1);
  EXPECT_THAT(d.shares_ms, ElementsAre(1000, 1000));
  EXPECT_EQ(d.now - start, milliseconds(1000));
  EXPECT_THAT(r.unanswered[0].second, StatusIs(absl::StatusCode::kDeadlineExceeded, _));

  FakeDaemons three({FakeDaemons::kHang, FakeDaemons::kHang, FakeDaemons::kAnswer});
  r = three.Run(milliseconds(900));
  EXPECT_EQ(r.daemon, 2);
  EXPECT_THAT(three.shares_ms, ElementsAre(300, 300, 300));
}

TEST(DaemonFailoverTest, ADaemonsOwnAnswerEndsTheRequestWhateverItIs) {
  FakeDaemons d({FakeDaemons::kNotFound, FakeDaemons::kAnswer});
  DaemonFailover::Result r = d.Run(milliseconds(2000));
  EXPECT_THAT(r.status, StatusIs(absl::StatusCode::kNotFound, HasSubstr("node99")));
  EXPECT_EQ(r.daemon, 0);
  EXPECT_THAT(d.asked, ElementsAre(0));

  // A TLS failure with a daemon that was reached is its answer too, and it stands during the
  // back-off it starts: the request ends with it, no daemon asked.
  FakeDaemons tls({FakeDaemons::kTlsFailure, FakeDaemons::kAnswer});
  r = tls.Run(milliseconds(2000));
  EXPECT_THAT(r.status, StatusIs(absl::StatusCode::kUnavailable, HasSubstr("certificate")));
  EXPECT_EQ(r.daemon, 0);
  tls.asked.clear();
  tls.now += milliseconds(500);
  r = tls.Run(milliseconds(2000));
  EXPECT_THAT(r.status, StatusIs(absl::StatusCode::kUnavailable, HasSubstr("certificate")));
  EXPECT_TRUE(tls.asked.empty());
}

TEST(DaemonFailoverTest, WhenNoneAnswersOneFailureNamesEachDaemonInOrder) {
  FakeDaemons d({FakeDaemons::kHang, FakeDaemons::kRefuse});
  const DaemonFailover::Result first = d.Run(milliseconds(2000));
  DaemonFailover::Result r = first;
  EXPECT_EQ(r.daemon, -1);
  // The code of the last unanswered daemon; every daemon named, in the order asked.
  EXPECT_THAT(r.status, StatusIs(absl::StatusCode::kUnavailable,
                                 HasSubstr("none of the 2 toporrd addresses answered: "
                                           "mgmt01:7575: no answer; "
                                           "mgmt02:7575: Connection refused")));
  EXPECT_EQ(std::string(r.status.message()).find('\n'), std::string::npos);  // one line

  // Both in their back-off: the next request fails at once, asking neither.
  d.asked.clear();
  d.now += milliseconds(100);
  r = d.Run(milliseconds(2000));
  EXPECT_TRUE(d.asked.empty());
  // In the same words as when they were asked: one cause, one warning.
  EXPECT_EQ(r.status, first.status);
}

TEST(DaemonFailoverTest, ADaemonNotAskedForLackOfTimeIsNamedAsSuch) {
  FakeDaemons d({FakeDaemons::kHang, FakeDaemons::kAnswer});
  DaemonFailover::Ask slow = [&](int i, Clock::time_point) -> Attempt {
    d.asked.push_back(i);
    d.now += milliseconds(5000);  // a stalled process overran its share and the deadline
    return {absl::DeadlineExceededError("mgmt01:7575: no answer"), true};
  };
  DaemonFailover::Result r = d.failover.Run(d.now + milliseconds(2000), slow);
  EXPECT_THAT(d.asked, ElementsAre(0));
  EXPECT_THAT(r.status, StatusIs(absl::StatusCode::kDeadlineExceeded,
                                 HasSubstr("mgmt02:7575: not asked, the deadline had passed")));
}

TEST(DaemonFailoverTest, TheBackOffIsPerDaemon) {
  FakeDaemons d({FakeDaemons::kRefuse, FakeDaemons::kAnswer});
  const Clock::time_point t0 = d.now;
  ASSERT_EQ(d.Run(milliseconds(2000)).daemon, 1);  // the first refused: 1 s back-off
  // The second goes down too: it is asked (first, having answered last) and refuses; the
  // first, in its back-off, is not asked.
  d.behaviour = {FakeDaemons::kAnswer, FakeDaemons::kRefuse};
  d.now = t0 + milliseconds(500);
  d.asked.clear();
  DaemonFailover::Result r = d.Run(milliseconds(2000));
  EXPECT_EQ(r.daemon, -1);
  EXPECT_THAT(d.asked, ElementsAre(1));
  // After the first one's back-off (the second is still in its own), the first answers and
  // is asked first from then on.
  d.now = t0 + milliseconds(1100);
  d.asked.clear();
  r = d.Run(milliseconds(2000));
  EXPECT_EQ(r.daemon, 0);
  EXPECT_THAT(d.asked, ElementsAre(0));
  EXPECT_EQ(d.failover.first(), 0);
}

TEST(DaemonFailoverTest, OneDaemonKeepsItsOwnFailureAndItsOneCause) {
  FakeDaemons d({FakeDaemons::kRefuse});
  DaemonFailover::Result r = d.Run(milliseconds(2000));
  EXPECT_THAT(r.status, StatusIs(absl::StatusCode::kUnavailable,
                                 AllOf(HasSubstr("mgmt01:7575: Connection refused"),
                                       Not(HasSubstr("none of")))));
  d.now += milliseconds(200);
  r = d.Run(milliseconds(2000));
  EXPECT_EQ(std::string(r.status.message()), "mgmt01:7575: Connection refused");
  // After its back-off it lets the request time out: still the refusing daemon, one cause.
  d.behaviour[0] = FakeDaemons::kHang;
  d.now += milliseconds(5000);
  r = d.Run(milliseconds(2000));
  EXPECT_THAT(r.status, StatusIs(absl::StatusCode::kUnavailable, HasSubstr("refused")));
  EXPECT_THAT(d.shares_ms.back(), 2000);
}

TEST(DaemonFailoverTest, WithoutBackOffEveryRequestAsks) {
  Clock::time_point now{};
  std::vector<int> asked;
  DaemonFailover f({FakeDaemons::Names(2), false, [&] { return now; }});
  auto ask = [&](int i, Clock::time_point) -> Attempt {
    asked.push_back(i);
    return {absl::UnavailableError("refused"), true};
  };
  f.Run(now + milliseconds(2000), ask);
  now += milliseconds(10);
  f.Run(now + milliseconds(2000), ask);
  EXPECT_THAT(asked, ElementsAre(0, 1, 0, 1));
}

TEST(DaemonFailoverTest, RunOnAsksThatDaemonAlone) {
  FakeDaemons d({FakeDaemons::kAnswer, FakeDaemons::kRefuse});
  DaemonFailover::Result r = d.failover.RunOn(1, d.now + milliseconds(2000), d.Ask());
  EXPECT_EQ(r.daemon, -1);
  EXPECT_THAT(r.status, StatusIs(absl::StatusCode::kUnavailable, HasSubstr("mgmt02:7575")));
  EXPECT_THAT(d.asked, ElementsAre(1));
  EXPECT_THAT(d.shares_ms, ElementsAre(2000));
  // In its back-off it is not asked again.
  r = d.failover.RunOn(1, d.now + milliseconds(2000), d.Ask());
  EXPECT_THAT(d.asked, ElementsAre(1));
  EXPECT_THAT(r.status, StatusIs(absl::StatusCode::kUnavailable, HasSubstr("mgmt02:7575")));
}

}  // namespace
}  // namespace toporr::client

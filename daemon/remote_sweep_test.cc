// RequestSweep against a fake helper on a real Unix socket: the request it sends, the reply
// it takes apart, and how it gives up (no helper, timeout, cancel).
#include "daemon/remote_sweep.h"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

#include "absl/time/clock.h"
#include "collectors/sweep_protocol.h"
#include "common/status_matchers.h"
#include "daemon/testing/fake_sweep_helper.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::daemon {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::toporr::testing::FakeSweepHelper;
using ::toporr::testing::StatusIs;

class RemoteSweepTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Unix socket paths are short (108 bytes): not under $TEST_TMPDIR.
    char tmpl[] = "/tmp/toporr-remote-sweep.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    path_ = dir_ + "/helper.sock";
  }
  void TearDown() override {
    helper_.reset();
    rmdir(dir_.c_str());
  }
  void StartHelper() { ASSERT_OK_AND_ASSIGN(helper_, FakeSweepHelper::Start(path_)); }

  std::string dir_, path_;
  std::unique_ptr<FakeSweepHelper> helper_;
};

TEST_F(RemoteSweepTest, SendsTheRequestAndReturnsTheTexts) {
  StartHelper();
  collectors::SweepResult sent;
  sent.topology = std::string(300000, 't');  // larger than one read
  sent.forwarding_tables = "lfts\n";
  helper_->set_reply(collectors::FormatSweepReply(sent));
  collectors::SweepRequest request;
  request.probe_pause_us = 750;
  ASSERT_OK_AND_ASSIGN(collectors::SweepResult got,
                       RequestSweep(path_, request, absl::Seconds(10)));
  EXPECT_EQ(got.topology, sent.topology);
  EXPECT_EQ(got.forwarding_tables, sent.forwarding_tables);
  EXPECT_THAT(helper_->requests(), ElementsAre("toporr-sweep 1 probe-pause-us=750"));
}

TEST_F(RemoteSweepTest, TheHelpersFailureIsUnavailableWithItsMessage) {
  StartHelper();
  helper_->set_reply(collectors::FormatSweepFailure("no InfiniBand device found"));
  EXPECT_THAT(RequestSweep(path_, {}, absl::Seconds(10)),
              StatusIs(absl::StatusCode::kUnavailable,
                       HasSubstr("unix:" + path_ +
                                 ": the discovery helper's sweep failed: no "
                                 "InfiniBand device found")));
}

TEST_F(RemoteSweepTest, AnEmptyOrTruncatedReplyIsDataLoss) {
  StartHelper();
  helper_->set_reply("");
  EXPECT_THAT(RequestSweep(path_, {}, absl::Seconds(10)),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("without a reply")));
  collectors::SweepResult sent;
  sent.topology = "0123456789";
  std::string reply = collectors::FormatSweepReply(sent);
  reply.resize(reply.size() - 4);
  helper_->set_reply(reply);
  EXPECT_THAT(RequestSweep(path_, {}, absl::Seconds(10)),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("announces 10 bytes but carries 6")));
}

TEST_F(RemoteSweepTest, NoHelperSaysHowToStartOne) {
  EXPECT_THAT(RequestSweep(path_, {}, absl::Seconds(10)),
              StatusIs(absl::StatusCode::kUnavailable,
                       HasSubstr("cannot connect: No such file or directory (is "
                                 "toporr-discover.socket running?")));
}

TEST_F(RemoteSweepTest, NoPermissionNamesTheSocketsGroup) {
  if (geteuid() == 0) GTEST_SKIP() << "root connects whatever the socket's mode";
  StartHelper();
  ASSERT_EQ(chmod(path_.c_str(), 0000), 0);
  EXPECT_THAT(RequestSweep(path_, {}, absl::Seconds(10)),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("socket's group, toporr")));
}

TEST_F(RemoteSweepTest, ATimeoutHangsUpSoThatTheHelperStops) {
  StartHelper();
  helper_->set_silent();
  const absl::Time start = absl::Now();
  EXPECT_THAT(RequestSweep(path_, {}, absl::Seconds(1)),
              StatusIs(absl::StatusCode::kDeadlineExceeded,
                       HasSubstr("no complete reply within 1s (0 bytes received)")));
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  for (int i = 0; i < 100 && helper_->hangups() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(helper_->hangups(), 1);
}

TEST_F(RemoteSweepTest, CancelStopsTheWaitPromptly) {
  StartHelper();
  helper_->set_silent();
  std::atomic<bool> cancel{false};
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    cancel = true;
  });
  const absl::Time start = absl::Now();
  EXPECT_THAT(RequestSweep(path_, {}, absl::Seconds(60), &cancel),
              StatusIs(absl::StatusCode::kCancelled, HasSubstr("shutting down")));
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  canceller.join();
  for (int i = 0; i < 100 && helper_->hangups() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(helper_->hangups(), 1);
}

}  // namespace
}  // namespace toporr::daemon

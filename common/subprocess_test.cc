#include "common/subprocess.h"

#include <chrono>

#include "common/status_matchers.h"
#include "gtest/gtest.h"

namespace toporr {
namespace {

TEST(SubprocessTest, CapturesOutputEnvironmentAndExitCode) {
  int out = OutputTempFile();
  ASSERT_GE(out, 0);
  SpawnOptions options;
  options.stdout_fd = out;
  options.env["TOPORR_SUBPROCESS_TEST"] = "hello";
  ASSERT_OK_AND_ASSIGN(pid_t pid,
                       Spawn({"/bin/sh", "-c", "echo $TOPORR_SUBPROCESS_TEST; exit 3"}, options));
  WaitResult r = WaitOrKill(pid, std::chrono::seconds(20));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(ReadAndClose(out), "hello\n");
}

TEST(SubprocessTest, KillsAtTheDeadlineAndReportsExecFailures) {
  ASSERT_OK_AND_ASSIGN(pid_t pid, Spawn({"/bin/sleep", "30"}, {}));
  WaitResult r = WaitOrKill(pid, std::chrono::milliseconds(100));
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.exit_code, 128 + 9);

  int err = OutputTempFile();
  SpawnOptions options;
  options.stderr_fd = err;
  ASSERT_OK_AND_ASSIGN(pid, Spawn({"/nonexistent/toporr-program"}, options));
  EXPECT_EQ(WaitOrKill(pid, std::chrono::seconds(20)).exit_code, 127);
  EXPECT_NE(ReadAndClose(err).find("cannot run /nonexistent/toporr-program"), std::string::npos);
}

}  // namespace
}  // namespace toporr

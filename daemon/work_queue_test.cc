#include "daemon/work_queue.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <set>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"

namespace toporr::daemon {
namespace {

int ThreadNice() {
  errno = 0;
  return getpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)));
}

TEST(WorkQueue, RunsEveryWorkOnItsThreadsAtTheirPriority) {
  const int own_nice = ThreadNice();
  std::atomic<int> ran{0};
  absl::Mutex mu;
  std::set<std::thread::id> threads;
  std::set<int> nices;
  {
    WorkQueue queue(3, 5);
    for (int i = 0; i < 100; ++i) {
      queue.Schedule([&] {
        absl::MutexLock lock(&mu);
        threads.insert(std::this_thread::get_id());
        nices.insert(ThreadNice());
        ++ran;
      });
    }
  }  // the destructor runs what is queued
  EXPECT_EQ(ran.load(), 100);
  EXPECT_LE(threads.size(), 3u);
  EXPECT_EQ(threads.count(std::this_thread::get_id()), 0u);
  EXPECT_EQ(nices, std::set<int>{std::min(own_nice + 5, 19)});
  EXPECT_EQ(ThreadNice(), own_nice);  // the caller's thread keeps its priority
}

TEST(WorkQueue, LongWorkDoesNotBlockTheOtherThreads) {
  WorkQueue queue(2, 0);
  absl::Notification release, quick_done;
  queue.Schedule([&] { release.WaitForNotification(); });
  queue.Schedule([&] { quick_done.Notify(); });
  EXPECT_TRUE(quick_done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_EQ(queue.queued(), 0u);
  release.Notify();
}

}  // namespace
}  // namespace toporr::daemon

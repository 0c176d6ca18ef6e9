// A fixed set of threads that run queued work in order: toporrd's requests whose work grows
// with the fabric or the request (cost matrices, topologies), kept off gRPC's own threads,
// which read every request and answer the light reads (GetSnapshot, ListHosts, rows). The
// threads run at a lower CPU priority, so that under a flood of such requests the light
// reads of other clients get the CPU first (//daemon:limits_test).
// Thread-safe.
#ifndef TOPORR_DAEMON_WORK_QUEUE_H_
#define TOPORR_DAEMON_WORK_QUEUE_H_

#include <cstddef>
#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace toporr::daemon {

class WorkQueue {
 public:
  // `threads` (>= 1) threads, each at nice value `nice` (Linux keeps one per thread; raising
  // it needs no privilege; 0 leaves it).
  WorkQueue(int threads, int nice);
  // Runs the work already queued, then joins the threads.
  ~WorkQueue();
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  // Queues `work`; one of the threads runs it (in the order queued).
  void Schedule(std::function<void()> work);

  // Work queued and not started yet.
  size_t queued() const;

 private:
  void Loop(int nice);

  mutable absl::Mutex mu_;
  std::deque<std::function<void()>> queue_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

}  // namespace toporr::daemon

#endif  // TOPORR_DAEMON_WORK_QUEUE_H_

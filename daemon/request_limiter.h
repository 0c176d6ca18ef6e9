// A bound on the requests of one kind that run at the same time: toporrd's heavy reads
// (cost matrices and topologies of large fabrics), whose memory grows with the square of the
// host count. A request over the bound is refused at once (no queue): a client that can wait
// retries, and a flood costs the daemon no memory. Thread-safe.
#ifndef TOPORR_DAEMON_REQUEST_LIMITER_H_
#define TOPORR_DAEMON_REQUEST_LIMITER_H_

#include <atomic>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace toporr::daemon {

class RequestLimiter {
 public:
  // At most `max_running` (>= 1) slots held at once. `what` names the requests and the
  // setting in the refusal ("large reads (matrices or topologies of >= 1024 hosts;
  // max_heavy_requests = 2)").
  RequestLimiter(int max_running, std::string what)
      : max_running_(max_running), what_(std::move(what)) {}

  // Held while a request runs; released on destruction. Movable.
  class Slot {
   public:
    Slot(Slot&& other) noexcept : limiter_(other.limiter_) { other.limiter_ = nullptr; }
    Slot& operator=(Slot&&) = delete;
    Slot(const Slot&) = delete;
    ~Slot();

   private:
    friend class RequestLimiter;
    explicit Slot(RequestLimiter* limiter) : limiter_(limiter) {}
    RequestLimiter* limiter_;
  };

  // A slot, or kResourceExhausted saying how many requests are running and what to do.
  absl::StatusOr<Slot> TryAcquire();

  int running() const { return running_.load(std::memory_order_relaxed); }
  // Requests refused since start.
  int64_t refused() const { return refused_.load(std::memory_order_relaxed); }

 private:
  const int max_running_;
  const std::string what_;
  std::atomic<int> running_{0};
  std::atomic<int64_t> refused_{0};
};

}  // namespace toporr::daemon

#endif  // TOPORR_DAEMON_REQUEST_LIMITER_H_

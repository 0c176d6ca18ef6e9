#include "daemon/request_limiter.h"

#include "absl/strings/str_cat.h"

namespace toporr::daemon {

RequestLimiter::Slot::~Slot() {
  if (limiter_ != nullptr) limiter_->running_.fetch_sub(1, std::memory_order_acq_rel);
}

absl::StatusOr<RequestLimiter::Slot> RequestLimiter::TryAcquire() {
  int running = running_.load(std::memory_order_relaxed);
  while (running < max_running_) {
    if (running_.compare_exchange_weak(running, running + 1, std::memory_order_acq_rel)) {
      return Slot(this);
    }
  }
  refused_.fetch_add(1, std::memory_order_relaxed);
  return absl::ResourceExhaustedError(absl::StrCat("toporrd is already answering ", max_running_,
                                                   " ", what_,
                                                   "; retry in a moment, or ask for fewer hosts"));
}

}  // namespace toporr::daemon

// Recent compact cost-matrix replies, so that the identical requests a job launch produces
// (every node leader, a scheduler retrying) are answered by a copy instead of a recomputation.
// Keyed by (snapshot id, host list): a new snapshot never hits an old entry. Thread-safe.
#ifndef TOPORR_DAEMON_MATRIX_CACHE_H_
#define TOPORR_DAEMON_MATRIX_CACHE_H_

#include <atomic>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>

#include "toporr/v1/toporr.pb.h"

namespace toporr::daemon {

class MatrixCache {
 public:
  // `capacity` replies are kept (least recently used evicted); 0 disables the cache.
  explicit MatrixCache(int capacity) : capacity_(capacity) {}

  // The cached reply for this request under `snapshot_id`, or null.
  std::shared_ptr<const v1::GetCostMatrixResponse> Find(const v1::GetCostMatrixRequest& req,
                                                        int64_t snapshot_id);
  void Insert(const v1::GetCostMatrixRequest& req, int64_t snapshot_id,
              std::shared_ptr<const v1::GetCostMatrixResponse> reply);

  // Find() calls answered from the cache, and not (metrics; 0 when disabled).
  int64_t hits() const { return hits_.load(std::memory_order_relaxed); }
  int64_t misses() const { return misses_.load(std::memory_order_relaxed); }

 private:
  static std::string Key(const v1::GetCostMatrixRequest& req, int64_t snapshot_id);

  const int capacity_;
  std::mutex mu_;
  std::atomic<int64_t> hits_{0}, misses_{0};
  // Most recently used first.
  std::list<std::pair<std::string, std::shared_ptr<const v1::GetCostMatrixResponse>>> entries_;
};

}  // namespace toporr::daemon

#endif  // TOPORR_DAEMON_MATRIX_CACHE_H_

#include "daemon/matrix_cache.h"

namespace toporr::daemon {

std::string MatrixCache::Key(const v1::GetCostMatrixRequest& req, int64_t snapshot_id) {
  std::string key = std::to_string(snapshot_id);
  key += req.compact() ? "/c" : "/a";
  for (const std::string& h : req.hosts()) {
    key += '\n';
    key += h;
  }
  return key;
}

std::shared_ptr<const v1::GetCostMatrixResponse> MatrixCache::Find(
    const v1::GetCostMatrixRequest& req, int64_t snapshot_id) {
  if (capacity_ <= 0) return nullptr;
  const std::string key = Key(req, snapshot_id);
  std::lock_guard<std::mutex> l(mu_);
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->first == key) {
      entries_.splice(entries_.begin(), entries_, it);
      ++hits_;
      return entries_.front().second;
    }
  }
  ++misses_;
  return nullptr;
}

void MatrixCache::Insert(const v1::GetCostMatrixRequest& req, int64_t snapshot_id,
                         std::shared_ptr<const v1::GetCostMatrixResponse> reply) {
  if (capacity_ <= 0) return;
  std::string key = Key(req, snapshot_id);
  std::lock_guard<std::mutex> l(mu_);
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->first == key) {
      entries_.erase(it);
      break;
    }
  }
  entries_.emplace_front(std::move(key), std::move(reply));
  while (static_cast<int>(entries_.size()) > capacity_) entries_.pop_back();
}

}  // namespace toporr::daemon

#include "client/mpi/decision_cache.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <set>

#include "client/plan/plan.h"
#include "common/fnv.h"

namespace toporr::client::mpi {
namespace {

std::atomic<int> live_caches{0};
std::mutex registry_mu;
std::set<CommCache*>* registry = new std::set<CommCache*>;  // caches alive, for MPI_Finalize

void FreeInternal(CommCache* cache) {
  for (auto& [key, entry] : *cache) {
    entry.multilevel.reset();
    if (entry.internal != MPI_COMM_NULL) PMPI_Comm_free(&entry.internal);
    if (entry.library_comm != MPI_COMM_NULL) PMPI_Comm_free(&entry.library_comm);
  }
}

int DeleteCache(MPI_Comm, int, void* value, void*) {
  auto* cache = static_cast<CommCache*>(value);
  {
    std::lock_guard<std::mutex> lock(registry_mu);
    registry->erase(cache);
  }
  FreeInternal(cache);
  --live_caches;
  delete cache;
  return MPI_SUCCESS;
}

// MPI_Finalize deletes MPI_COMM_SELF's attributes first, while MPI still works: free every
// internal communicator then (MPI_COMM_WORLD's caches may be deleted later, or never).
int FreeAllInternal(MPI_Comm, int, void*, void*) {
  std::lock_guard<std::mutex> lock(registry_mu);
  for (CommCache* cache : *registry) FreeInternal(cache);
  return MPI_SUCCESS;
}

// Calls of a retryable fallback before its next attempt: 8, 16, 32, ... at most 1024.
int RetryAfterCalls(int retry) { return 8 << std::min(retry, 7); }

}  // namespace

int LiveCaches() { return live_caches.load(); }

uint64_t KeyHash(const CacheKey& k) {
  uint64_t h = kFnv64Offset;
  for (int v : {std::get<0>(k), std::get<1>(k), std::get<2>(k), std::get<3>(k), std::get<4>(k)}) {
    h = Fnv64aWord(h, static_cast<uint64_t>(static_cast<uint32_t>(v)));
  }
  return h;
}

bool CachedDecision::CountCall() {
  if (retryable && !retry_due && ++calls >= retry_after) retry_due = true;
  return retry_due;
}

void CachedDecision::Replace(const std::vector<int32_t>& new_order, const Decision& d,
                             const std::vector<int32_t>& new_multilevel_plan,
                             bool retryable_fallback,
                             const std::vector<int32_t>& new_library_order) {
  if (internal != MPI_COMM_NULL) PMPI_Comm_free(&internal);  // a retried decision's
  if (library_comm != MPI_COMM_NULL) PMPI_Comm_free(&library_comm);
  library_comm_failed = false;
  library_order = new_order.empty() ? std::vector<int32_t>() : new_library_order;
  order = new_order;
  decision = d;
  multilevel_plan = new_order.empty() ? std::vector<int32_t>() : new_multilevel_plan;
  multilevel.reset();
  multilevel_failed = false;
  library_reordered = false;
  if (d.source != "fallback" && d.chosen_algorithm == kLibraryCandidate) {
    for (size_t i = 0; i < order.size() && !library_reordered; ++i) {
      library_reordered = order[i] != static_cast<int32_t>(i);
    }
  }
  check.reset();
  retryable = retryable_fallback;
  calls = 0;
  retry_after = RetryAfterCalls(d.retry);
  retry_due = false;
}

int CreateCacheKeyval() {
  int cache_keyval = MPI_KEYVAL_INVALID;
  PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, DeleteCache, &cache_keyval, nullptr);
  int finalize_keyval = MPI_KEYVAL_INVALID;
  PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, FreeAllInternal, &finalize_keyval, nullptr);
  PMPI_Comm_set_attr(MPI_COMM_SELF, finalize_keyval, nullptr);
  return cache_keyval;
}

CommCache* FindCache(MPI_Comm comm, int keyval) {
  CommCache* cache = nullptr;
  int found = 0;
  PMPI_Comm_get_attr(comm, keyval, &cache, &found);
  return found ? cache : nullptr;
}

CommCache* AttachCache(MPI_Comm comm, int keyval) {
  if (CommCache* cache = FindCache(comm, keyval)) return cache;
  auto* cache = new CommCache;
  ++live_caches;
  {
    std::lock_guard<std::mutex> lock(registry_mu);
    registry->insert(cache);
  }
  PMPI_Comm_set_attr(comm, keyval, cache);
  return cache;
}

const CachedDecision* Reusable(CommCache* cache, const CacheKey& key, int* retry) {
  auto it = cache->find(key);
  if (it == cache->end()) return nullptr;
  if (it->second.retry_due || it->second.CountCall()) {
    *retry = it->second.decision.retry + 1;  // decided anew
    return nullptr;
  }
  return &it->second;
}

}  // namespace toporr::client::mpi

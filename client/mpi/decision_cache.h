// The decisions cached on a communicator: an MPI attribute (one keyval per Library) holding a
// CommCache, freed with the communicator. An entry per request (CacheKey): the order and
// decision CommReorder agreed on, and for toporr's collectives what they run on (a private
// communicator in that order, the multi-level communicators, the run-time check).
//
// A fallback because the cost source did not answer is retryable: its entry is decided anew
// at its 8th counted call, then after 16, 32, ... calls (at most 1024), counted per entry so
// that every rank retries at the same call (library.h).
//
// Entries are used by one thread at a time (MPI's rule for one communicator); the registry of
// live caches, which MPI_Finalize walks, is under a lock.
#ifndef TOPORR_CLIENT_MPI_DECISION_CACHE_H_
#define TOPORR_CLIENT_MPI_DECISION_CACHE_H_

#include <mpi.h>

#include <cstdint>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "client/mpi/multilevel.h"
#include "client/report/decision_report.h"
#include "client/report/verification.h"

namespace toporr::client::mpi {

// A request (library.h ReorderRequest): collective, algorithm (-1 auto, -2 auto among
// toporr's own, -3 forced multi-level), root, message size class (floor log2 of the bytes),
// radix.
using CacheKey = std::tuple<int, int, int, int, int>;
// A hash of `k` for checking that every rank passed the same request.
uint64_t KeyHash(const CacheKey& k);

// The run-time check of one cached decision of toporr's collectives (client/report/verification.h)
// and what was decided, for the report. Owned by the communicator's decision cache.
struct DecisionCheck {
  explicit DecisionCheck(int calls, Decision d) : verification(calls), decision(std::move(d)) {}
  Verification verification;
  Decision decision;
  // The library's path runs on the leaf-sorted order (CollectiveRun::library_on), not on the
  // caller's.
  bool library_leaf_sorted = false;
};

struct CachedDecision {
  std::vector<int32_t> order;  // empty: identity
  Decision decision;
  // For toporr's collectives: a communicator in `order` that only toporr sends on (created
  // on first use, freed with the cache or at MPI_Finalize).
  MPI_Comm internal = MPI_COMM_NULL;
  // The multi-level version, when decided: its plan (mapping::EncodeMultilevel) and its
  // communicators (built on first use, over `internal`).
  std::vector<int32_t> multilevel_plan;
  std::unique_ptr<Multilevel> multilevel;
  bool multilevel_failed = false;  // could not be built: the MPI library's call instead
  // The decision is the MPI library's own call on `internal`, reordered (chosen
  // "mpi_library" with an order other than the identity: client/plan/plan.h).
  bool library_reordered = false;
  // The order the library's call is predicted fastest in, when not the caller's (empty
  // otherwise), and a communicator in it for the run-time check (created on first use when
  // the check runs; MPI_COMM_NULL where it could not be built: the caller's communicator).
  std::vector<int32_t> library_order;
  MPI_Comm library_comm = MPI_COMM_NULL;
  bool library_comm_failed = false;
  // The run-time check against the MPI library's call (created on first use when toporr
  // would run something else).
  std::unique_ptr<DecisionCheck> check;
  // A fallback because the cost source did not answer: retried after `retry_after` calls.
  bool retryable = false;
  int calls = 0;
  int retry_after = 0;
  bool retry_due = false;

  // Counts one call that uses this entry; true when it must be decided anew (a retry is due).
  bool CountCall();
  // Replaces the entry with decision `d` of `new_order` (empty: identity) and its
  // multi-level plan, dropping what was built for the previous decision. A fallback is
  // retryable when the cost source did not answer.
  void Replace(const std::vector<int32_t>& new_order, const Decision& d,
               const std::vector<int32_t>& new_multilevel_plan, bool retryable_fallback,
               const std::vector<int32_t>& new_library_order = {});
};

using CommCache = std::map<CacheKey, CachedDecision>;

// A keyval for one Library's caches. Also hooks MPI_Finalize (an attribute of MPI_COMM_SELF)
// so that every internal communicator is freed while MPI still works.
int CreateCacheKeyval();
// The cache on `comm`, or null.
CommCache* FindCache(MPI_Comm comm, int keyval);
// The cache on `comm`, attached (empty) when it had none.
CommCache* AttachCache(MPI_Comm comm, int keyval);
// The entry for `key` to answer a call from, or null when there is none or its retry is due
// (counting the call; then *retry = the entry's attempt + 1).
const CachedDecision* Reusable(CommCache* cache, const CacheKey& key, int* retry);

}  // namespace toporr::client::mpi

#endif  // TOPORR_CLIENT_MPI_DECISION_CACHE_H_

// What every reordering heuristic of this package shares: the permutation it returns, the
// options it takes, and greedy placement on the job's slots.
//
// Vocabulary. A *slot* is the location an original rank runs at (an index into
// Placement::ranks). A reordering returns a permutation `mapping` with
//   mapping[new_rank] = slot,
// i.e. new rank i takes over the process (location) of old rank mapping[i]. The MPI layer
// then calls MPI_Comm_split(comm, 0, key) with key[mapping[i]] = i.
//
// Greedy placement puts "the next rank on the free slot closest to its reference rank" (the
// already placed rank it exchanges the most data with). Common contract of every heuristic
// built on it (heuristics.h, graph_reorder.h):
//   - the result is a permutation of 0..P-1;
//   - deterministic: equal inputs give equal outputs (no randomness, no hashing of
//     pointers; ties go to the rank's own slot, then to the lowest index, see FreeSlotIndex);
//   - the root keeps its process: mapping[root] == root (rootless patterns use `root` as the
//     seed and keep it too);
//   - on a flat topology (all slot pairs equally far) the result is the identity.
// Cost: O(P * s) for P ranks and s slots per host, plus O(g^2) worst case for g leaf groups;
// fast enough to run inline at job start up to a million ranks (bench/reorder_bench.cc
// measures it). Functions are thread-compatible (no shared mutable state).
#ifndef TOPORR_MAPPING_REORDER_PLACER_H_
#define TOPORR_MAPPING_REORDER_PLACER_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "mapping/costs/distance.h"

namespace toporr::mapping {

using Mapping = std::vector<int32_t>;  // mapping[new_rank] = slot (old rank)

// Identity mapping of size n, and a validity check (a permutation of 0..n-1).
Mapping IdentityMapping(int n);
bool IsPermutation(const Mapping& m);

// Options shared by the heuristics.
struct ReorderOptions {
  int32_t root = 0;           // keeps its slot; rootless patterns start from it
  int32_t knomial_radix = 4;  // Open MPI tuned default for bcast knomial
  // Generic graph heuristic only: improvement passes of pairwise swaps (0 disables), and
  // how many swap partners are tried per rank and pass (bounds the pass to O(P * this)).
  int32_t refinement_passes = 1;
  int32_t max_swap_candidates = 32;
};

// kInvalidArgument when the placement is empty or o.root is outside 0..P-1.
absl::Status CheckReorderInputs(const RankDistance& d, const ReorderOptions& o);

// The set of not yet assigned slots with a fast "closest free slot" query.
//
// Search order from a reference slot: free slots on the reference's host (closest shared
// hwloc level first), then the lowest-numbered host with free slots in the reference's leaf
// group, then other groups in increasing (alpha, beta, group index) from the reference's
// group, taking the lowest host and slot there. Leaf groups come from a
// HierarchicalCostMatrix (its host -> group map); for any other HostCostMatrix every host is
// its own group, so the search is exact for dense matrices too.
// Not thread-safe (queries update internal cursors).
class FreeSlotIndex {
 public:
  // All slots of `distance` start free. `distance` must outlive this object.
  explicit FreeSlotIndex(const RankDistance& distance);

  int num_free() const { return num_free_; }
  bool IsFree(int slot) const { return free_[slot] != 0; }

  // Closest free slot to `ref` (which may itself be free: then ref is returned). When
  // `prefer` is a free slot exactly as far from `ref` as the found one, `prefer` wins (this
  // is what makes flat topologies return the identity). -1 when no slot is free.
  int Closest(int ref, int prefer = -1);

  // Marks `slot` as used. Precondition: IsFree(slot).
  void Take(int slot);

 private:
  int FirstFreeHostOfGroup(int group);
  void BuildGroupOrder(int group);

  const RankDistance& d_;
  std::vector<uint8_t> free_;
  int num_free_ = 0;
  std::vector<int32_t> host_group_;                // per host
  std::vector<std::vector<int32_t>> host_free_;    // per host, ascending free slots
  std::vector<std::vector<int32_t>> group_hosts_;  // per group, ascending hosts with slots
  std::vector<int32_t> group_cursor_;              // per group, first host maybe free
  std::vector<int64_t> group_free_;                // per group, free slot count
  std::vector<int32_t> group_rep_;                 // per group, one host (cost proxy)
  std::vector<std::vector<int32_t>> group_order_;  // per group, lazily sorted groups
  std::vector<int32_t> group_order_cursor_;
};

// Greedy placement state shared by all heuristics: the mapping built so far over a
// FreeSlotIndex. Not thread-safe.
class Placer {
 public:
  explicit Placer(const RankDistance& d) : index_(d), mapping_(d.size(), -1) {}

  // The root (or seed) keeps its own slot.
  void Seed(int rank) {
    mapping_[rank] = rank;
    index_.Take(rank);
  }
  // Places `rank` on the free slot closest to where `ref` was placed; ties to its own slot.
  void Place(int rank, int ref) {
    const int s = index_.Closest(mapping_[ref], rank);
    mapping_[rank] = s;
    index_.Take(s);
  }
  // Places `rank` on `slot`, which must be free.
  void PlaceAt(int rank, int slot) {
    mapping_[rank] = slot;
    index_.Take(slot);
  }
  bool placed(int rank) const { return mapping_[rank] >= 0; }
  bool taken(int slot) const { return !index_.IsFree(slot); }
  int slot(int rank) const { return mapping_[rank]; }
  Mapping Release() { return std::move(mapping_); }

 private:
  FreeSlotIndex index_;
  Mapping mapping_;
};

}  // namespace toporr::mapping

#endif  // TOPORR_MAPPING_REORDER_PLACER_H_

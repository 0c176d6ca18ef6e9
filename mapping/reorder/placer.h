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
// Cost: O(P) for P ranks on hosts of up to 64 slots (O(P * s) on larger hosts of s slots),
// plus O(g^2) worst case for g leaf groups; fast enough to run inline at job start up to a
// million ranks (bench/reorder_bench.cc measures it). Functions are thread-compatible (no shared
// mutable state).
#ifndef TOPORR_MAPPING_REORDER_PLACER_H_
#define TOPORR_MAPPING_REORDER_PLACER_H_

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "mapping/costs/distance.h"

namespace toporr::mapping {

class HierarchicalCostMatrix;

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
// hwloc level first, then the lowest slot), then the lowest-numbered host with free slots in
// the reference's leaf group, then other groups in increasing (alpha, beta, group index)
// from the reference's group, taking the lowest host and slot there. Leaf groups come from
// a HierarchicalCostMatrix (its host -> group map); for any other HostCostMatrix every host
// is its own group, so the search is exact for dense matrices too.
// Cost: O(P + hosts) to build; Closest and Take O(1) on hosts of up to 64 slots (bit masks
// per hwloc level) and O(s) on larger hosts of s slots, plus, once per leaf group whose
// hosts all fill up, O(groups) time and memory to order the other groups from it.
// Not thread-safe (queries update internal cursors).
class FreeSlotIndex {
 public:
  // All slots of `distance` start free. `distance` must outlive this object.
  explicit FreeSlotIndex(const RankDistance& distance);

  int num_free() const { return num_free_; }
  bool IsFree(int slot) const {
    const SlotInfo i = Locate(slot);
    return IsFreeAt(i.host, i.local);
  }

  // Closest free slot to `ref` (which may itself be free: then ref is returned). When
  // `prefer` is a free slot exactly as far from `ref` as the found one, `prefer` wins (this
  // is what makes flat topologies return the identity). -1 when no slot is free.
  int Closest(int ref, int prefer = -1);

  // Marks `slot` as used. Precondition: IsFree(slot).
  void Take(int slot);

  // Take(Closest(ref, prefer)), returning that slot (-1 when none is free).
  int TakeClosest(int ref, int prefer = -1);

 private:
  // Hosts of up to this many slots answer from bit masks; larger ones scan their slots.
  static constexpr int kMaskSlots = 64;
  // A slot's host and its index among the host's slots (in increasing slot order).
  struct SlotInfo {
    int32_t host;
    int32_t local;
  };
  // A slot with its host and index on the host.
  struct Found {
    int32_t slot, host, local;
  };
  // Per slot of a host of at most kMaskSlots slots: for each of the four levels SharedLevel
  // tests (core, L3, NUMA, package), the host's slots sharing that object with it, as bits
  // of local indexes (empty for an unknown object, -1). Hosts whose slots have the same
  // locations in the same order share one set.
  using LevelMasks = std::array<uint64_t, 4>;
  // How slots map to hosts. kBlock: every host holds stride_ consecutive slots, host h
  // slots h * stride_ ... ("--map-by core"); kCyclic: slot s is on host s % stride_, stride_
  // being the number of hosts ("--map-by node"); kGeneral: tables slot_info_ and host_slots_.
  enum class Layout : uint8_t { kBlock, kCyclic, kGeneral };

  // slot / stride_ for 0 <= slot < 2^31 (kBlock and kCyclic): a shift for a power of two,
  // else the high half of a 64 x 64-bit product (exact for 32-bit dividends and divisors >= 2).
  int DivStride(int slot) const {
    if (stride_shift_ >= 0) return slot >> stride_shift_;
    return static_cast<int>(
        (static_cast<unsigned __int128>(stride_magic_) * static_cast<uint32_t>(slot)) >> 64);
  }
  SlotInfo Locate(int slot) const {
    switch (layout_) {
      case Layout::kBlock: {
        const int q = DivStride(slot);
        return {q, slot - q * stride_};
      }
      case Layout::kCyclic: {
        const int q = DivStride(slot);
        return {slot - q * stride_, q};
      }
      case Layout::kGeneral:
        break;
    }
    return slot_info_[slot];
  }
  int SlotAt(int h, int local) const {
    switch (layout_) {
      case Layout::kBlock:
        return h * stride_ + local;
      case Layout::kCyclic:
        return h + local * stride_;
      case Layout::kGeneral:
        break;
    }
    return host_slots_[host_start_[h] + local];
  }
  int HostSize(int h) const { return host_start_[h + 1] - host_start_[h]; }
  // The first word of host h in free_words_.
  int HostWord(int h) const { return word_per_host_ ? h : host_word_[h]; }
  bool IsFreeAt(int h, int local) const {
    return ((free_words_[HostWord(h) + (local >> 6)] >> (local & 63)) & 1) != 0;
  }
  void TakeAt(int h, int local) {
    free_words_[HostWord(h) + (local >> 6)] &= ~(uint64_t{1} << (local & 63));
    --host_free_[h];
    --group_free_[host_group_[h]];
    --num_free_;
  }

  void BuildLayout();
  bool SameLayout(int a, int b) const;
  int32_t BuildLevelMasks(int h);
  Found Find(int ref, int prefer);
  Found ClosestOnHost(int ref, SlotInfo r, int prefer) const;
  Found ClosestOnLargeHost(int ref, int h, int prefer) const;
  int LowestFreeLocal(int h) const;  // of a host with free slots
  int FirstFreeHostOfGroup(int group);
  // The first host with free slots in the search from a full host of `group` (its own hosts,
  // then the other groups in group order). Precondition: num_free() > 0.
  int FirstFreeHostFrom(int group);
  void BuildGroupOrder(int group);
  void SortGroupsByCost(int group);  // BuildGroupOrder for many distinct costs
  // RankDistance::EquallyFar(ref, b, c) for free slots b, c on hosts hb, hc other than ref's
  // host hr.
  bool InterHostEquallyFar(int ref, int hr, int b, int hb, int c, int hc) const;

  const RankDistance& d_;
  const HierarchicalCostMatrix* hier_;  // d_.hosts() when hierarchical, else null
  int num_free_ = 0;
  Layout layout_ = Layout::kGeneral;
  int32_t stride_ = 0;
  int32_t stride_shift_ = -1;  // log2(stride_) when a power of two, else -1
  uint64_t stride_magic_ = 0;  // 2^64 / stride_ rounded up, when stride_ >= 2 is not a power of two
  std::vector<SlotInfo> slot_info_;   // per slot (kGeneral only)
  std::vector<int32_t> host_slots_;   // slots grouped by host, ascending (kGeneral only)
  std::vector<int32_t> host_start_;   // per host + 1: its range of local slot indexes
  std::vector<int32_t> host_word_;    // per host + 1: its first word in free_words_
  bool word_per_host_ = false;        // every host has 1..64 slots: host_word_[h] == h
  std::vector<uint64_t> free_words_;  // per host, bit i: its i-th slot is free
  std::vector<int32_t> host_free_;    // per host, free slot count
  // While building (block layout only): this host's slots have the locations of the
  // previous host's.
  static constexpr int32_t kSameAsPrevious = -2;
  std::vector<int32_t> host_masks_;      // per host: its slots' first LevelMasks, -1 if large
  std::vector<LevelMasks> level_masks_;  // per distinct layout of a host, per slot
  std::vector<int32_t> host_group_;      // per host
  std::vector<int32_t> group_start_;     // per group + 1: its range of group_hosts_
  std::vector<int32_t> group_hosts_;     // hosts with slots grouped by group, ascending
  std::vector<int32_t> group_cursor_;    // per group, first host maybe free
  std::vector<int64_t> group_free_;      // per group, free slot count
  std::vector<std::vector<int32_t>> group_order_;  // per group, lazily sorted groups
  std::vector<int32_t> group_order_cursor_;
  // Per group whose order was dealt by distinct costs: per group, the index of its cost from
  // this group (equal index, equal (alpha, beta); -1: a group without slots). Else empty.
  std::vector<std::vector<int8_t>> group_cost_class_;
  std::vector<int32_t> group_found_host_;  // per group, the last FirstFreeHostFrom, or -1
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
  // Returns that slot.
  int Place(int rank, int ref) { return PlaceNear(rank, mapping_[ref]); }
  // Places `rank` on the free slot closest to `slot`; ties to its own slot. Returns it.
  int PlaceNear(int rank, int slot) {
    const int s = index_.TakeClosest(slot, rank);
    mapping_[rank] = s;
    return s;
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

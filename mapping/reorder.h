// Topology-aware rank reordering for collectives (Mirsadeghi & Afsahi style heuristics).
//
// Vocabulary. A *slot* is the location an original rank runs at (an index into
// Placement::ranks). A reordering returns a permutation `mapping` with
//   mapping[new_rank] = slot,
// i.e. new rank i takes over the process (location) of old rank mapping[i]. The MPI layer
// then calls MPI_Comm_split(comm, 0, key) with key[mapping[i]] = i.
//
// Every heuristic walks the communication pattern of one Open MPI algorithm (reference
// formats_and_algorithms.md section 5) and places "the next rank on the free slot closest
// to its reference rank" (the already placed rank it exchanges the most data with).
// Common contract of every function here:
//   - the result is a permutation of 0..P-1;
//   - deterministic: equal inputs give equal outputs (no randomness, no hashing of
//     pointers; ties go to the rank's own slot, then to the lowest index, see FreeSlotIndex);
//   - the root keeps its process: mapping[root] == root (rootless patterns use `root` as the
//     seed and keep it too);
//   - on a flat topology (all slot pairs equally far) the result is the identity.
// Cost: O(P * s) for P ranks and s slots per host, plus O(g^2) worst case for g leaf groups;
// about 1 s for 1,048,576 ranks on one core. Functions are thread-compatible (no shared
// mutable state).
#ifndef TOPORR_MAPPING_REORDER_H_
#define TOPORR_MAPPING_REORDER_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "mapping/distance.h"
#include "mapping/pattern.h"
#include "mapping/routes.h"

namespace toporr::mapping {

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

// Options shared by the heuristics.
struct ReorderOptions {
  int32_t root = 0;           // keeps its slot; rootless patterns start from it
  int32_t knomial_radix = 4;  // Open MPI tuned default for bcast knomial
  // Generic graph heuristic only: improvement passes of pairwise swaps (0 disables), and
  // how many swap partners are tried per rank and pass (bounds the pass to O(P * this)).
  int32_t refinement_passes = 1;
  int32_t max_swap_candidates = 32;
};

using Mapping = std::vector<int32_t>;  // mapping[new_rank] = slot (old rank)

// Which pattern a heuristic follows (reference section 5 names).
enum class Heuristic {
  kRing,                        // ring, scatter_allgather_ring, swing(_bandwidth), bine
  kRecursiveDoublingAllgather,  // stage k sends 2^k blocks: last stage heaviest
  kRecursiveDoublingAllreduce,  // every stage sends m; pairs (2i,2i+1), i < extra, together
  kRabenseifner,                // allreduce redscat_allgather: XOR-1 partners heaviest
  kBinomialBcast,               // build_bmtree, BFS, larger subtrees nearest
  kBinaryTreeBcast,             // build_tree(2), depth-first, greater child first
  kKnomialBcast,                // build_kmtree(radix): leaf children, then subtrees
  kScatterAllgather,            // bcast 8: recursive-doubling heuristic on shifted ranks
  kBinomialGather,              // in-order binomial tree, heavier children nearest
};
std::string_view HeuristicName(Heuristic h);

// Each returns the permutation described in the file comment. kInvalidArgument when the
// placement is empty, root is outside 0..P-1, or (k-nomial) radix < 2.
absl::StatusOr<Mapping> ReorderRing(const RankDistance& d, const ReorderOptions& o = {});
absl::StatusOr<Mapping> ReorderRecursiveDoubling(const RankDistance& d, bool last_stage_heaviest,
                                                 const ReorderOptions& o = {});
absl::StatusOr<Mapping> ReorderRabenseifner(const RankDistance& d, const ReorderOptions& o = {});
absl::StatusOr<Mapping> ReorderBinomialBcast(const RankDistance& d, const ReorderOptions& o = {});
absl::StatusOr<Mapping> ReorderBinaryTreeBcast(const RankDistance& d, const ReorderOptions& o = {});
absl::StatusOr<Mapping> ReorderKnomialBcast(const RankDistance& d, const ReorderOptions& o = {});
absl::StatusOr<Mapping> ReorderScatterAllgather(const RankDistance& d,
                                                const ReorderOptions& o = {});
absl::StatusOr<Mapping> ReorderBinomialGather(const RankDistance& d, const ReorderOptions& o = {});
// Dispatches on `h`.
absl::StatusOr<Mapping> Reorder(Heuristic h, const RankDistance& d, const ReorderOptions& o = {});

// A weighted communication graph over ranks 0..num_ranks-1: rank `from` sends `bytes` to
// rank `to` (directed; list both directions for an exchange). Parallel edges add up.
struct CommEdge {
  int32_t from = 0;
  int32_t to = 0;
  int64_t bytes = 0;
};
struct CommGraph {
  int32_t num_ranks = 0;
  std::vector<CommEdge> edges;
};

// OK when graph.num_ranks == d.size() and every edge has endpoints in range and bytes >= 0;
// kInvalidArgument naming the first offending edge otherwise.
absl::Status ValidateCommGraph(const RankDistance& d, const CommGraph& graph);

// Total predicted cost of `graph` under `mapping`: sum over edges of
// d.TimeNs(mapping[from], mapping[to], bytes), in ns. A volume proxy (no contention, no
// overlap) used to compare mappings of the same graph.
double GraphCostNs(const RankDistance& d, const CommGraph& graph, const Mapping& mapping);

// Generic heuristic for any graph: greedy growth from the root (next = the unplaced rank
// with the most bytes to placed ranks, put on the free slot closest to its heaviest placed
// neighbour), then `refinement_passes` passes of pairwise swaps that strictly lower
// GraphCostNs (candidates: ranks on the hosts of a rank's heaviest neighbours; the root is
// never swapped). kInvalidArgument when graph.num_ranks != d.size(), an edge endpoint is out
// of range or bytes is negative, or root is out of range.
absl::StatusOr<Mapping> ReorderGraph(const RankDistance& d, const CommGraph& graph,
                                     const ReorderOptions& o = {});

// In-place refinement used by ReorderGraph (exposed for graph_embed): swaps of non-root
// ranks that strictly lower GraphCostNs; returns the number of swaps made.
int64_t RefineBySwaps(const RankDistance& d, const CommGraph& graph, int32_t root, int32_t passes,
                      int32_t max_candidates, Mapping& mapping);

// --- choosing and guarding a reordering for one collective call ---------------------------

// The heuristic for Open MPI's algorithm (after EffectiveAlgorithm's fallbacks):
// allreduce ring/segmented ring, allgather ring, bcast scatter_allgather_ring -> kRing;
// allreduce recursive doubling -> kRecursiveDoublingAllreduce; allgather recursive doubling
// -> kRecursiveDoublingAllgather; Rabenseifner -> kRabenseifner; bcast and reduce binomial
// -> kBinomialBcast (reduce is the same tree, reversed); binary tree, k-nomial and
// scatter_allgather -> their own; gather binomial -> kBinomialGather. kNotFound for the
// others (Bruck, chain, pipeline, split binary tree, linear), which ReorderOrIdentity
// handles with the generic graph heuristic. kInvalidArgument for an invalid spec.
absl::StatusOr<Heuristic> HeuristicFor(const PatternSpec& spec);

// The "spread" variant of the tree bcast heuristics (kBinomialBcast, kBinaryTreeBcast,
// kKnomialBcast): shifted ranks in increasing order (the tree's levels / rounds, top first)
// each go to a host holding no rank yet until every host holds one; the rest next to their
// parents. With several ranks per host it turns the tree's first rounds into inter-host
// sends, one per HCA per round, and its last ones into intra-host copies — where the
// nearest-first heuristics fill the root's host first and then leave it by one HCA. The new
// host is the one nearest the parent (`nearest`: fewest fabric hops, but the children of one
// leaf crowd the next leaf's links); or, without `nearest`, every rank is dealt round-robin
// over the hosts from the root's (shifted rank v on the (v mod hosts)-th: the by-node order).
// ReorderOrIdentity predicts the nearest-first heuristic and both spreads and keeps the
// fastest. kInvalidArgument for another heuristic, a bad root or radix.
absl::StatusOr<Mapping> ReorderTreeSpread(Heuristic h, const RankDistance& d,
                                          const ReorderOptions& o, bool nearest);
// The nearest spread scans the hosts holding no rank for every new host (O(hosts^2)):
// ReorderOrIdentity tries it up to this many hosts (bench:reorder_bench, spread/...).
inline constexpr int kSpreadNearestMaxHosts = 2048;

struct ReorderDecision {
  Mapping mapping;          // the reordering, or the identity when it did not help
  bool reordered = false;   // mapping != identity
  std::string_view method;  // HeuristicName (+ "_spread" for ReorderTreeSpread's), or "graph"
  double identity_ns = 0;   // PredictCollective time of the identity mapping
  double candidate_ns = 0;  // PredictCollective time of the heuristic's mapping
};

// The guarantee of DESIGN.md: runs the heuristic for `spec` (HeuristicFor, else ReorderGraph
// over CommunicationGraph(spec)), predicts both it and the identity with PredictCollective
// (predict.h; link contention when `routes` is given), and returns the heuristic's mapping
// only when it is predicted strictly faster. Rooted collectives keep spec.root in place.
// Errors: kInvalidArgument when spec.num_ranks != d.size() or the spec is invalid; errors of
// the predictor are passed through.
absl::StatusOr<ReorderDecision> ReorderOrIdentity(const PatternSpec& spec, const RankDistance& d,
                                                  const RouteSource* routes = nullptr,
                                                  const ReorderOptions& o = {});

// Identity mapping of size n, and a validity check (a permutation of 0..n-1).
Mapping IdentityMapping(int n);
bool IsPermutation(const Mapping& m);

}  // namespace toporr::mapping

#endif  // TOPORR_MAPPING_REORDER_H_

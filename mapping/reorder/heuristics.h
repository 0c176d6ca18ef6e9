// Rank reordering for the collectives' own patterns (Mirsadeghi & Afsahi style heuristics):
// every heuristic walks the communication pattern of one Open MPI algorithm (coll/base's
// trees and folds as mapping/schedules/collective_shapes.h models them) and places each
// rank on the free slot closest to its reference rank (placer.h, whose contract every
// function here keeps).
#ifndef TOPORR_MAPPING_REORDER_HEURISTICS_H_
#define TOPORR_MAPPING_REORDER_HEURISTICS_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "mapping/costs/distance.h"
#include "mapping/reorder/placer.h"
#include "mapping/schedules/pattern.h"

namespace toporr::mapping {

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

// Each returns a permutation with the contract of placer.h. kInvalidArgument when the
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
// True for the tree bcast heuristics, the ones ReorderTreeSpread has a spread order for.
bool IsTreeBcast(Heuristic h);

// The nearest spread scans the hosts holding no rank for every new host (O(hosts^2)):
// ReorderOrIdentity tries it up to this many hosts (bench:reorder_bench, spread/...).
inline constexpr int kSpreadNearestMaxHosts = 2048;

}  // namespace toporr::mapping

#endif  // TOPORR_MAPPING_REORDER_HEURISTICS_H_

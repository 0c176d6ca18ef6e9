// Graph embedding for MPI_Graph_create / MPI_Cart_create / MPI_Dist_graph_create with
// reorder = 1: put a weighted process graph onto the job's slots so that heavy edges join
// close slots.
//
// Inputs are a CommGraph (mapping/reorder/graph_reorder.h): directed edges carrying `bytes`. MPI
// topology weights are unitless; callers pass them as bytes (MPI_UNWEIGHTED -> 1 per edge) or
// scaled by a known message size. The result is a Mapping as everywhere in mapping/:
// mapping[new_rank] = slot (the old rank whose process the new rank takes).
//
// Predicted cost of a mapping (what every embedder here is judged by):
//   GraphCostNs = sum over edges of TimeNs(slot(from), slot(to), bytes),
// a contention-free volume proxy.
//
// Embedders:
//   - bipartition (ours, the default): dual recursive bipartitioning along the machine
//     hierarchy. The slots are split the way the machine nests them (clusters of leaf
//     groups, ordered by cost from the first group and halved by slot count; then leaf
//     group, host, package, NUMA node, L3), and at every split the process graph is
//     bisected into exactly as many ranks as each side has slots: multilevel, with
//     heavy-edge matching (hash-scrambled visit order and tie-breaks), greedy graph growing
//     from a few seeds at the coarsest level, and boundary Fiduccia-Mattheyses refinement on
//     every level (exact balance on the finest). Edge weights are the predicted ns of the
//     edge's messages between two hosts, so a cut counts per-message latency and bytes.
//     Cores of one L3 are interchangeable and are filled in order. Deterministic (no
//     random state); O(E log P) time, O(E) memory. It is the default because it is faster
//     than Scotch and finds cheaper mappings on the stencil graphs it was compared on;
//     bench/reorder_bench.cc measures time and predicted cost of both.
//   - greedy: ReorderGraph (greedy growth from rank 0 along the heaviest edges onto the
//     closest free slots) followed by pairwise-swap refinement. Deterministic.
//   - Scotch: SCOTCH_graphMap of the symmetrised graph onto a tree-leaf target architecture
//     (SCOTCH_archTleaf levels: leaf group / host / slot, link costs from the host cost
//     matrix and the intra-host model, restricted with SCOTCH_archSub to the slots that
//     exist). Scotch may put two vertices on one terminal; such extras move to the closest
//     free slot. Scotch sees only that three-level tree (packages, L3 and a dense matrix's
//     finer structure are lost).
// EmbedGraph runs the identity, ours, and optionally greedy and Scotch, and keeps the
// mapping with the lowest predicted cost; ties go to the earlier of identity, bipartition,
// greedy, Scotch, so the result is never predicted worse than the identity.
// Thread-compatible; Scotch calls are re-entrant (each call owns its Scotch objects).
#ifndef TOPORR_MAPPING_EMBEDDING_GRAPH_EMBED_H_
#define TOPORR_MAPPING_EMBEDDING_GRAPH_EMBED_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "mapping/costs/distance.h"
#include "mapping/reorder/graph_reorder.h"
#include "mapping/reorder/placer.h"

namespace toporr::mapping {

struct EmbedOptions {
  int32_t refinement_passes = 2;     // greedy: swap passes after the growth
  int32_t max_swap_candidates = 32;  // greedy: swap partners tried per rank and pass
  bool run_greedy = false;           // EmbedGraph: also try the greedy embedder
  bool run_scotch = true;            // EmbedGraph: also try Scotch and keep the better
  // Scotch strategy flags (SCOTCH_STRATDEFAULT 0, SCOTCH_STRATQUALITY 1, SCOTCH_STRATSPEED 2).
  int32_t scotch_strategy = 1;
};

enum class EmbedMethod { kIdentity, kBipartition, kGreedy, kScotch };
std::string_view EmbedMethodName(EmbedMethod m);

struct Embedding {
  Mapping mapping;
  EmbedMethod method = EmbedMethod::kIdentity;  // which candidate `mapping` is
  double cost_ns = 0;                           // GraphCostNs of `mapping`
  double identity_cost_ns = 0;
  double bipartition_cost_ns = 0;
  double greedy_cost_ns = -1;  // -1 when greedy did not run
  double scotch_cost_ns = -1;  // -1 when Scotch did not run
};

// All: kInvalidArgument for an empty placement or a graph that does not match it
// (ValidateCommGraph). Self-loops and zero-byte edges are allowed (a message of 0 bytes
// still pays latency); parallel edges add up.
absl::StatusOr<Mapping> EmbedBipartition(const RankDistance& d, const CommGraph& graph,
                                         const EmbedOptions& o = {});
absl::StatusOr<Mapping> EmbedGreedy(const RankDistance& d, const CommGraph& graph,
                                    const EmbedOptions& o = {});
// Additionally kInternal when a Scotch call fails (with the call's name).
absl::StatusOr<Mapping> EmbedScotch(const RankDistance& d, const CommGraph& graph,
                                    const EmbedOptions& o = {});
absl::StatusOr<Embedding> EmbedGraph(const RankDistance& d, const CommGraph& graph,
                                     const EmbedOptions& o = {});

// Process graph of an MPI_Cart_create grid: ranks in row-major order (last dimension
// fastest, as MPI numbers them), an edge both ways between neighbours along every dimension
// (wrapping where periods[i]), each carrying `bytes_per_edge`. A periodic dimension of size
// 2 has one neighbour pair (not two). kInvalidArgument when dims and periods differ in
// length, a dimension is < 1, or the product exceeds 2^31-1.
absl::StatusOr<CommGraph> CartesianGraph(const std::vector<int>& dims,
                                         const std::vector<bool>& periods, int64_t bytes_per_edge);

}  // namespace toporr::mapping

#endif  // TOPORR_MAPPING_EMBEDDING_GRAPH_EMBED_H_

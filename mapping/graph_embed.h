// Graph embedding for MPI_Graph_create / MPI_Cart_create / MPI_Dist_graph_create with
// reorder = 1: put a weighted process graph onto the job's slots so that heavy edges join
// close slots.
//
// Inputs are a CommGraph (reorder.h): directed edges carrying `bytes`. MPI topology weights
// are unitless; callers pass them as bytes (MPI_UNWEIGHTED -> 1 per edge) or scaled by a
// known message size. The result is a Mapping as everywhere in mapping/: mapping[new_rank]
// = slot (the old rank whose process the new rank takes).
//
// Two embedders:
//   - greedy: ReorderGraph (greedy growth from rank 0 along the heaviest edges onto the
//     closest free slots) followed by pairwise-swap refinement. Deterministic.
//   - Scotch: SCOTCH_graphMap of the symmetrised graph onto a tree-leaf target architecture
//     (SCOTCH_archTleaf levels: leaf group / host / slot, link costs from the host cost
//     matrix and the intra-host model, restricted with SCOTCH_archSub to the slots that
//     exist). Scotch may put two vertices on one terminal; such extras move to the closest
//     free slot. Scotch sees only that three-level tree (a dense matrix's finer structure is
//     lost), which is one reason the greedy embedder often wins.
// EmbedGraph runs both and keeps the mapping with the lower predicted cost,
//   cost = GraphCostNs = sum over edges of TimeNs(slot(from), slot(to), bytes),
// a contention-free volume proxy; ties go to the greedy result (deterministic).
// Thread-compatible; Scotch calls are re-entrant (each call owns its Scotch objects).
#ifndef TOPORR_MAPPING_GRAPH_EMBED_H_
#define TOPORR_MAPPING_GRAPH_EMBED_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "mapping/distance.h"
#include "mapping/reorder.h"

namespace toporr::mapping {

struct EmbedOptions {
  int32_t refinement_passes = 2;    // greedy: swap passes after the growth
  int32_t max_swap_candidates = 32;  // greedy: swap partners tried per rank and pass
  bool run_scotch = true;            // EmbedGraph: also try Scotch and keep the better
  // Scotch strategy flags (SCOTCH_STRATDEFAULT 0, SCOTCH_STRATQUALITY 1, SCOTCH_STRATSPEED 2).
  int32_t scotch_strategy = 1;
};

enum class EmbedMethod { kGreedy, kScotch };
std::string_view EmbedMethodName(EmbedMethod m);

struct Embedding {
  Mapping mapping;
  EmbedMethod method = EmbedMethod::kGreedy;
  double cost_ns = 0;         // GraphCostNs of `mapping`
  double greedy_cost_ns = 0;
  double scotch_cost_ns = -1;  // -1 when Scotch did not run
};

// kInvalidArgument for a graph that does not match the placement (see ReorderGraph).
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
                                         const std::vector<bool>& periods,
                                         int64_t bytes_per_edge);

}  // namespace toporr::mapping

#endif  // TOPORR_MAPPING_GRAPH_EMBED_H_

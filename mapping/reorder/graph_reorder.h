// The generic reordering heuristic, for any weighted communication graph: the fallback of
// ReorderOrIdentity (reorder.h) for algorithms without a heuristic of their own
// (heuristics.h), and the greedy embedder of graph_embed.h. Keeps the contract of placer.h.
#ifndef TOPORR_MAPPING_REORDER_GRAPH_REORDER_H_
#define TOPORR_MAPPING_REORDER_GRAPH_REORDER_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "mapping/costs/distance.h"
#include "mapping/reorder/placer.h"

namespace toporr::mapping {

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

}  // namespace toporr::mapping

#endif  // TOPORR_MAPPING_REORDER_GRAPH_REORDER_H_

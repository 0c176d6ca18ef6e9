// Multilevel graph bisection for the bipartition embedder (machine_bisection.h): the process
// graph as an undirected weighted graph whose edges weigh the predicted ns of their messages,
// cut into two sides of exactly given weights by heavy-edge matching, greedy graph growing from
// a few seeds at the coarsest level, and boundary Fiduccia-Mattheyses refinement on every
// level. Deterministic (hash-scrambled visit orders, no random state). Internal to
// mapping/embedding.
#ifndef TOPORR_MAPPING_EMBEDDING_GRAPH_BISECTION_H_
#define TOPORR_MAPPING_EMBEDDING_GRAPH_BISECTION_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "mapping/costs/distance.h"
#include "mapping/reorder/graph_reorder.h"

namespace toporr::mapping::embedding_internal {

// Undirected weighted graph in CSR form; vertex weights count original ranks.
struct WGraph {
  std::vector<int64_t> xadj{0};
  std::vector<int32_t> adj;
  std::vector<int64_t> ew;
  std::vector<int64_t> vw;
  int n() const { return static_cast<int>(vw.size()); }
};

// The symmetrised process graph over d's slots (self-loops dropped, both directions of a pair
// merged); an edge weighs the predicted ns of its messages between two slots of a
// representative pair (different hosts when there are several), so that a cut counts both the
// per-message latency and the bytes. Weights are scaled so that all of them together stay
// below 2^62.
WGraph BuildWeightedGraph(const RankDistance& d, const CommGraph& graph);

// Scratch buffers of Bipartition, reused across calls to avoid allocations in the many
// small bisections deep in the machine hierarchy.
struct FmScratch {
  using Entry = std::pair<int64_t, int32_t>;  // (gain, -vertex): max-heap, lowest vertex first
  std::vector<Entry> heap[2];
  std::vector<uint8_t> locked;
  std::vector<int32_t> moved;
  std::vector<int64_t> to;    // Bipartition: 2 per vertex, weight to side 0 and to side 1
  std::vector<int64_t> gain;  // GrowBisection
  std::vector<Entry> grow_heap;
};

// Multilevel bisection of `g` into side 0 of weight exactly target0 (vertex weights are 1
// at the finest level, so exact balance is reachable) and side 1 of the rest: side[v] per
// vertex.
std::vector<uint8_t> Bisect(const WGraph& g, int64_t target0, FmScratch& scratch);

}  // namespace toporr::mapping::embedding_internal

#endif  // TOPORR_MAPPING_EMBEDDING_GRAPH_BISECTION_H_

// The bipartition embedder's walk down the machine (EmbedBipartition of graph_embed.h): dual
// recursive bipartitioning along the machine hierarchy. The slots are split the way the
// machine nests them (clusters of leaf groups, ordered by cost from a peripheral group and
// halved by slot count; then leaf group, host, package, NUMA node, L3) — at the boundary
// dearest to cross for a typical message first — and at every split the process graph is
// bisected (graph_bisection.h) into exactly as many ranks as each side has slots. Cores of one
// L3 are interchangeable and are filled in order. Internal to mapping/embedding.
#ifndef TOPORR_MAPPING_EMBEDDING_MACHINE_BISECTION_H_
#define TOPORR_MAPPING_EMBEDDING_MACHINE_BISECTION_H_

#include "mapping/costs/distance.h"
#include "mapping/reorder/graph_reorder.h"
#include "mapping/reorder/placer.h"

namespace toporr::mapping::embedding_internal {

// The mapping of `graph` onto d's slots. Preconditions: d.size() > 0 and
// ValidateCommGraph(d, graph).ok(). Deterministic; O(E log P) time, O(E) memory.
Mapping BisectAlongMachine(const RankDistance& d, const CommGraph& graph);

}  // namespace toporr::mapping::embedding_internal

#endif  // TOPORR_MAPPING_EMBEDDING_MACHINE_BISECTION_H_

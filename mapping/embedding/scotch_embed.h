// The Scotch embedder (EmbedScotch of graph_embed.h): SCOTCH_graphMap of the symmetrised
// process graph onto a tree-leaf target architecture (SCOTCH_archTleaf levels: leaf group /
// host / slot, link costs from the host cost matrix and the intra-host model, restricted with
// SCOTCH_archSub to the slots that exist). Scotch may put two vertices on one terminal; such
// extras move to the closest free slot. Deterministic: Scotch runs with a deterministic
// context and a fixed seed, and its process-global random state is reset under a lock before
// every mapping. Internal to mapping/embedding.
#ifndef TOPORR_MAPPING_EMBEDDING_SCOTCH_EMBED_H_
#define TOPORR_MAPPING_EMBEDDING_SCOTCH_EMBED_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "mapping/costs/distance.h"
#include "mapping/reorder/graph_reorder.h"
#include "mapping/reorder/placer.h"

namespace toporr::mapping::embedding_internal {

// The mapping of `graph` onto d's slots with Scotch strategy flags `strategy`.
// Preconditions: d.size() > 1 and ValidateCommGraph(d, graph).ok(). kInternal when a Scotch
// call fails (with the call's name); kInvalidArgument when the target would need more
// terminals than Scotch can number.
absl::StatusOr<Mapping> ScotchMap(const RankDistance& d, const CommGraph& graph, int32_t strategy);

}  // namespace toporr::mapping::embedding_internal

#endif  // TOPORR_MAPPING_EMBEDDING_SCOTCH_EMBED_H_

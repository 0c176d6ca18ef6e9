// The rank order libtoporr gives an MPI process graph (MPI_Cart_create, MPI_Graph_create,
// MPI_Dist_graph_create(_adjacent) with reorder = 1), without MPI: what rank 0 of
// Library::GraphOrder computes from the job's placement and host costs, and what
// `toporrctl plan --cart` computes from a hostfile, so the two agree by construction.
//
// The graph is embedded by mapping::EmbedGraph with its default options (identity, the
// bipartition embedder and Scotch; the one with the lowest predicted cost, ties to the
// earlier, so the order is never predicted slower than the identity, which it is whenever
// no embedder beats it). Predicted cost: mapping::GraphCostNs (mapping/reorder/graph_reorder.h),
// the sum over edges of their contention-free message time; routes are not used.
#ifndef TOPORR_CLIENT_GRAPH_PLAN_H_
#define TOPORR_CLIENT_GRAPH_PLAN_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "mapping/costs/cost_matrix.h"
#include "mapping/costs/placement.h"
#include "mapping/embedding/graph_embed.h"
#include "mapping/reorder/graph_reorder.h"

namespace toporr::client {

// MPI topology weights are unitless: an unweighted edge (and weight 1) counts this many
// bytes, a weight w counts w times as many.
inline constexpr int64_t kBytesPerEdgeUnit = 4096;  // a typical halo message

// The process graph of MPI_Cart_create(comm, dims.size(), dims, periods, reorder) on a
// communicator of `num_ranks` ranks: mapping::CartesianGraph with kBytesPerEdgeUnit per edge,
// over all `num_ranks` vertices (the ranks beyond the grid, which MPI gives MPI_COMM_NULL,
// have no edges). kInvalidArgument as CartesianGraph, and when the grid has more nodes than
// `num_ranks`.
absl::StatusOr<mapping::CommGraph> CartGraph(const std::vector<int>& dims,
                                             const std::vector<bool>& periods, int num_ranks);

// The embedding of `graph` onto the slots of `placement` (graph.num_ranks must be its size):
// Embedding::mapping[new rank] = old rank, identity_cost_ns and cost_ns the predicted cost
// before and after. libtoporr passes the default `intra` (as it does to Plan). Errors:
// those of mapping::RankDistance::Create and mapping::EmbedGraph (kInvalidArgument for a
// graph that does not match the placement).
absl::StatusOr<mapping::Embedding> PlanGraph(const mapping::CommGraph& graph,
                                             const mapping::Placement& placement,
                                             const mapping::HostCostMatrix& costs,
                                             const mapping::IntraHostModel& intra = {});

}  // namespace toporr::client

#endif  // TOPORR_CLIENT_GRAPH_PLAN_H_

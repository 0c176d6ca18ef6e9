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
#ifndef TOPORR_CLIENT_PLAN_GRAPH_PLAN_H_
#define TOPORR_CLIENT_PLAN_GRAPH_PLAN_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "mapping/costs/cost_matrix.h"
#include "mapping/costs/placement.h"
#include "mapping/embedding/graph_embed.h"
#include "mapping/reorder/graph_reorder.h"
#include "mapping/routes/route_source.h"

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

// The order for an application's traffic graph (client/profile/traffic_graph.h) on the slots of
// `placement`. Candidates: the identity, the bipartition embedder and Scotch (as for
// PlanGraph, but seeing the bandwidth between two hosts divided by the larger of their rank
// counts, as when all ranks send at once). They are judged by the time to send the whole
// graph at once, each edge's bytes one message: the largest latency among the messages
// between hosts, plus the longer of (a) the busiest directed link's bytes over its rate, on
// the routes of `routes` (null: only the hosts' own links, mapping::HostLinkRoutes), and (b)
// the longest message inside a host. A sum of independent message times (PlanGraph's measure)
// cannot see that the ranks of a host share its link, which is what an application's halo or
// transpose traffic runs into. Embedding::identity_cost_ns / bipartition_cost_ns /
// scotch_cost_ns / cost_ns are these times (scotch -1 when it fails). A candidate replaces
// the launch order only when predicted at least kMinTrafficGain faster (a relaunch in another
// order for less is not worth the model's error); ties go to the earlier of bipartition and
// Scotch. So the order is never predicted slower than the launch order. Errors: those of
// RankDistance::Create and the bipartition embedder.
inline constexpr double kMinTrafficGain = 0.02;
absl::StatusOr<mapping::Embedding> PlanTraffic(const mapping::CommGraph& graph,
                                               const mapping::Placement& placement,
                                               const mapping::HostCostMatrix& costs,
                                               const mapping::RouteSource* routes,
                                               const mapping::IntraHostModel& intra = {});

}  // namespace toporr::client

#endif  // TOPORR_CLIENT_PLAN_GRAPH_PLAN_H_

#include "client/graph_plan.h"

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "mapping/costs/distance.h"

namespace toporr::client {

absl::StatusOr<mapping::CommGraph> CartGraph(const std::vector<int>& dims,
                                             const std::vector<bool>& periods, int num_ranks) {
  ASSIGN_OR_RETURN(mapping::CommGraph graph,
                   mapping::CartesianGraph(dims, periods, kBytesPerEdgeUnit));
  if (graph.num_ranks > num_ranks) {
    return absl::InvalidArgumentError(absl::StrCat("a cartesian grid of ", graph.num_ranks,
                                                   " nodes needs at least as many ranks, not ",
                                                   num_ranks));
  }
  graph.num_ranks = num_ranks;
  return graph;
}

absl::StatusOr<mapping::Embedding> PlanGraph(const mapping::CommGraph& graph,
                                             const mapping::Placement& placement,
                                             const mapping::HostCostMatrix& costs,
                                             const mapping::IntraHostModel& intra) {
  ASSIGN_OR_RETURN(mapping::RankDistance distance,
                   mapping::RankDistance::Create(placement, costs, intra));
  return mapping::EmbedGraph(distance, graph);
}

}  // namespace toporr::client

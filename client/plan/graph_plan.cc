#include "client/plan/graph_plan.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "mapping/costs/distance.h"
#include "mapping/prediction/host_link_routes.h"

namespace toporr::client {
namespace {

// The host costs as the embedders should see them for traffic that is sent at once: a host's
// link is shared by its ranks, so between two hosts a rank gets the pair's bandwidth divided
// by the larger of the two hosts' rank counts.
class SharedLinkCosts : public mapping::HostCostMatrix {
 public:
  SharedLinkCosts(const mapping::HostCostMatrix& base, const mapping::Placement& placement)
      : base_(base), ranks_(base.num_hosts(), 0) {
    for (const auto& rank : placement.ranks) {
      if (rank.host >= 0 && rank.host < base.num_hosts()) ++ranks_[rank.host];
    }
  }
  int num_hosts() const override { return base_.num_hosts(); }
  double AlphaNs(int a, int b) const override { return base_.AlphaNs(a, b); }
  double BetaNs(int a, int b) const override {
    return base_.BetaNs(a, b) * std::max(1, std::max(ranks_[a], ranks_[b]));
  }

 private:
  const mapping::HostCostMatrix& base_;
  std::vector<int> ranks_;
};

}  // namespace

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

absl::StatusOr<mapping::Embedding> PlanTraffic(const mapping::CommGraph& graph,
                                               const mapping::Placement& placement,
                                               const mapping::HostCostMatrix& costs,
                                               const mapping::RouteSource* routes,
                                               const mapping::IntraHostModel& intra) {
  ASSIGN_OR_RETURN(mapping::RankDistance distance,
                   mapping::RankDistance::Create(placement, costs, intra));
  const SharedLinkCosts shared(costs, placement);
  ASSIGN_OR_RETURN(mapping::RankDistance embed_distance,
                   mapping::RankDistance::Create(placement, shared, intra));
  std::unique_ptr<mapping::RouteSource> host_links;
  if (routes == nullptr) {
    host_links = mapping::HostLinkRoutes(costs);
    routes = host_links.get();
  }
  std::vector<double> link_bytes(routes->num_directed_links());
  std::vector<int32_t> path;
  auto predicted_ns = [&](const mapping::Mapping& m) {
    std::fill(link_bytes.begin(), link_bytes.end(), 0.0);
    double latency = 0, intra_host = 0;
    for (const mapping::CommEdge& e : graph.edges) {
      const int a = m[e.from], b = m[e.to];
      const int host_a = placement.ranks[a].host, host_b = placement.ranks[b].host;
      if (host_a == host_b) {
        intra_host = std::max(intra_host, distance.TimeNs(a, b, e.bytes));
        continue;
      }
      latency = std::max(latency, costs.AlphaNs(host_a, host_b));
      routes->Route(host_a, host_b, &path);
      for (int32_t link : path) link_bytes[link] += static_cast<double>(e.bytes);
    }
    double links = 0;
    for (int link = 0; link < routes->num_directed_links(); ++link) {
      links = std::max(links, link_bytes[link] * 8 / routes->link_gbps(link));
    }
    return latency + std::max(links, intra_host);
  };
  mapping::Embedding best;
  best.mapping.resize(placement.size());
  for (int32_t i = 0; i < placement.size(); ++i) best.mapping[i] = i;
  best.identity_cost_ns = predicted_ns(best.mapping);
  best.cost_ns = best.identity_cost_ns;
  ASSIGN_OR_RETURN(mapping::Mapping bipartition, mapping::EmbedBipartition(embed_distance, graph));
  best.bipartition_cost_ns = predicted_ns(bipartition);
  // A candidate replaces the launch order only when predicted kMinTrafficGain faster.
  const double bar = best.identity_cost_ns * (1 - kMinTrafficGain);
  if (best.bipartition_cost_ns < std::min(best.cost_ns, bar)) {
    best.mapping = std::move(bipartition);
    best.method = mapping::EmbedMethod::kBipartition;
    best.cost_ns = best.bipartition_cost_ns;
  }
  if (absl::StatusOr<mapping::Mapping> scotch = mapping::EmbedScotch(embed_distance, graph);
      scotch.ok()) {
    best.scotch_cost_ns = predicted_ns(*scotch);
    if (best.scotch_cost_ns < std::min(best.cost_ns, bar)) {
      best.mapping = *std::move(scotch);
      best.method = mapping::EmbedMethod::kScotch;
      best.cost_ns = best.scotch_cost_ns;
    }
  }
  return best;
}

}  // namespace toporr::client

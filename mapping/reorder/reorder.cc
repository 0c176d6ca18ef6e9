#include "mapping/reorder/reorder.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "mapping/prediction/predict.h"
#include "mapping/reorder/graph_reorder.h"
#include "mapping/reorder/heuristics.h"

namespace toporr::mapping {

absl::StatusOr<ReorderDecision> ReorderOrIdentity(const PatternSpec& spec, const RankDistance& d,
                                                  const RouteSource* routes,
                                                  const ReorderOptions& options) {
  if (spec.num_ranks != d.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("reorder: spec has ", spec.num_ranks, " ranks, the placement ", d.size()));
  }
  ReorderOptions o = options;
  const bool rooted = spec.collective == Collective::kBcast ||
                      spec.collective == Collective::kGather ||
                      spec.collective == Collective::kReduce;
  o.root = rooted ? spec.root : 0;
  o.knomial_radix = spec.radix;
  ReorderDecision out;
  absl::StatusOr<Mapping> candidate;
  absl::StatusOr<Heuristic> h = HeuristicFor(spec);
  if (h.ok()) {
    out.method = HeuristicName(*h);
    candidate = Reorder(*h, d, o);
  } else if (h.status().code() == absl::StatusCode::kNotFound) {
    out.method = "graph";
    auto edges = CommunicationGraph(spec);
    if (!edges.ok()) return edges.status();
    CommGraph g{spec.num_ranks, {}};
    g.edges.reserve(edges->size());
    for (const WeightedEdge& e : *edges) g.edges.push_back({e.src, e.dst, e.bytes});
    candidate = ReorderGraph(d, g, o);
  } else {
    return h.status();
  }
  if (!candidate.ok()) return candidate.status();
  PredictInputs in;
  in.placement = &d.placement();
  in.costs = &d.hosts();
  in.routes = routes;
  in.intra = d.intra();
  const Mapping identity = IdentityMapping(d.size());
  auto base = PredictCollective(spec, identity, in);
  if (!base.ok()) return base.status();
  auto mine = PredictCollective(spec, *candidate, in);
  if (!mine.ok()) return mine.status();
  if (h.ok() && IsTreeBcast(*h)) {
    for (bool nearest : {true, false}) {
      // The nearest-host scan is O(hosts) per host: quadratic, so only up to
      // kSpreadNearestMaxHosts.
      if (nearest && d.hosts().num_hosts() > kSpreadNearestMaxHosts) continue;
      absl::StatusOr<Mapping> spread = ReorderTreeSpread(*h, d, o, nearest);
      if (!spread.ok()) return spread.status();
      auto theirs = PredictCollective(spec, *spread, in);
      if (!theirs.ok()) return theirs.status();
      if (theirs->time_ns < mine->time_ns) {
        static constexpr std::string_view kSpreadNames[] = {
            "binomial_bcast_spread", "binary_tree_bcast_spread", "knomial_bcast_spread"};
        out.method = kSpreadNames[*h == Heuristic::kBinomialBcast     ? 0
                                  : *h == Heuristic::kBinaryTreeBcast ? 1
                                                                      : 2];
        candidate = *std::move(spread);
        mine = *std::move(theirs);
      }
    }
  }
  out.identity_ns = base->time_ns;
  out.candidate_ns = mine->time_ns;
  out.reordered = mine->time_ns < base->time_ns && *candidate != identity;
  out.mapping = out.reordered ? *std::move(candidate) : identity;
  return out;
}

}  // namespace toporr::mapping

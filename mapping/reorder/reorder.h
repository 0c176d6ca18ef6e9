// Choosing and guarding a reordering for one collective call: the heuristic of the
// algorithm (heuristics.h) or the generic graph heuristic (graph_reorder.h), kept only when
// the predictor (mapping/prediction/predict.h) says it is strictly faster than the identity.
#ifndef TOPORR_MAPPING_REORDER_REORDER_H_
#define TOPORR_MAPPING_REORDER_REORDER_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "mapping/costs/distance.h"
#include "mapping/reorder/placer.h"
#include "mapping/routes/route_source.h"
#include "mapping/schedules/pattern.h"

namespace toporr::mapping {

struct ReorderDecision {
  Mapping mapping;          // the reordering, or the identity when it did not help
  bool reordered = false;   // mapping != identity
  std::string_view method;  // HeuristicName (+ "_spread" for ReorderTreeSpread's), or "graph"
  double identity_ns = 0;   // PredictCollective time of the identity mapping
  double candidate_ns = 0;  // PredictCollective time of the heuristic's mapping
};

// The guarantee of DESIGN.md: runs the heuristic for `spec` (HeuristicFor, else ReorderGraph
// over CommunicationGraph(spec)), predicts both it and the identity with PredictCollective
// (mapping/prediction/predict.h; link contention when `routes` is given), and returns the
// heuristic's mapping only when it is predicted strictly faster. Rooted collectives keep spec.root
// in place. Errors: kInvalidArgument when spec.num_ranks != d.size() or the spec is invalid; errors
// of the predictor are passed through.
absl::StatusOr<ReorderDecision> ReorderOrIdentity(const PatternSpec& spec, const RankDistance& d,
                                                  const RouteSource* routes = nullptr,
                                                  const ReorderOptions& o = {});

}  // namespace toporr::mapping

#endif  // TOPORR_MAPPING_REORDER_REORDER_H_

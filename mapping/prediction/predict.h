// Contention-aware prediction of a collective's time under a rank mapping.
//
// The schedule (mapping/schedules/pattern.h) is replayed step by step. Within one step all
// transfers are concurrent; the step lasts as long as its slowest transfer, and the collective as
// long as the sum of its steps (a folded step counts `repeat` times). A transfer of m bytes from
// rank a to rank b (after mapping, see below) costs:
//   - same host:   IntraHostModel latency + m * beta of SharedLevel(a, b)
//                  (mapping/costs/placement.h);
//     intra-host traffic never contends with fabric traffic in this model;
//   - other host, no RouteSource: alpha(ha, hb) + m * beta(ha, hb) from the HostCostMatrix
//     (no contention, C = 1);
//   - other host, with a RouteSource: alpha(ha, hb) + m * max(beta(ha, hb), max over the
//     route's directed links l of C_l * 8 / gbps_l), where C_l is the number of transfers of
//     this step whose route crosses l. On links of equal speed this is the classic
//     alpha + C * m * beta with C the most shared link on the route and beta its bottleneck;
//     with mixed speeds it charges the link that is actually slowest under its sharing.
//
// Mapping: `mapping[i]` is the slot (index into Placement::ranks) new rank i runs in, i.e. a
// reorder result; an empty mapping means identity. It must be a permutation of 0..p-1 with
// p == spec.num_ranks == placement.size().
//
// Cost: O(transfers of the folded schedule x route length); ring on 32768 ranks is two
// distinct steps. Stateless functions; safe to call concurrently when the inputs are
// (HostCostMatrix and RouteSource implementations are immutable by contract).
#ifndef TOPORR_MAPPING_PREDICTION_PREDICT_H_
#define TOPORR_MAPPING_PREDICTION_PREDICT_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "mapping/costs/cost_matrix.h"
#include "mapping/costs/placement.h"
#include "mapping/routes/route_source.h"
#include "mapping/schedules/pattern.h"

namespace toporr::mapping {

// Non-owning view of what the prediction needs; everything must outlive the call.
struct PredictInputs {
  const Placement* placement = nullptr;   // required
  const HostCostMatrix* costs = nullptr;  // required; host indices as in the placement
  const RouteSource* routes = nullptr;    // optional: enables link contention
  IntraHostModel intra;                   // intra-host costs per sharing level
};

struct PredictOptions {
  bool per_step = false;  // fill Prediction::step_ns
};

struct Prediction {
  double time_ns = 0;  // predicted duration of the collective
  // Sum over inter-host transfers of bytes x directed links on the route (HCA cables
  // included, so a same-leaf message counts 2). Without a RouteSource every inter-host
  // transfer counts 1 link, i.e. hop_bytes == inter_host_bytes.
  double hop_bytes = 0;
  // Largest number of concurrent transfers of one step sharing one directed link (0
  // without a RouteSource or when no transfer leaves a host).
  int32_t max_link_load = 0;
  // Largest total bytes carried by one directed link over the whole collective.
  int64_t max_link_bytes = 0;
  int64_t inter_host_bytes = 0;
  int64_t intra_host_bytes = 0;
  int64_t num_steps = 0;  // synchronous steps, repeats expanded
  // With PredictOptions::per_step: the time of ONE repetition of each folded step, in the
  // order ForEachStep visits them (multiply by the step's repeat for its share).
  std::vector<double> step_ns;
  std::vector<int64_t> step_repeat;
};

// kInvalidArgument for an invalid spec, a mapping that is not a permutation of the
// placement's slots, missing inputs, or hosts outside the cost matrix.
absl::StatusOr<Prediction> PredictCollective(const PatternSpec& spec,
                                             const std::vector<int>& mapping,
                                             const PredictInputs& inputs,
                                             const PredictOptions& options = {});

// The same model over an explicit schedule: `steps` in order (each Step's transfers
// concurrent, `repeat` honoured), transfer ends being slots of the placement (identity
// mapping). For schedules no PatternSpec describes, e.g. several groups' collectives running
// side by side (mapping/levels/multilevel.h). kInvalidArgument for missing inputs or a transfer end
// outside the placement.
absl::StatusOr<Prediction> PredictSteps(const std::vector<Step>& steps, const PredictInputs& inputs,
                                        const PredictOptions& options = {});

}  // namespace toporr::mapping

#endif  // TOPORR_MAPPING_PREDICTION_PREDICT_H_

// `toporrctl calibrate`: the cost model's constants (mapping/costs/cost_model.h) fitted to a
// `toporr-probe` measurement of the machine itself.
//
// Per host pair x != y of the probe that the model knows: t(m) = the smallest rtt(m) / 2 over
// the rank pairs between the two hosts (the best-placed ranks, as the model's cost of a host
// pair is that of its best port pair), for every measured size m. A least-squares line over
// the sizes gives the pair's time per byte b (its slope; at least 2 distinct sizes) and its
// latency a = t(smallest m) - smallest m x b (at least 0).
//   - Latency: a least-squares line a = c0 + c1 x switches over the pairs; with one switch
//     count only, c1 is the kind's switch + cable latency. The kind's NIC and cable
//     latencies are kept (a probe cannot tell them from the software's), so
//       switch_latency_ns = c1 - link_latency_ns,
//       per_message_ns    = c0 - nic_latency_ns - link_latency_ns,   each at least 0.
//   - Rates: a pair's scale is its effective rate 8 / b Gb/s over its bottleneck rate in the
//     fabric. host_rate_scale = the median scale of the pairs on one switch (of every pair
//     when none is), and switch_rate_scale the same: toporr-probe runs disjoint pairs side by
//     side, so a pair across switches shares its uplinks with others of its round (contention
//     the model prices itself), and a pair's path is never seen faster than its host cables.
//     The pairs across switches are shown (SwitchClassFit), not fitted; a site that knows its
//     switch tier is slower sets cost_model_switch_rate_scale itself.
// Latencies are rounded to the nanosecond, scales to 4 significant digits.
// The fit is judged on the same points: a (pair, size) point is within when the model's
// alpha + m x beta is within 25 % of t(m), before (the kind's preset) and after.
//
// Pure and thread-safe (the cost callback must be too).
#ifndef TOPORR_CLIENT_CTL_COST_MODEL_FIT_H_
#define TOPORR_CLIENT_CTL_COST_MODEL_FIT_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "collectors/plogp.h"
#include "mapping/costs/host_costs.h"

namespace toporr::client::ctl {

// The n x n costs (row-major, hosts as CostModelFitInput::hosts) of the fabric under a model:
// its rates scaled as the model says.
using CostsUnderModel = std::function<absl::StatusOr<std::vector<mapping::HostPairCost>>(
    const mapping::CostModelOptions& model)>;

struct CostModelFitInput {
  const collectors::PlogpProbe* probe = nullptr;
  std::vector<std::string> hosts;  // the probe's hosts the model knows, in probe order
  std::string kind;                // a mapping::CostModelKinds() name
  CostsUnderModel costs;
};

// Per switch count: medians over its pairs.
struct SwitchClassFit {
  int switches = 0;
  int pairs = 0;
  double measured_latency_ns = 0, before_latency_ns = 0, after_latency_ns = 0;
  double fabric_gbps = 0, measured_gbps = 0, after_gbps = 0;
};

struct CostModelFit {
  std::string kind;
  mapping::CostModelOptions before;  // the kind's preset
  mapping::CostModelOptions after;   // fitted
  std::vector<int64_t> sizes;
  std::vector<std::string> hosts;
  std::vector<std::string> missing;  // probe hosts the model does not know
  int pairs = 0;
  std::vector<SwitchClassFit> classes;  // ascending switch count
  int points = 0, within_before = 0, within_after = 0;
};

// kInvalidArgument for an unknown kind, a probe with fewer than 2 distinct sizes, or fewer
// than one measured pair of different hosts the model knows.
absl::StatusOr<CostModelFit> FitCostModel(const CostModelFitInput& input);

}  // namespace toporr::client::ctl

#endif  // TOPORR_CLIENT_CTL_COST_MODEL_FIT_H_

// The cost model's constants as a site sets them: named kinds of fabric with their preset
// constants, the `cost_model*` settings that pick a kind and override single constants
// (toporrd.conf; `toporrctl --cost-model FILE`), and the fabric as the model sees it.
//
// Settings, applied in file order (ApplyCostModelSetting):
//   cost_model = KIND                    every constant from KIND's preset (CostModelKinds);
//                                        must come before any override
//   cost_model_nic_latency_ns = NS       CostModelOptions::nic_latency_ns
//   cost_model_switch_latency_ns = NS    ... switch_latency_ns
//   cost_model_link_latency_ns = NS      ... link_latency_ns
//   cost_model_per_message_ns = NS       ... per_message_ns
//   cost_model_host_rate_scale = S       ... host_rate_scale
//   cost_model_switch_rate_scale = S     ... switch_rate_scale
// Latencies are finite, >= 0 and at most 1e8 ns; scales in (0, 1000]. `toporrctl calibrate`
// writes these lines from a `toporr-probe` measurement of the machine.
//
// Pure functions; thread-safe.
#ifndef TOPORR_MAPPING_COSTS_COST_MODEL_H_
#define TOPORR_MAPPING_COSTS_COST_MODEL_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "fabric/fabric.h"
#include "mapping/costs/host_costs.h"

namespace toporr::mapping {

struct CostModelKind {
  const char* name;  // the value of `cost_model`
  const char* what;  // one line for documentation and errors
  CostModelOptions options;
};

// Every kind, the default (infiniband-hdr, CostModelOptions{}) first.
const std::vector<CostModelKind>& CostModelKinds();

// The settings read so far: the model and whether a constant was overridden (after which a
// `cost_model` line would silently undo it, so it is refused).
struct CostModelSettings {
  CostModelOptions model;
  std::string kind = "infiniband-hdr";
  bool overridden = false;
};

// `cost_model` and the `cost_model_*` keys above, in that order.
std::vector<std::string_view> CostModelKeys();

// True for `cost_model` and the `cost_model_*` keys above.
bool IsCostModelKey(std::string_view key);

// Applies one setting. kInvalidArgument (a message without location: callers prefix their
// file and line) for an unknown kind, a key that is not a cost model key, a value out of its
// range, or `cost_model` after an override.
absl::Status ApplyCostModelSetting(std::string_view key, std::string_view value,
                                   CostModelSettings* settings);

// The settings that reproduce `model` from `kind`: `cost_model = kind`, then one line per
// constant that differs from the kind's preset (all of them when `all`). Lines end in '\n'.
std::string CostModelSettingLines(const std::string& kind, const CostModelOptions& model,
                                  bool all = false);

// One line for logs and reports: "kind (nic 600 ns, switch 130 ns, ...)".
std::string DescribeCostModel(const std::string& kind, const CostModelOptions& model);

// True when `model` changes link rates (a scale other than 1).
bool ScalesRates(const CostModelOptions& model);

// `fabric` with every link's data rate multiplied by the scale of its tier (a link with a CA
// end: host_rate_scale; between two non-CA nodes: switch_rate_scale). A rate of 0 (unknown)
// stays 0. Everything else is copied unchanged.
fabric::Fabric ScaledFabric(const fabric::Fabric& fabric, const CostModelOptions& model);

}  // namespace toporr::mapping

#endif  // TOPORR_MAPPING_COSTS_COST_MODEL_H_

// Host-pair costs along the routes the subnet really uses: walks of the switches' linear
// forwarding tables (mapping/routes/lft_routes.h) instead of shortest paths in the graph. Same
// semantics as host_costs.h (hops = switches on the route, bottleneck = slowest link on it, latency
// from CostModelOptions), route_kind() == kForwardingTables.
//
// No host x host table: Create builds LftRoutes::BuildSwitchRouteTable (attachment switch x
// host: switches and bottleneck along the LFT route; O(hosts x switches) once, ~3 bytes per
// cell), so Cost, Matrix and MatrixCompact are lookups plus the source host's own cable.
// Only hosts cabled straight to another CA (no attachment switch) walk their routes.
// Immutable after Create; const methods are thread-safe.
#ifndef TOPORR_MAPPING_COSTS_LFT_HOST_COSTS_H_
#define TOPORR_MAPPING_COSTS_LFT_HOST_COSTS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "fabric/fabric.h"
#include "fabric/forwarding_tables.h"
#include "mapping/costs/host_costs.h"
#include "mapping/routes/lft_routes.h"

namespace toporr::mapping {

class LftHostCosts final : public PairCosts {
 public:
  // Errors as LftRoutes::Create (stale dumps, loops, dead ends of host routes).
  static absl::StatusOr<std::unique_ptr<LftHostCosts>> Create(const fabric::Fabric& fabric,
                                                              fabric::ForwardingTables tables,
                                                              CostModelOptions model = {},
                                                              LftRoutesOptions options = {});

  int num_hosts() const override { return routes_->num_hosts(); }
  HostPairCost Cost(int a, int b) const override;
  void Matrix(const std::vector<int>& hosts, std::vector<HostPairCost>* out) const override;
  absl::StatusOr<HostPath> Path(int a, int b) const override;
  RouteKind route_kind() const override { return RouteKind::kForwardingTables; }
  const CostModelOptions& cost_model() const override { return model_; }
  // Rows grouped as Matrix groups them (and further by the rate of the row host's cable):
  // one lookup per (switch, column host), one stored row per group.
  absl::Status MatrixCompactRows(const std::vector<int>& hosts, CompactRowSet* out) const override;

  const LftRoutes& routes() const { return *routes_; }

 private:
  LftHostCosts(std::unique_ptr<LftRoutes> routes, CostModelOptions model);
  // The switch a host's routed port is cabled to and the rate of that cable; node -1 when
  // the host has no routed port or it is cabled straight to another CA.
  struct Attachment {
    int32_t switch_node = -1;
    double gbps = 0;
  };

  // The route from switch node `sw` to host b by table lookup: false when `sw` is no
  // attachment switch or there is no route.
  bool FromSwitch(int32_t sw, int b, int32_t* switches, double* gbps) const;

  std::unique_ptr<LftRoutes> routes_;
  CostModelOptions model_;
  std::vector<Attachment> attachment_;  // per host
  LftRoutes::SwitchRouteTable table_;   // built once at Create
};

}  // namespace toporr::mapping

#endif  // TOPORR_MAPPING_COSTS_LFT_HOST_COSTS_H_

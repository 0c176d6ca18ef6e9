// The compact uint16 cost matrix (the layout of PMIx's PMIX_FABRIC_COST_MATRIX: a row-major
// n x n array of relative point-to-point costs as uint16_t) for transfer to clients.
//
// Each host pair is first reduced to one scalar, the modelled time of a reference message:
//   c(a,b) = alpha_ns + reference_bytes * beta_ns_per_byte   (ns; default 64 KiB)
// and the off-diagonal scalars are mapped PROPORTIONALLY onto 1..65535:
//   q = clamp(round(c / ns_per_unit), 1, 65535),  ns_per_unit = max finite c / 65535,
// so q * ns_per_unit gives c back within ns_per_unit / 2 (ratios between costs survive; the
// largest cost maps to 65535). The diagonal is 0. The mapping is monotone: c1 <= c2 implies
// q1 <= q2 (costs closer than one unit may share a value; none is ever inverted).
// Unreachable pairs (HostPairCost::hops < 0, infinite cost) map to 65535 as well: the value
// alone cannot tell them from the farthest reachable pair. When every off-diagonal cost is 0,
// all off-diagonal values are 1 and ns_per_unit is 0.
#ifndef TOPORR_MAPPING_COSTS_QUANTIZED_COSTS_H_
#define TOPORR_MAPPING_COSTS_QUANTIZED_COSTS_H_

#include <cstdint>
#include <vector>

#include "mapping/costs/host_costs.h"

namespace toporr::mapping {

struct QuantizeOptions {
  // Message size whose modelled time is the scalar cost. 64 KiB sits between the latency-
  // and bandwidth-bound regimes, so both alpha and beta shape the order.
  int64_t reference_bytes = 64 * 1024;
};

// The scalar cost of one pair (ns): alpha + reference_bytes * beta.
double ReferenceCostNs(const HostPairCost& cost, const QuantizeOptions& options = {});

// `matrix` is row-major n x n (HostCosts::Matrix). Returns the quantised matrix, same layout,
// and the scale in `*ns_per_unit` (may be null). An empty result when matrix.size() is not a
// perfect square.
std::vector<uint16_t> QuantizeCosts(const std::vector<HostPairCost>& matrix,
                                    const QuantizeOptions& options = {},
                                    double* ns_per_unit = nullptr);

}  // namespace toporr::mapping

#endif  // TOPORR_MAPPING_COSTS_QUANTIZED_COSTS_H_

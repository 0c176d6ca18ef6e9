#include "mapping/costs/quantized_costs.h"

#include <algorithm>
#include <cmath>

namespace toporr::mapping {

namespace {
constexpr double kMaxValue = 65535.0;
}  // namespace

double ReferenceCostNs(const HostPairCost& cost, const QuantizeOptions& options) {
  return cost.alpha_ns + static_cast<double>(options.reference_bytes) * cost.beta_ns_per_byte;
}

std::vector<uint16_t> QuantizeCosts(const std::vector<HostPairCost>& matrix,
                                    const QuantizeOptions& options, double* ns_per_unit) {
  const size_t n = static_cast<size_t>(std::llround(std::sqrt(static_cast<double>(matrix.size()))));
  if (ns_per_unit) *ns_per_unit = 0;
  if (n * n != matrix.size()) return {};
  std::vector<double> scalar(matrix.size(), 0.0);
  double max_finite = 0;
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) {
      if (i == j) continue;
      const HostPairCost& c = matrix[i * n + j];
      const double s = c.hops < 0 ? INFINITY : ReferenceCostNs(c, options);
      scalar[i * n + j] = s;
      if (std::isfinite(s)) max_finite = std::max(max_finite, s);
    }
  }
  const double unit = max_finite / kMaxValue;
  if (ns_per_unit) *ns_per_unit = unit;
  std::vector<uint16_t> out(matrix.size(), 0);
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) {
      if (i == j) continue;
      const double s = scalar[i * n + j];
      double q = kMaxValue;
      if (std::isfinite(s)) q = unit > 0 ? std::round(s / unit) : 1.0;
      out[i * n + j] = static_cast<uint16_t>(std::clamp(q, 1.0, kMaxValue));
    }
  }
  return out;
}

}  // namespace toporr::mapping

#include "mapping/costs/dense_cost_matrix.h"

#include <cmath>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace toporr::mapping {

absl::StatusOr<std::unique_ptr<DenseCostMatrix>> DenseCostMatrix::Create(
    int num_hosts, std::vector<double> alpha_ns, std::vector<double> beta_ns) {
  if (num_hosts < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("dense cost matrix: num_hosts ", num_hosts, " is negative"));
  }
  const size_t cells = static_cast<size_t>(num_hosts) * num_hosts;
  if (alpha_ns.size() != cells || beta_ns.size() != cells) {
    return absl::InvalidArgumentError(
        absl::StrCat("dense cost matrix: expected ", cells, " alpha and beta values for ",
                     num_hosts, " hosts, got ", alpha_ns.size(), " and ", beta_ns.size()));
  }
  for (size_t i = 0; i < cells; ++i) {
    const int a = static_cast<int>(i / num_hosts), b = static_cast<int>(i % num_hosts);
    for (const auto& [name, v] : {std::pair<const char*, double>{"alpha", alpha_ns[i]},
                                  std::pair<const char*, double>{"beta", beta_ns[i]}}) {
      if (!std::isfinite(v) || v < 0) {
        return absl::InvalidArgumentError(absl::StrCat("dense cost matrix: ", name, "(", a, ",", b,
                                                       ") = ", v, " is negative or not finite"));
      }
      if (a == b && v != 0) {
        return absl::InvalidArgumentError(absl::StrCat("dense cost matrix: ", name, "(", a, ",", a,
                                                       ") = ", v, " but the diagonal must be 0"));
      }
    }
  }
  return std::unique_ptr<DenseCostMatrix>(
      new DenseCostMatrix(num_hosts, std::move(alpha_ns), std::move(beta_ns)));
}

size_t DenseCostMatrix::size_bytes() const {
  return sizeof(*this) + (alpha_.capacity() + beta_.capacity()) * sizeof(double);
}

}  // namespace toporr::mapping

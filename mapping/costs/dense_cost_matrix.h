// DenseCostMatrix: the full n x n host cost matrix, row-major.
//
// alpha_ns[i*n+j] is the modelled latency from host i to host j in nanoseconds and
// beta_ns[i*n+j] the time per byte (ns/byte = 8 / bottleneck Gb/s); sending m bytes costs
// alpha + m * beta. Smaller is closer. The diagonal must be 0 (intra-host costs come from
// IntraHostModel). Memory is 16 * n^2 bytes: use it up to a few thousand hosts and compress
// larger jobs with CompressToHierarchical (hierarchical_cost_matrix.h).
// Immutable after Create; safe to share between threads.
#ifndef TOPORR_MAPPING_COSTS_DENSE_COST_MATRIX_H_
#define TOPORR_MAPPING_COSTS_DENSE_COST_MATRIX_H_

#include <cstddef>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "mapping/costs/cost_matrix.h"

namespace toporr::mapping {

class DenseCostMatrix final : public HostCostMatrix {
 public:
  // `alpha_ns` and `beta_ns` are n*n, row-major. Refused with kInvalidArgument when the
  // sizes differ from n*n, a value is negative or not finite, or the diagonal is non-zero.
  // The matrix need not be symmetric (routes may differ per direction).
  static absl::StatusOr<std::unique_ptr<DenseCostMatrix>> Create(int num_hosts,
                                                                 std::vector<double> alpha_ns,
                                                                 std::vector<double> beta_ns);

  int num_hosts() const override { return n_; }
  double AlphaNs(int a, int b) const override { return alpha_[Index(a, b)]; }
  double BetaNs(int a, int b) const override { return beta_[Index(a, b)]; }

  // Bytes held by this object (both arrays plus the object itself).
  size_t size_bytes() const;

 private:
  DenseCostMatrix(int n, std::vector<double> alpha, std::vector<double> beta)
      : n_(n), alpha_(std::move(alpha)), beta_(std::move(beta)) {}
  size_t Index(int a, int b) const { return static_cast<size_t>(a) * n_ + b; }

  int n_;
  std::vector<double> alpha_;
  std::vector<double> beta_;
};

}  // namespace toporr::mapping

#endif  // TOPORR_MAPPING_COSTS_DENSE_COST_MATRIX_H_

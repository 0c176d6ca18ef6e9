// HierarchicalCostMatrix: host costs in O(n + g^2) memory for large jobs.
//
// Every host belongs to one leaf group (typically the hosts under one leaf switch).
// For hosts a != b:
//   - same group:      alpha = intra_group_alpha_ns, beta = intra_group_beta_ns;
//   - groups ga != gb: alpha = group_alpha_ns[ga*g+gb], beta = group_beta_ns[ga*g+gb]
//     (row-major over groups, need not be symmetric).
// The diagonal (a == b) is 0, as for every HostCostMatrix. Units as in cost_matrix.h: ns and
// ns/byte, smaller is closer. Group pairs are stored as an index into a palette of the
// distinct (alpha, beta) pairs (a fabric has few: one per path class), 2 bytes per pair,
// unless there are more than 65,536 distinct pairs (then 16 bytes per pair). A 16,384-host
// job with 512 groups needs 64 KiB for the group ids plus 512 KiB for the pair indexes
// (size_bytes() reports it); answers are the Options' doubles exactly.
// Immutable after Create; safe to share between threads.
#ifndef TOPORR_MAPPING_COSTS_HIERARCHICAL_COST_MATRIX_H_
#define TOPORR_MAPPING_COSTS_HIERARCHICAL_COST_MATRIX_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "mapping/costs/cost_matrix.h"

namespace toporr::mapping {

class HierarchicalCostMatrix final : public HostCostMatrix {
 public:
  struct Options {
    std::vector<int32_t> host_group;  // index = host, value in 0..num_groups-1
    int32_t num_groups = 0;
    std::vector<double> group_alpha_ns;  // num_groups^2, row-major; diagonal must be 0
    std::vector<double> group_beta_ns;   // num_groups^2, row-major; diagonal must be 0
    double intra_group_alpha_ns = 0;     // between two different hosts of one group
    double intra_group_beta_ns = 0;
  };

  // kInvalidArgument when a group id is out of range, a matrix has the wrong size, a value is
  // negative or not finite, or a group-matrix diagonal entry is non-zero.
  static absl::StatusOr<std::unique_ptr<HierarchicalCostMatrix>> Create(Options options);

  int num_hosts() const override { return static_cast<int>(o_.host_group.size()); }
  double AlphaNs(int a, int b) const override {
    if (a == b) return 0;
    const int ga = o_.host_group[a], gb = o_.host_group[b];
    if (ga == gb) return o_.intra_group_alpha_ns;
    return palette_.empty() ? o_.group_alpha_ns[Index(ga, gb)]
                            : palette_[pair_index_[Index(ga, gb)]].first;
  }
  double BetaNs(int a, int b) const override {
    if (a == b) return 0;
    const int ga = o_.host_group[a], gb = o_.host_group[b];
    if (ga == gb) return o_.intra_group_beta_ns;
    return palette_.empty() ? o_.group_beta_ns[Index(ga, gb)]
                            : palette_[pair_index_[Index(ga, gb)]].second;
  }

  int32_t num_groups() const { return o_.num_groups; }
  int32_t group_of(int host) const { return o_.host_group[host]; }
  const std::vector<int32_t>& host_group() const { return o_.host_group; }

  // Bytes held by this object: group ids, both group matrices and the object itself.
  size_t size_bytes() const;

 private:
  explicit HierarchicalCostMatrix(Options o);
  size_t Index(int ga, int gb) const { return static_cast<size_t>(ga) * o_.num_groups + gb; }

  Options o_;  // group_alpha_ns / group_beta_ns emptied when the palette holds them
  std::vector<std::pair<double, double>> palette_;  // distinct (alpha, beta) of group pairs
  std::vector<uint16_t> pair_index_;                // per group pair, into palette_
};

// Compresses `matrix` given the leaf group of every host. Succeeds only when the hosts of
// each group are exactly equivalent: every pair inside one group has the same (alpha, beta)
// and every pair across groups (ga, gb) has the same (alpha, beta), compared with ==.
// Otherwise kFailedPrecondition naming the first offending host pair; kInvalidArgument when
// `host_group` does not have one entry per host or holds a negative id.
// Costs O(n^2) time once; the result answers every query exactly like `matrix`.
absl::StatusOr<std::unique_ptr<HierarchicalCostMatrix>> CompressToHierarchical(
    const HostCostMatrix& matrix, const std::vector<int32_t>& host_group);

// A synthetic three-level fat tree for tests and benchmarks: hosts 0..num_hosts-1 fill leaf
// switches of `hosts_per_leaf` in order, leaves fill pods of `leaves_per_pod`. Leaf groups
// are the leaves. alpha = nic_ns + switch_ns * switches on the path (1 same leaf, 3 same
// pod, 5 across pods); beta = 8 / gbps, except across pods where it is 8 / core_gbps
// (taper). kInvalidArgument for non-positive sizes or bandwidths.
struct FatTreeShape {
  int num_hosts = 0;
  int hosts_per_leaf = 32;
  int leaves_per_pod = 16;
  double nic_ns = 600;
  double switch_ns = 100;
  double gbps = 100;
  double core_gbps = 100;
};
absl::StatusOr<std::unique_ptr<HierarchicalCostMatrix>> FatTreeCostMatrix(
    const FatTreeShape& shape);

}  // namespace toporr::mapping

#endif  // TOPORR_MAPPING_COSTS_HIERARCHICAL_COST_MATRIX_H_

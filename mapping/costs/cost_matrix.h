// Host-to-host communication costs as the mapping engine consumes them.
//
// For hosts a != b: sending m bytes costs alpha_ns(a,b) + m * beta_ns(a,b) nanoseconds
// (alpha: modelled latency; beta: ns per byte = 8 / bottleneck Gb/s). Smaller is closer.
// The diagonal is 0 (intra-host costs come from placement.h's IntraHostModel). Hosts are
// indexed 0..num_hosts()-1 over the job's explicit host list.
//
// Two representations give identical answers (a test checks it):
//   - DenseCostMatrix: row-major alpha/beta arrays, i*n+j. O(n^2) memory.
//   - HierarchicalCostMatrix: host -> leaf group, group x group costs, one intra-group
//     cost. O(n + g^2) memory; the form for jobs beyond a few thousand hosts.
// Implementations are immutable after construction and safe to share between threads.
#ifndef TOPORR_MAPPING_COSTS_COST_MATRIX_H_
#define TOPORR_MAPPING_COSTS_COST_MATRIX_H_

#include <cstdint>

namespace toporr::mapping {

class HostCostMatrix {
 public:
  virtual ~HostCostMatrix() = default;
  virtual int num_hosts() const = 0;
  virtual double AlphaNs(int a, int b) const = 0;  // 0 when a == b
  virtual double BetaNs(int a, int b) const = 0;   // ns per byte; 0 when a == b
  double TimeNs(int a, int b, int64_t bytes) const {
    return AlphaNs(a, b) + static_cast<double>(bytes) * BetaNs(a, b);
  }
};

}  // namespace toporr::mapping

#endif  // TOPORR_MAPPING_COSTS_COST_MATRIX_H_

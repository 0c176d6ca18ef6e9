// RankDistance: the cost between two slots (process locations) of one job.
//
// A slot is an index into Placement::ranks: the location an original rank runs at. The
// cost of sending `bytes` from slot a to slot b is
//   - different hosts: hosts.AlphaNs(ha,hb) + bytes * hosts.BetaNs(ha,hb)   (cost_matrix.h);
//   - same host:       intra.LatencyNs(l) + bytes * intra.BetaNs(l), l = SharedLevel(a, b);
//   - a == b:          0 (no transfer).
// All in nanoseconds; smaller is closer. DistanceClass() orders pairs by the same notion of
// closeness with a cheap integer, for greedy searches and tie-breaking.
//
// RankDistance is a view: it keeps references to the Placement and the HostCostMatrix, which
// must outlive it. It is immutable and safe to share between threads.
#ifndef TOPORR_MAPPING_COSTS_DISTANCE_H_
#define TOPORR_MAPPING_COSTS_DISTANCE_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "mapping/costs/cost_matrix.h"
#include "mapping/costs/placement.h"

namespace toporr::mapping {

class RankDistance {
 public:
  // kInvalidArgument when a rank's host is outside 0..hosts.num_hosts()-1, or when the
  // intra-host model has a negative latency or a non-positive bandwidth.
  static absl::StatusOr<RankDistance> Create(const Placement& placement,
                                             const HostCostMatrix& hosts,
                                             IntraHostModel intra = {});

  int size() const { return placement_->size(); }
  const Placement& placement() const { return *placement_; }
  const HostCostMatrix& hosts() const { return *hosts_; }
  const IntraHostModel& intra() const { return intra_; }
  int host(int slot) const { return placement_->ranks[slot].host; }

  // Time in ns to send `bytes` from slot_a to slot_b (see the file comment).
  double TimeNs(int slot_a, int slot_b, int64_t bytes) const;

  // Integer closeness class, smaller is closer:
  //   0..4  same host, the LocalityLevel both slots share (a == b gives 0, kSameCore);
  //   >= 5  different hosts: 5 + host alpha rounded to whole ns (saturating), so inter-host
  //         classes order by latency and two host pairs with equal alpha tie.
  int32_t DistanceClass(int slot_a, int slot_b) const;

  // True when b and c are exactly as far from `ref` as each other: same host level for
  // same-host pairs, identical (alpha, beta) for inter-host pairs. Used to break greedy ties
  // in favour of a rank's current slot.
  bool EquallyFar(int ref, int b, int c) const;

 private:
  RankDistance(const Placement& p, const HostCostMatrix& h, IntraHostModel m)
      : placement_(&p), hosts_(&h), intra_(m) {}

  const Placement* placement_;
  const HostCostMatrix* hosts_;
  IntraHostModel intra_;
};

}  // namespace toporr::mapping

#endif  // TOPORR_MAPPING_COSTS_DISTANCE_H_

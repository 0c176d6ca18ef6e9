#include "mapping/costs/distance.h"

#include <cmath>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace toporr::mapping {

absl::StatusOr<RankDistance> RankDistance::Create(const Placement& placement,
                                                  const HostCostMatrix& hosts,
                                                  IntraHostModel intra) {
  const int n = hosts.num_hosts();
  for (int r = 0; r < placement.size(); ++r) {
    const int h = placement.ranks[r].host;
    if (h < 0 || h >= n) {
      return absl::InvalidArgumentError(absl::StrCat(
          "rank ", r, " runs on host ", h, " but the host cost matrix covers 0..", n - 1));
    }
  }
  for (int l = 0; l < kNumLocalityLevels; ++l) {
    if (!(intra.latency_ns[l] >= 0) || !(intra.gbps[l] > 0)) {
      return absl::InvalidArgumentError(absl::StrCat("intra-host model level ", l, ": latency ",
                                                     intra.latency_ns[l], " ns, ", intra.gbps[l],
                                                     " Gb/s; need latency >= 0 and bandwidth > 0"));
    }
  }
  return RankDistance(placement, hosts, intra);
}

double RankDistance::TimeNs(int a, int b, int64_t bytes) const {
  if (a == b) return 0;
  const RankLocation& la = placement_->ranks[a];
  const RankLocation& lb = placement_->ranks[b];
  if (la.host != lb.host) return hosts_->TimeNs(la.host, lb.host, bytes);
  const LocalityLevel l = SharedLevel(la, lb);
  return intra_.LatencyNs(l) + static_cast<double>(bytes) * intra_.BetaNs(l);
}

int32_t RankDistance::DistanceClass(int a, int b) const {
  if (a == b) return 0;
  const RankLocation& la = placement_->ranks[a];
  const RankLocation& lb = placement_->ranks[b];
  if (la.host == lb.host) return static_cast<int32_t>(SharedLevel(la, lb));
  constexpr double kMax = std::numeric_limits<int32_t>::max() - kNumLocalityLevels;
  const double alpha = std::round(hosts_->AlphaNs(la.host, lb.host));
  return kNumLocalityLevels + static_cast<int32_t>(alpha < kMax ? alpha : kMax);
}

bool RankDistance::EquallyFar(int ref, int b, int c) const {
  if (b == c) return true;
  if (b == ref || c == ref) return false;
  const RankLocation& lr = placement_->ranks[ref];
  const RankLocation& lb = placement_->ranks[b];
  const RankLocation& lc = placement_->ranks[c];
  const bool b_local = lb.host == lr.host, c_local = lc.host == lr.host;
  if (b_local != c_local) return false;
  if (b_local) return SharedLevel(lr, lb) == SharedLevel(lr, lc);
  return hosts_->AlphaNs(lr.host, lb.host) == hosts_->AlphaNs(lr.host, lc.host) &&
         hosts_->BetaNs(lr.host, lb.host) == hosts_->BetaNs(lr.host, lc.host);
}

}  // namespace toporr::mapping

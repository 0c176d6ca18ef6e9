// From measured pairs to levels: what toporr-probe's rank 0 does once every pair is in.
//
// Rank levels: mapping/levels/measured_levels.h over the rank x rank matrix of distances (one-way
// time of the smallest message, rtt_ns[0] / 2; unmeasured pairs are missing). Named: the
// level that is exactly the host-name partition is "host" (with one rank per host that is
// level 0); levels between level 0 and "host" are "socket" when there is one, otherwise
// "intra1", "intra2", ... from the closest; level 0 (when it is not "host") is "rank"; the
// levels above "host" are named like host levels (below), the last one "top". When no level
// is the host partition (noise, or ranks of one host farther apart than ranks of two),
// levels between "rank" and "top" are "level1", "level2", ...
//
// Host levels: the same clustering over the host x host matrix whose entry is the SMALLEST
// distance of a rank pair between the two hosts (the best-placed ranks, as the fabric's cost
// of a host pair is that of its best port pair). Names from mapping/levels/levels.h: "host",
// "leaf", "pod", "level3", ..., "top". Level j >= 1 gets latency_ns = the median distance of the
// host pairs that first meet at level j, and gbps = the median of 8 * m / g(m) over the same pairs
// at the largest size m (per host pair, the smallest g of its rank pairs); 0 when the largest
// size is 0.
//
// Pure and thread-safe.
#ifndef TOPORR_PROBE_ANALYSIS_H_
#define TOPORR_PROBE_ANALYSIS_H_

#include <vector>

#include "absl/status/status.h"
#include "collectors/plogp.h"
#include "mapping/levels/measured_levels.h"

namespace toporr::probe {

// The rank x rank distance matrix of `probe` (row-major; 0 on the diagonal and for pairs not
// measured).
std::vector<double> RankDistances(const collectors::PlogpProbe& probe);

// Fills probe->rank_levels and probe->host_levels from ranks, hosts and pairs.
// kInvalidArgument when ranks or hosts are empty or a pair is out of range.
absl::Status AnalyzeProbe(collectors::PlogpProbe* probe,
                          const mapping::MeasuredLevelOptions& options = {});

// The rank level that is the host-name partition, or -1.
int HostRankLevel(const collectors::PlogpProbe& probe);

}  // namespace toporr::probe

#endif  // TOPORR_PROBE_ANALYSIS_H_

// The probe's own answer to "do the measured levels inside hosts match the hardware?": the
// rank levels below "host" (analysis.h) against hwloc's grouping of the ranks of each host
// into packages and L3 caches (the locations of probe/hwloc_ranks.h, PlogpRank::hwloc).
//
// Per hwloc level L in {package, l3} whose id is known for every rank (>= 0): the partition
// of the ranks by (host, id of L), its number of groups, and the measured rank level from
// level 1 up to "host" with the largest adjusted Rand index (mapping/levels/measured_levels.h)
// against it (ties: the lower level). L "splits" hosts when it has more groups than there are
// hosts. The measured levels "inside hosts" are those strictly between level 0 and "host".
//
// Verdict (PlogpHwlocCheck::verdict):
//   unknown            a rank has no location, no rank level is the host partition, or no
//                      hwloc level is known for every rank (unbound ranks spanning packages);
//   nothing_to_detect  no known hwloc level splits a host and no level was measured inside
//                      hosts (a one-package, one-L3 machine such as a 2-core VM: the honest
//                      answer is that there is nothing to tell, not a match);
//   match              every splitting hwloc level is a measured level inside hosts (ARI 1)
//                      and every measured level inside hosts is a known hwloc level (ARI 1);
//   mismatch           otherwise; `detail` names the first disagreement, e.g. "measured level
//                      intra1 between rank and host, but hwloc shows one package and one L3
//                      per host" or "hwloc packages (4 groups) not measured (closest: socket,
//                      ARI 0.33)".
// `detail` is one printable sentence of at most collectors::kMaxPlogpDetailBytes.
//
// Pure and thread-safe; the unit test drives it with synthetic locations.
#ifndef TOPORR_PROBE_HWLOC_CHECK_H_
#define TOPORR_PROBE_HWLOC_CHECK_H_

#include "collectors/plogp.h"

namespace toporr::probe {

// `probe` needs ranks, hosts and rank_levels (AnalyzeProbe's result).
collectors::PlogpHwlocCheck CheckAgainstHwloc(const collectors::PlogpProbe& probe);

}  // namespace toporr::probe

#endif  // TOPORR_PROBE_HWLOC_CHECK_H_

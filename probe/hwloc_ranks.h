// Where hwloc puts every rank of the probe inside its host, with libtoporr's node-local
// topology code (collectors/hwloc_topology.h on this machine, client/plan/node_topology.h
// ToRankLocation: the ids libtoporr's mapping engine sees), and the probe's verdict on the
// measured levels inside hosts (hwloc_check.h).
//
// Compiled into the real-MPI probes only (//probe:toporr-probe, -mpich; probe_main.cc under
// TOPORR_PROBE_HWLOC), never into the SMPI build: there all simulated ranks share one real
// process, and hwloc would describe the simulating machine, not the simulated hosts.
#ifndef TOPORR_PROBE_HWLOC_RANKS_H_
#define TOPORR_PROBE_HWLOC_RANKS_H_

#include <mpi.h>

#include "absl/status/status.h"
#include "collectors/plogp.h"

namespace toporr::probe {

// Collective over `comm`. Every rank loads this machine's topology and locates its binding
// (HwlocTopology::LocateThisProcess); a rank not bound to one core (an unbound rank, or one
// bound to a package) is located at the PU it runs on at that moment (sched_getcpu), which
// an unbound rank may leave later. Rank 0 sets probe->ranks[r].hwloc for every rank (its
// `probe` must hold all ranks: RunProbe's result); other ranks leave theirs alone.
// On rank 0: kUnavailable "rank R: <why>" naming the first rank hwloc could not locate (then
// no rank gets a location); OK on the other ranks.
absl::Status LocateRanks(MPI_Comm comm, collectors::PlogpProbe* probe);

// The check of hwloc_check.h when `located` is OK, otherwise verdict "unknown" saying why.
collectors::PlogpHwlocCheck HwlocVerdict(const collectors::PlogpProbe& probe,
                                         const absl::Status& located);

}  // namespace toporr::probe

#endif  // TOPORR_PROBE_HWLOC_RANKS_H_

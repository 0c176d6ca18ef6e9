// Ranks bound to cores are planned on their host's real topology: where each sits (package,
// NUMA node, L3, core) and what crossing those costs (the host's NUMA distances), both from
// the host's hwloc topology through client/plan/node_topology.h NodeTopologyOf, the function
// `toporrctl plan --node-topology` uses for an XML of the nodes. So a bound job's order
// inside a host is the one `toporrctl plan --node-topology <that host's lstopo XML>` gives.
// Ranks not bound to one core keep the regular synthetic slot and the stock intra-host
// costs (client/plan/job_layout.h JobPlacement; client/plan/plan.h SlotLocation), unless some other
// rank of the job is bound: the planner takes one intra-host model per job.
//
// hwloc describes the machine it runs on, or what HWLOC_XMLFILE / HWLOC_SYNTHETIC (with
// HWLOC_THISSYSTEM=1) tell it, which tests use to give a small machine a larger shape.
#ifndef TOPORR_CLIENT_MPI_BOUND_RANKS_H_
#define TOPORR_CLIENT_MPI_BOUND_RANKS_H_

#include <mpi.h>

#include <vector>

#include "absl/status/statusor.h"
#include "mapping/costs/placement.h"

namespace toporr::client::mpi {

struct RankBinding {
  // hwloc logical ids inside the host; core = -1 when the process is not bound to one core
  // (unbound: every id -1 but the levels the machine has one of).
  mapping::RankLocation location;
  // The host's intra-host model (NodeTopologyOf), when location.core >= 0; else, and when
  // the host's distances give no ratio (a 0 in a matrix), the stock model.
  mapping::IntraHostModel intra;
};

// This process's binding. hwloc is loaded only for a process bound to a strict subset of
// the machine's CPUs, once per process (thread-safe). kUnavailable "hwloc: ..." when hwloc
// cannot load or locate a bound process.
absl::StatusOr<RankBinding> ThisRankBinding();

// Collective over `comm`: the intra-host model to plan with, on every rank: that of the
// lowest rank bound to one core (`bound`: every rank's location as allgathered, the same
// on all ranks), one MPI_Bcast of it; the defaults, without communication, when no rank is
// bound to one core. The job's hosts are taken to be alike (mapping::RankDistance takes one
// model). kInternal when the broadcast fails.
absl::StatusOr<mapping::IntraHostModel> JobIntraHostModel(
    MPI_Comm comm, const std::vector<mapping::RankLocation>& bound, const RankBinding& mine);

}  // namespace toporr::client::mpi

#endif  // TOPORR_CLIENT_MPI_BOUND_RANKS_H_

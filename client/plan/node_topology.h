// Node-local topology for the mapping engine: turns what the hwloc probe
// (collectors/hwloc_topology.h) reports -- plain PU locations and NUMA distance matrices --
// into mapping::RankLocation, a host's core slots and the intra-host cost model. It lives
// above both collectors/ and mapping/ so neither depends on the other; toporrctl and
// libtoporr share it.
// Thread-safety: pure functions over a const topology.
#ifndef TOPORR_CLIENT_PLAN_NODE_TOPOLOGY_H_
#define TOPORR_CLIENT_PLAN_NODE_TOPOLOGY_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "collectors/hwloc_topology.h"
#include "mapping/costs/placement.h"

namespace toporr::client {

// The same ids as a RankLocation on host `host` (the probe knows nothing of the job's host
// list; callers that know the host's index pass it). -1 stays "not known at this level",
// which mapping::SharedLevel treats as "shares nothing", i.e. kOtherPackage.
mapping::RankLocation ToRankLocation(const collectors::PuLocation& location, int32_t host = 0);

// One slot per Core object in logical order (core L#0 first), each located like LocatePu of
// that core's PUs: slot i has core == i. A machine without Core objects (some virtual
// machines and synthetic topologies) gets one slot per PU with core == -1 instead. This is
// the shape `toporrctl plan` fills with ranks ("--map-by core").
std::vector<mapping::RankLocation> CoreSlots(const collectors::HwlocTopology& topology);

// The intra-host cost model for this topology: `defaults` with the kSamePackage and
// kOtherPackage entries rescaled from a NUMA distance matrix when the topology has one.
//
// Matrix choice, separately for latency (HWLOC_DISTANCES_KIND_MEANS_LATENCY) and bandwidth
// (HWLOC_DISTANCES_KIND_MEANS_BANDWIDTH): the first user-provided (FROM_USER) matrix, else
// the first OS one (FROM_OS), that relates at least two NUMA nodes which hold CPUs (the
// nodes RankLocation::numa can name; CPU-less memory nodes are ignored).
//
// Derivation, over those CPU NUMA nodes present in the chosen matrix D:
//   local  = mean of D[i][i]
//   same   = mean of D[i][j], i != j, both nodes in the same package
//   other  = mean of D[i][j], i != j, in different packages (or a package unknown)
// latency_ns[kSamePackage]  = defaults.latency_ns[kSameNuma] * same / local
// latency_ns[kOtherPackage] = defaults.latency_ns[kSameNuma] * other / local
// gbps[kSamePackage]        = defaults.gbps[kSameNuma] * same / local   (bandwidth matrix)
// gbps[kOtherPackage]       = defaults.gbps[kSameNuma] * other / local
// Two ranks on one NUMA node share local memory, so the diagonal corresponds to kSameNuma;
// ranks on two NUMA nodes pay the remote access D[i][j]. A level without any pair (one
// package, or one NUMA node per package) keeps its default. kSameCore, kSameL3 and kSameNuma
// always keep their defaults: NUMA distances say nothing about caches. Example: the SLIT
// 10/21 of a two-socket machine gives latency_ns[kOtherPackage] = 400 * 2.1 = 840 with the
// stock defaults. Only ratios are used, so relative, ns and MB/s matrices all work.
//
// kInvalidArgument when a matrix examined in that order has a 0 among the entries used
// (no ratio exists); callers then keep `defaults`.
absl::StatusOr<mapping::IntraHostModel> IntraHostModelFromHwloc(
    const collectors::HwlocTopology& topology, const mapping::IntraHostModel& defaults = {});

// A host's topology as the planner takes it: the core slots ranks fill (CoreSlots) and the
// intra-host cost model (IntraHostModelFromHwloc over the stock defaults). One function
// for both users, so that they plan alike: `toporrctl plan --node-topology` reads an XML of
// the compute nodes; libtoporr loads the machine a bound rank runs on (client/mpi/
// bound_ranks.h). Errors: IntraHostModelFromHwloc's.
struct NodeTopology {
  std::vector<mapping::RankLocation> core_slots;
  mapping::IntraHostModel intra;
};
absl::StatusOr<NodeTopology> NodeTopologyOf(const collectors::HwlocTopology& topology);

}  // namespace toporr::client

#endif  // TOPORR_CLIENT_PLAN_NODE_TOPOLOGY_H_

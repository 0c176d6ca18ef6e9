// The communication graph of a traffic profile (client/profile/traffic_profile.h): what the mapping
// engine embeds when a job's rank order is planned from the traffic of an earlier run of
// the same program (`toporrctl plan --traffic`, toporr_comm_reorder_traffic).
//
// Vertices are MPI_COMM_WORLD ranks. An edge from -> to carries the bytes from sent to,
// summed over the whole run:
//   - point to point: each `p2p` line's bytes;
//   - one-sided: BYTES_TO_TARGET from origin to target, BYTES_FROM_TARGET from target to
//     origin;
//   - collectives, per communicator (members mapped to world ranks), CALLS calls of
//     BYTES / CALLS bytes each, as the MPI library's own algorithm moves them:
//       allreduce, bcast, allgather(v): the schedule the library's rules pick for that size
//         (mapping::LibraryDefault for `rules`), its transfers' bytes;
//       reduce, gather(v): the binomial tree; scatter(v): the binomial tree reversed;
//       alltoall(v,w): every ordered pair one block;
//       reduce_scatter(_block): the ring's reduce-scatter half (p - 1 blocks to the next
//         rank);
//       scan, exscan: the whole vector from each rank to the next (a linear chain);
//       barrier: nothing.
//     Rooted collectives are taken at root 0 (the profile does not record roots). Calls on
//     an inter-communicator are left out (TrafficGraph::unmodelled_calls).
// The graph is a volume model: bytes, not time; the embedding weighs each edge with the
// message time of its bytes over the two ranks' hosts (mapping::GraphCostNs).
#ifndef TOPORR_CLIENT_PROFILE_TRAFFIC_GRAPH_H_
#define TOPORR_CLIENT_PROFILE_TRAFFIC_GRAPH_H_

#include <cstdint>
#include <limits>
#include <optional>

#include "absl/status/statusor.h"
#include "client/profile/traffic_profile.h"
#include "mapping/prediction/library_rules.h"
#include "mapping/reorder/graph_reorder.h"

namespace toporr::client {

// The most bytes the planner counts for one pair, one origin's total or one schedule's edge
// (2^61 - 1, so that sums of a few stay inside 64-bit signed arithmetic). A profile's counts
// may be any unsigned 64-bit number (docs/formats.md); beyond this they saturate, and
// TrafficGraph::saturated says so.
inline constexpr int64_t kMaxProfileBytes = std::numeric_limits<int64_t>::max() / 4;

struct TrafficGraph {
  mapping::CommGraph graph;  // one edge per ordered pair that communicates, by (from, to)
  // Bytes by origin, for reports.
  int64_t p2p_bytes = 0;
  int64_t rma_bytes = 0;
  int64_t collective_bytes = 0;           // the bytes the modelled schedules move
  int64_t unmodelled_calls = 0;           // collective calls on inter-communicators
  std::optional<MpiTimeShare> mpi_share;  // the profile's time inside MPI (MpiShareOf)
  // Some count reached kMaxProfileBytes: the totals and edge weights above are lower bounds.
  bool saturated = false;
};

// The graph of `profile` (a parsed profile is consistent: every rank in 0..ranks-1).
// kInvalidArgument when a collective's schedule cannot be built (a size past the schedules'
// 64-bit byte counts).
absl::StatusOr<TrafficGraph> TrafficGraphOf(
    const TrafficProfile& profile, mapping::LibraryRules rules = mapping::LibraryRules::kOpenMpi);

}  // namespace toporr::client

#endif  // TOPORR_CLIENT_PROFILE_TRAFFIC_GRAPH_H_

// The steps of libtoporr's decision protocol (library.h) that need no Library state, apart
// from the cost gathering (gathered_costs.h): each collective over `work`, a communicator that
// returns errors, and each ending in the same result on every rank.
#ifndef TOPORR_CLIENT_MPI_DECISION_STEPS_H_
#define TOPORR_CLIENT_MPI_DECISION_STEPS_H_

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "client/config/client_options.h"
#include "client/mpi/bound_ranks.h"
#include "mapping/costs/cost_matrix.h"
#include "mapping/costs/placement.h"
#include "mapping/routes/route_source.h"

namespace toporr::client::mpi {

// 1. OK when every rank passed the same `key_hash` (one small allreduce); kInvalidArgument
// when they did not, kInternal when the allreduce failed.
absl::Status SameArguments(MPI_Comm work, uint64_t key_hash);

// 2. Where every rank of `work` runs.
struct RankPlaces {
  std::vector<std::string> hosts;            // rank r runs on hosts[r]
  std::vector<mapping::RankLocation> bound;  // rank r's hwloc location inside its host
  RankBinding mine;                          // this rank's binding
};

// 2. Each rank names its host (the TOPORR_HOSTMAP line of its MPI_COMM_WORLD rank, else
// gethostname() without the domain) and its binding (bound_ranks.h ThisRankBinding); one
// allgather carries every rank's outcome, binding and name (names of over 40 bytes follow in
// a second one). A rank's failure (TOPORR_HOSTMAP unreadable, too short; hwloc) is agreed on
// (collective_status.h Agree, only when some rank failed); kInternal when an allgather fails.
absl::StatusOr<RankPlaces> GatherRankPlaces(MPI_Comm work, const ClientOptions& options);

// 6. What rank 0 computes from the gathered costs (a Planner): the order and its predictions.
struct PlannedOrder {
  std::vector<int32_t> order;  // new rank i = old rank order[i]
  std::string chosen;          // algorithm or embedder name
  double before_ns = -1;
  double after_ns = -1;
  // When `chosen` is "multilevel": the plan (mapping::EncodeMultilevel), for every rank.
  std::vector<int32_t> multilevel;
  // The order the MPI library's own call is predicted fastest in when not the caller's
  // (client/plan/plan.h PlanResult::library_mapping); empty otherwise.
  std::vector<int32_t> library_order;
  int64_t snapshot_id = 0;  // of the costs planned on
};
// `routes`: over the job's hosts (the rows' routes), null when not known. `intra`: the
// intra-host costs (bound_ranks.h: the hosts' hwloc distances when ranks are bound).
using Planner = std::function<absl::StatusOr<PlannedOrder>(
    const mapping::Placement& placement, const mapping::HostCostMatrix& costs,
    const mapping::RouteSource* routes, const mapping::IntraHostModel& intra)>;

// 6. Rank 0's plan, or its failure, on every rank (one broadcast of its outcome and order,
// then of its multi-level plan and library order when it has them): `planned` is read on
// rank 0 only. A failure reaches every rank with its code and message (at most kReasonBytes -
// 1 bytes); an order without one entry per rank is kInternal "planning failed: ..."; kInternal
// when a broadcast fails. `chosen` is cut to 63 characters on every rank.
absl::StatusOr<PlannedOrder> SharePlan(MPI_Comm work, absl::StatusOr<PlannedOrder> planned);

}  // namespace toporr::client::mpi

#endif  // TOPORR_CLIENT_MPI_DECISION_STEPS_H_

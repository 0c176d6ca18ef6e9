// Steps 3 to 5 of libtoporr's decision protocol (library.h) for a job of more than one host:
// the costs between the job's hosts reach rank 0 of the communicator. The lowest rank of
// each host is its leader and asks for its own host's row (one request per host, never per
// rank; with routes for jobs of at most TOPORR_ROUTES_MAX_HOSTS hosts); rows must have one
// column per host and come from one snapshot.
// Jobs of at most kRowsToRankZeroMaxHosts hosts (and TOPORR_COMPRESS_ABOVE): the leaders are
// known from the layout; each sends the job's host list with its request, all at once, and
// its row and routes (client/costs/row_routes.h) to rank 0 in one gather over the
// communicator, in blocks whose size follows from the host count (no exchange of sizes);
// rank 0 checks the rows, and its outcome travels with its plan (SharePlan): no
// communicator, no window, one daemon round trip, one MPI step.
// Larger jobs:
//   3. rank 0 registers the host list with the cost source (the one request of a decision
//      that is not per host) and broadcasts the ticket, or why there is none: first, so that
//      an absent or stalled daemon costs no more MPI steps than needed;
//   4. ranks are grouped per host (MPI_Comm_split_type SHARED, then by host); each leader
//      asks for its row against the ticket, whose snapshot the row must be of;
//   5. the leaders allgather the rows into one MPI-3 shared window per host (the matrix is
//      held once per host, not per rank), or, for jobs of more than TOPORR_COMPRESS_ABOVE
//      hosts, in leaf-group form (leaf_groups.h); then their routes (one MPI_Gatherv).
// Each step ends in the same result on every rank (collective_status.h Agree, or rank 0's
// outcome broadcast).
#ifndef TOPORR_CLIENT_MPI_GATHERED_COSTS_H_
#define TOPORR_CLIENT_MPI_GATHERED_COSTS_H_

#include <mpi.h>

#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "client/config/client_options.h"
#include "client/costs/row_source.h"
#include "client/plan/job_layout.h"
#include "client/report/decision_report.h"
#include "mapping/costs/cost_matrix.h"
#include "mapping/routes/route_source.h"

namespace toporr::client::mpi {

struct GatheredCosts {
  std::unique_ptr<mapping::HostCostMatrix> matrix;  // rank 0: between the job's hosts
  std::unique_ptr<mapping::RouteSource> routes;     // rank 0: the rows' routes, or null
  // Every rank: the shared window that holds the dense rows `matrix` reads (MPI_WIN_NULL in
  // leaf-group form and for small jobs). The caller frees it (collective) once rank 0 has
  // planned.
  MPI_Win window = MPI_WIN_NULL;
  // Rank 0 of a small job: the rows `matrix` reads (empty otherwise).
  std::vector<float> rows;
  // The small form: the outcome (GatherCosts' status and decision->snapshot_id) is rank 0's
  // alone, every other rank returns OK; the caller passes it on with the plan (SharePlan).
  bool outcome_on_rank0 = false;
};

// Jobs of at most this many hosts send the leaders' rows straight to rank 0 (the only rank
// that reads them), each request carrying the host list: no registration, no communicator,
// no window.
inline constexpr int kRowsToRankZeroMaxHosts = 256;

// Collective over `work` (a communicator that returns errors), whose rank r runs on
// layout.hosts[layout.rank_host[r]]. Sets decision->snapshot_id (the ticket's, or the rows';
// in the small form on rank 0 only), and on rank 0 cost_form ("rows" or "groups") and
// contention ("routes" or "host links"). Failures, the same on every rank (in the small form:
// rank 0's, costs->outcome_on_rank0), leave nothing to free: the source's own status
// (UNAVAILABLE or DEADLINE_EXCEEDED when it did not answer), kAborted for a row of another
// snapshot, kDataLoss for one of the wrong width, the leaf-group form's (leaf_groups.h),
// kInternal for MPI's.
absl::Status GatherCosts(MPI_Comm work, RowSource& source, const ClientOptions& options,
                         const JobLayout& layout, Decision* decision, GatheredCosts* costs);

}  // namespace toporr::client::mpi

#endif  // TOPORR_CLIENT_MPI_GATHERED_COSTS_H_

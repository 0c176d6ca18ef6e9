// libtoporr's MPI side: reordered communicators from the daemon's (or a file's) costs.
//
// One collective protocol serves toporr_comm_reorder, toporr's collectives and the topology
// functions (see DESIGN.md § Client), each step one function:
//   1. ranks check they were called with the same arguments (one small allreduce;
//      decision_steps.h SameArguments);
//   2. each rank names its host (TOPORR_HOSTMAP, else gethostname) and, when bound to one
//      core, its hwloc location; the names are allgathered into the job's host list; the
//      intra-host costs are the bound ranks' host's hwloc distances (decision_steps.h
//      GatherRankPlaces, bound_ranks.h);
//   3..5. jobs of at most kRowsToRankZeroMaxHosts hosts: every rank knows each host's leader
//      (its lowest rank) from the host list; each leader asks for ITS host's row with the
//      host list in the request (one request per host, never per rank, all at once) and
//      sends it to rank 0 (which alone plans) in one gather of blocks of known size; rank 0
//      checks that the rows are of one snapshot, and its outcome goes out with the plan
//      (step 6). No communicator is made. Larger jobs:
//      rank 0 registers the host list with the source (one request) and broadcasts the
//      ticket, so that a dead daemon costs few MPI steps; ranks are grouped per host
//      (MPI_Comm_split_type SHARED, then by host name) and each leader asks for its row
//      against the ticket (rows must come from the ticket's snapshot); the leaders allgather
//      the rows into an MPI-3 shared window per host (the matrix is held once per host, not
//      per rank), or beyond TOPORR_COMPRESS_ABOVE hosts send them in leaf-group form
//      (leaf_groups.h); their routes reach rank 0 (gathered_costs.h GatherCosts);
//   6. rank 0 computes the order with the mapping engine (client/plan/plan.h Plan, or the graph
//      embedding) and broadcasts it, or the failure of steps 3..5 (small form) or of its
//      planning, so no two ranks can disagree (decision_steps.h SharePlan);
//   7. MPI_Comm_create on comm's group in the new order builds the communicator
//      (CommInOrder); the decision is cached (decision_cache.h).
// Any failure on any rank at any step is agreed on collectively and ends in the identity
// order (MPI_Comm_dup), one warning on rank 0 naming the cause, and MPI_SUCCESS. Daemon
// requests are bounded by the deadline, so the call returns within the deadline plus the
// MPI steps. Decisions (fallbacks included) are cached on the parent communicator per
// (collective, algorithm, root, message size class): a second call makes no request.
// Communicators of one rank make no request (identity, source "local"); of one host, none to
// the cost source (source "local": the intra-host costs alone).
// A fallback because the cost source did not answer (UNAVAILABLE, DEADLINE_EXCEEDED) is
// retried: its cached entry makes a new decision at the 8th call of toporr's collectives
// that hits it, then after 16, 32, ... calls (at most 1024), counted per entry so that every
// rank retries at the same call; the report's `retry` says which attempt a decision was. The
// daemon source itself does not ask a daemon that did not answer again for a while
// (row_source.h), so a retry while it is down costs a few MPI steps, not a deadline.
// Warnings: one stderr line per cause per job, from the process of MPI_COMM_WORLD rank 0
// when it is in the communicator (with verbose, also from each communicator's rank 0);
// every fallback is in TOPORR_REPORT (decision_log.h).
#ifndef TOPORR_CLIENT_MPI_LIBRARY_H_
#define TOPORR_CLIENT_MPI_LIBRARY_H_

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/config/client_options.h"
#include "client/costs/row_source.h"
#include "client/mpi/decision_cache.h"
#include "client/mpi/decision_log.h"
#include "client/mpi/decision_steps.h"
#include "client/plan/job_layout.h"
#include "client/report/decision_report.h"
#include "client/report/verification.h"
#include "mapping/costs/cost_matrix.h"
#include "mapping/costs/placement.h"
#include "mapping/reorder/graph_reorder.h"
#include "mapping/schedules/pattern.h"

namespace toporr::client::mpi {

class Multilevel;  // multilevel.h

struct ReorderRequest {
  mapping::Collective collective = mapping::Collective::kAllreduce;
  std::optional<mapping::Algorithm> algorithm;  // nullopt: auto (best predicted)
  int64_t bytes = 1 << 20;
  int root = 0;
  int radix = 4;  // k-nomial
  // With auto: choose only among the algorithms toporr runs itself (coll/) and, for
  // bcast, reduce, allreduce and gather, the multi-level version (multilevel.h).
  bool own_algorithms = false;
  // Run the multi-level version whatever its prediction (TOPORR_ALGORITHM=multilevel).
  bool force_multilevel = false;
};

// What toporr's collective runs for one call (Library::CollectiveComm).
struct CollectiveRun {
  // The decision's communicator, in the decided order; only toporr sends on it. Null when
  // the ranks' arguments disagreed (nothing cached: the MPI library's own call).
  MPI_Comm run_on = MPI_COMM_NULL;
  // The algorithm to run on run_on; nullopt: the MPI library's own call (a fallback, the
  // multi-level version below, or library_reordered).
  std::optional<mapping::Algorithm> algorithm;
  // The decision is the MPI library's own call on run_on, reordered (the leaf-sorted order,
  // client/plan/plan.h): for collectives whose result is the same in any order.
  bool library_reordered = false;
  // Where the run-time check runs the MPI library's call (toporr's path against it, and after
  // a verdict for the library): a communicator in the order the library's call was predicted
  // fastest in (the leaf-sorted one), or MPI_COMM_NULL for the caller's communicator.
  // library_root is the request's root as a rank of it.
  MPI_Comm library_on = MPI_COMM_NULL;
  int library_root = 0;
  int root = 0;  // the request's root as a rank of run_on
  // The decided order (new rank i = old rank (*order)[i]; empty = identity), valid while the
  // caller's communicator lives; null with run_on.
  const std::vector<int32_t>* order = nullptr;
  // The multi-level version's communicators when that is the decision; null otherwise, or
  // when they could not be built.
  const Multilevel* multilevel = nullptr;
  // The decision's run-time check when toporr chose (the request names no algorithm and
  // forces no multi-level version) something other than the MPI library's own call and
  // verification is on (options().verify); null otherwise.
  DecisionCheck* check = nullptr;
};

// Thread-safety: calls on different communicators may run in several threads at once
// (MPI_THREAD_MULTIPLE); calls on one communicator follow MPI's rule for it (one thread at a
// time). What communicators share is thread-safe: the row source (row_source.h), and, under
// locks, the warnings, the keyvals and the cache registry. No lock is held across an MPI
// call, so no thread waits for one in another process.
class Library {
 public:
  // The process-wide library configured from the environment (created on first use).
  static Library& Default();

  explicit Library(ClientOptions options, std::vector<std::string> option_warnings = {});

  const ClientOptions& options() const { return options_; }

  // Collective over `comm`. *newcomm: a communicator ordered for the request, or a duplicate
  // of `comm` in identity order. MPI_SUCCESS unless `comm` itself is unusable (then the
  // MPI_Comm_dup error). `decision` (may be null) is filled on every rank.
  int CommReorder(MPI_Comm comm, const ReorderRequest& request, MPI_Comm* newcomm,
                  Decision* decision);

  // For toporr's collectives: the (cached) decision for `request` on `comm` (*run). A cache
  // hit costs no communication; a miss is CommReorder (collective). When the decision is the
  // multi-level version, its communicators are built on first use (collective) and cached
  // with the decision.
  int CollectiveComm(MPI_Comm comm, const ReorderRequest& request, CollectiveRun* run);

  // What the next call of toporr's collective `request` on `comm` runs, from the
  // communicator's cache alone (no communication; the same on every rank that passes the
  // same arguments). Counts the call towards a cached fallback's retry.
  enum class NextRun {
    kDecide,   // no usable decision yet, or a fallback's retry is due: CollectiveComm decides
    kLibrary,  // the MPI library's own call (a fallback, the model's choice, or the verdict
               // of the run-time check)
    kToporr,   // toporr's path, or its run-time check
  };
  NextRun NextCall(MPI_Comm comm, const ReorderRequest& request);

  // Rank 0 of `comm` reports a completed check: one TOPORR_REPORT line (decision_report.h
  // VerificationJsonLine) and, with verbose, one stderr line.
  void ReportCheck(MPI_Comm comm, const DecisionCheck& check);

  // Collective over `comm`: the order for a process graph, computed on rank 0 by the graph
  // embedding (`graph` need only be set on rank 0). On any failure: identity (with
  // *order empty) and the one warning; never an error. `label` names the caller in
  // reports ("cart_create").
  void GraphOrder(MPI_Comm comm, const char* label, const mapping::CommGraph* graph,
                  std::vector<int32_t>* order, Decision* decision);

  // Collective over `comm`: *newcomm holds comm's processes in the order planned for the
  // traffic profile at `profile_path` (read on rank 0 only; client/profile/traffic_graph.h, with
  // the linked MPI library's rules for its collectives), comm rank i being the profile's rank i. On
  // any failure (the file unreadable or malformed, a profile of another size, no costs) the
  // identity order (a duplicate) with the one warning. Returns the MPI error code of creating
  // *newcomm; the caller frees it.
  int TrafficReorder(MPI_Comm comm, const char* profile_path, MPI_Comm* newcomm,
                     Decision* decision);

 private:
  // GraphOrder for any planner of a process graph (run on rank 0 of `comm`).
  void OrderFromPlanner(MPI_Comm comm, const char* label, const Planner& planner,
                        std::vector<int32_t>* order, Decision* decision);
  // Steps 2..6 on `work` (the caller's communicator, returning errors while they run).
  // On success *order (and *multilevel, the planner's multi-level plan, when not null) is
  // set on every rank; otherwise the agreed reason, and *unanswered (when not null) says
  // whether it is that the cost source did not answer (a fallback worth retrying).
  absl::Status Decide(MPI_Comm work, const Planner& planner, Decision* decision,
                      std::vector<int32_t>* order, std::vector<int32_t>* multilevel = nullptr,
                      bool* unanswered = nullptr, std::vector<int32_t>* library_order = nullptr);
  // A new decision for a collective's request (`d` holds the request's fields, source
  // "fallback"): none to make for one rank (source "local"), refused when toporr is disabled
  // (kCancelled) or the root is not a rank, else Decide with Plan for the request.
  absl::Status DecideCollective(MPI_Comm work, const ReorderRequest& request, Decision* d,
                                std::vector<int32_t>* order, std::vector<int32_t>* multilevel_plan,
                                bool* unanswered, std::vector<int32_t>* library_order);
  void EnsureKeyvals();
  // Sets run->library_on (creating it on first use: collective) where the decision `c`
  // has an order the library's call is predicted fastest in; `root` as the caller's rank.
  void LibraryComm(MPI_Comm comm, int root, CachedDecision* c, CollectiveRun* run);

  ClientOptions options_;
  std::unique_ptr<RowSource> source_;
  DecisionLog log_;
  std::mutex mu_;
  int cache_keyval_ = MPI_KEYVAL_INVALID;  // set once, under mu_ (EnsureKeyvals)
};

// Decision caches currently attached to communicators (freed with them; decision_cache.h).
int LiveCaches();

// The communicator of `comm`'s processes in `order` (new rank i = comm's rank order[i], one
// entry per rank): MPI_Comm_create on comm's group reordered, with errors returned; the
// result gets `comm`'s error handler. Collective. A rank may fail where others succeed (its
// group could not be made): callers agree on the outcome.
int CommInOrder(MPI_Comm comm, const std::vector<int32_t>& order, MPI_Comm* newcomm);

}  // namespace toporr::client::mpi

#endif  // TOPORR_CLIENT_MPI_LIBRARY_H_

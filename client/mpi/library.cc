#include "client/mpi/library.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "client/costs/daemon_rows.h"
#include "client/mpi/bound_ranks.h"
#include "client/mpi/coll/allreduce.h"
#include "client/mpi/collective_status.h"
#include "client/mpi/decision_cache.h"
#include "client/mpi/decision_steps.h"
#include "client/mpi/gathered_costs.h"
#include "client/mpi/multilevel.h"
#include "client/plan/graph_plan.h"
#include "client/plan/job_layout.h"
#include "client/plan/plan.h"
#include "client/profile/traffic_graph.h"
#include "client/profile/traffic_profile.h"
#include "common/key_value_file.h"
#include "common/status_macros.h"
#include "mapping/embedding/graph_embed.h"
#include "mapping/schedules/algorithms.h"

namespace toporr::client::mpi {
namespace {

using Clock = std::chrono::steady_clock;

int64_t ElapsedUs(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count();
}

std::vector<int32_t> IdentityOrder(int size) {
  std::vector<int32_t> order(size);
  for (int i = 0; i < size; ++i) order[i] = i;
  return order;
}

// Whether a failure is the cost source's not answering (no connection, no answer within the
// deadline): a fallback worth retrying later, unlike a refusal or a local error.
bool Unanswered(const absl::Status& s) {
  return absl::IsUnavailable(s) || absl::IsDeadlineExceeded(s);
}

// floor(log2(bytes)); 0 up to 1 byte.
int SizeClass(int64_t bytes) {
  int c = 0;
  while (bytes > 1) {
    bytes >>= 1;
    ++c;
  }
  return c;
}

// The cache key of a request (decision_cache.h).
CacheKey KeyOf(const ReorderRequest& r) {
  const int algorithm = r.force_multilevel ? -3
                        : r.algorithm      ? static_cast<int>(*r.algorithm)
                        : r.own_algorithms ? -2
                                           : -1;
  return CacheKey{static_cast<int>(r.collective), algorithm, r.root, SizeClass(r.bytes), r.radix};
}

// The decision rules of the MPI library this copy of libtoporr is built against (its mpi.h),
// for the "MPI library's own call" candidate; none for collectives the rules do not cover.
std::optional<mapping::LibraryRules> LinkedLibraryRules(mapping::Collective c) {
  if (c == mapping::Collective::kReduce || c == mapping::Collective::kGather) return std::nullopt;
#if defined(OPEN_MPI)
  return mapping::LibraryRules::kOpenMpi;
#elif defined(MPICH_VERSION)
  return mapping::LibraryRules::kMpich;
#elif defined(SMPI_H)  // SimGrid SMPI: its default `ompi` collective selector
  return mapping::LibraryRules::kSmpiOmpi;
#else
  return std::nullopt;
#endif
}

// The rank `old_rank` has in `order` (new rank i = old rank order[i]); itself when the order
// is empty (the identity) or lacks it.
int NewRank(const std::vector<int32_t>& order, int old_rank) {
  for (size_t i = 0; i < order.size(); ++i) {
    if (order[i] == old_rank) return static_cast<int>(i);
  }
  return old_rank;
}

// What the planner weighs for `request` on a communicator of `size` ranks.
PlanRequest PlanRequestFor(const ReorderRequest& request, int size) {
  PlanRequest plan;
  plan.collective = request.collective;
  plan.algorithm = request.algorithm;
  if (request.own_algorithms) {
    plan.candidates = mapping::OwnAlgorithmsFor(request.collective);
    plan.library_rules = LinkedLibraryRules(request.collective);
    if (request.collective == mapping::Collective::kBcast) {
      mapping::DropOwnScatterAllgatherBelowBlock(request.bytes, size, &plan.candidates);
    }
  }
  plan.message_bytes = std::max<int64_t>(1, request.bytes);
  // Only the allreduce menu has a segmented algorithm (toporr's bcasts are unsegmented).
  if (request.collective == mapping::Collective::kAllreduce) {
    plan.segment_bytes = coll::kRingSegmentBytes;
  }
  plan.root = request.root;
  plan.radix = request.radix;
  // The multi-level version: a candidate of toporr's own collectives, or forced.
  if (request.force_multilevel) {
    plan.multilevel = MultilevelChoice::kForce;
  } else if (request.own_algorithms && !request.algorithm) {
    plan.multilevel = MultilevelChoice::kCandidate;
  }
  plan.multilevel_bcast = mapping::OwnAlgorithmsFor(mapping::Collective::kBcast);
  plan.multilevel_allreduce = mapping::OwnAlgorithmsFor(mapping::Collective::kAllreduce);
  return plan;
}

// Rank 0's planner for a collective: Plan, whose candidates, levels and stages go to *d.
Planner CollectivePlanner(PlanRequest plan, Decision* d) {
  return [plan = std::move(plan), d](
             const mapping::Placement& placement, const mapping::HostCostMatrix& costs,
             const mapping::RouteSource* routes,
             const mapping::IntraHostModel& intra) -> absl::StatusOr<PlannedOrder> {
    PlanRequest request = plan;
    request.leaf_sorted = plan.leaf_sorted && costs.num_hosts() <= kLeafSortedMaxHosts;
    ASSIGN_OR_RETURN(PlanResult r, Plan(request, placement, costs, routes, intra));
    for (const PlanCandidate& c : r.candidates) {  // rank 0 only: it reports
      d->candidates.push_back({c.algorithm, c.mapping, c.time_ns, c.effective});
    }
    if (!r.leaf_sorted_mapping.empty()) {
      const PlanCandidate& c = r.leaf_sorted;
      d->leaf_sorted = CandidateTime{c.algorithm, c.mapping, c.time_ns, c.effective};
    }
    d->levels = r.levels;
    d->stages = r.stages;
    return PlannedOrder{r.mapping,       r.algorithm,  r.before.time_ns,
                        r.after.time_ns, r.multilevel, r.library_mapping};
  };
}

// Rank 0's planner for a process graph: the graph embedding (`graph` set on rank 0).
Planner GraphPlanner(const mapping::CommGraph* graph) {
  return [graph](const mapping::Placement& placement, const mapping::HostCostMatrix& costs,
                 const mapping::RouteSource*,
                 const mapping::IntraHostModel& intra) -> absl::StatusOr<PlannedOrder> {
    if (graph == nullptr) return absl::InternalError("no process graph on rank 0");
    ASSIGN_OR_RETURN(mapping::Embedding e, PlanGraph(*graph, placement, costs, intra));
    return PlannedOrder{e.mapping, std::string(mapping::EmbedMethodName(e.method)),
                        e.identity_cost_ns, e.cost_ns};
  };
}

// The communication graph of the traffic profile at `path` for a communicator of `size`
// ranks; errors name the file.
absl::StatusOr<mapping::CommGraph> LoadTrafficGraph(const char* path, int size) {
  if (path == nullptr || *path == '\0') return absl::InvalidArgumentError("no traffic profile");
  std::string text;
  if (absl::Status read = ReadRegularFile(path, &text, kProfileFileMaxBytes, "traffic profile");
      !read.ok()) {
    return absl::Status(read.code(), absl::StrCat("the traffic profile ", read.message()));
  }
  ASSIGN_OR_RETURN(TrafficProfile profile, ParseTrafficProfile(text, path));
  if (profile.ranks != size) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": a profile of ", profile.ranks,
                                                   " ranks, the communicator has ", size));
  }
  const std::optional<mapping::LibraryRules> rules =
      LinkedLibraryRules(mapping::Collective::kAllreduce);
  ASSIGN_OR_RETURN(TrafficGraph traffic,
                   TrafficGraphOf(profile, rules.value_or(mapping::LibraryRules::kOpenMpi)));
  return std::move(traffic.graph);
}

// PlanTraffic (client/plan/graph_plan.h) for the graph rank 0 loaded, or the reason it has none.
Planner TrafficPlanner(const absl::StatusOr<mapping::CommGraph>* graph) {
  return [graph](const mapping::Placement& placement, const mapping::HostCostMatrix& costs,
                 const mapping::RouteSource* routes,
                 const mapping::IntraHostModel& intra) -> absl::StatusOr<PlannedOrder> {
    if (!graph->ok()) return graph->status();
    ASSIGN_OR_RETURN(mapping::Embedding e, PlanTraffic(**graph, placement, costs, routes, intra));
    return PlannedOrder{e.mapping, std::string(mapping::EmbedMethodName(e.method)),
                        e.identity_cost_ns, e.cost_ns};
  };
}

// A decision of `request` on a communicator of `size` ranks before anything is decided:
// the identity-order fallback.
Decision RequestedDecision(const ReorderRequest& request, int size) {
  Decision d;
  d.collective = std::string(mapping::CollectiveName(request.collective));
  d.algorithm =
      request.algorithm ? std::string(mapping::AlgorithmName(*request.algorithm)) : "auto";
  d.chosen_algorithm = d.algorithm;
  d.bytes = request.bytes;
  d.root = request.root;
  d.size = size;
  d.source = "fallback";
  return d;
}

// 7. CommInOrder, agreed on: kInternal on every rank when it failed on any (*newcomm is then
// not set).
absl::Status AgreedComm(MPI_Comm comm, MPI_Comm work, const std::vector<int32_t>& order,
                        MPI_Comm* newcomm) {
  const int rc = CommInOrder(comm, order, newcomm);
  int ok = rc == MPI_SUCCESS, all = 0;
  PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, work);
  if (all) return absl::OkStatus();
  if (rc == MPI_SUCCESS) PMPI_Comm_free(newcomm);
  return absl::InternalError(MpiError("MPI_Comm_create", rc == MPI_SUCCESS ? MPI_ERR_OTHER : rc));
}

}  // namespace

int CommInOrder(MPI_Comm comm, const std::vector<int32_t>& order, MPI_Comm* newcomm) {
  int size = 0;
  PMPI_Comm_size(comm, &size);
  if (order.size() != static_cast<size_t>(size)) return MPI_ERR_ARG;
  MPI_Errhandler handler;
  PMPI_Comm_get_errhandler(comm, &handler);
  PMPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  // The group's rank i is comm's rank order[i]: MPI_Comm_create makes no exchange of keys
  // (MPI_Comm_split's allgather), only the context id's agreement MPI_Comm_dup makes.
  MPI_Group group = MPI_GROUP_NULL, ordered = MPI_GROUP_NULL;
  int rc = PMPI_Comm_group(comm, &group);
  if (rc == MPI_SUCCESS) {
    static_assert(sizeof(int32_t) == sizeof(int), "MPI ranks are ints");
    rc = PMPI_Group_incl(group, size, reinterpret_cast<const int*>(order.data()), &ordered);
  }
  // Every rank takes part in the constructor, even one whose group failed (MPI_GROUP_EMPTY):
  // a collective call is never left waiting for it.
  const int created =
      PMPI_Comm_create(comm, rc == MPI_SUCCESS ? ordered : MPI_GROUP_EMPTY, newcomm);
  if (rc == MPI_SUCCESS) rc = created;
  if (rc == MPI_SUCCESS && *newcomm == MPI_COMM_NULL) rc = MPI_ERR_COMM;
  if (rc != MPI_SUCCESS && created == MPI_SUCCESS && *newcomm != MPI_COMM_NULL) {
    PMPI_Comm_free(newcomm);
  }
  if (ordered != MPI_GROUP_NULL) PMPI_Group_free(&ordered);
  if (group != MPI_GROUP_NULL) PMPI_Group_free(&group);
  PMPI_Comm_set_errhandler(comm, handler);
  if (rc == MPI_SUCCESS) PMPI_Comm_set_errhandler(*newcomm, handler);
  PMPI_Errhandler_free(&handler);
  return rc;
}

Library& Library::Default() {
  static Library* library = [] {
    const EnvironmentOptions& site = ProcessClientOptions();
    return new Library(site.options, site.warnings);
  }();
  return *library;
}

Library::Library(ClientOptions options, std::vector<std::string> option_warnings)
    : options_(std::move(options)),
      source_(NewRowSource(options_)),
      log_(options_, std::move(option_warnings)) {}

absl::Status Library::Decide(MPI_Comm work, const Planner& planner, Decision* decision,
                             std::vector<int32_t>* order, std::vector<int32_t>* multilevel,
                             bool* unanswered, std::vector<int32_t>* library_order) {
  if (unanswered != nullptr) *unanswered = false;
  int rank = 0;
  PMPI_Comm_rank(work, &rank);

  // 2. Where every rank runs; bound ranks' intra-host costs are their host's hwloc distances.
  ASSIGN_OR_RETURN(RankPlaces places, GatherRankPlaces(work, options_));
  ASSIGN_OR_RETURN(const mapping::IntraHostModel intra,
                   JobIntraHostModel(work, places.bound, places.mine));
  const JobLayout layout = LayoutFromRankHosts(places.hosts);
  std::vector<std::string>().swap(places.hosts);  // the layout holds each host's name once
  const int n = static_cast<int>(layout.hosts.size());
  decision->hosts = n;

  // 3..5. The costs between the job's hosts reach rank 0; a job on one host needs none (its
  // intra-host costs are `intra`).
  GatheredCosts costs;
  static const float kOneHostRow[2] = {0, 0};
  absl::Status gathered = absl::OkStatus();
  if (n > 1) {
    gathered = GatherCosts(work, *source_, options_, layout, decision, &costs);
    if (!costs.outcome_on_rank0) {
      if (unanswered != nullptr) *unanswered = Unanswered(gathered);
      RETURN_IF_ERROR(gathered);
    }
  } else {
    costs.matrix = std::make_unique<RowCostMatrix>(1, std::vector<const float*>{kOneHostRow});
  }

  // 6. Rank 0 plans, or has the small form's failure; every rank gets the outcome.
  absl::StatusOr<PlannedOrder> planned = PlannedOrder{};
  if (rank == 0 && !gathered.ok()) {
    planned = gathered;
  } else if (rank == 0) {
    planned = planner(JobPlacement(layout, places.bound), *costs.matrix, costs.routes.get(), intra);
    if (planned.ok()) {
      planned->snapshot_id = decision->snapshot_id;
    } else {
      planned = absl::InternalError(absl::StrCat("planning failed: ", planned.status().message()));
    }
  }
  costs.matrix.reset();
  costs.routes.reset();
  planned = SharePlan(work, std::move(planned));
  if (costs.window != MPI_WIN_NULL) PMPI_Win_free(&costs.window);
  if (!planned.ok()) {
    if (unanswered != nullptr && costs.outcome_on_rank0) *unanswered = Unanswered(planned.status());
    return planned.status();
  }
  decision->snapshot_id = planned->snapshot_id;
  decision->chosen_algorithm = planned->chosen;
  decision->predicted_before_ns = planned->before_ns;
  decision->predicted_after_ns = planned->after_ns;
  decision->source = n > 1 ? std::string(source_->kind()) : "local";
  // Rank 0 asked for its own host's row last: the daemon that served it served the decision.
  if (rank == 0 && decision->source == "daemon") decision->daemon_address = LastAnsweringDaemon();
  *order = std::move(planned->order);
  if (multilevel != nullptr) *multilevel = std::move(planned->multilevel);
  if (library_order != nullptr) *library_order = std::move(planned->library_order);
  return absl::OkStatus();
}

absl::Status Library::DecideCollective(MPI_Comm work, const ReorderRequest& request, Decision* d,
                                       std::vector<int32_t>* order,
                                       std::vector<int32_t>* multilevel_plan, bool* unanswered,
                                       std::vector<int32_t>* library_order) {
  if (d->size == 1) {
    // One rank: nothing to order, nothing to ask; toporr's collectives leave it to the MPI
    // library's call.
    d->source = "local";
    d->hosts = 1;
    if (request.own_algorithms && !request.algorithm) d->chosen_algorithm = "mpi_library";
    return absl::OkStatus();
  }
  if (options_.disable) return absl::CancelledError("disabled by TOPORR_DISABLE");
  if (request.root < 0 || request.root >= d->size) {
    return absl::InvalidArgumentError(absl::StrCat("root ", request.root, " is not a rank"));
  }
  PlanRequest plan = PlanRequestFor(request, d->size);
  plan.leaf_sorted = !options_.report_path.empty();  // only the report shows it
  return Decide(work, CollectivePlanner(std::move(plan), d), d, order, multilevel_plan, unanswered,
                library_order);
}

void Library::EnsureKeyvals() {
  std::lock_guard<std::mutex> lock(mu_);
  if (cache_keyval_ == MPI_KEYVAL_INVALID) cache_keyval_ = CreateCacheKeyval();
}

int Library::CommReorder(MPI_Comm comm, const ReorderRequest& request, MPI_Comm* newcomm,
                         Decision* decision_out) {
  const Clock::time_point start = Clock::now();
  int rank = 0, size = 1;
  if (int rc = PMPI_Comm_rank(comm, &rank); rc != MPI_SUCCESS) return rc;
  PMPI_Comm_size(comm, &size);
  Decision d = RequestedDecision(request, size);
  EnsureKeyvals();
  const CacheKey key = KeyOf(request);
  // The protocol's collectives run on `comm` itself (CommReorder is collective over it, so
  // they are matched in the same order on every rank), returning errors until step 7 is done;
  // the caller's error handler is restored, and given to *newcomm, before returning.
  MPI_Errhandler caller_handler = MPI_ERRHANDLER_NULL;
  if (int rc = PMPI_Comm_get_errhandler(comm, &caller_handler); rc != MPI_SUCCESS) return rc;
  PMPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  const MPI_Comm work = comm;
  // 1. The same arguments on every rank, or no decision (and nothing cached).
  absl::Status status = SameArguments(work, KeyHash(key));
  CommCache* cache = status.ok() ? AttachCache(comm, cache_keyval_) : nullptr;
  // The cached decision, unless its retry is due; else steps 2..6.
  std::vector<int32_t> order, multilevel_plan, library_order;
  bool from_cache = false, unanswered = false;
  if (status.ok()) {
    if (const CachedDecision* cached = Reusable(cache, key, &d.retry)) {
      order = cached->order;
      multilevel_plan = cached->multilevel_plan;
      library_order = cached->library_order;
      d = cached->decision;
      d.cached = true;
      from_cache = true;
    } else {
      status = DecideCollective(work, request, &d, &order, &multilevel_plan, &unanswered,
                                &library_order);
    }
  }
  if (!status.ok()) {
    order.clear();
    log_.Fallback(rank, status, &d);
  }

  // 7. The communicator in the decided order, else in the identity order (a duplicate); a
  // new decision is cached.
  if (!order.empty()) {
    if (absl::Status made = AgreedComm(comm, work, order, newcomm); !made.ok()) {
      order.clear();
      log_.Fallback(rank, made, &d);
    }
  }
  PMPI_Comm_set_errhandler(comm, caller_handler);
  int rc = MPI_SUCCESS;
  if (order.empty()) {
    d.new_order.clear();
    rc = PMPI_Comm_dup(comm, newcomm);
  } else {
    PMPI_Comm_set_errhandler(*newcomm, caller_handler);
  }
  PMPI_Errhandler_free(&caller_handler);
  if (!order.empty() && !from_cache) {
    d.new_order = order;
  }
  if (d.new_order.empty()) d.new_order = IdentityOrder(size);
  if (cache != nullptr && !from_cache) {
    (*cache)[key].Replace(order, d, multilevel_plan, unanswered && d.source == "fallback",
                          library_order);
  }
  d.elapsed_us = ElapsedUs(start);
  log_.Decided(comm, d);
  if (decision_out != nullptr) *decision_out = d;
  return rc;
}

int Library::CollectiveComm(MPI_Comm comm, const ReorderRequest& request, CollectiveRun* run) {
  *run = CollectiveRun{};
  run->root = request.root;
  EnsureKeyvals();
  const CacheKey key = KeyOf(request);
  CommCache* cache = FindCache(comm, cache_keyval_);
  auto it = cache != nullptr ? cache->find(key) : CommCache::iterator();
  if (cache == nullptr || it == cache->end() || it->second.internal == MPI_COMM_NULL ||
      it->second.retry_due) {
    // A miss: decide (collective, with the agreement check) and keep the communicator.
    MPI_Comm reordered = MPI_COMM_NULL;
    Decision d;
    if (int rc = CommReorder(comm, request, &reordered, &d); rc != MPI_SUCCESS) return rc;
    cache = FindCache(comm, cache_keyval_);
    it = cache != nullptr ? cache->find(key) : CommCache::iterator();
    if (cache == nullptr || it == cache->end()) {
      // Not cached (the ranks' arguments disagreed): the MPI library's own call, uncached.
      PMPI_Comm_free(&reordered);
      return MPI_SUCCESS;
    }
    if (it->second.internal != MPI_COMM_NULL) PMPI_Comm_free(&it->second.internal);
    it->second.internal = reordered;
  }
  CachedDecision& c = it->second;
  run->run_on = c.internal;
  if (!c.multilevel_plan.empty() && !c.multilevel && !c.multilevel_failed) {
    // Every rank holds the same plan (Decide's broadcast) and arrives here in the same call.
    absl::StatusOr<mapping::MultilevelPlan> plan = mapping::DecodeMultilevel(c.multilevel_plan);
    int ok = plan.ok(), all = 0;
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, c.internal);
    if (!all || Multilevel::Create(c.internal, *std::move(plan), request.radix, &c.multilevel) !=
                    MPI_SUCCESS) {
      c.multilevel_failed = true;
      int rank = 0;
      PMPI_Comm_rank(comm, &rank);
      log_.Warn(rank,
                "the multi-level communicators could not be built; the MPI library's call runs");
    }
  }
  run->multilevel = c.multilevel.get();
  if (c.decision.source != "fallback") {
    absl::StatusOr<mapping::Algorithm> a = mapping::ParseAlgorithm(c.decision.chosen_algorithm);
    if (a.ok()) run->algorithm = *a;
  }
  run->library_reordered = c.library_reordered;
  run->order = &c.order;
  run->root = NewRank(c.order, request.root);
  // Checked: toporr's own choice of something other than the library's call on the caller's
  // communicator. An algorithm the caller named (the C API, TOPORR_ALGORITHM) runs as asked.
  const bool toporrs = run->algorithm || run->multilevel != nullptr || run->library_reordered;
  const bool chosen_by_toporr = !request.algorithm && !request.force_multilevel;
  if (options_.verify && toporrs && chosen_by_toporr) {
    if (!c.check) c.check = std::make_unique<DecisionCheck>(options_.verify_calls, c.decision);
    run->check = c.check.get();
    if (!c.library_reordered) LibraryComm(comm, request.root, &c, run);
  }
  return MPI_SUCCESS;
}

void Library::LibraryComm(MPI_Comm comm, int root, CachedDecision* c, CollectiveRun* run) {
  if (c->library_order.empty() || c->library_comm_failed) return;
  if (c->library_comm == MPI_COMM_NULL) {
    // Every rank holds the same order (Decide's broadcast) and arrives here in the same call;
    // the constructor is agreed on over the decision's communicator.
    absl::Status made = AgreedComm(comm, c->internal, c->library_order, &c->library_comm);
    if (!made.ok()) {
      c->library_comm = MPI_COMM_NULL;
      c->library_comm_failed = true;
      int rank = 0;
      PMPI_Comm_rank(comm, &rank);
      log_.Warn(rank,
                "the communicator in the leaf-sorted order could not be built; the "
                "run-time check measures the MPI library's call on the caller's order");
      return;
    }
  }
  run->library_on = c->library_comm;
  if (c->check) c->check->library_leaf_sorted = true;
  run->library_root = NewRank(c->library_order, root);
}

Library::NextRun Library::NextCall(MPI_Comm comm, const ReorderRequest& request) {
  EnsureKeyvals();
  CommCache* cache = FindCache(comm, cache_keyval_);
  if (cache == nullptr) return NextRun::kDecide;
  auto it = cache->find(KeyOf(request));
  if (it == cache->end() || it->second.internal == MPI_COMM_NULL) return NextRun::kDecide;
  CachedDecision& c = it->second;
  if (c.decision.source == "fallback") {
    return c.CountCall() ? NextRun::kDecide : NextRun::kLibrary;
  }
  if (c.check && c.check->verification.verdict() == Verification::Verdict::kLibrary) {
    // The library's call: on the caller's communicator directly, or through toporr's path
    // on the communicator in the order it was predicted fastest in.
    return c.library_comm != MPI_COMM_NULL ? NextRun::kToporr : NextRun::kLibrary;
  }
  const bool algorithm = mapping::ParseAlgorithm(c.decision.chosen_algorithm).ok();
  const bool multilevel = !c.multilevel_plan.empty() && !c.multilevel_failed;
  return algorithm || multilevel || c.library_reordered ? NextRun::kToporr : NextRun::kLibrary;
}

void Library::ReportCheck(MPI_Comm comm, const DecisionCheck& check) {
  log_.Checked(comm, check.decision, check.verification, check.library_leaf_sorted);
}

void Library::GraphOrder(MPI_Comm comm, const char* label, const mapping::CommGraph* graph,
                         std::vector<int32_t>* order, Decision* decision_out) {
  OrderFromPlanner(comm, label, GraphPlanner(graph), order, decision_out);
}

int Library::TrafficReorder(MPI_Comm comm, const char* profile_path, MPI_Comm* newcomm,
                            Decision* decision_out) {
  int rank = 0, size = 1;
  if (int rc = PMPI_Comm_rank(comm, &rank); rc != MPI_SUCCESS) return rc;
  PMPI_Comm_size(comm, &size);
  absl::StatusOr<mapping::CommGraph> graph = absl::InternalError("no traffic graph on rank 0");
  if (rank == 0) graph = LoadTrafficGraph(profile_path, size);
  std::vector<int32_t> order;
  Decision d;
  OrderFromPlanner(comm, "traffic", TrafficPlanner(&graph), &order, &d);
  if (decision_out != nullptr) *decision_out = d;
  if (order.empty()) return PMPI_Comm_dup(comm, newcomm);
  return CommInOrder(comm, order, newcomm);
}

void Library::OrderFromPlanner(MPI_Comm comm, const char* label, const Planner& planner,
                               std::vector<int32_t>* order, Decision* decision_out) {
  const Clock::time_point start = Clock::now();
  int rank = 0, size = 1;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  Decision d;
  d.collective = label;
  d.algorithm = "graph";
  d.chosen_algorithm = "graph";
  d.size = size;
  d.source = "fallback";
  order->clear();
  absl::Status status = absl::OkStatus();
  if (options_.disable) {
    status = absl::CancelledError("disabled by TOPORR_DISABLE");
  } else {
    MPI_Comm work = MPI_COMM_NULL;
    if (PMPI_Comm_dup(comm, &work) != MPI_SUCCESS) {
      status = absl::InternalError("MPI_Comm_dup failed");
    } else {
      PMPI_Comm_set_errhandler(work, MPI_ERRORS_RETURN);
      status = Decide(work, planner, &d, order);
      PMPI_Comm_free(&work);
    }
  }
  if (!status.ok()) {
    order->clear();
    log_.Fallback(rank, status, &d);
  }
  d.new_order = order->empty() ? IdentityOrder(size) : *order;
  d.elapsed_us = ElapsedUs(start);
  log_.Decided(comm, d);
  if (decision_out != nullptr) *decision_out = d;
}

}  // namespace toporr::client::mpi

// For bench/client/reorder_comm_bench.c only (exported as toporr_*, declared there, not in
// toporr.h): one request to the cost source this process's options select, through the same
// source and channel code a decision uses (a source of its own, so the library's cached
// decisions and back-off are untouched). Registers the one-host list {host}: the request of
// step 3. The first call opens the connection; later calls reuse it. Returns 0 when the source
// answered, -1 otherwise (the reason on stderr).
extern "C" int toporr_bench_source_round_trip(const char* host) {
  static toporr::client::RowSource* source =
      toporr::client::NewRowSource(toporr::client::mpi::Library::Default().options()).release();
  absl::StatusOr<toporr::client::HostListTicket> t = source->Prepare({std::string(host)});
  if (t.ok()) return 0;
  std::fprintf(stderr, "toporr bench round trip: %s\n", std::string(t.status().message()).c_str());
  return -1;
}

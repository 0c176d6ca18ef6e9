#include "client/mpi/library.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "client/graph_plan.h"
#include "client/job_layout.h"
#include "client/mpi/bound_ranks.h"
#include "client/mpi/coll/allreduce.h"
#include "client/mpi/collective_status.h"
#include "client/mpi/leaf_groups.h"
#include "client/mpi/multilevel.h"
#include "client/plan.h"
#include "client/row_routes.h"
#include "common/status_macros.h"
#include "mapping/graph_embed.h"

namespace toporr::client::mpi {
namespace {

// Whether this process prints `warning` now: once per process, across every Library in it (a
// job may hold more than one, e.g. Open MPI's coll and topo components each have theirs).
bool FirstInProcess(const std::string& warning) {
  static std::mutex mu;
  static std::set<std::string>* printed = new std::set<std::string>;
  std::lock_guard<std::mutex> lock(mu);
  return printed->insert(warning).second;
}

using Clock = std::chrono::steady_clock;

constexpr int kTokenBytes = 128;

// ---- where this rank runs ----

std::string ShortHostName() {
  char name[256] = {0};
  if (gethostname(name, sizeof(name) - 1) != 0) return "localhost";
  std::string s(name);
  return s.substr(0, s.find('.'));
}

absl::StatusOr<std::string> HostOfThisRank(const ClientOptions& o) {
  if (o.hostmap_path.empty()) return ShortHostName();
  std::ifstream in(o.hostmap_path);
  if (!in)
    return absl::NotFoundError(absl::StrCat("TOPORR_HOSTMAP ", o.hostmap_path, ": cannot open"));
  std::stringstream text;
  text << in.rdbuf();
  ASSIGN_OR_RETURN(std::vector<std::string> hosts,
                   ParseRankHosts(text.str(), "TOPORR_HOSTMAP " + o.hostmap_path));
  int world_rank = 0, world_size = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &world_size);
  if (static_cast<int>(hosts.size()) < world_size) {
    return absl::InvalidArgumentError(absl::StrCat("TOPORR_HOSTMAP ", o.hostmap_path, " names ",
                                                   hosts.size(), " ranks, the job has ",
                                                   world_size));
  }
  return hosts[world_rank];
}

// ---- the decision cache on a communicator ----

using CacheKey = std::tuple<int, int, int, int, int>;  // collective, algorithm, root, class, radix
struct CachedDecision {
  std::vector<int32_t> order;  // empty: identity
  Decision decision;
  // For toporr's collectives: a communicator in `order` that only toporr sends on (created
  // on first use, freed with the cache or at MPI_Finalize).
  MPI_Comm internal = MPI_COMM_NULL;
  // The multi-level version, when decided: its plan (mapping::EncodeMultilevel) and its
  // communicators (built on first use, over `internal`).
  std::vector<int32_t> multilevel_plan;
  std::unique_ptr<Multilevel> multilevel;
  bool multilevel_failed = false;  // could not be built: the MPI library's call instead
  // The run-time check against the MPI library's call (created on first use when toporr
  // would run something else).
  std::unique_ptr<DecisionCheck> check;
  // A fallback because the cost source did not answer: retried after `retry_after` calls.
  bool retryable = false;
  int calls = 0;
  int retry_after = 0;
  bool retry_due = false;
};
using CommCache = std::map<CacheKey, CachedDecision>;

std::atomic<int> live_caches{0};
std::mutex registry_mu;
std::set<CommCache*>* registry = new std::set<CommCache*>;  // caches alive, for MPI_Finalize

void FreeInternal(CommCache* cache) {
  for (auto& [key, entry] : *cache) {
    entry.multilevel.reset();
    if (entry.internal != MPI_COMM_NULL) PMPI_Comm_free(&entry.internal);
  }
}

int DeleteCache(MPI_Comm, int, void* value, void*) {
  auto* cache = static_cast<CommCache*>(value);
  {
    std::lock_guard<std::mutex> lock(registry_mu);
    registry->erase(cache);
  }
  FreeInternal(cache);
  --live_caches;
  delete cache;
  return MPI_SUCCESS;
}

// MPI_Finalize deletes MPI_COMM_SELF's attributes first, while MPI still works: free every
// internal communicator then (MPI_COMM_WORLD's caches may be deleted later, or never).
int FreeAllInternal(MPI_Comm, int, void*, void*) {
  std::lock_guard<std::mutex> lock(registry_mu);
  for (CommCache* cache : *registry) FreeInternal(cache);
  return MPI_SUCCESS;
}

// Calls of a retryable fallback before its next attempt: 8, 16, 32, ... at most 1024.
int RetryAfterCalls(int retry) { return 8 << std::min(retry, 7); }

// Counts one call of `c` and says whether it must be decided anew (a retry is due).
bool CountRetry(CachedDecision& c) {
  if (c.retryable && !c.retry_due && ++c.calls >= c.retry_after) c.retry_due = true;
  return c.retry_due;
}

bool IsWorldRankZero() {
  int world_rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  return world_rank == 0;
}

// The algorithms toporr runs itself (collectives.h), by collective.
std::vector<mapping::Algorithm> OwnAlgorithms(mapping::Collective c) {
  using A = mapping::Algorithm;
  switch (c) {
    case mapping::Collective::kAllreduce:
      return {A::kRing,         A::kSegmentedRing, A::kRecursiveDoubling,
              A::kRabenseifner, A::kSwing,         A::kSwingBandwidth};
    case mapping::Collective::kBcast:
      return {A::kBinomial,         A::kBinaryTree,           A::kKnomial,
              A::kScatterAllgather, A::kScatterAllgatherRing, A::kBine};
    case mapping::Collective::kAllgather:
      return {A::kRing, A::kRecursiveDoubling};
    default:
      return {};
  }
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

int SizeClass(int64_t bytes) {
  int c = 0;
  while (bytes > 1) {
    bytes >>= 1;
    ++c;
  }
  return c;
}

CacheKey KeyOf(const ReorderRequest& r) {
  const int algorithm = r.force_multilevel ? -3
                        : r.algorithm      ? static_cast<int>(*r.algorithm)
                        : r.own_algorithms ? -2
                                           : -1;
  return CacheKey{static_cast<int>(r.collective), algorithm, r.root, SizeClass(r.bytes), r.radix};
}

uint64_t KeyHash(const CacheKey& k) {
  uint64_t h = 1469598103934665603ull;
  for (int v : {std::get<0>(k), std::get<1>(k), std::get<2>(k), std::get<3>(k), std::get<4>(k)}) {
    h = (h ^ static_cast<uint64_t>(static_cast<uint32_t>(v))) * 1099511628211ull;
  }
  return h;
}

// True when every rank of `work` passed the same key.
absl::Status SameArguments(MPI_Comm work, uint64_t h) {
  bool same = false;
  if (int rc = SameOnEveryRank(work, h, &same); rc != MPI_SUCCESS) {
    return absl::InternalError(MpiError("MPI_Allreduce", rc));
  }
  if (!same) {
    return absl::InvalidArgumentError(
        "ranks called toporr with different arguments (collective, algorithm, root or size)");
  }
  return absl::OkStatus();
}

std::vector<int32_t> IdentityOrder(int size) {
  std::vector<int32_t> order(size);
  for (int i = 0; i < size; ++i) order[i] = i;
  return order;
}

// The routes of the leaders' rows on rank 0 of `work` (collective; `row` null on the ranks
// that are not leaders). *routes stays null, with *why, when a host's source had none.
absl::Status GatherRoutes(MPI_Comm work, const CostRow* row, int my_host, int n,
                          std::unique_ptr<mapping::RouteSource>* routes, std::string* why) {
  int rank = 0, size = 0;
  PMPI_Comm_rank(work, &rank);
  PMPI_Comm_size(work, &size);
  std::vector<uint32_t> mine;
  if (row != nullptr) PackRouteRow(my_host, row->routes, &mine);
  int count = static_cast<int>(mine.size());
  std::vector<int> counts(rank == 0 ? size : 0), displs(counts.size());
  int rc = PMPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, work);
  std::vector<uint32_t> all;
  if (rank == 0 && rc == MPI_SUCCESS) {
    int64_t total = 0;
    for (int r = 0; r < size; ++r) {
      displs[r] = static_cast<int>(total);
      total += counts[r];
    }
    if (total > std::numeric_limits<int>::max()) {
      rc = MPI_ERR_COUNT;  // the other ranks still take part in the Gatherv below
      std::fill(counts.begin(), counts.end(), 0);
    } else {
      all.resize(total);
    }
  }
  int gathered = PMPI_Gatherv(mine.data(), count, MPI_UINT32_T, all.data(), counts.data(),
                              displs.data(), MPI_UINT32_T, 0, work);
  if (rc == MPI_SUCCESS) rc = gathered;
  absl::Status status =
      rc == MPI_SUCCESS ? absl::OkStatus() : absl::InternalError(MpiError("route gather", rc));
  if (rank == 0 && status.ok()) {
    absl::StatusOr<std::unique_ptr<mapping::TableRoutes>> table = UnpackRoutes(all, n, why);
    if (table.ok()) {
      *routes = *std::move(table);
    } else {  // routes that do not fit: predict without them rather than not at all
      *why = std::string(table.status().message());
    }
  }
  return Agree(work, status);
}

// Whether a failure is the cost source's not answering (no connection, no answer within the
// deadline): a fallback worth retrying later, unlike a refusal or a local error.
bool Unanswered(const absl::Status& s) {
  return absl::IsUnavailable(s) || absl::IsDeadlineExceeded(s);
}

int64_t ElapsedUs(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count();
}

}  // namespace

int LiveCaches() { return live_caches.load(); }

int SplitInOrder(MPI_Comm comm, const std::vector<int32_t>& order, MPI_Comm* newcomm) {
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  int key = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    if (order[i] == rank) key = static_cast<int>(i);
  }
  MPI_Errhandler handler;
  PMPI_Comm_get_errhandler(comm, &handler);
  PMPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  int rc = PMPI_Comm_split(comm, 0, key, newcomm);
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
      option_warnings_(std::move(option_warnings)) {}

void Library::Warn(int rank, const std::string& reason) {
  if (!IsWorldRankZero() && !(rank == 0 && options_.verbose > 0)) return;
  // One cause, whichever rank of whichever communicator met it ("rank 5: <cause>").
  std::string_view cause = reason;
  if (cause.substr(0, 5) == "rank ") {
    const size_t colon = cause.find(": ");
    if (colon != std::string_view::npos && cause.find_first_not_of("0123456789", 5) == colon) {
      cause.remove_prefix(colon + 2);
    }
  }
  if (!FirstInProcess("fallback: " + std::string(cause))) return;
  std::fprintf(stderr, "toporr: warning: keeping the identity rank order: %s\n", reason.c_str());
  std::fflush(stderr);
}

void Library::Fallback(int rank, const absl::Status& why, Decision* d) {
  d->source = "fallback";
  d->fallback_reason = std::string(why.message());
  d->predicted_before_ns = d->predicted_after_ns = -1;
  d->cost_form.clear();
  d->contention.clear();
  d->candidates.clear();
  if (!absl::IsCancelled(why)) Warn(rank, d->fallback_reason);  // TOPORR_DISABLE: silent
}

void Library::Finish(MPI_Comm comm, const Decision& d) {
  if (IsWorldRankZero()) {  // the configuration's warnings, once per job
    std::lock_guard<std::mutex> lock(mu_);
    for (const std::string& w : option_warnings_) {
      if (FirstInProcess("option: " + w)) std::fprintf(stderr, "toporr: %s\n", w.c_str());
    }
    option_warnings_.clear();
  }
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  if (rank != 0) return;
  WriteReport(DecisionJsonLine(d));
  if (options_.verbose > 0) {
    std::fprintf(stderr,
                 "toporr: %s %s %lld B root %d: %d ranks on %d hosts, source %s%s, snapshot %lld, "
                 "predicted %.0f -> %.0f ns, %lld us\n",
                 d.collective.c_str(), d.chosen_algorithm.c_str(), static_cast<long long>(d.bytes),
                 d.root, d.size, d.hosts, d.source.c_str(), d.cached ? " (cached)" : "",
                 static_cast<long long>(d.snapshot_id), d.predicted_before_ns, d.predicted_after_ns,
                 static_cast<long long>(d.elapsed_us));
  }
}

absl::Status Library::GatherCosts(MPI_Comm work, const JobLayout& layout, Decision* decision,
                                  std::unique_ptr<mapping::HostCostMatrix>* costs,
                                  std::unique_ptr<mapping::RouteSource>* routes, MPI_Win* window,
                                  bool* unanswered) {
  int rank = 0;
  PMPI_Comm_rank(work, &rank);
  const int n = static_cast<int>(layout.hosts.size());
  const int my_host = layout.rank_host[rank];
  // 3. Rank 0 registers the host list (the one request of the job that is not per host);
  // the ticket, or why there is none, goes to every rank in one broadcast. First, so that an
  // absent or stalled daemon costs no more MPI steps than needed.
  struct {
    int ok;
    int code;  // absl::StatusCode of the failure
    int64_t snapshot_id;
    char token[kTokenBytes];
    char reason[kReasonBytes];
  } ticket_msg = {};
  HostListTicket ticket;
  {
    if (rank == 0) {
      absl::StatusOr<HostListTicket> t = source_->Prepare(layout.hosts);
      if (t.ok() && t->token.size() >= kTokenBytes) {
        t = absl::DataLossError("host list token too long");
      }
      if (t.ok()) {
        ticket_msg.ok = 1;
        ticket_msg.snapshot_id = t->snapshot_id;
        std::memcpy(ticket_msg.token, t->token.data(), t->token.size());
      } else {
        ticket_msg.code = static_cast<int>(t.status().code());
        CopyReason(std::string(t.status().message()), ticket_msg.reason);
      }
    }
    if (int rc = PMPI_Bcast(&ticket_msg, sizeof(ticket_msg), MPI_BYTE, 0, work);
        rc != MPI_SUCCESS) {
      return absl::InternalError(MpiError("MPI_Bcast", rc));
    }
    ticket_msg.token[kTokenBytes - 1] = '\0';
    ticket_msg.reason[kReasonBytes - 1] = '\0';
    if (!ticket_msg.ok) {
      const absl::Status failed(static_cast<absl::StatusCode>(ticket_msg.code), ticket_msg.reason);
      *unanswered = Unanswered(failed);
      return failed;
    }
    ticket = {ticket_msg.snapshot_id, ticket_msg.token};
    decision->snapshot_id = ticket.snapshot_id;
  }

  // 4. Per-host groups and their leaders.
  struct Comms {
    MPI_Comm node = MPI_COMM_NULL, host = MPI_COMM_NULL, leaders = MPI_COMM_NULL;
    ~Comms() {
      for (MPI_Comm* c : {&node, &host, &leaders}) {
        if (*c != MPI_COMM_NULL) PMPI_Comm_free(c);
      }
    }
  } comms;
  // Each constructor is collective on its own communicator: agree after each, so that a
  // rank whose call failed never leaves the others waiting in the next one.
  auto agree_mpi = [&](const char* call, int rc) {
    return Agree(work,
                 rc == MPI_SUCCESS ? absl::OkStatus() : absl::InternalError(MpiError(call, rc)));
  };
  int host_rank = 0;
  RETURN_IF_ERROR(agree_mpi(
      "MPI_Comm_split_type",
      PMPI_Comm_split_type(work, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &comms.node)));
  RETURN_IF_ERROR(
      agree_mpi("MPI_Comm_split", PMPI_Comm_split(comms.node, my_host, rank, &comms.host)));
  PMPI_Comm_rank(comms.host, &host_rank);
  RETURN_IF_ERROR(
      agree_mpi("MPI_Comm_split",
                PMPI_Comm_split(work, host_rank == 0 ? 0 : MPI_UNDEFINED, rank, &comms.leaders)));
  const bool leader = host_rank == 0;

  // 5. Each leader fetches its own host's row (and its routes, for jobs small enough).
  const bool with_routes = n > 1 && n <= options_.routes_max_hosts;
  CostRow row;
  {
    absl::Status fetched = absl::OkStatus();
    if (leader) {
      absl::StatusOr<CostRow> r = source_->Row(ticket, layout.hosts, my_host, with_routes);
      if (!r.ok()) {
        fetched = r.status();
      } else if (r->snapshot_id != ticket.snapshot_id) {
        fetched = absl::AbortedError(absl::StrCat(
            "the row of ", layout.hosts[my_host], " came from snapshot ", r->snapshot_id,
            ", the host list from snapshot ", ticket.snapshot_id, "; not mixing them"));
      } else if (r->values.size() != 2 * static_cast<size_t>(n)) {
        fetched = absl::DataLossError(absl::StrCat("the row of ", layout.hosts[my_host], " has ",
                                                   r->values.size() / 2, " columns, expected ", n));
      } else {
        row = *std::move(r);
      }
    }
    absl::Status agreed = Agree(work, fetched);
    *unanswered = Unanswered(agreed);
    RETURN_IF_ERROR(agreed);
  }

  // 6. The costs reach rank 0: dense rows in one shared window per host, or, for jobs of
  // more than compress_above_hosts hosts, the leaf-group form (CompressRows).
  if (n > options_.compress_above_hosts) {
    RETURN_IF_ERROR(CompressRows(work, comms.leaders, layout, my_host, row, costs));
    decision->cost_form = "groups";
  } else {
    float* rows = nullptr;
    std::vector<int32_t> leader_host;
    int num_leaders = 0;
    int rc = MPI_SUCCESS;
    if (leader) rc = PMPI_Comm_size(comms.leaders, &num_leaders);
    if (rc == MPI_SUCCESS) rc = PMPI_Bcast(&num_leaders, 1, MPI_INT, 0, comms.host);
    const MPI_Aint row_bytes = static_cast<MPI_Aint>(2) * n * sizeof(float);
    const MPI_Aint bytes = leader ? row_bytes * num_leaders : 0;
    if (rc == MPI_SUCCESS) {
      rc = PMPI_Win_allocate_shared(bytes, sizeof(float), MPI_INFO_NULL, comms.host, &rows, window);
    }
    if (rc == MPI_SUCCESS && leader) {
      leader_host.resize(num_leaders);
      int32_t mine = my_host;
      rc = PMPI_Allgather(&mine, 1, MPI_INT32_T, leader_host.data(), 1, MPI_INT32_T, comms.leaders);
      if (rc == MPI_SUCCESS) {
        rc = PMPI_Allgather(row.values.data(), 2 * n, MPI_FLOAT, rows, 2 * n, MPI_FLOAT,
                            comms.leaders);
      }
    }
    absl::Status s =
        Agree(work, rc == MPI_SUCCESS ? absl::OkStatus()
                                      : absl::InternalError(MpiError("row allgather", rc)));
    if (!s.ok()) {
      if (*window != MPI_WIN_NULL) PMPI_Win_free(window);
      return s;
    }
    if (rank == 0) {
      std::vector<const float*> host_rows(n, nullptr);
      for (size_t l = leader_host.size(); l-- > 0;) host_rows[leader_host[l]] = rows + 2 * n * l;
      *costs = std::make_unique<RowCostMatrix>(n, std::move(host_rows));
    }
    decision->cost_form = "rows";
  }
  // 6b. The routes of the rows reach rank 0 (one Gatherv; nothing when not asked for).
  if (with_routes) {
    std::string why;
    RETURN_IF_ERROR(GatherRoutes(work, leader ? &row : nullptr, my_host, n, routes, &why));
    if (rank == 0 && *routes == nullptr && options_.verbose >= 1) {
      std::fprintf(stderr, "toporr: host links only: %s\n", why.c_str());
    }
  }
  if (rank == 0) decision->contention = *routes != nullptr ? "routes" : "host links";
  return absl::OkStatus();
}

absl::Status Library::Decide(MPI_Comm work, const Planner& planner, Decision* decision,
                             std::vector<int32_t>* order, std::vector<int32_t>* multilevel,
                             bool* unanswered) {
  if (unanswered != nullptr) *unanswered = false;
  int rank = 0, size = 1;
  PMPI_Comm_rank(work, &rank);
  PMPI_Comm_size(work, &size);

  // 2. Host name and binding of every rank.
  std::string host;
  RankBinding mine;
  {
    absl::Status local = absl::OkStatus();
    if (absl::StatusOr<std::string> h = HostOfThisRank(options_); h.ok()) {
      host = *h;
    } else {
      local = h.status();
    }
    if (local.ok()) {
      if (absl::StatusOr<RankBinding> l = ThisRankBinding(); l.ok()) {
        mine = *l;
      } else {
        local = l.status();
      }
    }
    RETURN_IF_ERROR(Agree(work, local));
  }
  std::vector<std::string> rank_hosts(size);
  std::vector<mapping::RankLocation> bound(size);
  {
    int len = static_cast<int>(host.size());
    std::vector<int> lens(size), displs(size);
    const mapping::RankLocation& where = mine.location;
    int32_t loc[4] = {where.package, where.numa, where.l3, where.core};
    std::vector<int32_t> locs(4 * static_cast<size_t>(size));
    int rc = PMPI_Allgather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, work);
    if (rc == MPI_SUCCESS)
      rc = PMPI_Allgather(loc, 4, MPI_INT32_T, locs.data(), 4, MPI_INT32_T, work);
    int total = 0;
    for (int r = 0; r < size; ++r) {
      displs[r] = total;
      total += lens[r];
    }
    std::string all(static_cast<size_t>(total), '\0');
    if (rc == MPI_SUCCESS) {
      rc = PMPI_Allgatherv(host.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(),
                           MPI_CHAR, work);
    }
    if (rc != MPI_SUCCESS) return absl::InternalError(MpiError("MPI_Allgather", rc));
    for (int r = 0; r < size; ++r) {
      rank_hosts[r] = all.substr(displs[r], lens[r]);
      bound[r] = {0, locs[4 * r], locs[4 * r + 1], locs[4 * r + 2], locs[4 * r + 3]};
    }
  }
  // 2b. Bound ranks' intra-host costs come from their host's hwloc distances.
  ASSIGN_OR_RETURN(const mapping::IntraHostModel intra, JobIntraHostModel(work, bound, mine));
  const JobLayout layout = LayoutFromRankHosts(rank_hosts);
  const int n = static_cast<int>(layout.hosts.size());
  decision->hosts = n;

  // 3..5b. The costs between the job's hosts, from the cost source; a job on one host needs
  // none (its intra-host costs come from `intra`).
  MPI_Win window = MPI_WIN_NULL;
  std::unique_ptr<mapping::HostCostMatrix> costs;
  std::unique_ptr<mapping::RouteSource> routes;
  static const float kOneHostRow[2] = {0, 0};
  if (n > 1) {
    bool source_unanswered = false;
    absl::Status gathered =
        GatherCosts(work, layout, decision, &costs, &routes, &window, &source_unanswered);
    if (unanswered != nullptr) *unanswered = source_unanswered;
    RETURN_IF_ERROR(gathered);
  } else {
    costs = std::make_unique<RowCostMatrix>(1, std::vector<const float*>{kOneHostRow});
  }

  // 7. Rank 0 plans and broadcasts the order.
  struct {
    int ok;
    int multilevel_values;  // length of the multi-level plan that follows (0: none)
    double before_ns, after_ns;
    char chosen[64];
    char reason[kReasonBytes];
  } result = {};
  std::vector<int32_t> planned(size), multilevel_plan;
  if (rank == 0) {
    absl::StatusOr<PlannedOrder> p =
        planner(JobPlacement(layout, bound), *costs, routes.get(), intra);
    if (p.ok() && p->order.size() != static_cast<size_t>(size)) {
      p = absl::InternalError("planner returned an order of the wrong size");
    }
    if (p.ok()) {
      result.ok = 1;
      result.before_ns = p->before_ns;
      result.after_ns = p->after_ns;
      std::snprintf(result.chosen, sizeof(result.chosen), "%s", p->chosen.c_str());
      planned = p->order;
      multilevel_plan = p->multilevel;
      result.multilevel_values = static_cast<int>(multilevel_plan.size());
    } else {
      CopyReason(absl::StrCat("planning failed: ", p.status().message()), result.reason);
    }
  }
  costs.reset();
  routes.reset();
  int rc = PMPI_Bcast(&result, sizeof(result), MPI_BYTE, 0, work);
  if (rc == MPI_SUCCESS && result.ok) rc = PMPI_Bcast(planned.data(), size, MPI_INT32_T, 0, work);
  if (rc == MPI_SUCCESS && result.ok && result.multilevel_values > 0) {
    multilevel_plan.resize(result.multilevel_values);
    rc = PMPI_Bcast(multilevel_plan.data(), result.multilevel_values, MPI_INT32_T, 0, work);
  }
  if (window != MPI_WIN_NULL) PMPI_Win_free(&window);
  if (rc != MPI_SUCCESS) return absl::InternalError(MpiError("MPI_Bcast", rc));
  if (!result.ok) {
    result.reason[kReasonBytes - 1] = '\0';
    return absl::InternalError(result.reason);
  }
  result.chosen[sizeof(result.chosen) - 1] = '\0';
  decision->chosen_algorithm = result.chosen;
  decision->predicted_before_ns = result.before_ns;
  decision->predicted_after_ns = result.after_ns;
  decision->source = n > 1 ? std::string(source_->kind()) : "local";
  *order = std::move(planned);
  if (multilevel != nullptr) *multilevel = std::move(multilevel_plan);
  return absl::OkStatus();
}

void Library::EnsureKeyvals() {
  std::lock_guard<std::mutex> lock(mu_);
  if (cache_keyval_ != MPI_KEYVAL_INVALID) return;
  PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, DeleteCache, &cache_keyval_, nullptr);
  int finalize_keyval = MPI_KEYVAL_INVALID;
  PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, FreeAllInternal, &finalize_keyval, nullptr);
  PMPI_Comm_set_attr(MPI_COMM_SELF, finalize_keyval, nullptr);
}

int Library::CollectiveComm(MPI_Comm comm, const ReorderRequest& request, MPI_Comm* run_on,
                            std::optional<mapping::Algorithm>* algorithm, int* root,
                            const std::vector<int32_t>** order, const Multilevel** multilevel,
                            DecisionCheck** check) {
  EnsureKeyvals();
  const CacheKey key = KeyOf(request);
  CommCache* cache = nullptr;
  int found = 0;
  PMPI_Comm_get_attr(comm, cache_keyval_, &cache, &found);
  auto it = found ? cache->find(key) : CommCache::iterator();
  if (!found || it == cache->end() || it->second.internal == MPI_COMM_NULL ||
      it->second.retry_due) {
    // A miss: decide (collective, with the agreement check) and keep the communicator.
    MPI_Comm reordered = MPI_COMM_NULL;
    Decision d;
    if (int rc = CommReorder(comm, request, &reordered, &d); rc != MPI_SUCCESS) return rc;
    PMPI_Comm_get_attr(comm, cache_keyval_, &cache, &found);
    it = found ? cache->find(key) : CommCache::iterator();
    if (!found || it == cache->end()) {
      // Not cached (the ranks' arguments disagreed): the MPI library's own call, uncached.
      PMPI_Comm_free(&reordered);
      *run_on = MPI_COMM_NULL;
      *algorithm = std::nullopt;
      *root = request.root;
      if (order != nullptr) *order = nullptr;
      if (multilevel != nullptr) *multilevel = nullptr;
      if (check != nullptr) *check = nullptr;
      return MPI_SUCCESS;
    }
    if (it->second.internal != MPI_COMM_NULL) PMPI_Comm_free(&it->second.internal);
    it->second.internal = reordered;
  }
  CachedDecision& c = it->second;
  *run_on = c.internal;
  if (multilevel != nullptr) {
    *multilevel = nullptr;
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
        Warn(rank, "the multi-level communicators could not be built; the MPI library's call runs");
      }
    }
    *multilevel = c.multilevel.get();
  }
  *algorithm = std::nullopt;  // fallback: the MPI library's own, on the caller's communicator
  if (c.decision.source != "fallback") {
    absl::StatusOr<mapping::Algorithm> a = mapping::ParseAlgorithm(c.decision.chosen_algorithm);
    if (a.ok()) *algorithm = *a;
  }
  if (order != nullptr) *order = &c.order;
  *root = request.root;
  for (size_t i = 0; i < c.order.size(); ++i) {
    if (c.order[i] == request.root) *root = static_cast<int>(i);
  }
  if (check != nullptr) {
    *check = nullptr;
    // Checked: toporr's own choice of something other than the library's call. An algorithm
    // the caller named (the C API, TOPORR_ALGORITHM) runs as asked.
    const bool toporrs = *algorithm || (multilevel != nullptr && *multilevel != nullptr);
    const bool chosen_by_toporr = !request.algorithm && !request.force_multilevel;
    if (options_.verify && toporrs && chosen_by_toporr) {
      if (!c.check) c.check = std::make_unique<DecisionCheck>(options_.verify_calls, c.decision);
      *check = c.check.get();
    }
  }
  return MPI_SUCCESS;
}

Library::NextRun Library::NextCall(MPI_Comm comm, const ReorderRequest& request) {
  EnsureKeyvals();
  CommCache* cache = nullptr;
  int found = 0;
  PMPI_Comm_get_attr(comm, cache_keyval_, &cache, &found);
  if (!found) return NextRun::kDecide;
  auto it = cache->find(KeyOf(request));
  if (it == cache->end() || it->second.internal == MPI_COMM_NULL) return NextRun::kDecide;
  CachedDecision& c = it->second;
  if (c.decision.source == "fallback") {
    return CountRetry(c) ? NextRun::kDecide : NextRun::kLibrary;
  }
  if (c.check && c.check->verification.verdict() == Verification::Verdict::kLibrary) {
    return NextRun::kLibrary;
  }
  const bool algorithm = mapping::ParseAlgorithm(c.decision.chosen_algorithm).ok();
  const bool multilevel = !c.multilevel_plan.empty() && !c.multilevel_failed;
  return algorithm || multilevel ? NextRun::kToporr : NextRun::kLibrary;
}

void Library::WriteReport(const std::string& line) {
  if (options_.report_path.empty()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (report_failed_) return;
  }
  absl::Status s = AppendReportLine(options_.report_path, line);
  if (s.ok()) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (report_failed_) return;
  report_failed_ = true;
  std::fprintf(stderr, "toporr: warning: TOPORR_REPORT not written (the job goes on): %s\n",
               std::string(s.message()).c_str());
  std::fflush(stderr);
}

void Library::ReportCheck(MPI_Comm comm, const DecisionCheck& check) {
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  if (rank != 0) return;
  const Verification& v = check.verification;
  const Decision& d = check.decision;
  WriteReport(VerificationJsonLine(d, v));
  if (options_.verbose > 0) {
    std::fprintf(stderr,
                 "toporr: verified %s %s %lld B: toporr %.0f us, MPI library %.0f us (medians of "
                 "%zu): %s stays\n",
                 d.collective.c_str(), d.chosen_algorithm.c_str(), static_cast<long long>(d.bytes),
                 v.toporr_median_s() * 1e6, v.library_median_s() * 1e6, v.library_s().size(),
                 Verification::VerdictName(v.verdict()));
  }
}

int Library::CommReorder(MPI_Comm comm, const ReorderRequest& request, MPI_Comm* newcomm,
                         Decision* decision_out) {
  const Clock::time_point start = Clock::now();
  int rank = 0, size = 1;
  if (int rc = PMPI_Comm_rank(comm, &rank); rc != MPI_SUCCESS) return rc;
  PMPI_Comm_size(comm, &size);
  Decision d;
  d.collective = std::string(mapping::CollectiveName(request.collective));
  d.algorithm =
      request.algorithm ? std::string(mapping::AlgorithmName(*request.algorithm)) : "auto";
  d.chosen_algorithm = d.algorithm;
  d.bytes = request.bytes;
  d.root = request.root;
  d.size = size;
  d.source = "fallback";

  EnsureKeyvals();
  const CacheKey key = KeyOf(request);

  MPI_Comm work = MPI_COMM_NULL;
  if (int rc = PMPI_Comm_dup(comm, &work); rc != MPI_SUCCESS) return rc;
  PMPI_Comm_set_errhandler(work, MPI_ERRORS_RETURN);

  std::vector<int32_t> order, multilevel_plan;
  absl::Status status = SameArguments(work, KeyHash(key));
  CommCache* cache = nullptr;
  if (status.ok()) {
    int found = 0;
    PMPI_Comm_get_attr(comm, cache_keyval_, &cache, &found);
    if (!found) {
      cache = new CommCache;
      ++live_caches;
      {
        std::lock_guard<std::mutex> lock(registry_mu);
        registry->insert(cache);
      }
      PMPI_Comm_set_attr(comm, cache_keyval_, cache);
    }
  }
  bool from_cache = false, unanswered = false;
  if (status.ok()) {
    auto it = cache->find(key);
    if (it != cache->end() && (it->second.retry_due || CountRetry(it->second))) {
      d.retry = it->second.decision.retry + 1;  // decided anew below
      it = cache->end();
    }
    if (it != cache->end()) {
      order = it->second.order;
      multilevel_plan = it->second.multilevel_plan;
      d = it->second.decision;
      d.cached = true;
      from_cache = true;
    } else if (size == 1) {
      // One rank: nothing to order, nothing to ask; toporr's collectives leave it to the MPI
      // library's call.
      d.source = "local";
      d.hosts = 1;
      if (request.own_algorithms && !request.algorithm) d.chosen_algorithm = "mpi_library";
    } else if (options_.disable) {
      status = absl::CancelledError("disabled by TOPORR_DISABLE");
    } else if (request.root < 0 || request.root >= size) {
      status = absl::InvalidArgumentError(absl::StrCat("root ", request.root, " is not a rank"));
    } else {
      PlanRequest plan;
      plan.collective = request.collective;
      plan.algorithm = request.algorithm;
      if (request.own_algorithms) {
        plan.candidates = OwnAlgorithms(request.collective);
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
      plan.multilevel_bcast = OwnAlgorithms(mapping::Collective::kBcast);
      plan.multilevel_allreduce = OwnAlgorithms(mapping::Collective::kAllreduce);
      status = Decide(
          work,
          [&](const mapping::Placement& placement, const mapping::HostCostMatrix& costs,
              const mapping::RouteSource* routes,
              const mapping::IntraHostModel& intra) -> absl::StatusOr<PlannedOrder> {
            ASSIGN_OR_RETURN(PlanResult r, Plan(plan, placement, costs, routes, intra));
            for (const PlanCandidate& c : r.candidates) {  // rank 0 only: it reports
              d.candidates.push_back({c.algorithm, c.mapping, c.time_ns, c.effective});
            }
            d.levels = r.levels;
            d.stages = r.stages;
            return PlannedOrder{r.mapping, r.algorithm, r.before.time_ns, r.after.time_ns,
                                r.multilevel};
          },
          &d, &order, &multilevel_plan, &unanswered);
    }
  }
  if (!status.ok()) {
    order.clear();
    Fallback(rank, status, &d);
  }

  int rc = MPI_ERR_OTHER;
  if (!order.empty()) {
    rc = SplitInOrder(comm, order, newcomm);
    int ok = rc == MPI_SUCCESS, all = 0;
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, work);
    if (!all) {
      if (rc == MPI_SUCCESS) PMPI_Comm_free(newcomm);
      order.clear();
      Fallback(
          rank,
          absl::InternalError(MpiError("MPI_Comm_split", rc == MPI_SUCCESS ? MPI_ERR_OTHER : rc)),
          &d);
    }
  }
  if (order.empty()) {
    d.new_order.clear();
    rc = PMPI_Comm_dup(comm, newcomm);
  } else if (!from_cache) {
    d.new_order = order;
  }
  if (d.new_order.empty()) d.new_order = IdentityOrder(size);
  if (cache != nullptr && !from_cache) {
    CachedDecision& c = (*cache)[key];
    if (c.internal != MPI_COMM_NULL) PMPI_Comm_free(&c.internal);  // a retried decision's
    c.order = order;
    c.decision = d;
    c.multilevel_plan = order.empty() ? std::vector<int32_t>() : multilevel_plan;
    c.multilevel.reset();
    c.multilevel_failed = false;
    c.check.reset();
    c.retryable = unanswered && d.source == "fallback";
    c.calls = 0;
    c.retry_after = RetryAfterCalls(d.retry);
    c.retry_due = false;
  }
  PMPI_Comm_free(&work);
  d.elapsed_us = ElapsedUs(start);
  Finish(comm, d);
  if (decision_out != nullptr) *decision_out = d;
  return rc;
}

void Library::GraphOrder(MPI_Comm comm, const char* label, const mapping::CommGraph* graph,
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
      status = Decide(
          work,
          [&](const mapping::Placement& placement, const mapping::HostCostMatrix& costs,
              const mapping::RouteSource*,
              const mapping::IntraHostModel& intra) -> absl::StatusOr<PlannedOrder> {
            if (graph == nullptr) return absl::InternalError("no process graph on rank 0");
            ASSIGN_OR_RETURN(mapping::Embedding e, PlanGraph(*graph, placement, costs, intra));
            return PlannedOrder{e.mapping, std::string(mapping::EmbedMethodName(e.method)),
                                e.identity_cost_ns, e.cost_ns};
          },
          &d, order);
      PMPI_Comm_free(&work);
    }
  }
  if (!status.ok()) {
    order->clear();
    Fallback(rank, status, &d);
  }
  d.new_order = order->empty() ? IdentityOrder(size) : *order;
  d.elapsed_us = ElapsedUs(start);
  Finish(comm, d);
  if (decision_out != nullptr) *decision_out = d;
}

}  // namespace toporr::client::mpi

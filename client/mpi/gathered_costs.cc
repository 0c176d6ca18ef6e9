#include "client/mpi/gathered_costs.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "client/costs/row_routes.h"
#include "client/mpi/collective_status.h"
#include "client/mpi/leaf_groups.h"
#include "common/status_macros.h"

namespace toporr::client::mpi {
namespace {

constexpr int kTokenBytes = 128;

// 3. The ticket of the job's host list, on every rank: rank 0 asks the source, one broadcast
// carries the ticket or the failure.
absl::StatusOr<HostListTicket> ShareTicket(MPI_Comm work, RowSource& source,
                                           const std::vector<std::string>& hosts) {
  int rank = 0;
  PMPI_Comm_rank(work, &rank);
  struct {
    int ok;
    int code;  // absl::StatusCode of the failure
    int64_t snapshot_id;
    char token[kTokenBytes];
    char reason[kReasonBytes];
  } msg = {};
  if (rank == 0) {
    absl::StatusOr<HostListTicket> t = source.Prepare(hosts);
    if (t.ok() && t->token.size() >= kTokenBytes) {
      t = absl::DataLossError("host list token too long");
    }
    if (t.ok()) {
      msg.ok = 1;
      msg.snapshot_id = t->snapshot_id;
      std::memcpy(msg.token, t->token.data(), t->token.size());
    } else {
      msg.code = static_cast<int>(t.status().code());
      CopyReason(std::string(t.status().message()), msg.reason);
    }
  }
  if (int rc = PMPI_Bcast(&msg, sizeof(msg), MPI_BYTE, 0, work); rc != MPI_SUCCESS) {
    return absl::InternalError(MpiError("MPI_Bcast", rc));
  }
  msg.token[kTokenBytes - 1] = '\0';
  msg.reason[kReasonBytes - 1] = '\0';
  if (!msg.ok) return absl::Status(static_cast<absl::StatusCode>(msg.code), msg.reason);
  return HostListTicket{msg.snapshot_id, msg.token};
}

// 4. The ranks of each host, and the hosts' leaders (the lowest rank of each host).
struct HostGroups {
  MPI_Comm node = MPI_COMM_NULL;     // the ranks that share memory with this one
  MPI_Comm host = MPI_COMM_NULL;     // the ranks of this rank's host
  MPI_Comm leaders = MPI_COMM_NULL;  // the leaders, in rank order; null on other ranks
  bool leader = false;
  ~HostGroups() {
    for (MPI_Comm* c : {&node, &host, &leaders}) {
      if (*c != MPI_COMM_NULL) PMPI_Comm_free(c);
    }
  }
};

// Each constructor is collective on its own communicator: every rank agrees after each, so
// that a rank whose call failed never leaves the others waiting in the next one.
absl::Status SplitByHost(MPI_Comm work, int my_host, HostGroups* groups) {
  int rank = 0, host_rank = 0;
  PMPI_Comm_rank(work, &rank);
  RETURN_IF_ERROR(Agree(
      work, MpiStatus("MPI_Comm_split_type", PMPI_Comm_split_type(work, MPI_COMM_TYPE_SHARED, rank,
                                                                  MPI_INFO_NULL, &groups->node))));
  RETURN_IF_ERROR(Agree(work, MpiStatus("MPI_Comm_split", PMPI_Comm_split(groups->node, my_host,
                                                                          rank, &groups->host))));
  PMPI_Comm_rank(groups->host, &host_rank);
  RETURN_IF_ERROR(Agree(
      work, MpiStatus("MPI_Comm_split", PMPI_Comm_split(work, host_rank == 0 ? 0 : MPI_UNDEFINED,
                                                        rank, &groups->leaders))));
  groups->leader = host_rank == 0;
  return absl::OkStatus();
}

// 4. A leader's row of its own host (empty on other ranks), checked against the ticket:
// *fetched, this rank's outcome (OK on other ranks), for the caller to agree on.
CostRow LeaderRow(RowSource& source, const HostListTicket& ticket,
                  const std::vector<std::string>& hosts, int my_host, bool leader, bool with_routes,
                  absl::Status* fetched) {
  const int n = static_cast<int>(hosts.size());
  CostRow row;
  *fetched = absl::OkStatus();
  if (leader) {
    absl::StatusOr<CostRow> r = source.Row(ticket, hosts, my_host, with_routes);
    if (!r.ok()) {
      *fetched = r.status();
    } else if (r->snapshot_id != ticket.snapshot_id) {
      *fetched = absl::AbortedError(
          absl::StrCat("the row of ", hosts[my_host], " came from snapshot ", r->snapshot_id,
                       ", the host list from snapshot ", ticket.snapshot_id, "; not mixing them"));
    } else if (r->values.size() != 2 * static_cast<size_t>(n)) {
      *fetched = absl::DataLossError(absl::StrCat("the row of ", hosts[my_host], " has ",
                                                  r->values.size() / 2, " columns, expected ", n));
    } else {
      row = *std::move(r);
    }
  }
  return row;
}

// 5. Dense form: the leaders allgather their rows into one shared window per host; rank 0
// views them as a RowCostMatrix. On failure the window is freed.
absl::Status ShareRowsPerHost(MPI_Comm work, const HostGroups& groups, int n, int my_host,
                              const CostRow& row, std::unique_ptr<mapping::HostCostMatrix>* matrix,
                              MPI_Win* window) {
  int rank = 0;
  PMPI_Comm_rank(work, &rank);
  float* rows = nullptr;
  std::vector<int32_t> leader_host;
  int num_leaders = 0;
  int rc = MPI_SUCCESS;
  if (groups.leader) rc = PMPI_Comm_size(groups.leaders, &num_leaders);
  if (rc == MPI_SUCCESS) rc = PMPI_Bcast(&num_leaders, 1, MPI_INT, 0, groups.host);
  const MPI_Aint row_bytes = static_cast<MPI_Aint>(2) * n * sizeof(float);
  const MPI_Aint bytes = groups.leader ? row_bytes * num_leaders : 0;
  if (rc == MPI_SUCCESS) {
    rc = PMPI_Win_allocate_shared(bytes, sizeof(float), MPI_INFO_NULL, groups.host, &rows, window);
  }
  if (rc == MPI_SUCCESS && groups.leader) {
    leader_host.resize(num_leaders);
    int32_t mine = my_host;
    rc = PMPI_Allgather(&mine, 1, MPI_INT32_T, leader_host.data(), 1, MPI_INT32_T, groups.leaders);
    if (rc == MPI_SUCCESS) {
      rc = PMPI_Allgather(row.values.data(), 2 * n, MPI_FLOAT, rows, 2 * n, MPI_FLOAT,
                          groups.leaders);
    }
  }
  if (absl::Status s = Agree(work, MpiStatus("row allgather", rc)); !s.ok()) {
    if (*window != MPI_WIN_NULL) PMPI_Win_free(window);
    return s;
  }
  if (rank == 0) {
    std::vector<const float*> host_rows(n, nullptr);
    for (size_t l = leader_host.size(); l-- > 0;) host_rows[leader_host[l]] = rows + 2 * n * l;
    *matrix = std::make_unique<RowCostMatrix>(n, std::move(host_rows));
  }
  return absl::OkStatus();
}

// 5. The routes of the leaders' rows on rank 0 of `work` (`row` null on the ranks that are not
// leaders). *routes stays null, with *why, when a host's source had none.
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
  absl::Status status = MpiStatus("route gather", rc);
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

// The statuses of consecutive steps (each rank's own, in step order) agreed on as one Agree
// after each step would: the earliest step any rank failed, and of that step the lowest
// failing rank's status. One allreduce when every step passed everywhere.
absl::Status AgreeSteps(MPI_Comm work, std::initializer_list<absl::Status> steps) {
  int rank = 0, size = 1;
  PMPI_Comm_rank(work, &rank);
  PMPI_Comm_size(work, &size);
  const absl::Status* failed = nullptr;
  int64_t step = 0;
  for (const absl::Status& s : steps) {
    if (!s.ok()) {
      failed = &s;
      break;
    }
    ++step;
  }
  int64_t mine = failed != nullptr ? step * size + rank : std::numeric_limits<int64_t>::max();
  int64_t first = mine;
  if (int rc = PMPI_Allreduce(&mine, &first, 1, MPI_INT64_T, MPI_MIN, work); rc != MPI_SUCCESS) {
    return absl::InternalError(MpiError("MPI_Allreduce", rc));
  }
  if (first == std::numeric_limits<int64_t>::max()) return absl::OkStatus();
  return Agree(work, mine == first ? *failed : absl::OkStatus());
}

// 4. Per-host groups for a small job: the ranks of each host (split by host) and its leaders,
// without a shared-memory split (no window is made). Each split is called by every rank, a
// rank whose host split failed taking no part in the leaders; the two are agreed on as after
// each.
absl::Status SplitByHostName(MPI_Comm work, int my_host, HostGroups* groups) {
  int rank = 0, host_rank = -1;
  PMPI_Comm_rank(work, &rank);
  const int host_rc = PMPI_Comm_split(work, my_host, rank, &groups->host);
  if (host_rc == MPI_SUCCESS) PMPI_Comm_rank(groups->host, &host_rank);
  const int leaders_rc =
      PMPI_Comm_split(work, host_rank == 0 ? 0 : MPI_UNDEFINED, rank, &groups->leaders);
  groups->leader = host_rank == 0;
  return AgreeSteps(
      work, {MpiStatus("MPI_Comm_split", host_rc), MpiStatus("MPI_Comm_split", leaders_rc)});
}

// 5. Small form: each leader sends its host's index, its row and, with routes, its packed
// routes to rank 0 (leader 0) in one gather among the leaders (a leader whose row failed,
// `fetched`, sends its index alone); rank 0 keeps the rows in *rows and views them as a
// RowCostMatrix. The rows' outcome, then the gather's, agreed on over `work` as one agreement
// after each would.
absl::Status GatherRowsToRankZero(MPI_Comm work, const HostGroups& groups, int n, int my_host,
                                  const CostRow& row, const absl::Status& fetched, bool with_routes,
                                  std::vector<float>* rows,
                                  std::unique_ptr<mapping::HostCostMatrix>* matrix,
                                  std::unique_ptr<mapping::RouteSource>* routes, std::string* why) {
  int rank = 0;
  PMPI_Comm_rank(work, &rank);
  const size_t row_words = 2 * static_cast<size_t>(n);
  int rc = MPI_SUCCESS;
  std::vector<uint32_t> all_routes;
  bool unpack = false;
  if (groups.leader) {
    std::vector<uint32_t> mine(1, static_cast<uint32_t>(my_host));
    if (fetched.ok()) {
      mine.resize(1 + row_words);
      std::memcpy(mine.data() + 1, row.values.data(), row_words * sizeof(float));
      if (with_routes) PackRouteRow(my_host, row.routes, &mine);
    }
    int num_leaders = 0, leader_rank = 0;
    PMPI_Comm_size(groups.leaders, &num_leaders);
    PMPI_Comm_rank(groups.leaders, &leader_rank);
    int count = mine.size() > static_cast<size_t>(std::numeric_limits<int>::max())
                    ? -1
                    : static_cast<int>(mine.size());
    std::vector<int> counts(leader_rank == 0 ? num_leaders : 0), displs(counts.size());
    rc = PMPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, groups.leaders);
    std::vector<uint32_t> all;
    if (leader_rank == 0 && rc == MPI_SUCCESS) {
      int64_t total = 0;
      bool fits = true;
      for (int l = 0; l < num_leaders; ++l) {
        fits = fits && counts[l] >= 0;
        displs[l] = static_cast<int>(std::min<int64_t>(total, std::numeric_limits<int>::max()));
        total += std::max(0, counts[l]);
      }
      if (!fits || total > std::numeric_limits<int>::max()) {
        rc = MPI_ERR_COUNT;  // the other leaders still take part in the Gatherv below
        std::fill(counts.begin(), counts.end(), 0);
      } else {
        all.resize(total);
      }
    }
    const int gathered =
        PMPI_Gatherv(mine.data(), std::max(0, count), MPI_UINT32_T, all.data(), counts.data(),
                     displs.data(), MPI_UINT32_T, 0, groups.leaders);
    if (rc == MPI_SUCCESS) rc = gathered;
    if (rc == MPI_SUCCESS && count < 0) rc = MPI_ERR_COUNT;
    if (leader_rank == 0 && rc == MPI_SUCCESS) {
      // Every host has one leader: the packets name each host once.
      rows->assign(row_words * n, 0.0f);
      std::vector<const float*> host_rows(n, nullptr);
      for (int l = 0; l < num_leaders && rc == MPI_SUCCESS; ++l) {
        const uint32_t* packet = all.data() + displs[l];
        const uint32_t h = packet[0];
        if (counts[l] < static_cast<int>(1 + row_words) || h >= static_cast<uint32_t>(n) ||
            host_rows[h] != nullptr) {
          rc = MPI_ERR_OTHER;
          break;
        }
        float* dst = rows->data() + row_words * h;
        std::memcpy(dst, packet + 1, row_words * sizeof(float));
        host_rows[h] = dst;
        all_routes.insert(all_routes.end(), packet + 1 + row_words, packet + counts[l]);
      }
      for (int h = 0; h < n && rc == MPI_SUCCESS; ++h) {
        if (host_rows[h] == nullptr) rc = MPI_ERR_OTHER;
      }
      if (rc == MPI_SUCCESS) {
        *matrix = std::make_unique<RowCostMatrix>(n, std::move(host_rows));
        unpack = with_routes;
      }
    }
  }
  if (unpack) {
    absl::StatusOr<std::unique_ptr<mapping::TableRoutes>> table = UnpackRoutes(all_routes, n, why);
    if (table.ok()) {
      *routes = *std::move(table);
    } else {  // routes that do not fit: predict without them rather than not at all
      *why = std::string(table.status().message());
    }
  }
  absl::Status status = AgreeSteps(work, {fetched, MpiStatus("row gather", rc)});
  if (!status.ok() && rank == 0) {
    matrix->reset();
    routes->reset();
    rows->clear();
  }
  return status;
}

}  // namespace

absl::Status GatherCosts(MPI_Comm work, RowSource& source, const ClientOptions& options,
                         const JobLayout& layout, Decision* decision, GatheredCosts* costs) {
  int rank = 0;
  PMPI_Comm_rank(work, &rank);
  const int n = static_cast<int>(layout.hosts.size());
  const int my_host = layout.rank_host[rank];

  // 3. The ticket.
  ASSIGN_OR_RETURN(const HostListTicket ticket, ShareTicket(work, source, layout.hosts));
  decision->snapshot_id = ticket.snapshot_id;

  // 4. Per-host groups; each leader fetches its own host's row.
  HostGroups groups;
  const bool to_rank_zero = n <= kRowsToRankZeroMaxHosts && n <= options.compress_above_hosts;
  RETURN_IF_ERROR(to_rank_zero ? SplitByHostName(work, my_host, &groups)
                               : SplitByHost(work, my_host, &groups));
  const bool with_routes = n > 1 && n <= options.routes_max_hosts;
  absl::Status fetched;
  const CostRow row =
      LeaderRow(source, ticket, layout.hosts, my_host, groups.leader, with_routes, &fetched);

  // 5. The rows reach rank 0, then their routes.
  if (to_rank_zero) {
    // The rows' outcome is agreed on with the gather's, as an agreement before it would.
    std::string why;
    RETURN_IF_ERROR(GatherRowsToRankZero(work, groups, n, my_host, row, fetched, with_routes,
                                         &costs->rows, &costs->matrix, &costs->routes, &why));
    decision->cost_form = "rows";
    if (rank == 0 && with_routes && costs->routes == nullptr && options.verbose >= 1) {
      std::fprintf(stderr, "toporr: host links only: %s\n", why.c_str());
    }
  } else {
    RETURN_IF_ERROR(Agree(work, fetched));
    if (n > options.compress_above_hosts) {
      RETURN_IF_ERROR(CompressRows(work, groups.leaders, layout, my_host, row, &costs->matrix));
      decision->cost_form = "groups";
    } else {
      RETURN_IF_ERROR(
          ShareRowsPerHost(work, groups, n, my_host, row, &costs->matrix, &costs->window));
      decision->cost_form = "rows";
    }
  }
  if (with_routes && !to_rank_zero) {
    std::string why;
    if (absl::Status s =
            GatherRoutes(work, groups.leader ? &row : nullptr, my_host, n, &costs->routes, &why);
        !s.ok()) {
      if (costs->window != MPI_WIN_NULL) PMPI_Win_free(&costs->window);
      return s;
    }
    if (rank == 0 && costs->routes == nullptr && options.verbose >= 1) {
      std::fprintf(stderr, "toporr: host links only: %s\n", why.c_str());
    }
  }
  if (rank == 0) decision->contention = costs->routes != nullptr ? "routes" : "host links";
  return absl::OkStatus();
}

}  // namespace toporr::client::mpi

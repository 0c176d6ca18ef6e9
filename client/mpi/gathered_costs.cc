#include "client/mpi/gathered_costs.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "client/costs/daemon_rows.h"
#include "client/costs/row_routes.h"
#include "client/mpi/collective_status.h"
#include "client/mpi/leaf_groups.h"
#include "common/fnv.h"
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

// A leader's packet of the small form: its host's index and outcome, then on success the
// row's snapshot id, the daemon that served it (the low 32 bits of FNV-1a of its address,
// client/costs/daemon_rows.h; 0 for another source), whether its routes were left out (they
// did not fit its block) and the length of its packed routes, then its 2n values and its
// packed routes; on failure the reason's length and bytes. Words of 32 bits, padded to the
// block (SmallBlockWords).
enum PacketWord {
  kPacketHost = 0,
  kPacketCode = 1,
  kPacketSnapshotLow = 2,
  kPacketSnapshotHigh = 3,
  kPacketDaemon = 4,
  kPacketNoRoutes = 5,
  kPacketRouteWords = 6
};
constexpr size_t kPacketHeader = 7;

// Links a route row may hold per destination host in a leader's block: more than any path of
// a fat tree or dragonfly has (each destination's path and the distinct links of the row).
constexpr size_t kBlockRouteLinksPerHost = 16;

// The words of every leader's block: known to every rank from the host count alone, so that
// the gather needs no exchange of sizes first.
size_t SmallBlockWords(int n, bool with_routes) {
  size_t words = kPacketHeader + 2 * static_cast<size_t>(n);
  if (with_routes) words += 5 + static_cast<size_t>(n) * (1 + 2 * kBlockRouteLinksPerHost);
  return std::max(words, kPacketHeader + (kReasonBytes + 3) / 4);
}

std::vector<uint32_t> LeaderPacket(int my_host, const absl::StatusOr<CostRow>& row,
                                   bool with_routes, size_t block_words) {
  std::vector<uint32_t> p(kPacketHeader, 0);
  p[kPacketHost] = static_cast<uint32_t>(my_host);
  if (!row.ok()) {
    const std::string reason(row.status().message().substr(0, kReasonBytes - 1));
    p[kPacketCode] = static_cast<uint32_t>(row.status().code());
    p[kPacketSnapshotLow] = static_cast<uint32_t>(reason.size());
    p.resize(kPacketHeader + (reason.size() + 3) / 4, 0);
    std::memcpy(p.data() + kPacketHeader, reason.data(), reason.size());
    p.resize(block_words, 0);
    return p;
  }
  const uint64_t id = static_cast<uint64_t>(row->snapshot_id);
  p[kPacketSnapshotLow] = static_cast<uint32_t>(id);
  p[kPacketSnapshotHigh] = static_cast<uint32_t>(id >> 32);
  // The leader's Row() was this thread's last daemon call.
  const std::string daemon = LastAnsweringDaemon();
  p[kPacketDaemon] = daemon.empty() ? 0 : static_cast<uint32_t>(Fnv64a(daemon));
  p.resize(kPacketHeader + row->values.size());
  std::memcpy(p.data() + kPacketHeader, row->values.data(), row->values.size() * sizeof(float));
  if (with_routes) {
    const size_t without = p.size();
    PackRouteRow(my_host, row->routes, &p);
    if (p.size() > block_words) {
      p.resize(without);
      p[kPacketNoRoutes] = 1;
    }
    p[kPacketRouteWords] = static_cast<uint32_t>(p.size() - without);
  }
  p.resize(block_words, 0);
  return p;
}

// Rank 0 of the small form: the matrix (and routes) from the leaders' blocks, in rank order,
// or the first failure among them (the lowest failing leader's), a mix of snapshots, or a
// block that does not read.
absl::Status ReadPackets(const std::vector<uint32_t>& all, const std::vector<int>& leaders,
                         size_t block_words, const JobLayout& layout, bool with_routes,
                         int64_t* snapshot_id, GatheredCosts* costs, std::string* why) {
  const int n = static_cast<int>(layout.hosts.size());
  const size_t row_words = 2 * static_cast<size_t>(n);
  costs->rows.assign(row_words * n, 0.0f);
  std::vector<const float*> host_rows(n, nullptr);
  std::vector<uint32_t> all_routes;
  const absl::Status bad = absl::InternalError("row gather: a leader's packet does not read");
  int first_host = -1;
  uint32_t first_daemon = 0;
  int no_routes = -1;
  for (size_t l = 0; l < leaders.size(); ++l) {
    const int r = leaders[l];
    const uint32_t* packet = all.data() + block_words * l;
    const uint32_t h = packet[kPacketHost];
    if (h >= static_cast<uint32_t>(n) || host_rows[h] != nullptr) return bad;
    if (packet[kPacketCode] != 0) {
      const size_t len = std::min<size_t>(packet[kPacketSnapshotLow],
                                          (block_words - kPacketHeader) * sizeof(uint32_t));
      // Named as Agree names a failure: by its rank, unless rank 0 or already named.
      std::string reason(reinterpret_cast<const char*>(packet + kPacketHeader), len);
      if (r != 0 && reason.rfind("rank ", 0) != 0) {
        reason = absl::StrCat("rank ", r, ": ", reason);
      }
      return absl::Status(static_cast<absl::StatusCode>(packet[kPacketCode]), reason);
    }
    const int64_t id = static_cast<int64_t>(
        packet[kPacketSnapshotLow] | (static_cast<uint64_t>(packet[kPacketSnapshotHigh]) << 32));
    if (first_host < 0) {
      first_host = static_cast<int>(h);
      *snapshot_id = id;
      first_daemon = packet[kPacketDaemon];
    } else if (id != *snapshot_id) {
      return absl::AbortedError(absl::StrCat("the row of ", layout.hosts[h], " came from snapshot ",
                                             id, ", the row of ", layout.hosts[first_host],
                                             " from snapshot ", *snapshot_id, "; not mixing them"));
    } else if (packet[kPacketDaemon] != first_daemon) {
      return absl::AbortedError(absl::StrCat("the row of ", layout.hosts[h],
                                             " came from another toporrd than the row of ",
                                             layout.hosts[first_host], "; not mixing them"));
    }
    float* dst = costs->rows.data() + row_words * h;
    std::memcpy(dst, packet + kPacketHeader, row_words * sizeof(float));
    host_rows[h] = dst;
    if (packet[kPacketNoRoutes] != 0 && no_routes < 0) no_routes = static_cast<int>(h);
    if (packet[kPacketRouteWords] > block_words - kPacketHeader - row_words) return bad;
    const uint32_t* routes = packet + kPacketHeader + row_words;
    all_routes.insert(all_routes.end(), routes, routes + packet[kPacketRouteWords]);
  }
  for (int h = 0; h < n; ++h) {
    if (host_rows[h] == nullptr) return bad;
  }
  costs->matrix = std::make_unique<RowCostMatrix>(n, std::move(host_rows));
  if (!with_routes) return absl::OkStatus();
  if (no_routes >= 0) {
    *why = absl::StrCat("the routes of ", layout.hosts[no_routes], " exceed ",
                        kBlockRouteLinksPerHost, " links per host");
    return absl::OkStatus();
  }
  absl::StatusOr<std::unique_ptr<mapping::TableRoutes>> table = UnpackRoutes(all_routes, n, why);
  if (table.ok()) {
    costs->routes = *std::move(table);
  } else {  // routes that do not fit: predict without them rather than not at all
    *why = std::string(table.status().message());
  }
  return absl::OkStatus();
}

// 3..5, small form (jobs of at most kRowsToRankZeroMaxHosts hosts): no ticket, no
// communicator, no exchange of sizes. Every rank knows the leaders from the layout (the
// lowest rank of each host); each leader asks for its own host's row with the job's host
// list in the request (one request per host, all at once), and sends it to rank 0 in one
// gather over `work`, in a block whose size every rank knows. The outcome is rank 0's alone
// (costs->outcome_on_rank0): the caller broadcasts it with the plan.
absl::Status GatherSmall(MPI_Comm work, RowSource& source, const JobLayout& layout,
                         bool with_routes, Decision* decision, GatheredCosts* costs,
                         std::string* why) {
  int rank = 0, size = 1;
  PMPI_Comm_rank(work, &rank);
  PMPI_Comm_size(work, &size);
  costs->outcome_on_rank0 = true;
  const int n = static_cast<int>(layout.hosts.size());
  const int my_host = layout.rank_host[rank];
  const size_t block = SmallBlockWords(n, with_routes);
  // Leaders in rank order: the first rank of each host.
  std::vector<int> leaders;
  std::vector<char> seen(n, 0);
  for (int r = 0; r < size; ++r) {
    if (!seen[layout.rank_host[r]]) {
      seen[layout.rank_host[r]] = 1;
      leaders.push_back(r);
    }
  }
  const bool leader = std::find(leaders.begin(), leaders.end(), rank) != leaders.end();
  if (block * leaders.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
    return absl::InternalError("row gather: the leaders' blocks exceed an MPI count");
  }
  std::vector<uint32_t> mine;
  if (leader) {
    absl::StatusOr<CostRow> row = source.Row(HostListTicket{}, layout.hosts, my_host, with_routes);
    if (row.ok() && row->values.size() != 2 * layout.hosts.size()) {
      row = absl::DataLossError(absl::StrCat("the row of ", layout.hosts[my_host], " has ",
                                             row->values.size() / 2, " columns, expected ",
                                             layout.hosts.size()));
    }
    mine = LeaderPacket(my_host, row, with_routes, block);
  }
  std::vector<int> counts, displs;
  std::vector<uint32_t> all;
  if (rank == 0) {
    counts.assign(size, 0);
    displs.assign(size, 0);
    for (size_t l = 0; l < leaders.size(); ++l) {
      counts[leaders[l]] = static_cast<int>(block);
      displs[leaders[l]] = static_cast<int>(block * l);
    }
    all.resize(block * leaders.size());
  }
  const int rc = PMPI_Gatherv(mine.data(), static_cast<int>(mine.size()), MPI_UINT32_T, all.data(),
                              counts.data(), displs.data(), MPI_UINT32_T, 0, work);
  if (rank != 0) return absl::OkStatus();
  absl::Status read = MpiStatus("row gather", rc);
  if (read.ok()) {
    read =
        ReadPackets(all, leaders, block, layout, with_routes, &decision->snapshot_id, costs, why);
  }
  if (!read.ok()) {
    costs->matrix.reset();
    costs->routes.reset();
    costs->rows.clear();
  }
  return read;
}

}  // namespace

absl::Status GatherCosts(MPI_Comm work, RowSource& source, const ClientOptions& options,
                         const JobLayout& layout, Decision* decision, GatheredCosts* costs) {
  int rank = 0;
  PMPI_Comm_rank(work, &rank);
  const int n = static_cast<int>(layout.hosts.size());
  const int my_host = layout.rank_host[rank];

  const bool with_routes = n > 1 && n <= options.routes_max_hosts;
  if (n <= kRowsToRankZeroMaxHosts && n <= options.compress_above_hosts) {
    std::string why;
    RETURN_IF_ERROR(GatherSmall(work, source, layout, with_routes, decision, costs, &why));
    decision->cost_form = "rows";
    if (rank == 0) decision->contention = costs->routes != nullptr ? "routes" : "host links";
    if (rank == 0 && with_routes && costs->routes == nullptr && options.verbose >= 1) {
      std::fprintf(stderr, "toporr: host links only: %s\n", why.c_str());
    }
    return absl::OkStatus();
  }

  // 3. The ticket.
  ASSIGN_OR_RETURN(const HostListTicket ticket, ShareTicket(work, source, layout.hosts));
  decision->snapshot_id = ticket.snapshot_id;

  // 4. Per-host groups; each leader fetches its own host's row.
  HostGroups groups;
  RETURN_IF_ERROR(SplitByHost(work, my_host, &groups));
  absl::Status fetched;
  const CostRow row =
      LeaderRow(source, ticket, layout.hosts, my_host, groups.leader, with_routes, &fetched);

  // 5. The rows reach rank 0, then their routes.
  RETURN_IF_ERROR(Agree(work, fetched));
  if (n > options.compress_above_hosts) {
    RETURN_IF_ERROR(CompressRows(work, groups.leaders, layout, my_host, row, &costs->matrix));
    decision->cost_form = "groups";
  } else {
    RETURN_IF_ERROR(
        ShareRowsPerHost(work, groups, n, my_host, row, &costs->matrix, &costs->window));
    decision->cost_form = "rows";
  }
  if (with_routes) {
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

#include "client/mpi/decision_steps.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "client/mpi/collective_status.h"
#include "client/plan/launch_files.h"
#include "common/key_value_file.h"
#include "common/status_macros.h"

namespace toporr::client::mpi {
namespace {

// Bytes of a host name carried in GatherRankPlaces' allgather; longer names cost a second one.
constexpr int kInlineHostName = 40;

std::string ShortHostName() {
  char name[256] = {0};
  if (gethostname(name, sizeof(name) - 1) != 0) return "localhost";
  std::string s(name);
  return s.substr(0, s.find('.'));
}

absl::StatusOr<std::string> HostOfThisRank(const ClientOptions& o) {
  if (o.hostmap_path.empty()) return ShortHostName();
  std::string text;
  if (absl::Status read = ReadRegularFile(o.hostmap_path, &text, kHostListFileMaxBytes, "host map");
      !read.ok()) {
    return absl::Status(read.code(), absl::StrCat("TOPORR_HOSTMAP ", read.message()));
  }
  ASSIGN_OR_RETURN(std::vector<std::string> hosts,
                   ParseRankHosts(text, "TOPORR_HOSTMAP " + o.hostmap_path));
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

}  // namespace

absl::Status SameArguments(MPI_Comm work, uint64_t key_hash) {
  bool same = false;
  if (int rc = SameOnEveryRank(work, key_hash, &same); rc != MPI_SUCCESS) {
    return absl::InternalError(MpiError("MPI_Allreduce", rc));
  }
  if (!same) {
    return absl::InvalidArgumentError(
        "ranks called toporr with different arguments (collective, algorithm, root or size)");
  }
  return absl::OkStatus();
}

absl::StatusOr<RankPlaces> GatherRankPlaces(MPI_Comm work, const ClientOptions& options) {
  int size = 1;
  PMPI_Comm_size(work, &size);
  RankPlaces places;
  std::string host;
  absl::Status local = absl::OkStatus();
  if (absl::StatusOr<std::string> h = HostOfThisRank(options); h.ok()) {
    host = *h;
  } else {
    local = h.status();
  }
  if (local.ok()) {
    if (absl::StatusOr<RankBinding> l = ThisRankBinding(); l.ok()) {
      places.mine = *l;
    } else {
      local = l.status();
    }
  }
  // One allgather carries every rank's outcome, location and name (names longer than the
  // inline part follow in an allgatherv); a failure is then agreed on with its reason.
  struct Place {
    int32_t failed;
    int32_t len;
    int32_t loc[4];
    char name[kInlineHostName];
  };
  Place mine = {};
  const mapping::RankLocation& where = places.mine.location;
  mine.failed = local.ok() ? 0 : 1;
  mine.len = static_cast<int32_t>(host.size());
  mine.loc[0] = where.package;
  mine.loc[1] = where.numa;
  mine.loc[2] = where.l3;
  mine.loc[3] = where.core;
  std::memcpy(mine.name, host.data(), std::min(host.size(), sizeof(mine.name)));
  std::vector<Place> all(size);
  if (int rc =
          PMPI_Allgather(&mine, sizeof(Place), MPI_BYTE, all.data(), sizeof(Place), MPI_BYTE, work);
      rc != MPI_SUCCESS) {
    return absl::InternalError(MpiError("MPI_Allgather", rc));
  }
  bool failed = false, long_names = false;
  for (const Place& p : all) {
    failed = failed || p.failed;
    long_names = long_names || p.len > kInlineHostName;
  }
  if (failed) {
    RETURN_IF_ERROR(Agree(work, local));
    return absl::InternalError("the ranks' outcomes disagree");  // Agree saw the failure
  }
  places.hosts.resize(size);
  places.bound.resize(size);
  std::string names;
  std::vector<int> lens(size), displs(size);
  if (long_names) {
    int total = 0;
    for (int r = 0; r < size; ++r) {
      lens[r] = all[r].len;
      displs[r] = total;
      total += lens[r];
    }
    names.assign(static_cast<size_t>(total), '\0');
    if (int rc = PMPI_Allgatherv(host.data(), mine.len, MPI_CHAR, names.data(), lens.data(),
                                 displs.data(), MPI_CHAR, work);
        rc != MPI_SUCCESS) {
      return absl::InternalError(MpiError("MPI_Allgather", rc));
    }
  }
  for (int r = 0; r < size; ++r) {
    const Place& p = all[r];
    places.hosts[r] = long_names ? names.substr(displs[r], lens[r]) : std::string(p.name, p.len);
    places.bound[r] = {0, p.loc[0], p.loc[1], p.loc[2], p.loc[3]};
  }
  return places;
}

absl::StatusOr<PlannedOrder> SharePlan(MPI_Comm work, absl::StatusOr<PlannedOrder> planned) {
  int rank = 0, size = 1;
  PMPI_Comm_rank(work, &rank);
  PMPI_Comm_size(work, &size);
  struct Result {
    int code;               // absl::StatusCode: 0, the plan follows
    int multilevel_values;  // length of the multi-level plan that follows (0: none)
    int library_order;      // 1: the library's order follows
    int64_t snapshot_id;
    double before_ns, after_ns;
    char chosen[64];
    char reason[kReasonBytes];
  };
  // The outcome and, after it, the order: one broadcast.
  const size_t order_bytes = sizeof(int32_t) * static_cast<size_t>(size);
  std::vector<char> message(sizeof(Result) + order_bytes, '\0');
  Result result = {};
  PlannedOrder shared;
  shared.order.resize(size);
  if (rank == 0) {
    if (planned.ok() && planned->order.size() != static_cast<size_t>(size)) {
      planned = absl::InternalError("planning failed: an order of the wrong size");
    }
    if (planned.ok()) {
      result.snapshot_id = planned->snapshot_id;
      result.before_ns = planned->before_ns;
      result.after_ns = planned->after_ns;
      std::snprintf(result.chosen, sizeof(result.chosen), "%s", planned->chosen.c_str());
      std::memcpy(message.data() + sizeof(Result), planned->order.data(), order_bytes);
      shared.multilevel = std::move(planned->multilevel);
      result.multilevel_values = static_cast<int>(shared.multilevel.size());
      if (planned->library_order.size() == static_cast<size_t>(size)) {
        shared.library_order = std::move(planned->library_order);
        result.library_order = 1;
      }
    } else {
      result.code = static_cast<int>(planned.status().code());
      CopyReason(std::string(planned.status().message()), result.reason);
    }
    std::memcpy(message.data(), &result, sizeof(Result));
  }
  int rc = message.size() > static_cast<size_t>(std::numeric_limits<int>::max())
               ? MPI_ERR_COUNT
               : PMPI_Bcast(message.data(), static_cast<int>(message.size()), MPI_BYTE, 0, work);
  if (rc == MPI_SUCCESS) {
    std::memcpy(&result, message.data(), sizeof(Result));
    if (result.code == 0) {
      std::memcpy(shared.order.data(), message.data() + sizeof(Result), order_bytes);
    }
  }
  if (rc == MPI_SUCCESS && result.code == 0 && result.multilevel_values > 0) {
    shared.multilevel.resize(result.multilevel_values);
    rc = PMPI_Bcast(shared.multilevel.data(), result.multilevel_values, MPI_INT32_T, 0, work);
  }
  if (rc == MPI_SUCCESS && result.code == 0 && result.library_order) {
    shared.library_order.resize(size);
    rc = PMPI_Bcast(shared.library_order.data(), size, MPI_INT32_T, 0, work);
  }
  if (rc != MPI_SUCCESS) return absl::InternalError(MpiError("MPI_Bcast", rc));
  if (result.code != 0) {
    result.reason[kReasonBytes - 1] = '\0';
    return absl::Status(static_cast<absl::StatusCode>(result.code), result.reason);
  }
  result.chosen[sizeof(result.chosen) - 1] = '\0';
  shared.chosen = result.chosen;
  shared.snapshot_id = result.snapshot_id;
  shared.before_ns = result.before_ns;
  shared.after_ns = result.after_ns;
  return shared;
}

}  // namespace toporr::client::mpi

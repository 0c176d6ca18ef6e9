#include "client/mpi/decision_steps.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "client/mpi/collective_status.h"
#include "client/plan/launch_files.h"
#include "common/key_value_file.h"
#include "common/status_macros.h"

namespace toporr::client::mpi {
namespace {

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
  {
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
    RETURN_IF_ERROR(Agree(work, local));
  }
  places.hosts.resize(size);
  places.bound.resize(size);
  int len = static_cast<int>(host.size());
  std::vector<int> lens(size), displs(size);
  const mapping::RankLocation& where = places.mine.location;
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
    places.hosts[r] = all.substr(displs[r], lens[r]);
    places.bound[r] = {0, locs[4 * r], locs[4 * r + 1], locs[4 * r + 2], locs[4 * r + 3]};
  }
  return places;
}

absl::StatusOr<PlannedOrder> SharePlan(MPI_Comm work, absl::StatusOr<PlannedOrder> planned) {
  int rank = 0, size = 1;
  PMPI_Comm_rank(work, &rank);
  PMPI_Comm_size(work, &size);
  struct {
    int ok;
    int multilevel_values;  // length of the multi-level plan that follows (0: none)
    int library_order;      // 1: the library's order follows
    double before_ns, after_ns;
    char chosen[64];
    char reason[kReasonBytes];
  } result = {};
  PlannedOrder shared;
  shared.order.resize(size);
  if (rank == 0) {
    if (planned.ok() && planned->order.size() != static_cast<size_t>(size)) {
      planned = absl::InternalError("planner returned an order of the wrong size");
    }
    if (planned.ok()) {
      result.ok = 1;
      result.before_ns = planned->before_ns;
      result.after_ns = planned->after_ns;
      std::snprintf(result.chosen, sizeof(result.chosen), "%s", planned->chosen.c_str());
      shared.order = std::move(planned->order);
      shared.multilevel = std::move(planned->multilevel);
      result.multilevel_values = static_cast<int>(shared.multilevel.size());
      if (planned->library_order.size() == static_cast<size_t>(size)) {
        shared.library_order = std::move(planned->library_order);
        result.library_order = 1;
      }
    } else {
      CopyReason(absl::StrCat("planning failed: ", planned.status().message()), result.reason);
    }
  }
  int rc = PMPI_Bcast(&result, sizeof(result), MPI_BYTE, 0, work);
  if (rc == MPI_SUCCESS && result.ok) {
    rc = PMPI_Bcast(shared.order.data(), size, MPI_INT32_T, 0, work);
  }
  if (rc == MPI_SUCCESS && result.ok && result.multilevel_values > 0) {
    shared.multilevel.resize(result.multilevel_values);
    rc = PMPI_Bcast(shared.multilevel.data(), result.multilevel_values, MPI_INT32_T, 0, work);
  }
  if (rc == MPI_SUCCESS && result.ok && result.library_order) {
    shared.library_order.resize(size);
    rc = PMPI_Bcast(shared.library_order.data(), size, MPI_INT32_T, 0, work);
  }
  if (rc != MPI_SUCCESS) return absl::InternalError(MpiError("MPI_Bcast", rc));
  if (!result.ok) {
    result.reason[kReasonBytes - 1] = '\0';
    return absl::InternalError(result.reason);
  }
  result.chosen[sizeof(result.chosen) - 1] = '\0';
  shared.chosen = result.chosen;
  shared.before_ns = result.before_ns;
  shared.after_ns = result.after_ns;
  return shared;
}

}  // namespace toporr::client::mpi

#include "probe/hwloc_ranks.h"

#include <sched.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "client/plan/node_topology.h"
#include "collectors/hwloc_topology.h"
#include "common/printable.h"
#include "common/status_macros.h"
#include "probe/hwloc_check.h"

namespace toporr::probe {

namespace {

// Bytes of one rank's reason for failing, gathered on rank 0.
constexpr int kReasonBytes = 200;

absl::StatusOr<mapping::RankLocation> LocateThisRank() {
  ASSIGN_OR_RETURN(std::unique_ptr<collectors::HwlocTopology> topology,
                   collectors::HwlocTopology::Create({}));
  ASSIGN_OR_RETURN(collectors::PuLocation pu, topology->LocateThisProcess());
  if (pu.core < 0) {  // not bound to one core: where it runs now
    const int cpu = sched_getcpu();
    if (cpu < 0) return absl::UnavailableError("sched_getcpu failed");
    ASSIGN_OR_RETURN(pu, topology->LocatePu(static_cast<unsigned>(cpu), collectors::PuIndex::kOs));
  }
  return client::ToRankLocation(pu);
}

}  // namespace

absl::Status LocateRanks(MPI_Comm comm, collectors::PlogpProbe* probe) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const absl::StatusOr<mapping::RankLocation> located = LocateThisRank();
  // ok, package, numa, l3, core
  int mine[5] = {located.ok() ? 1 : 0, -1, -1, -1, -1};
  char reason[kReasonBytes] = {0};
  if (located.ok()) {
    mine[1] = located->package;
    mine[2] = located->numa;
    mine[3] = located->l3;
    mine[4] = located->core;
  } else {
    std::snprintf(reason, sizeof(reason), "%s", std::string(located.status().message()).c_str());
  }
  std::vector<int> all(rank == 0 ? 5 * size : 1);
  std::vector<char> reasons(rank == 0 ? static_cast<size_t>(kReasonBytes) * size : 1);
  MPI_Gather(mine, 5, MPI_INT, all.data(), 5, MPI_INT, 0, comm);
  MPI_Gather(reason, kReasonBytes, MPI_CHAR, reasons.data(), kReasonBytes, MPI_CHAR, 0, comm);
  if (rank != 0) return absl::OkStatus();
  if (probe->ranks.size() != static_cast<size_t>(size)) {
    return absl::InternalError(
        absl::StrCat("probe of ", probe->ranks.size(), " ranks on ", size, " processes"));
  }
  for (int r = 0; r < size; ++r) {
    if (all[5 * r] == 0) {
      const char* why = &reasons[static_cast<size_t>(r) * kReasonBytes];
      return absl::UnavailableError(
          absl::StrCat("rank ", r, ": ", std::string(why, strnlen(why, kReasonBytes - 1))));
    }
  }
  for (int r = 0; r < size; ++r) {
    const int* v = &all[5 * r];
    probe->ranks[r].hwloc = collectors::PlogpHwloc{v[1], v[2], v[3], v[4]};
  }
  return absl::OkStatus();
}

collectors::PlogpHwlocCheck HwlocVerdict(const collectors::PlogpProbe& probe,
                                         const absl::Status& located) {
  if (located.ok()) return CheckAgainstHwloc(probe);
  collectors::PlogpHwlocCheck check;
  check.verdict = "unknown";
  // Printable: the reason comes from the OS and hwloc; probe.json's reader refuses others.
  check.detail = absl::StrCat("hwloc could not locate the ranks: ",
                              Printable(std::string(located.message()), 600));
  return check;
}

}  // namespace toporr::probe

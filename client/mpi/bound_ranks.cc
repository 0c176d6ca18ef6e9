#include "client/mpi/bound_ranks.h"

#include <sched.h>
#include <unistd.h>

#include <memory>

#include "absl/strings/str_cat.h"
#include "client/mpi/collective_status.h"
#include "client/plan/node_topology.h"
#include "collectors/hwloc_topology.h"

namespace toporr::client::mpi {
namespace {

// This machine's topology and its intra-host model, loaded on first use.
struct ThisMachine {
  absl::StatusOr<std::unique_ptr<collectors::HwlocTopology>> topology;
  // NodeTopologyOf's; the stock model when the distances give no ratio (a 0 in a matrix):
  // a job still gets its ranks' real locations.
  mapping::IntraHostModel intra;

  ThisMachine() : topology(collectors::HwlocTopology::Create({})) {
    if (!topology.ok()) return;
    if (absl::StatusOr<NodeTopology> node = NodeTopologyOf(**topology); node.ok()) {
      intra = node->intra;
    }
  }
};

}  // namespace

absl::StatusOr<RankBinding> ThisRankBinding() {
  cpu_set_t set;
  CPU_ZERO(&set);
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  if (sched_getaffinity(0, sizeof(set), &set) != 0 || CPU_COUNT(&set) >= online) {
    return RankBinding{};
  }
  static const ThisMachine* machine = new ThisMachine;
  if (!machine->topology.ok()) {
    return absl::UnavailableError(absl::StrCat("hwloc: ", machine->topology.status().message()));
  }
  absl::StatusOr<collectors::PuLocation> pu = (*machine->topology)->LocateThisProcess();
  if (!pu.ok()) return absl::UnavailableError(absl::StrCat("hwloc: ", pu.status().message()));
  RankBinding binding;
  binding.location = ToRankLocation(*pu);
  if (binding.location.core >= 0) binding.intra = machine->intra;
  return binding;
}

absl::StatusOr<mapping::IntraHostModel> JobIntraHostModel(
    MPI_Comm comm, const std::vector<mapping::RankLocation>& bound, const RankBinding& mine) {
  mapping::IntraHostModel model = mine.intra;
  for (int r = 0; r < static_cast<int>(bound.size()); ++r) {
    if (bound[r].core < 0) continue;
    double values[2 * mapping::kNumLocalityLevels];
    for (int l = 0; l < mapping::kNumLocalityLevels; ++l) {
      values[l] = model.latency_ns[l];
      values[mapping::kNumLocalityLevels + l] = model.gbps[l];
    }
    if (int rc = PMPI_Bcast(values, 2 * mapping::kNumLocalityLevels, MPI_DOUBLE, r, comm);
        rc != MPI_SUCCESS) {
      return absl::InternalError(MpiError("MPI_Bcast", rc));
    }
    for (int l = 0; l < mapping::kNumLocalityLevels; ++l) {
      model.latency_ns[l] = values[l];
      model.gbps[l] = values[mapping::kNumLocalityLevels + l];
    }
    return model;
  }
  return mapping::IntraHostModel{};
}

}  // namespace toporr::client::mpi

#include "client/plan/node_topology.h"

#include <array>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace toporr::client {

using collectors::HwlocTopology;
using collectors::NumaDistanceMatrix;
using mapping::IntraHostModel;
using mapping::LocalityLevel;
using mapping::RankLocation;

RankLocation ToRankLocation(const collectors::PuLocation& location, int32_t host) {
  RankLocation r;
  r.host = host;
  r.package = location.package;
  r.numa = location.numa;
  r.l3 = location.l3;
  r.core = location.core;
  return r;
}

std::vector<RankLocation> CoreSlots(const HwlocTopology& topology) {
  std::vector<RankLocation> slots;
  for (const collectors::PuLocation& location : collectors::CoreLocations(topology)) {
    slots.push_back(ToRankLocation(location));
  }
  return slots;
}

namespace {

// Means of one matrix over the CPU NUMA nodes, split as IntraHostModelFromHwloc documents.
struct NumaMeans {
  double local = 0, same_package = 0, other_package = 0;
  int local_n = 0, same_n = 0, other_n = 0;
};

absl::StatusOr<NumaMeans> MeansOf(const NumaDistanceMatrix& m,
                                  const std::vector<int32_t>& cpu_numa_package) {
  // cpu_numa_package[numa logical index] = package logical index (-1 unknown), or -2 when
  // the node is not a CPU NUMA node.
  auto package_of = [&](int32_t numa) {
    return numa >= 0 && numa < static_cast<int32_t>(cpu_numa_package.size())
               ? cpu_numa_package[numa]
               : -2;
  };
  NumaMeans means;
  for (int i = 0; i < m.size(); ++i) {
    int32_t pi = package_of(m.numa[i]);
    if (pi == -2) continue;
    for (int j = 0; j < m.size(); ++j) {
      int32_t pj = package_of(m.numa[j]);
      if (pj == -2) continue;
      uint64_t v = m.At(i, j);
      if (v == 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("hwloc NUMA ", m.means_bandwidth ? "bandwidth" : "latency", " matrix '",
                         m.name, "' has 0 from NUMA L#", m.numa[i], " to NUMA L#", m.numa[j],
                         "; a ratio to the local distance needs non-zero values"));
      }
      if (i == j) {
        means.local += v;
        ++means.local_n;
      } else if (pi >= 0 && pi == pj) {
        means.same_package += v;
        ++means.same_n;
      } else {
        means.other_package += v;
        ++means.other_n;
      }
    }
  }
  if (means.local_n > 0) means.local /= means.local_n;
  if (means.same_n > 0) means.same_package /= means.same_n;
  if (means.other_n > 0) means.other_package /= means.other_n;
  return means;
}

// Rescales `values[kSamePackage]` and `values[kOtherPackage]` from values[kSameNuma].
void Rescale(const NumaMeans& means, std::array<double, mapping::kNumLocalityLevels>& values) {
  const double base = values[static_cast<int>(LocalityLevel::kSameNuma)];
  if (means.same_n > 0) {
    values[static_cast<int>(LocalityLevel::kSamePackage)] = base * means.same_package / means.local;
  }
  if (means.other_n > 0) {
    values[static_cast<int>(LocalityLevel::kOtherPackage)] =
        base * means.other_package / means.local;
  }
}

}  // namespace

absl::StatusOr<IntraHostModel> IntraHostModelFromHwloc(const HwlocTopology& topology,
                                                       const IntraHostModel& defaults) {
  ASSIGN_OR_RETURN(std::vector<NumaDistanceMatrix> matrices, topology.NumaDistanceMatrices());
  const std::vector<int32_t> cpu_numa_package = topology.CpuNumaPackages();

  IntraHostModel model = defaults;
  for (bool bandwidth : {false, true}) {
    const NumaDistanceMatrix* chosen = nullptr;
    NumaMeans chosen_means;
    for (bool from_os : {false, true}) {
      for (const NumaDistanceMatrix& m : matrices) {
        if (chosen != nullptr) break;
        if (m.means_bandwidth != bandwidth || m.from_os != from_os) continue;
        ASSIGN_OR_RETURN(NumaMeans means, MeansOf(m, cpu_numa_package));
        if (means.local_n > 0 && means.same_n + means.other_n > 0) {
          chosen = &m;
          chosen_means = means;
        }
      }
    }
    if (chosen == nullptr) continue;
    Rescale(chosen_means, bandwidth ? model.gbps : model.latency_ns);
  }
  return model;
}

absl::StatusOr<NodeTopology> NodeTopologyOf(const HwlocTopology& topology) {
  NodeTopology node;
  node.core_slots = CoreSlots(topology);
  ASSIGN_OR_RETURN(node.intra, IntraHostModelFromHwloc(topology));
  return node;
}

}  // namespace toporr::client

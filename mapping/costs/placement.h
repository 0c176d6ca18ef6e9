// Where each rank of a communicator runs, and how far apart two ranks are inside one host.
//
// A `Placement` lists, for each rank r in 0..P-1, the host it runs on (an index into the
// job's host list, the same list the host cost matrix is indexed by) and its hwloc location
// inside that host. Rank-to-rank cost is then:
//   - different hosts: the host cost (alpha, beta) from a HostCostMatrix (cost_matrix.h);
//   - same host: the `IntraHostModel` level of the deepest hwloc object both share.
// Smaller is closer everywhere. A mapping (reorder result) is a permutation over slots:
// new rank i runs where old rank mapping[i] ran.
#ifndef TOPORR_MAPPING_COSTS_PLACEMENT_H_
#define TOPORR_MAPPING_COSTS_PLACEMENT_H_

#include <array>
#include <cstdint>
#include <vector>

namespace toporr::mapping {

// Sharing levels inside one host, closest first. The order is the contract.
enum class LocalityLevel : uint8_t {
  kSameCore = 0,      // hyperthreads of one core (or oversubscribed onto one core)
  kSameL3 = 1,        // different cores under one L3 cache
  kSameNuma = 2,      // one NUMA node, different L3
  kSamePackage = 3,   // one package (socket), different NUMA nodes
  kOtherPackage = 4,  // same host, different packages
};
constexpr int kNumLocalityLevels = 5;

// Location of one rank. Ids are host-local hwloc logical indexes; -1 means "unknown",
// which compares unequal to everything (so unknown locations cost kOtherPackage).
struct RankLocation {
  int32_t host = 0;
  int32_t package = -1;
  int32_t numa = -1;
  int32_t l3 = -1;
  int32_t core = -1;
};

struct Placement {
  std::vector<RankLocation> ranks;  // index = rank
  int32_t num_hosts = 0;            // hosts are 0..num_hosts-1

  int size() const { return static_cast<int>(ranks.size()); }
};

// Level shared by two ranks on the same host (precondition: a.host == b.host).
LocalityLevel SharedLevel(const RankLocation& a, const RankLocation& b);

// Point-to-point cost inside a host per level: time(m) = latency_ns + m / (gbps / 8) ns.
// Defaults are typical of a 2-socket x86 node with shared-memory transport (vader/sm,
// single-copy): orders of magnitude, overridable from configuration or hwloc distances
// (client/plan/node_topology.h). They keep every intra-host level at most as dear as a host
// on the same leaf switch (~1 us, HDR 200 Gb/s; mapping/costs/host_costs.h), as on real nodes:
// crossing sockets is slower than staying on one, never slower than the network.
struct IntraHostModel {
  std::array<double, kNumLocalityLevels> latency_ns = {150, 250, 350, 450, 600};
  std::array<double, kNumLocalityLevels> gbps = {200, 160, 140, 120, 100};

  double LatencyNs(LocalityLevel l) const { return latency_ns[static_cast<int>(l)]; }
  // ns per byte.
  double BetaNs(LocalityLevel l) const { return 8.0 / gbps[static_cast<int>(l)]; }
};

// `ranks_per_host` consecutive ranks per host ("--map-by core"), cores numbered in order,
// `cores_per_l3`, `l3_per_numa`, `numa_per_package` describe each host. For tests/benches.
Placement BlockPlacement(int num_hosts, int ranks_per_host, int cores_per_l3 = 8,
                         int l3_per_numa = 1, int numa_per_package = 2);
// Round-robin over hosts ("--map-by node"): rank r on host r % num_hosts.
Placement RoundRobinPlacement(int num_hosts, int ranks_per_host, int cores_per_l3 = 8,
                              int l3_per_numa = 1, int numa_per_package = 2);

}  // namespace toporr::mapping

#endif  // TOPORR_MAPPING_COSTS_PLACEMENT_H_

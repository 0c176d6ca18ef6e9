#include "mapping/costs/placement.h"

#include <cstddef>

namespace toporr::mapping {

LocalityLevel SharedLevel(const RankLocation& a, const RankLocation& b) {
  auto same = [](int32_t x, int32_t y) { return x >= 0 && x == y; };
  if (same(a.core, b.core)) return LocalityLevel::kSameCore;
  if (same(a.l3, b.l3)) return LocalityLevel::kSameL3;
  if (same(a.numa, b.numa)) return LocalityLevel::kSameNuma;
  if (same(a.package, b.package)) return LocalityLevel::kSamePackage;
  return LocalityLevel::kOtherPackage;
}

namespace {
RankLocation LocalSlot(int host, int local, int cores_per_l3, int l3_per_numa,
                       int numa_per_package) {
  RankLocation loc;
  loc.host = host;
  loc.core = local;
  loc.l3 = local / cores_per_l3;
  loc.numa = loc.l3 / l3_per_numa;
  loc.package = loc.numa / numa_per_package;
  return loc;
}
}  // namespace

Placement BlockPlacement(int num_hosts, int ranks_per_host, int cores_per_l3, int l3_per_numa,
                         int numa_per_package) {
  Placement p;
  p.num_hosts = num_hosts;
  p.ranks.reserve(static_cast<size_t>(num_hosts) * ranks_per_host);
  for (int h = 0; h < num_hosts; ++h)
    for (int i = 0; i < ranks_per_host; ++i)
      p.ranks.push_back(LocalSlot(h, i, cores_per_l3, l3_per_numa, numa_per_package));
  return p;
}

Placement RoundRobinPlacement(int num_hosts, int ranks_per_host, int cores_per_l3, int l3_per_numa,
                              int numa_per_package) {
  Placement p;
  p.num_hosts = num_hosts;
  p.ranks.reserve(static_cast<size_t>(num_hosts) * ranks_per_host);
  for (int i = 0; i < ranks_per_host; ++i)
    for (int h = 0; h < num_hosts; ++h)
      p.ranks.push_back(LocalSlot(h, i, cores_per_l3, l3_per_numa, numa_per_package));
  return p;
}

}  // namespace toporr::mapping

// Test helpers over the golden hwloc topologies in collectors/testdata/hwloc/ (files named by
// machine shape, see generate.sh), shared by the probe's tests and client/node_topology's.
#ifndef TOPORR_COLLECTORS_HWLOC_GOLDEN_H_
#define TOPORR_COLLECTORS_HWLOC_GOLDEN_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "collectors/hwloc_topology.h"

namespace toporr::collectors {

// Where the golden files are, relative to the test's working directory (the runfiles root).
inline constexpr char kHwlocGoldenDir[] = "collectors/testdata/hwloc/";

// Loads a topology; a failure is a test failure (EXPECT) and yields nullptr.
std::unique_ptr<HwlocTopology> LoadHwloc(HwlocSource source);
// LoadHwloc of the golden file `name` (e.g. "2pack-2numa-2l3-8core.xml").
std::unique_ptr<HwlocTopology> LoadHwlocGolden(const std::string& name);

// {package, numa, l3, core}: the four ids a golden test asserts (PuLocation or RankLocation).
template <typename Location>
std::vector<int32_t> LocationIds(const Location& l) {
  return {l.package, l.numa, l.l3, l.core};
}

}  // namespace toporr::collectors

#endif  // TOPORR_COLLECTORS_HWLOC_GOLDEN_H_

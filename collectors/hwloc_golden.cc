#include "collectors/hwloc_golden.h"

#include <utility>

#include "common/status_matchers.h"
#include "gtest/gtest.h"

namespace toporr::collectors {

std::unique_ptr<HwlocTopology> LoadHwloc(HwlocSource source) {
  auto topology = HwlocTopology::Create({std::move(source)});
  EXPECT_OK(topology.status());
  return topology.ok() ? std::move(*topology) : nullptr;
}

std::unique_ptr<HwlocTopology> LoadHwlocGolden(const std::string& name) {
  return LoadHwloc(HwlocSource::XmlFile(kHwlocGoldenDir + name));
}

}  // namespace toporr::collectors

#include "probe/hwloc_check.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::probe {
namespace {

using collectors::PlogpHwloc;
using collectors::PlogpLevel;
using collectors::PlogpProbe;
using ::testing::HasSubstr;

PlogpLevel Level(std::string name, std::vector<int32_t> group) {
  PlogpLevel l;
  l.name = std::move(name);
  int32_t k = 0;
  for (int32_t g : group) k = std::max(k, g + 1);
  l.group = std::move(group);
  l.num_groups = k;
  return l;
}

// 2 hosts x 4 ranks; on each host ranks 0-1 on package 0 (L3 0), 2-3 on package 1 (L3 1).
PlogpProbe TwoPackages(std::vector<PlogpLevel> levels) {
  PlogpProbe p;
  p.hosts = {"n0", "n1"};
  for (int r = 0; r < 8; ++r) {
    const int32_t local = r % 4, package = local / 2;
    p.ranks.push_back({p.hosts[r / 4], local, PlogpHwloc{package, package, package, local}});
  }
  p.rank_levels = std::move(levels);
  return p;
}

TEST(HwlocCheckTest, TwoPackagesMeasuredAsSockets) {
  const auto check = CheckAgainstHwloc(TwoPackages(
      {Level("rank", {0, 1, 2, 3, 4, 5, 6, 7}), Level("socket", {0, 0, 1, 1, 2, 2, 3, 3}),
       Level("host", {0, 0, 0, 0, 1, 1, 1, 1}), Level("top", {0, 0, 0, 0, 0, 0, 0, 0})}));
  EXPECT_EQ(check.verdict, "match") << check.detail;
  ASSERT_EQ(check.comparisons.size(), 2u);
  for (const auto& c : check.comparisons) {
    EXPECT_EQ(c.measured, "socket");
    EXPECT_EQ(c.ari, 1.0);
    EXPECT_EQ(c.groups, 4);
  }
  EXPECT_EQ(check.comparisons[0].hwloc, "package");
  EXPECT_EQ(check.comparisons[1].hwloc, "l3");
}

TEST(HwlocCheckTest, TwoPackagesMeasuredOtherwise) {
  // The measured level pairs ranks across packages (0 with 2, 1 with 3).
  const auto check = CheckAgainstHwloc(TwoPackages({Level("rank", {0, 1, 2, 3, 4, 5, 6, 7}),
                                                    Level("socket", {0, 1, 0, 1, 2, 3, 2, 3}),
                                                    Level("host", {0, 0, 0, 0, 1, 1, 1, 1})}));
  EXPECT_EQ(check.verdict, "mismatch");
  EXPECT_THAT(check.detail, HasSubstr("hwloc packages (4 groups) not measured"));
  EXPECT_LT(check.comparisons[0].ari, 1.0);
  // No level measured inside the hosts: the packages are not seen either.
  const auto flat = CheckAgainstHwloc(TwoPackages(
      {Level("rank", {0, 1, 2, 3, 4, 5, 6, 7}), Level("host", {0, 0, 0, 0, 1, 1, 1, 1})}));
  EXPECT_EQ(flat.verdict, "mismatch");
  EXPECT_THAT(flat.detail, HasSubstr("closest: host"));
}

TEST(HwlocCheckTest, OnePackageNothingToDetect) {
  PlogpProbe p;
  p.hosts = {"vm"};
  for (int r = 0; r < 2; ++r) p.ranks.push_back({"vm", r, PlogpHwloc{0, 0, 0, r}});
  p.rank_levels = {Level("rank", {0, 1}), Level("host", {0, 0})};
  auto check = CheckAgainstHwloc(p);
  EXPECT_EQ(check.verdict, "nothing_to_detect");
  EXPECT_THAT(check.detail, HasSubstr("one package and one L3 per host"));
  ASSERT_EQ(check.comparisons.size(), 2u);
  EXPECT_EQ(check.comparisons[0].measured, "host");
  EXPECT_EQ(check.comparisons[0].groups, 1);
  // A level between rank and host on that machine is not hwloc's.
  p.ranks.push_back({"vm", 2, PlogpHwloc{0, 0, 0, 2}});
  p.ranks.push_back({"vm", 3, PlogpHwloc{0, 0, 0, 3}});
  p.rank_levels = {Level("rank", {0, 1, 2, 3}), Level("intra1", {0, 0, 1, 1}),
                   Level("host", {0, 0, 0, 0})};
  check = CheckAgainstHwloc(p);
  EXPECT_EQ(check.verdict, "mismatch");
  EXPECT_THAT(check.detail, HasSubstr("measured level intra1 between rank and host"));
}

TEST(HwlocCheckTest, UnknownWithoutLocationsOrHostLevel) {
  PlogpProbe p = TwoPackages(
      {Level("rank", {0, 1, 2, 3, 4, 5, 6, 7}), Level("host", {0, 0, 0, 0, 1, 1, 1, 1})});
  p.ranks[5].hwloc.reset();
  EXPECT_EQ(CheckAgainstHwloc(p).verdict, "unknown");
  EXPECT_THAT(CheckAgainstHwloc(p).detail, HasSubstr("rank 5"));
  // Unbound ranks on a 2-package machine: package and L3 are -1.
  p = TwoPackages(
      {Level("rank", {0, 1, 2, 3, 4, 5, 6, 7}), Level("host", {0, 0, 0, 0, 1, 1, 1, 1})});
  for (auto& r : p.ranks) r.hwloc = PlogpHwloc{-1, -1, -1, -1};
  EXPECT_EQ(CheckAgainstHwloc(p).verdict, "unknown");
  EXPECT_THAT(CheckAgainstHwloc(p).detail, HasSubstr("not known for every rank"));
  // Ranks of one host farther apart than ranks of two: no host level.
  p = TwoPackages({Level("rank", {0, 1, 2, 3, 4, 5, 6, 7}),
                   Level("level1", {0, 1, 0, 1, 0, 1, 0, 1}),
                   Level("top", {0, 0, 0, 0, 0, 0, 0, 0})});
  EXPECT_EQ(CheckAgainstHwloc(p).verdict, "unknown");
}

}  // namespace
}  // namespace toporr::probe

#include "client/plan/node_topology.h"

#include <sched.h>

#include <filesystem>
#include <string>
#include <vector>

#include "collectors/hwloc_golden.h"
#include "common/status_matchers.h"
#include "common/test_data.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::client {
namespace {

using collectors::HwlocSource;
using collectors::HwlocTopology;
using collectors::kHwlocGoldenDir;
using collectors::LoadHwloc;
using collectors::LoadHwlocGolden;
using collectors::LocationIds;
using collectors::NumaDistanceMatrix;
using collectors::PuIndex;
using mapping::IntraHostModel;
using mapping::LocalityLevel;
using mapping::RankLocation;
using mapping::SharedLevel;
using ::testing::_;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::SizeIs;
using ::toporr::testing::ReadFileOrDie;
using ::toporr::testing::StatusIs;

RankLocation Os(const HwlocTopology& t, unsigned pu) {
  auto location = t.LocatePu(pu, PuIndex::kOs);
  EXPECT_OK(location.status()) << "P#" << pu;
  return location.ok() ? ToRankLocation(*location) : RankLocation();
}

LocalityLevel Shared(const HwlocTopology& t, unsigned pu_a, unsigned pu_b) {
  return SharedLevel(Os(t, pu_a), Os(t, pu_b));
}

IntraHostModel Pinned() {
  IntraHostModel m;
  m.latency_ns = {150, 250, 400, 600, 900};
  m.gbps = {200, 160, 120, 100, 60};
  return m;
}

// The probe knows no host list: its locations become RankLocations on host 0.
TEST(Hwloc2Pack4Numa4L3Smt2, LocationsAreOnHostZero) {
  auto t = LoadHwlocGolden("2pack-4numa-4l3-16core-smt2-slit.xml");
  ASSERT_NE(t, nullptr);
  ASSERT_OK_AND_ASSIGN(collectors::PuLocation l17, t->LocatePu(17, PuIndex::kLogical));
  EXPECT_EQ(ToRankLocation(l17).host, 0);
  EXPECT_THAT(LocationIds(ToRankLocation(l17)), ElementsAre(1, 2, 2, 8));
}

TEST(Hwloc2Pack4Numa4L3Smt2, SharedLevelsBetweenPus) {
  auto t = LoadHwlocGolden("2pack-4numa-4l3-16core-smt2-slit.xml");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(Shared(*t, 0, 16), LocalityLevel::kSameCore);
  EXPECT_EQ(Shared(*t, 0, 1), LocalityLevel::kSameL3);
  EXPECT_EQ(Shared(*t, 3, 16), LocalityLevel::kSameL3);
  EXPECT_EQ(Shared(*t, 0, 4), LocalityLevel::kSamePackage);
  EXPECT_EQ(Shared(*t, 19, 4), LocalityLevel::kSamePackage);  // cores 3 and 4
  EXPECT_EQ(Shared(*t, 23, 4), LocalityLevel::kSameL3);       // cores 7 and 4
  EXPECT_EQ(Shared(*t, 0, 8), LocalityLevel::kOtherPackage);
  EXPECT_EQ(Shared(*t, 7, 24), LocalityLevel::kOtherPackage);
}

TEST(Hwloc2Pack4Numa4L3Smt2, CoreSlotsInLogicalOrder) {
  auto t = LoadHwlocGolden("2pack-4numa-4l3-16core-smt2-slit.xml");
  ASSERT_NE(t, nullptr);
  std::vector<RankLocation> slots = CoreSlots(*t);
  ASSERT_THAT(slots, SizeIs(16));
  for (int c = 0; c < 16; ++c) {
    EXPECT_THAT(LocationIds(slots[c]), ElementsAre(c / 8, c / 4, c / 4, c)) << "core " << c;
  }
}

TEST(Hwloc2Pack4Numa4L3Smt2, SlitScalesPackageLevels) {
  auto t = LoadHwlocGolden("2pack-4numa-4l3-16core-smt2-slit.xml");
  ASSERT_NE(t, nullptr);
  IntraHostModel defaults = Pinned();
  ASSERT_OK_AND_ASSIGN(IntraHostModel model, IntraHostModelFromHwloc(*t, defaults));
  // latency_ns[kSameNuma] = 400 by default; SLIT 11/10 inside a package, 21/10 across.
  EXPECT_DOUBLE_EQ(model.LatencyNs(LocalityLevel::kSamePackage), 440);
  EXPECT_DOUBLE_EQ(model.LatencyNs(LocalityLevel::kOtherPackage), 840);
  for (LocalityLevel l :
       {LocalityLevel::kSameCore, LocalityLevel::kSameL3, LocalityLevel::kSameNuma}) {
    EXPECT_EQ(model.LatencyNs(l), defaults.LatencyNs(l));
  }
  EXPECT_EQ(model.gbps, defaults.gbps);  // no bandwidth matrix
}

TEST(Hwloc2Pack4Numa4L3Smt2, UserLatencyWinsOverSlit) {
  auto t = LoadHwlocGolden("2pack-4numa-4l3-16core-smt2-slit-userlat.xml");
  ASSERT_NE(t, nullptr);
  ASSERT_OK_AND_ASSIGN(std::vector<NumaDistanceMatrix> matrices, t->NumaDistanceMatrices());
  EXPECT_THAT(matrices, SizeIs(2));
  IntraHostModel defaults;
  defaults.latency_ns[static_cast<int>(LocalityLevel::kSameNuma)] = 100;
  ASSERT_OK_AND_ASSIGN(IntraHostModel model, IntraHostModelFromHwloc(*t, defaults));
  EXPECT_DOUBLE_EQ(model.LatencyNs(LocalityLevel::kSameNuma), 100);
  EXPECT_DOUBLE_EQ(model.LatencyNs(LocalityLevel::kSamePackage), 130);
  EXPECT_DOUBLE_EQ(model.LatencyNs(LocalityLevel::kOtherPackage), 250);
}

// --- 1 socket, 2 NUMA nodes, 2 L3 per NUMA node, 4 cores per L3, consecutive SMT
// numbering: core c holds P#2c and P#2c+1, is under L3 c/4 and NUMA c/8.

TEST(Hwloc1Pack2Numa4L3Smt2, SharedLevelsBetweenPus) {
  auto t = LoadHwlocGolden("1pack-2numa-4l3-16core-smt2-slit.xml");
  ASSERT_NE(t, nullptr);
  EXPECT_THAT(LocationIds(Os(*t, 1)), ElementsAre(0, 0, 0, 0));
  EXPECT_THAT(LocationIds(Os(*t, 9)), ElementsAre(0, 0, 1, 4));
  EXPECT_THAT(LocationIds(Os(*t, 17)), ElementsAre(0, 1, 2, 8));
  EXPECT_EQ(Shared(*t, 0, 1), LocalityLevel::kSameCore);
  EXPECT_EQ(Shared(*t, 0, 2), LocalityLevel::kSameL3);
  EXPECT_EQ(Shared(*t, 0, 8), LocalityLevel::kSameNuma);
  EXPECT_EQ(Shared(*t, 0, 16), LocalityLevel::kSamePackage);
  EXPECT_EQ(Shared(*t, 31, 0), LocalityLevel::kSamePackage);
}

TEST(Hwloc1Pack2Numa4L3Smt2, SlitScalesOnlyTheSamePackageLevel) {
  auto t = LoadHwlocGolden("1pack-2numa-4l3-16core-smt2-slit.xml");
  ASSERT_NE(t, nullptr);
  IntraHostModel defaults = Pinned();
  ASSERT_OK_AND_ASSIGN(IntraHostModel model, IntraHostModelFromHwloc(*t, defaults));
  EXPECT_DOUBLE_EQ(model.LatencyNs(LocalityLevel::kSamePackage), 480);  // 400 * 12/10
  EXPECT_EQ(model.LatencyNs(LocalityLevel::kOtherPackage),
            defaults.LatencyNs(LocalityLevel::kOtherPackage));  // no second package
}

// --- 2 sockets, one NUMA node and one L3 each, 4 cores, no SMT: core c = P#c.

TEST(Hwloc2Pack2Numa2L3, UserLatencyAndAsymmetricBandwidth) {
  auto t = LoadHwlocGolden("2pack-2numa-2l3-8core-userlat-userbw.xml");
  ASSERT_NE(t, nullptr);
  ASSERT_OK_AND_ASSIGN(std::vector<NumaDistanceMatrix> matrices, t->NumaDistanceMatrices());
  ASSERT_THAT(matrices, SizeIs(2));
  const NumaDistanceMatrix& bw = matrices[1];
  EXPECT_EQ(bw.name, "MeasuredBandwidth");
  EXPECT_TRUE(bw.means_bandwidth);
  EXPECT_FALSE(bw.from_os);
  EXPECT_EQ(bw.At(0, 1), 16000u);  // row = from NUMA 0, column = to NUMA 1
  EXPECT_EQ(bw.At(1, 0), 18000u);

  IntraHostModel defaults = Pinned();
  ASSERT_OK_AND_ASSIGN(IntraHostModel model, IntraHostModelFromHwloc(*t, defaults));
  EXPECT_DOUBLE_EQ(model.LatencyNs(LocalityLevel::kOtherPackage), 400.0 * 150 / 90);
  EXPECT_DOUBLE_EQ(model.gbps[static_cast<int>(LocalityLevel::kOtherPackage)],
                   120.0 * 17000 / 40000);
  // No two NUMA nodes share a package, so nothing measured that level.
  EXPECT_EQ(model.LatencyNs(LocalityLevel::kSamePackage),
            defaults.LatencyNs(LocalityLevel::kSamePackage));
  EXPECT_EQ(model.gbps[static_cast<int>(LocalityLevel::kSamePackage)],
            defaults.gbps[static_cast<int>(LocalityLevel::kSamePackage)]);
}

TEST(Hwloc2Pack2Numa2L3, WithoutDistancesTheDefaultsStay) {
  auto t = LoadHwlocGolden("2pack-2numa-2l3-8core.xml");
  ASSERT_NE(t, nullptr);
  ASSERT_OK_AND_ASSIGN(std::vector<NumaDistanceMatrix> matrices, t->NumaDistanceMatrices());
  EXPECT_THAT(matrices, SizeIs(0));
  IntraHostModel defaults;
  defaults.latency_ns[static_cast<int>(LocalityLevel::kOtherPackage)] = 1234;
  ASSERT_OK_AND_ASSIGN(IntraHostModel model, IntraHostModelFromHwloc(*t, defaults));
  EXPECT_EQ(model.latency_ns, defaults.latency_ns);
  EXPECT_EQ(model.gbps, defaults.gbps);
  EXPECT_EQ(Shared(*t, 3, 4), LocalityLevel::kOtherPackage);
  EXPECT_EQ(Shared(*t, 0, 3), LocalityLevel::kSameL3);
}

// --- A real 2-core virtual machine, captured by lstopo (one package, NUMA node and L3; no SMT).

TEST(Hwloc1Pack1Numa1L3Vm, RealMachineCapture) {
  auto t = LoadHwlocGolden("1pack-1numa-1l3-2core-vm.xml");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(Shared(*t, 0, 1), LocalityLevel::kSameL3);
  EXPECT_THAT(CoreSlots(*t), SizeIs(2));
}

TEST(HwlocSynthetic, TwoPackTwoL3EightCoreSmt2) {
  auto t = LoadHwloc(HwlocSource::Synthetic("pack:2 l3:2 core:8 pu:2"));
  ASSERT_NE(t, nullptr);
  std::vector<RankLocation> slots = CoreSlots(*t);
  ASSERT_THAT(slots, SizeIs(32));
  EXPECT_EQ(SharedLevel(slots[0], slots[7]), LocalityLevel::kSameL3);
  // One NUMA node for the whole machine: cores under different L3 share it.
  EXPECT_EQ(SharedLevel(slots[0], slots[8]), LocalityLevel::kSameNuma);
  ASSERT_OK_AND_ASSIGN(IntraHostModel model, IntraHostModelFromHwloc(*t));
  EXPECT_EQ(model.latency_ns, IntraHostModel().latency_ns);
}

TEST(HwlocSynthetic, NoL3Cache) {
  auto t = LoadHwloc(HwlocSource::Synthetic("pack:2 numa:1 core:4 pu:1"));
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(Shared(*t, 4, 5), LocalityLevel::kSameNuma);
  EXPECT_EQ(Shared(*t, 0, 5), LocalityLevel::kOtherPackage);
}

TEST(HwlocSynthetic, NoCoresGivesOneSlotPerPu) {
  auto t = LoadHwloc(HwlocSource::Synthetic("pack:2 pu:4"));
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->Shape().Name(), "2pack-1numa-0l3-0core-8pu");
  std::vector<RankLocation> slots = CoreSlots(*t);
  ASSERT_THAT(slots, SizeIs(8));
  EXPECT_THAT(LocationIds(slots[5]), ElementsAre(1, 0, -1, -1));
}

TEST(HwlocThisMachine, LocatesItsOwnBinding) {
  auto t = LoadHwloc(HwlocSource::ThisMachine());
  ASSERT_NE(t, nullptr);
  EXPECT_THAT(CoreSlots(*t), SizeIs(t->Shape().cores > 0 ? t->Shape().cores : t->Shape().pus));
}

}  // namespace
}  // namespace toporr::client

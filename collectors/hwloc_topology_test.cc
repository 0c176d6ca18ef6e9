#include "collectors/hwloc_topology.h"

#include <sched.h>

#include <filesystem>
#include <string>
#include <vector>

#include "common/status_matchers.h"
#include "common/test_data.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::collectors {
namespace {

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

constexpr char kDataDir[] = "collectors/testdata/hwloc/";

std::unique_ptr<HwlocTopology> Load(HwlocSource source) {
  auto topology = HwlocTopology::Create({std::move(source)});
  EXPECT_OK(topology.status());
  return topology.ok() ? std::move(*topology) : nullptr;
}

std::unique_ptr<HwlocTopology> LoadFile(const std::string& name) {
  return Load(HwlocSource::XmlFile(kDataDir + name));
}

// {package, numa, l3, core}: the four ids a golden test asserts.
std::vector<int32_t> Ids(const RankLocation& l) { return {l.package, l.numa, l.l3, l.core}; }

RankLocation Os(const HwlocTopology& t, unsigned pu) {
  auto location = t.LocatePu(pu, PuIndex::kOs);
  EXPECT_OK(location.status()) << "P#" << pu;
  return location.ok() ? *location : RankLocation();
}

RankLocation Set(const HwlocTopology& t, const std::string& cpuset) {
  auto location = t.LocateCpuset(cpuset);
  EXPECT_OK(location.status()) << cpuset;
  return location.ok() ? *location : RankLocation();
}

LocalityLevel Shared(const HwlocTopology& t, unsigned pu_a, unsigned pu_b) {
  return SharedLevel(Os(t, pu_a), Os(t, pu_b));
}

// Every golden file's name starts with the shape hwloc reports for it, so names never lie.
TEST(HwlocGoldenFiles, NamesStartWithTheirShape) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kDataDir)) {
    if (entry.path().extension() != ".xml") continue;
    ++files;
    std::string name = entry.path().filename().string();
    auto topology = LoadFile(name);
    ASSERT_NE(topology, nullptr) << name;
    std::string shape = topology->Shape().Name();
    EXPECT_TRUE(name.rfind(shape + "-", 0) == 0 || name == shape + ".xml")
        << name << " has shape " << shape;
  }
  EXPECT_EQ(files, 6);
}

// --- 2 sockets, SNC2 (L3 = NUMA node), 4 cores per NUMA node, Intel-style PU numbering:
// core c holds P#c and P#c+16, is under L3/NUMA c/4 and package c/8.

TEST(Hwloc2Pack4Numa4L3Smt2, ShapeAndPuNumbering) {
  auto t = LoadFile("2pack-4numa-4l3-16core-smt2-slit.xml");
  ASSERT_NE(t, nullptr);
  HwlocShape shape = t->Shape();
  EXPECT_EQ(shape.packages, 2);
  EXPECT_EQ(shape.numa_nodes, 4);
  EXPECT_EQ(shape.l3_caches, 4);
  EXPECT_EQ(shape.cores, 16);
  EXPECT_EQ(shape.pus, 32);
  EXPECT_FALSE(t->IsThisMachine());

  EXPECT_THAT(Ids(Os(*t, 0)), ElementsAre(0, 0, 0, 0));
  EXPECT_THAT(Ids(Os(*t, 16)), ElementsAre(0, 0, 0, 0));  // sibling thread of P#0
  EXPECT_THAT(Ids(Os(*t, 5)), ElementsAre(0, 1, 1, 5));
  EXPECT_THAT(Ids(Os(*t, 24)), ElementsAre(1, 2, 2, 8));
  EXPECT_THAT(Ids(Os(*t, 31)), ElementsAre(1, 3, 3, 15));
  // Logical PU order walks the cores: L#1 is P#16, L#17 is P#24.
  ASSERT_OK_AND_ASSIGN(RankLocation l1, t->LocatePu(1, PuIndex::kLogical));
  EXPECT_THAT(Ids(l1), ElementsAre(0, 0, 0, 0));
  ASSERT_OK_AND_ASSIGN(RankLocation l17, t->LocatePu(17, PuIndex::kLogical));
  EXPECT_THAT(Ids(l17), ElementsAre(1, 2, 2, 8));
  EXPECT_EQ(l17.host, 0);

  EXPECT_THAT(t->LocatePu(32, PuIndex::kOs), StatusIs(absl::StatusCode::kNotFound, _));
  EXPECT_THAT(t->LocatePu(32, PuIndex::kLogical), StatusIs(absl::StatusCode::kNotFound, _));
}

TEST(Hwloc2Pack4Numa4L3Smt2, SharedLevelsBetweenPus) {
  auto t = LoadFile("2pack-4numa-4l3-16core-smt2-slit.xml");
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

TEST(Hwloc2Pack4Numa4L3Smt2, CpusetsKnowTheLevelsTheyFitIn) {
  auto t = LoadFile("2pack-4numa-4l3-16core-smt2-slit.xml");
  ASSERT_NE(t, nullptr);
  EXPECT_THAT(Ids(Set(*t, "0,16")), ElementsAre(0, 0, 0, 0));          // one core
  EXPECT_THAT(Ids(Set(*t, "0x00010001")), ElementsAre(0, 0, 0, 0));    // same, hwloc form
  EXPECT_THAT(Ids(Set(*t, "0-1")), ElementsAre(0, 0, 0, -1));          // two cores, one L3
  EXPECT_THAT(Ids(Set(*t, "0-3,16-19")), ElementsAre(0, 0, 0, -1));    // the whole L3/NUMA
  EXPECT_THAT(Ids(Set(*t, "4-7\n")), ElementsAre(0, 1, 1, -1));        // /proc style newline
  EXPECT_THAT(Ids(Set(*t, "0-7,16-23")), ElementsAre(0, -1, -1, -1));  // package 0
  EXPECT_THAT(Ids(Set(*t, "7-8")), ElementsAre(-1, -1, -1, -1));       // across packages
  EXPECT_THAT(Ids(Set(*t, "0-31")), ElementsAre(-1, -1, -1, -1));      // unbound
  EXPECT_THAT(Ids(Set(*t, "0xffffffff")), ElementsAre(-1, -1, -1, -1));
}

TEST(Hwloc2Pack4Numa4L3Smt2, BadCpusets) {
  auto t = LoadFile("2pack-4numa-4l3-16core-smt2-slit.xml");
  ASSERT_NE(t, nullptr);
  EXPECT_THAT(t->LocateCpuset(""), StatusIs(absl::StatusCode::kInvalidArgument, _));
  EXPECT_THAT(t->LocateCpuset("cores 1-2"), StatusIs(absl::StatusCode::kInvalidArgument, _));
  EXPECT_THAT(t->LocateCpuset("4-"), StatusIs(absl::StatusCode::kInvalidArgument, _));
  EXPECT_THAT(t->LocateCpuset("0x0"), StatusIs(absl::StatusCode::kInvalidArgument, _));
  EXPECT_THAT(t->LocateCpuset("30-40"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("P#32-40")));
}

TEST(Hwloc2Pack4Numa4L3Smt2, CoreSlotsInLogicalOrder) {
  auto t = LoadFile("2pack-4numa-4l3-16core-smt2-slit.xml");
  ASSERT_NE(t, nullptr);
  std::vector<RankLocation> slots = CoreSlots(*t);
  ASSERT_THAT(slots, SizeIs(16));
  for (int c = 0; c < 16; ++c) {
    EXPECT_THAT(Ids(slots[c]), ElementsAre(c / 8, c / 4, c / 4, c)) << "core " << c;
  }
}

TEST(Hwloc2Pack4Numa4L3Smt2, SlitMatrixAsHwlocHoldsIt) {
  auto t = LoadFile("2pack-4numa-4l3-16core-smt2-slit.xml");
  ASSERT_NE(t, nullptr);
  ASSERT_OK_AND_ASSIGN(std::vector<NumaDistanceMatrix> matrices, t->NumaDistanceMatrices());
  ASSERT_THAT(matrices, SizeIs(1));
  const NumaDistanceMatrix& slit = matrices[0];
  EXPECT_EQ(slit.name, "NUMALatency");
  EXPECT_TRUE(slit.from_os);
  EXPECT_FALSE(slit.means_bandwidth);
  EXPECT_THAT(slit.numa, ElementsAre(0, 1, 2, 3));
  EXPECT_EQ(slit.At(0, 0), 10u);
  EXPECT_EQ(slit.At(0, 1), 11u);
  EXPECT_EQ(slit.At(1, 3), 21u);
}

// The defaults the scaling tests start from, pinned (library defaults may change).
IntraHostModel Pinned() {
  IntraHostModel m;
  m.latency_ns = {150, 250, 400, 600, 900};
  m.gbps = {200, 160, 120, 100, 60};
  return m;
}

TEST(Hwloc2Pack4Numa4L3Smt2, SlitScalesPackageLevels) {
  auto t = LoadFile("2pack-4numa-4l3-16core-smt2-slit.xml");
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
  auto t = LoadFile("2pack-4numa-4l3-16core-smt2-slit-userlat.xml");
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
  auto t = LoadFile("1pack-2numa-4l3-16core-smt2-slit.xml");
  ASSERT_NE(t, nullptr);
  EXPECT_THAT(Ids(Os(*t, 1)), ElementsAre(0, 0, 0, 0));
  EXPECT_THAT(Ids(Os(*t, 9)), ElementsAre(0, 0, 1, 4));
  EXPECT_THAT(Ids(Os(*t, 17)), ElementsAre(0, 1, 2, 8));
  EXPECT_EQ(Shared(*t, 0, 1), LocalityLevel::kSameCore);
  EXPECT_EQ(Shared(*t, 0, 2), LocalityLevel::kSameL3);
  EXPECT_EQ(Shared(*t, 0, 8), LocalityLevel::kSameNuma);
  EXPECT_EQ(Shared(*t, 0, 16), LocalityLevel::kSamePackage);
  EXPECT_EQ(Shared(*t, 31, 0), LocalityLevel::kSamePackage);
}

TEST(Hwloc1Pack2Numa4L3Smt2, UnboundKnowsTheSinglePackage) {
  auto t = LoadFile("1pack-2numa-4l3-16core-smt2-slit.xml");
  ASSERT_NE(t, nullptr);
  EXPECT_THAT(Ids(Set(*t, "0-31")), ElementsAre(0, -1, -1, -1));
  EXPECT_THAT(Ids(Set(*t, "0-15")), ElementsAre(0, 0, -1, -1));
  EXPECT_THAT(Ids(Set(*t, "14-17")), ElementsAre(0, -1, -1, -1));
}

TEST(Hwloc1Pack2Numa4L3Smt2, SlitScalesOnlyTheSamePackageLevel) {
  auto t = LoadFile("1pack-2numa-4l3-16core-smt2-slit.xml");
  ASSERT_NE(t, nullptr);
  IntraHostModel defaults = Pinned();
  ASSERT_OK_AND_ASSIGN(IntraHostModel model, IntraHostModelFromHwloc(*t, defaults));
  EXPECT_DOUBLE_EQ(model.LatencyNs(LocalityLevel::kSamePackage), 480);  // 400 * 12/10
  EXPECT_EQ(model.LatencyNs(LocalityLevel::kOtherPackage),
            defaults.LatencyNs(LocalityLevel::kOtherPackage));  // no second package
}

// --- 2 sockets, one NUMA node and one L3 each, 4 cores, no SMT: core c = P#c.

TEST(Hwloc2Pack2Numa2L3, UserLatencyAndAsymmetricBandwidth) {
  auto t = LoadFile("2pack-2numa-2l3-8core-userlat-userbw.xml");
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
  auto t = LoadFile("2pack-2numa-2l3-8core.xml");
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

// --- The 2-core build VM, captured by lstopo (one package, NUMA node and L3; no SMT).

TEST(Hwloc1Pack1Numa1L3Vm, RealMachineCapture) {
  auto t = LoadFile("1pack-1numa-1l3-2core-vm.xml");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->Shape().Name(), "1pack-1numa-1l3-2core");
  EXPECT_THAT(Ids(Os(*t, 1)), ElementsAre(0, 0, 0, 1));
  EXPECT_EQ(Shared(*t, 0, 1), LocalityLevel::kSameL3);
  EXPECT_THAT(Ids(Set(*t, "0-1")), ElementsAre(0, 0, 0, -1));
  EXPECT_THAT(CoreSlots(*t), SizeIs(2));
}

TEST(HwlocSources, XmlStringLoadsLikeTheFile) {
  std::string xml = ReadFileOrDie(std::string(kDataDir) + "2pack-4numa-4l3-16core-smt2-slit.xml");
  auto t = Load(HwlocSource::XmlString(xml));
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->Shape().Name(), "2pack-4numa-4l3-16core-smt2");
  EXPECT_THAT(Ids(Os(*t, 24)), ElementsAre(1, 2, 2, 8));
  EXPECT_THAT(t->source().Describe(), HasSubstr("XML string"));
}

// --- Synthetic topologies, one line each.

TEST(HwlocSynthetic, TwoPackTwoL3EightCoreSmt2) {
  auto t = Load(HwlocSource::Synthetic("pack:2 l3:2 core:8 pu:2"));
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->Shape().Name(), "2pack-1numa-4l3-32core-smt2");
  std::vector<RankLocation> slots = CoreSlots(*t);
  ASSERT_THAT(slots, SizeIs(32));
  EXPECT_THAT(Ids(slots[0]), ElementsAre(0, 0, 0, 0));
  EXPECT_THAT(Ids(slots[9]), ElementsAre(0, 0, 1, 9));
  EXPECT_THAT(Ids(slots[31]), ElementsAre(1, 0, 3, 31));
  EXPECT_EQ(SharedLevel(slots[0], slots[7]), LocalityLevel::kSameL3);
  // One NUMA node for the whole machine: cores under different L3 share it.
  EXPECT_EQ(SharedLevel(slots[0], slots[8]), LocalityLevel::kSameNuma);
  ASSERT_OK_AND_ASSIGN(IntraHostModel model, IntraHostModelFromHwloc(*t));
  EXPECT_EQ(model.latency_ns, IntraHostModel().latency_ns);
}

TEST(HwlocSynthetic, NoL3Cache) {
  auto t = Load(HwlocSource::Synthetic("pack:2 numa:1 core:4 pu:1"));
  ASSERT_NE(t, nullptr);
  EXPECT_THAT(Ids(Os(*t, 5)), ElementsAre(1, 1, -1, 5));
  EXPECT_EQ(Shared(*t, 4, 5), LocalityLevel::kSameNuma);
  EXPECT_EQ(Shared(*t, 0, 5), LocalityLevel::kOtherPackage);
}

TEST(HwlocSynthetic, NoCoresGivesOneSlotPerPu) {
  auto t = Load(HwlocSource::Synthetic("pack:2 pu:4"));
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->Shape().Name(), "2pack-1numa-0l3-0core-8pu");
  std::vector<RankLocation> slots = CoreSlots(*t);
  ASSERT_THAT(slots, SizeIs(8));
  EXPECT_THAT(Ids(slots[5]), ElementsAre(1, 0, -1, -1));
}

TEST(HwlocSources, Errors) {
  EXPECT_THAT(HwlocTopology::Create({HwlocSource::XmlFile("/nonexistent/topo.xml")}),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("/nonexistent/topo.xml")));
  EXPECT_THAT(HwlocTopology::Create({HwlocSource::XmlString("<topology><object")}),
              StatusIs(absl::StatusCode::kInvalidArgument, _));
  EXPECT_THAT(HwlocTopology::Create({HwlocSource::XmlString("")}),
              StatusIs(absl::StatusCode::kInvalidArgument, _));
  EXPECT_THAT(HwlocTopology::Create({HwlocSource::Synthetic("pack:2 gizmo:3 pu:2")}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("gizmo")));

  auto xml = LoadFile("2pack-2numa-2l3-8core.xml");
  ASSERT_NE(xml, nullptr);
  EXPECT_THAT(xml->LocateThisProcess(), StatusIs(absl::StatusCode::kFailedPrecondition, _));
}

// --- This machine: bind the (single-threaded) test process and find it again.

TEST(HwlocThisMachine, LocatesItsOwnBinding) {
  auto t = Load(HwlocSource::ThisMachine());
  ASSERT_NE(t, nullptr);
  EXPECT_TRUE(t->IsThisMachine());
  EXPECT_GE(t->Shape().pus, 1);
  EXPECT_THAT(CoreSlots(*t), SizeIs(t->Shape().cores > 0 ? t->Shape().cores : t->Shape().pus));

  cpu_set_t original;
  ASSERT_EQ(sched_getaffinity(0, sizeof(original), &original), 0);
  int last = -1;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &original)) last = cpu;
  }
  ASSERT_GE(last, 0);
  // As started (unbound, or bound by whoever runs the test): the same answer as the cpuset.
  std::string allowed;
  for (int cpu = 0; cpu <= last; ++cpu) {
    if (CPU_ISSET(cpu, &original)) allowed += (allowed.empty() ? "" : ",") + std::to_string(cpu);
  }
  ASSERT_OK_AND_ASSIGN(RankLocation as_started, t->LocateThisProcess());
  EXPECT_EQ(Ids(as_started), Ids(Set(*t, allowed))) << allowed;

  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(last, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
  auto bound = t->LocateThisProcess();
  ASSERT_EQ(sched_setaffinity(0, sizeof(original), &original), 0);

  ASSERT_OK(bound.status());
  ASSERT_OK_AND_ASSIGN(RankLocation pu, t->LocatePu(static_cast<unsigned>(last), PuIndex::kOs));
  EXPECT_EQ(Ids(*bound), Ids(pu));
  if (t->Shape().cores > 0) {
    EXPECT_GE(bound->core, 0);
  }
}

}  // namespace
}  // namespace toporr::collectors

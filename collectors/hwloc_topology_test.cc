#include "collectors/hwloc_topology.h"

#include <sched.h>

#include <filesystem>
#include <string>
#include <vector>

#include "collectors/hwloc_golden.h"
#include "common/status_matchers.h"
#include "common/test_data.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::collectors {
namespace {

using ::testing::_;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::SizeIs;
using ::toporr::testing::ReadFileOrDie;
using ::toporr::testing::StatusIs;

PuLocation Os(const HwlocTopology& t, unsigned pu) {
  auto location = t.LocatePu(pu, PuIndex::kOs);
  EXPECT_OK(location.status()) << "P#" << pu;
  return location.ok() ? *location : PuLocation();
}

PuLocation Set(const HwlocTopology& t, const std::string& cpuset) {
  auto location = t.LocateCpuset(cpuset);
  EXPECT_OK(location.status()) << cpuset;
  return location.ok() ? *location : PuLocation();
}

// Every golden file's name starts with the shape hwloc reports for it, so names never lie.
TEST(HwlocGoldenFiles, NamesStartWithTheirShape) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kHwlocGoldenDir)) {
    if (entry.path().extension() != ".xml") continue;
    ++files;
    std::string name = entry.path().filename().string();
    auto topology = LoadHwlocGolden(name);
    ASSERT_NE(topology, nullptr) << name;
    std::string shape = topology->Shape().Name();
    EXPECT_TRUE(name.rfind(shape + "-", 0) == 0 || name == shape + ".xml")
        << name << " has shape " << shape;
  }
  EXPECT_EQ(files, 7);
}

// --- 2 sockets, SNC2 (L3 = NUMA node), 4 cores per NUMA node, Intel-style PU numbering:
// core c holds P#c and P#c+16, is under L3/NUMA c/4 and package c/8.

TEST(Hwloc2Pack4Numa4L3Smt2, ShapeAndPuNumbering) {
  auto t = LoadHwlocGolden("2pack-4numa-4l3-16core-smt2-slit.xml");
  ASSERT_NE(t, nullptr);
  HwlocShape shape = t->Shape();
  EXPECT_EQ(shape.packages, 2);
  EXPECT_EQ(shape.numa_nodes, 4);
  EXPECT_EQ(shape.l3_caches, 4);
  EXPECT_EQ(shape.cores, 16);
  EXPECT_EQ(shape.pus, 32);
  EXPECT_FALSE(t->IsThisMachine());

  EXPECT_THAT(LocationIds(Os(*t, 0)), ElementsAre(0, 0, 0, 0));
  EXPECT_THAT(LocationIds(Os(*t, 16)), ElementsAre(0, 0, 0, 0));  // sibling thread of P#0
  EXPECT_THAT(LocationIds(Os(*t, 5)), ElementsAre(0, 1, 1, 5));
  EXPECT_THAT(LocationIds(Os(*t, 24)), ElementsAre(1, 2, 2, 8));
  EXPECT_THAT(LocationIds(Os(*t, 31)), ElementsAre(1, 3, 3, 15));
  // Logical PU order walks the cores: L#1 is P#16, L#17 is P#24.
  ASSERT_OK_AND_ASSIGN(PuLocation l1, t->LocatePu(1, PuIndex::kLogical));
  EXPECT_THAT(LocationIds(l1), ElementsAre(0, 0, 0, 0));
  ASSERT_OK_AND_ASSIGN(PuLocation l17, t->LocatePu(17, PuIndex::kLogical));
  EXPECT_THAT(LocationIds(l17), ElementsAre(1, 2, 2, 8));

  EXPECT_THAT(t->LocatePu(32, PuIndex::kOs), StatusIs(absl::StatusCode::kNotFound, _));
  EXPECT_THAT(t->LocatePu(32, PuIndex::kLogical), StatusIs(absl::StatusCode::kNotFound, _));
}

TEST(Hwloc2Pack4Numa4L3Smt2, CpusetsKnowTheLevelsTheyFitIn) {
  auto t = LoadHwlocGolden("2pack-4numa-4l3-16core-smt2-slit.xml");
  ASSERT_NE(t, nullptr);
  EXPECT_THAT(LocationIds(Set(*t, "0,16")), ElementsAre(0, 0, 0, 0));        // one core
  EXPECT_THAT(LocationIds(Set(*t, "0x00010001")), ElementsAre(0, 0, 0, 0));  // same, hwloc form
  EXPECT_THAT(LocationIds(Set(*t, "0-1")), ElementsAre(0, 0, 0, -1));        // two cores, one L3
  EXPECT_THAT(LocationIds(Set(*t, "0-3,16-19")), ElementsAre(0, 0, 0, -1));  // the whole L3/NUMA
  EXPECT_THAT(LocationIds(Set(*t, "4-7\n")), ElementsAre(0, 1, 1, -1));      // /proc style newline
  EXPECT_THAT(LocationIds(Set(*t, "0-7,16-23")), ElementsAre(0, -1, -1, -1));  // package 0
  EXPECT_THAT(LocationIds(Set(*t, "7-8")), ElementsAre(-1, -1, -1, -1));       // across packages
  EXPECT_THAT(LocationIds(Set(*t, "0-31")), ElementsAre(-1, -1, -1, -1));      // unbound
  EXPECT_THAT(LocationIds(Set(*t, "0xffffffff")), ElementsAre(-1, -1, -1, -1));
}

TEST(Hwloc2Pack4Numa4L3Smt2, BadCpusets) {
  auto t = LoadHwlocGolden("2pack-4numa-4l3-16core-smt2-slit.xml");
  ASSERT_NE(t, nullptr);
  EXPECT_THAT(t->LocateCpuset(""), StatusIs(absl::StatusCode::kInvalidArgument, _));
  EXPECT_THAT(t->LocateCpuset("cores 1-2"), StatusIs(absl::StatusCode::kInvalidArgument, _));
  EXPECT_THAT(t->LocateCpuset("4-"), StatusIs(absl::StatusCode::kInvalidArgument, _));
  EXPECT_THAT(t->LocateCpuset("0x0"), StatusIs(absl::StatusCode::kInvalidArgument, _));
  EXPECT_THAT(t->LocateCpuset("30-40"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("P#32-40")));
}

TEST(Hwloc2Pack4Numa4L3Smt2, SlitMatrixAsHwlocHoldsIt) {
  auto t = LoadHwlocGolden("2pack-4numa-4l3-16core-smt2-slit.xml");
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

TEST(Hwloc1Pack2Numa4L3Smt2, UnboundKnowsTheSinglePackage) {
  auto t = LoadHwlocGolden("1pack-2numa-4l3-16core-smt2-slit.xml");
  ASSERT_NE(t, nullptr);
  EXPECT_THAT(LocationIds(Set(*t, "0-31")), ElementsAre(0, -1, -1, -1));
  EXPECT_THAT(LocationIds(Set(*t, "0-15")), ElementsAre(0, 0, -1, -1));
  EXPECT_THAT(LocationIds(Set(*t, "14-17")), ElementsAre(0, -1, -1, -1));
}

TEST(Hwloc1Pack1Numa1L3Vm, RealMachineCapture) {
  auto t = LoadHwlocGolden("1pack-1numa-1l3-2core-vm.xml");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->Shape().Name(), "1pack-1numa-1l3-2core");
  EXPECT_THAT(LocationIds(Os(*t, 1)), ElementsAre(0, 0, 0, 1));
  EXPECT_THAT(LocationIds(Set(*t, "0-1")), ElementsAre(0, 0, 0, -1));
}

TEST(HwlocSources, XmlStringLoadsLikeTheFile) {
  std::string xml =
      ReadFileOrDie(std::string(kHwlocGoldenDir) + "2pack-4numa-4l3-16core-smt2-slit.xml");
  auto t = LoadHwloc(HwlocSource::XmlString(xml));
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->Shape().Name(), "2pack-4numa-4l3-16core-smt2");
  EXPECT_THAT(LocationIds(Os(*t, 24)), ElementsAre(1, 2, 2, 8));
  EXPECT_THAT(t->source().Describe(), HasSubstr("XML string"));
}

// --- Synthetic topologies, one line each.

TEST(HwlocSynthetic, TwoPackTwoL3EightCoreSmt2) {
  auto t = LoadHwloc(HwlocSource::Synthetic("pack:2 l3:2 core:8 pu:2"));
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->Shape().Name(), "2pack-1numa-4l3-32core-smt2");
  std::vector<PuLocation> slots = CoreLocations(*t);
  ASSERT_THAT(slots, SizeIs(32));
  EXPECT_THAT(LocationIds(slots[0]), ElementsAre(0, 0, 0, 0));
  EXPECT_THAT(LocationIds(slots[9]), ElementsAre(0, 0, 1, 9));
  EXPECT_THAT(LocationIds(slots[31]), ElementsAre(1, 0, 3, 31));
}

TEST(HwlocSynthetic, NoL3Cache) {
  auto t = LoadHwloc(HwlocSource::Synthetic("pack:2 numa:1 core:4 pu:1"));
  ASSERT_NE(t, nullptr);
  EXPECT_THAT(LocationIds(Os(*t, 5)), ElementsAre(1, 1, -1, 5));
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

  auto xml = LoadHwlocGolden("2pack-2numa-2l3-8core.xml");
  ASSERT_NE(xml, nullptr);
  EXPECT_THAT(xml->LocateThisProcess(), StatusIs(absl::StatusCode::kFailedPrecondition, _));
}

// --- This machine: bind the (single-threaded) test process and find it again.

TEST(HwlocThisMachine, LocatesItsOwnBinding) {
  auto t = LoadHwloc(HwlocSource::ThisMachine());
  ASSERT_NE(t, nullptr);
  EXPECT_TRUE(t->IsThisMachine());
  EXPECT_GE(t->Shape().pus, 1);

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
  ASSERT_OK_AND_ASSIGN(PuLocation as_started, t->LocateThisProcess());
  EXPECT_EQ(LocationIds(as_started), LocationIds(Set(*t, allowed))) << allowed;

  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(last, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
  auto bound = t->LocateThisProcess();
  ASSERT_EQ(sched_setaffinity(0, sizeof(original), &original), 0);

  ASSERT_OK(bound.status());
  ASSERT_OK_AND_ASSIGN(PuLocation pu, t->LocatePu(static_cast<unsigned>(last), PuIndex::kOs));
  EXPECT_EQ(LocationIds(*bound), LocationIds(pu));
  if (t->Shape().cores > 0) {
    EXPECT_GE(bound->core, 0);
  }
}

}  // namespace
}  // namespace toporr::collectors

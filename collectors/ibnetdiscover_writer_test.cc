// Round trips through the emitters: real tool outputs (../shared/fabrics, collectors/testdata)
// are parsed, written back with FormatIbnetdiscover / FormatDumpFts and parsed again; the two
// parses must describe the same fabric and tables, and writing is byte-stable.
#include "collectors/ibnetdiscover_writer.h"

#include <string>
#include <vector>

#include "collectors/forwarding_tables.h"
#include "collectors/hosts.h"
#include "collectors/ibnetdiscover.h"
#include "common/status_matchers.h"
#include "common/test_data.h"
#include "fabric/fabric.h"
#include "fabric/fabric_compare.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::collectors {

using fabric::Fabric;
using fabric::FabricDifferences;
using fabric::ForwardingTables;
using fabric::ForwardingTablesDifferences;
using fabric::LinkSpeed;
using fabric::Node;
using fabric::NodeType;
using fabric::Port;
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::toporr::testing::ReadFileOrDie;
using ::toporr::testing::ReadSharedFabric;

class IbnetdiscoverRoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(IbnetdiscoverRoundTrip, ParseWriteParseGivesTheSameFabric) {
  ASSERT_OK_AND_ASSIGN(Fabric original, ParseIbnetdiscover(ReadSharedFabric(GetParam())));
  const std::string text = FormatIbnetdiscover(original);
  ASSERT_OK_AND_ASSIGN(Fabric again, ParseIbnetdiscover(text, {"written " + GetParam()}));
  EXPECT_THAT(FabricDifferences(original, again), IsEmpty()) << text;
  // Same node order, and the links come back in the same count.
  ASSERT_EQ(again.nodes.size(), original.nodes.size());
  for (size_t i = 0; i < original.nodes.size(); ++i) {
    EXPECT_EQ(again.nodes[i].guid, original.nodes[i].guid) << i;
  }
  EXPECT_EQ(again.links.size(), original.links.size());
  // Writing what was read back gives the same bytes, and hosts derive identically.
  EXPECT_EQ(FormatIbnetdiscover(again), text);
  ASSERT_OK(AssignHosts(HostRule{}, {}, &original));
  ASSERT_OK(AssignHosts(HostRule{}, {}, &again));
  EXPECT_THAT(FabricDifferences(original, again), IsEmpty());
}

// Plain, -f, -g (chassis, [ext N]), LMC 2, routers/aggregation/self-links, real dumps with
// mixed rates and stderr noise.
INSTANTIATE_TEST_SUITE_P(
    SharedSamples, IbnetdiscoverRoundTrip,
    ::testing::Values("ibnetdiscover_fattree_default.txt", "ibnetdiscover_fattree_full_f.txt",
                      "ibnetdiscover_fattree_grouping_g.txt", "ibnetdiscover_fattree_lmc2.txt",
                      "ibnetdiscover_fattree_maxhops_m.txt", "ibnetdiscover_edgecases_default.txt",
                      "ibnetdiscover_edgecases_grouping_g.txt", "ibnetdiscover_chassis_default.txt",
                      "ibnetdiscover_chassis_grouping_g.txt", "ibnetdiscover_real_ibm_small.txt",
                      "ibnetdiscover_real_manpage_voltaire_g.txt",
                      "ibnetdiscover_real_nvidia_loops_mixed.txt"),
    [](const ::testing::TestParamInfo<std::string>& info) {
      std::string name = info.param.substr(0, info.param.size() - 4);
      for (char& c : name)
        if (c == '.' || c == '-') c = '_';
      return name;
    });

TEST(FormatIbnetdiscover, KeepsExtNumbersUnknownRatesAndQuotesInDescriptions) {
  Fabric f;
  Node sw;
  sw.type = NodeType::kSwitch;
  sw.guid = 0x10;
  sw.num_ports = 36;
  sw.description = "spine \"A\" (rack 3)";
  sw.lid = 7;
  sw.enhanced_port0 = true;
  Node ca;
  ca.guid = 0x20;
  ca.num_ports = 2;
  ca.description = "node017 mlx5_0";
  ca.lid = 12;  // a CA's LID is its first cabled port's
  ca.lmc = 1;
  Port p;
  p.number = 1;
  p.guid = 0x21;
  p.lid = 12;
  p.lmc = 1;
  ca.ports.push_back(p);
  sw.ports.push_back(Port{5, 13, 0x10, 7, 0, -1});
  int s, c;
  ASSERT_OK(f.AddNode(sw, &s));
  ASSERT_OK(f.AddNode(ca, &c));
  ASSERT_OK(f.Connect({s, 5}, {c, 1}, 0, LinkSpeed::kUnknown));
  ASSERT_OK(f.Connect({s, 1}, {s, 2}, 12, LinkSpeed::kFDR10));  // a loop cable
  const std::string text = FormatIbnetdiscover(f);
  EXPECT_THAT(text, HasSubstr("[5][ext 13]\t\"H-0000000000000020\"[1](21)"));
  EXPECT_THAT(text, HasSubstr("??\?\?\?"));
  ASSERT_OK_AND_ASSIGN(Fabric again, ParseIbnetdiscover(text));
  EXPECT_THAT(FabricDifferences(f, again), IsEmpty()) << text;
  EXPECT_EQ(again.nodes[0].description, "spine \"A\" (rack 3)");
}

TEST(FormatIbnetdiscover, LeavesOutCasWithoutCabledPorts) {
  Fabric f;
  Node ca;
  ca.guid = 0x20;
  ca.num_ports = 1;
  ca.description = "lonely mlx5_0";
  ASSERT_OK(f.AddNode(ca, nullptr));
  EXPECT_THAT(FormatIbnetdiscover(f), ::testing::Not(HasSubstr("lonely")));
}

// LFT dumps: parse, write as dump_fts, parse again.
struct LftCase {
  std::string name;
  std::string path;      // shared sample name, or a path under collectors/testdata
  std::string topology;  // shared ibnetdiscover sample of the same fabric, or empty
};

class DumpFtsRoundTrip : public ::testing::TestWithParam<LftCase> {};

TEST_P(DumpFtsRoundTrip, ParseWriteParseGivesTheSameTables) {
  const LftCase& c = GetParam();
  const std::string input =
      c.path.rfind("collectors/", 0) == 0 ? ReadFileOrDie(c.path) : ReadSharedFabric(c.path);
  ASSERT_OK_AND_ASSIGN(ForwardingTables original, ParseForwardingTables(input));
  Fabric fabric;
  if (!c.topology.empty()) {
    ASSERT_OK_AND_ASSIGN(fabric, ParseIbnetdiscover(ReadSharedFabric(c.topology)));
  }
  const std::string text = FormatDumpFts(original, fabric);
  ASSERT_OK_AND_ASSIGN(ForwardingTables again, ParseForwardingTables(text));
  EXPECT_THAT(ForwardingTablesDifferences(original, again), IsEmpty());
  ASSERT_EQ(again.switches().size(), original.switches().size());
  for (size_t i = 0; i < original.switches().size(); ++i) {
    EXPECT_EQ(again.switches()[i].guid, original.switches()[i].guid);
  }
  EXPECT_EQ(FormatDumpFts(again, fabric), text);
}

INSTANTIATE_TEST_SUITE_P(
    Dumps, DumpFtsRoundTrip,
    ::testing::Values(
        LftCase{"DumpFtsFattree", "dump_fts_fattree.txt", "ibnetdiscover_fattree_default.txt"},
        LftCase{"DumpFtsEdgecases", "dump_fts_edgecases.txt", ""},
        LftCase{"DumpLftsFattree", "dump_lfts_fattree.txt", ""},
        LftCase{"IbrouteLmc2", "ibroute_fattree_lmc2_leaf01.txt", ""},
        LftCase{"IbrouteAllSpine", "ibroute_fattree_spine01_all_1_8.txt", ""},
        LftCase{"OpensmFattree2l16h", "collectors/testdata/opensm-lfts_fattree-2l-16h.dump", ""}),
    [](const ::testing::TestParamInfo<LftCase>& info) { return info.param.name; });

TEST(FormatDumpFts, NamesOwnersFromTheFabricWhenTheTablesDoNot) {
  ASSERT_OK_AND_ASSIGN(Fabric fabric,
                       ParseIbnetdiscover(ReadSharedFabric("ibnetdiscover_fattree_lmc2.txt")));
  // Route every LID of the fabric to port 1 of the first switch, naming no owners.
  ForwardingTables tables;
  const Node* sw = nullptr;
  for (const Node& n : fabric.nodes)
    if (n.type == NodeType::kSwitch && sw == nullptr) sw = &n;
  ASSERT_NE(sw, nullptr);
  tables.Add(sw->guid)->lid = sw->lid;
  uint32_t max_lid = 0;
  for (const Node& n : fabric.nodes)
    for (const Port& p : n.ports) max_lid = std::max(max_lid, p.lid + (1u << p.lmc) - 1);
  for (uint32_t lid = 1; lid <= max_lid; ++lid) ASSERT_OK(tables.SetOutPort(sw->guid, lid, 1));
  ASSERT_OK_AND_ASSIGN(ForwardingTables again,
                       ParseForwardingTables(FormatDumpFts(tables, fabric)));
  // Every LID of every CA port (2^LMC of them) is named with that port's GUID.
  int checked = 0;
  for (const Node& n : fabric.nodes) {
    if (n.type == NodeType::kSwitch) continue;
    for (const Port& p : n.ports) {
      for (uint32_t lid = p.lid; lid < p.lid + (1u << p.lmc); ++lid, ++checked) {
        ASSERT_LT(lid, again.lid_port_guid().size());
        EXPECT_EQ(again.lid_port_guid()[lid], p.guid) << "LID " << lid;
      }
    }
  }
  EXPECT_GT(checked, 16);
}

}  // namespace
}  // namespace toporr::collectors

#include "collectors/ibnetdiscover.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "common/status_matchers.h"
#include "common/test_data.h"
#include "fabric/fabric.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::collectors {

using fabric::Fabric;
using fabric::FormatGuid;
using fabric::Link;
using fabric::LinkDataRateGbps;
using fabric::LinkEnd;
using fabric::LinkSpeed;
using fabric::Node;
using fabric::NodeType;
using fabric::Port;
namespace {

using ::testing::HasSubstr;
using ::toporr::testing::ReadSharedFabric;
using ::toporr::testing::StatusIs;

absl::StatusOr<Fabric> ParseSample(const std::string& name) {
  IbnetdiscoverOptions options;
  options.file_name = name;
  return ParseIbnetdiscover(ReadSharedFabric(name), options);
}

absl::StatusOr<Fabric> ParseText(const std::string& text) {
  IbnetdiscoverOptions options;
  options.file_name = "t.txt";
  return ParseIbnetdiscover(text, options);
}

// (guidA, portA, guidB, portB, width, speed) with the smaller (guid, port) end first.
using CanonicalLink = std::tuple<uint64_t, int, uint64_t, int, int, LinkSpeed>;

std::vector<CanonicalLink> CanonicalLinks(const Fabric& f) {
  std::vector<CanonicalLink> out;
  for (const Link& l : f.links) {
    std::pair<uint64_t, int> a{f.nodes[l.a.node].guid, l.a.port};
    std::pair<uint64_t, int> b{f.nodes[l.b.node].guid, l.b.port};
    if (b < a) std::swap(a, b);
    out.emplace_back(a.first, a.second, b.first, b.second, l.width_lanes, l.speed);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::set<std::tuple<uint64_t, NodeType, std::string>> CanonicalNodes(const Fabric& f) {
  std::set<std::tuple<uint64_t, NodeType, std::string>> out;
  for (const Node& n : f.nodes) out.emplace(n.guid, n.type, n.description);
  return out;
}

// Port GUID and LID of every cabled port, keyed by (node GUID, port).
std::set<std::tuple<uint64_t, int, uint64_t, uint32_t>> CanonicalPorts(const Fabric& f) {
  std::set<std::tuple<uint64_t, int, uint64_t, uint32_t>> out;
  for (const Node& n : f.nodes)
    for (const Port& p : n.ports) out.emplace(n.guid, p.number, p.guid, p.lid);
  return out;
}

const Node& NodeByGuid(const Fabric& f, uint64_t guid) {
  const int i = f.FindNodeByGuid(guid);
  EXPECT_GE(i, 0) << FormatGuid(guid);
  return f.nodes[std::max(i, 0)];
}

int CountSelfLinks(const Fabric& f) {
  return std::count_if(f.links.begin(), f.links.end(),
                       [](const Link& l) { return l.a.node == l.b.node; });
}

// Every link is referenced by exactly its two ports, and `a` is the smaller end.
void ExpectConsistent(const Fabric& f) {
  std::vector<int> refs(f.links.size(), 0);
  for (size_t n = 0; n < f.nodes.size(); ++n) {
    for (const Port& p : f.nodes[n].ports) {
      ASSERT_GE(p.link, 0) << "port " << p.number << " of node " << n << " is not cabled";
      const Link& l = f.links[p.link];
      EXPECT_TRUE((l.a == LinkEnd{static_cast<int>(n), p.number}) ||
                  (l.b == LinkEnd{static_cast<int>(n), p.number}));
      ++refs[p.link];
    }
  }
  for (size_t i = 0; i < f.links.size(); ++i) {
    EXPECT_EQ(refs[i], 2) << "link " << i;
    const Link& l = f.links[i];
    EXPECT_TRUE(l.a.node < l.b.node || (l.a.node == l.b.node && l.a.port < l.b.port));
    EXPECT_DOUBLE_EQ(l.data_rate_gbps, LinkDataRateGbps(l.width_lanes, l.speed));
  }
}

TEST(ParseWidthSpeed, Forms) {
  int w = -1;
  LinkSpeed s = LinkSpeed::kSDR;
  ASSERT_TRUE(ParseWidthSpeed("4xQDR", &w, &s));
  EXPECT_EQ(w, 4);
  EXPECT_EQ(s, LinkSpeed::kQDR);
  ASSERT_TRUE(ParseWidthSpeed("12xQDR", &w, &s));
  EXPECT_EQ(w, 12);
  ASSERT_TRUE(ParseWidthSpeed("1xSDR", &w, &s));
  EXPECT_EQ(w, 1);
  EXPECT_EQ(s, LinkSpeed::kSDR);
  ASSERT_TRUE(ParseWidthSpeed("4xFDR10", &w, &s));
  EXPECT_EQ(s, LinkSpeed::kFDR10);
  ASSERT_TRUE(ParseWidthSpeed("4xFDR", &w, &s));
  EXPECT_EQ(s, LinkSpeed::kFDR);
  ASSERT_TRUE(ParseWidthSpeed("4xEDR", &w, &s));
  EXPECT_EQ(s, LinkSpeed::kEDR);
  ASSERT_TRUE(ParseWidthSpeed("4xHDR", &w, &s));
  EXPECT_EQ(s, LinkSpeed::kHDR);
  ASSERT_TRUE(ParseWidthSpeed("2xNDR", &w, &s));
  EXPECT_EQ(w, 2);
  EXPECT_EQ(s, LinkSpeed::kNDR);
  EXPECT_FALSE(ParseWidthSpeed("????", &w, &s));
  ASSERT_TRUE(ParseWidthSpeed("?????", &w, &s));
  EXPECT_EQ(w, 0);
  EXPECT_EQ(s, LinkSpeed::kUnknown);
  ASSERT_TRUE(ParseWidthSpeed("4x???", &w, &s));
  EXPECT_EQ(w, 4);
  EXPECT_EQ(s, LinkSpeed::kUnknown);
  EXPECT_FALSE(ParseWidthSpeed("4xQQR", &w, &s));
  EXPECT_FALSE(ParseWidthSpeed("3xQDR", &w, &s));
  EXPECT_FALSE(ParseWidthSpeed("QDR", &w, &s));
  EXPECT_FALSE(ParseWidthSpeed("", &w, &s));
}

// ibsim_fattree_2lvl.net by hand: 2 spines (8 ports) x 4 leaves (12 ports), 16 HCAs with 2
// ports each; node16 is cabled to leaf04 twice; every leaf has 2 uplinks to each spine.
// Links: 16 + 1 host links, 4 leaves x 4 uplinks = 16 -> 33, all 4xQDR.
TEST(ParseIbnetdiscover, FatTreeDefaultMatchesTheNetFile) {
  ASSERT_OK_AND_ASSIGN(Fabric f, ParseSample("ibnetdiscover_fattree_default.txt"));
  ExpectConsistent(f);
  EXPECT_EQ(f.nodes.size(), 22u);
  EXPECT_EQ(f.CountNodes(NodeType::kSwitch), 6u);
  EXPECT_EQ(f.CountNodes(NodeType::kCa), 16u);
  EXPECT_EQ(f.links.size(), 33u);
  for (const Link& l : f.links) {
    EXPECT_EQ(l.width_lanes, 4);
    EXPECT_EQ(l.speed, LinkSpeed::kQDR);
    EXPECT_DOUBLE_EQ(l.data_rate_gbps, 32.0);
  }
  EXPECT_TRUE(f.hosts.empty());  // hosts come from AssignHosts

  const Node& spine02 = NodeByGuid(f, 0x2c90200400100);
  EXPECT_EQ(spine02.type, NodeType::kSwitch);
  EXPECT_EQ(spine02.description, "MF0;spine02:MSX6036/U1");
  EXPECT_EQ(spine02.num_ports, 8);
  EXPECT_EQ(spine02.lid, 4u);
  EXPECT_FALSE(spine02.enhanced_port0);
  EXPECT_EQ(spine02.vendor_id, 0x2c9u);
  EXPECT_EQ(spine02.device_id, 0xc738u);
  EXPECT_EQ(spine02.system_image_guid, 0x2c90200400100u);
  ASSERT_EQ(spine02.ports.size(), 8u);
  for (const Port& p : spine02.ports) {
    EXPECT_EQ(p.guid, spine02.guid);
    EXPECT_EQ(p.lid, 4u);
  }
  // spine02[8] <-> leaf04[12]
  const Port* p8 = spine02.FindPort(8);
  ASSERT_NE(p8, nullptr);
  const LinkEnd peer = f.Peer(p8->link, LinkEnd{f.FindNodeByGuid(0x2c90200400100), 8});
  EXPECT_EQ(f.nodes[peer.node].description, "MF0;leaf04:MSX6036/U1");
  EXPECT_EQ(peer.port, 12);
  EXPECT_TRUE(f.nodes[peer.node].enhanced_port0);

  // node16 is dual-ported to leaf04 (ports 4 and 5).
  const Node& node16 = NodeByGuid(f, 0x2c903000e0c00);
  EXPECT_EQ(node16.type, NodeType::kCa);
  EXPECT_EQ(node16.num_ports, 2);
  ASSERT_EQ(node16.ports.size(), 2u);
  EXPECT_EQ(node16.ports[0].guid, 0x2c903000e0c01u);
  EXPECT_EQ(node16.ports[0].lid, 8u);
  EXPECT_EQ(node16.ports[1].guid, 0x2c903000e0c02u);
  EXPECT_EQ(node16.ports[1].lid, 9u);
  EXPECT_EQ(node16.lid, 8u);

  // Parallel uplinks: leaf01 has two links to each spine.
  const int leaf01 = f.FindNodeByGuid(0x2c90200500000);
  const int spine01 = f.FindNodeByGuid(0x2c90200400000);
  int parallel = 0;
  for (const Link& l : f.links) {
    if ((l.a.node == leaf01 && l.b.node == spine01) ||
        (l.a.node == spine01 && l.b.node == leaf01)) {
      ++parallel;
    }
  }
  EXPECT_EQ(parallel, 2);
}

void ExpectSameFabric(const std::string& reference, const std::vector<std::string>& variants) {
  ASSERT_OK_AND_ASSIGN(Fabric ref, ParseSample(reference));
  const auto links = CanonicalLinks(ref);
  const auto nodes = CanonicalNodes(ref);
  const auto ports = CanonicalPorts(ref);
  for (const std::string& v : variants) {
    SCOPED_TRACE(v);
    ASSERT_OK_AND_ASSIGN(Fabric f, ParseSample(v));
    ExpectConsistent(f);
    EXPECT_EQ(CanonicalNodes(f), nodes);
    EXPECT_EQ(CanonicalLinks(f), links);
    EXPECT_EQ(CanonicalPorts(f), ports);
    for (const Node& n : f.nodes) {
      EXPECT_EQ(n.lid, NodeByGuid(ref, n.guid).lid) << FormatGuid(n.guid);
    }
  }
}

TEST(ParseIbnetdiscover, FatTreeVariantsDescribeTheSameFabric) {
  ExpectSameFabric("ibnetdiscover_fattree_default.txt",
                   {"ibnetdiscover_fattree_ports_p.txt", "ibnetdiscover_fattree_grouping_g.txt",
                    "ibnetdiscover_fattree_full_f.txt", "ibnetdiscover_fattree_maxhops_m.txt"});
}

TEST(ParseIbnetdiscover, EdgeCaseVariantsDescribeTheSameFabric) {
  ExpectSameFabric(
      "ibnetdiscover_edgecases_default.txt",
      {"ibnetdiscover_edgecases_ports_p.txt", "ibnetdiscover_edgecases_grouping_g.txt"});
}

TEST(ParseIbnetdiscover, ChassisVariantsDescribeTheSameFabric) {
  ExpectSameFabric("ibnetdiscover_chassis_default.txt",
                   {"ibnetdiscover_chassis_grouping_g.txt", "ibnetdiscover_chassis_ports_p.txt"});
}

TEST(ParseIbnetdiscover, PortsReportDetails) {
  ASSERT_OK_AND_ASSIGN(Fabric p, ParseSample("ibnetdiscover_fattree_ports_p.txt"));
  ASSERT_OK_AND_ASSIGN(Fabric d, ParseSample("ibnetdiscover_fattree_default.txt"));
  // Switches list every port, connected or not: num_ports is exact for them.
  for (const Node& n : p.nodes) {
    if (n.type == NodeType::kSwitch) {
      EXPECT_EQ(n.num_ports, NodeByGuid(d, n.guid).num_ports);
    }
  }
  // Unconnected leaf ports 6..8 are not links and have no Port entry.
  const Node& leaf04 = NodeByGuid(p, 0x2c90200500300);
  EXPECT_EQ(leaf04.ports.size(), 9u);
  EXPECT_EQ(leaf04.FindPort(7), nullptr);
  EXPECT_EQ(leaf04.lid, 7u);
}

TEST(ParseIbnetdiscover, Lmc) {
  ASSERT_OK_AND_ASSIGN(Fabric f, ParseSample("ibnetdiscover_fattree_lmc2.txt"));
  ExpectConsistent(f);
  const Node& node16 = NodeByGuid(f, 0x2c903000e0c00);
  ASSERT_EQ(node16.ports.size(), 2u);
  EXPECT_EQ(node16.ports[0].lid, 16u);
  EXPECT_EQ(node16.ports[0].lmc, 2);
  EXPECT_EQ(node16.ports[1].lid, 20u);
  EXPECT_EQ(node16.ports[1].lmc, 2);
  EXPECT_EQ(node16.lmc, 2);
  const Node& leaf04 = NodeByGuid(f, 0x2c90200500300);
  EXPECT_EQ(leaf04.lid, 13u);
  EXPECT_EQ(leaf04.lmc, 0);
  // The -p report of the same fabric: same links and LIDs (it does not print the LMC).
  ASSERT_OK_AND_ASSIGN(Fabric p, ParseSample("ibnetdiscover_fattree_lmc2_ports_p.txt"));
  EXPECT_EQ(CanonicalLinks(p), CanonicalLinks(f));
  EXPECT_EQ(CanonicalPorts(p), CanonicalPorts(f));
}

TEST(ParseIbnetdiscover, EdgeCases) {
  ASSERT_OK_AND_ASSIGN(Fabric f, ParseSample("ibnetdiscover_edgecases_default.txt"));
  ExpectConsistent(f);
  EXPECT_EQ(f.CountNodes(NodeType::kSwitch), 2u);
  EXPECT_EQ(f.CountNodes(NodeType::kRouter), 1u);
  EXPECT_EQ(f.CountNodes(NodeType::kAggregation), 1u);
  EXPECT_EQ(f.CountNodes(NodeType::kCa), 6u);
  EXPECT_EQ(f.links.size(), 12u);  // Voltaire switch: 4 ports; swA: 8 more

  const Node& sharp = NodeByGuid(f, 0x2c90000020cf9);
  EXPECT_EQ(sharp.type, NodeType::kAggregation);
  EXPECT_EQ(sharp.description, "Mellanox Technologies Aggregation Node");

  const Node& gw = NodeByGuid(f, 0x8f10400410000);
  EXPECT_EQ(gw.type, NodeType::kRouter);
  ASSERT_EQ(gw.ports.size(), 2u);
  EXPECT_EQ(gw.ports[1].guid, 0x8f10400410002u);
  EXPECT_EQ(gw.ports[1].lid, 11u);

  // hostF is dual-homed: port 1 to swA, port 2 to the Voltaire switch.
  const int hostf = f.FindNodeByGuid(0x2c903001f0000);
  ASSERT_GE(hostf, 0);
  std::set<uint64_t> switches;
  for (const Port& p : f.nodes[hostf].ports) {
    switches.insert(f.nodes[f.Peer(p.link, LinkEnd{hostf, p.number}).node].guid);
    EXPECT_EQ(f.links[p.link].speed, LinkSpeed::kDDR);
  }
  EXPECT_EQ(switches, (std::set<uint64_t>{0x7cfe900300a1b200, 0x8f10500200000}));

  auto rate_of = [&](uint64_t ca_guid) {
    const int n = f.FindNodeByGuid(ca_guid);
    const Link& l = f.links[f.nodes[n].ports[0].link];
    return std::make_tuple(l.width_lanes, l.speed, l.data_rate_gbps);
  };
  EXPECT_EQ(rate_of(0x98039b0300c0ff00), std::make_tuple(4, LinkSpeed::kHDR, 200.0));
  EXPECT_EQ(rate_of(0x248a070300a00000), std::make_tuple(4, LinkSpeed::kEDR, 100.0));
  EXPECT_EQ(std::get<1>(rate_of(0x2c903001c0000)), LinkSpeed::kFDR);
  EXPECT_NEAR(std::get<2>(rate_of(0x2c903001c0000)), 54.545, 0.001);
  EXPECT_EQ(rate_of(0x2c903001d0000), std::make_tuple(1, LinkSpeed::kQDR, 8.0));
  EXPECT_EQ(rate_of(0x2c903001e0000), std::make_tuple(12, LinkSpeed::kQDR, 96.0));
}

TEST(ParseIbnetdiscover, ChassisGroupingKeepsExtPortNumbers) {
  ASSERT_OK_AND_ASSIGN(Fabric f, ParseSample("ibnetdiscover_chassis_grouping_g.txt"));
  const Node& line2 = NodeByGuid(f, 0x2c9030000c202);
  EXPECT_EQ(line2.description, "MF0;core1:IS5100/L02/U1");
  EXPECT_EQ(line2.system_image_guid, 0x2c9030000c000u);
  ASSERT_NE(line2.FindPort(18), nullptr);
  EXPECT_EQ(line2.FindPort(18)->ext_number, 18);
  EXPECT_EQ(line2.FindPort(3)->ext_number, 3);
  EXPECT_EQ(line2.FindPort(19)->ext_number, 0);
  EXPECT_EQ(f.CountNodes(NodeType::kSwitch), 5u);
}

TEST(ParseIbnetdiscover, RealNvidiaLoopsMixed) {
  // stderr line on top, single-space separators, self-cabled switch ports, CA node GUID ==
  // port GUID, EDR/FDR/QDR/SDR.
  ASSERT_OK_AND_ASSIGN(Fabric f, ParseSample("ibnetdiscover_real_nvidia_loops_mixed.txt"));
  ExpectConsistent(f);
  EXPECT_EQ(f.CountNodes(NodeType::kSwitch), 2u);
  EXPECT_EQ(f.CountNodes(NodeType::kCa), 6u);
  EXPECT_EQ(CountSelfLinks(f), 3);
  EXPECT_EQ(f.links.size(), 3u + 1u + 6u);  // 3 loops, 1 inter-switch, 6 CAs
  const Node& sw = NodeByGuid(f, 0xe41d2d030003e470);
  EXPECT_EQ(sw.lid, 268u);
  const int swi = f.FindNodeByGuid(0xe41d2d030003e470);
  EXPECT_EQ(f.Peer(sw.FindPort(19)->link, LinkEnd{swi, 19}), (LinkEnd{swi, 21}));
  const Node& ufm216 = NodeByGuid(f, 0xe41d2d030061f957);
  EXPECT_EQ(ufm216.ports[0].guid, ufm216.guid);
  EXPECT_EQ(ufm216.description, "r-ufm216 HCA-2");
  std::set<LinkSpeed> speeds;
  for (const Link& l : f.links) speeds.insert(l.speed);
  EXPECT_EQ(speeds, (std::set<LinkSpeed>{LinkSpeed::kSDR, LinkSpeed::kQDR, LinkSpeed::kFDR,
                                         LinkSpeed::kEDR}));
  EXPECT_TRUE(NodeByGuid(f, 0xf4521403005764b0).enhanced_port0);
}

TEST(ParseIbnetdiscover, RealManPageVoltaire2007) {
  ASSERT_OK_AND_ASSIGN(Fabric f, ParseSample("ibnetdiscover_real_manpage_voltaire_g.txt"));
  ExpectConsistent(f);
  EXPECT_EQ(f.CountNodes(NodeType::kSwitch), 2u);
  EXPECT_EQ(f.CountNodes(NodeType::kCa), 4u);
  EXPECT_EQ(f.links.size(), 7u);
  const Node& ca = NodeByGuid(f, 0x8f10403960558);
  ASSERT_EQ(ca.ports.size(), 2u);
  EXPECT_EQ(ca.ports[0].lid, 10u);
  EXPECT_EQ(ca.ports[0].lmc, 1);
  EXPECT_EQ(f.links[ca.ports[0].link].width_lanes, 1);
  EXPECT_EQ(f.links[ca.ports[0].link].speed, LinkSpeed::kSDR);
  EXPECT_DOUBLE_EQ(f.links[ca.ports[0].link].data_rate_gbps, 2.0);
}

TEST(ParseIbnetdiscover, RealIbmSmallWithoutSysimgguid) {
  ASSERT_OK_AND_ASSIGN(Fabric f, ParseSample("ibnetdiscover_real_ibm_small.txt"));
  ExpectConsistent(f);
  EXPECT_EQ(f.links.size(), 2u);
  const Node& sw = NodeByGuid(f, 0xb8cffff0053ee);
  EXPECT_EQ(sw.system_image_guid, 0u);
  EXPECT_EQ(sw.num_ports, 8);
  const Node& ca = NodeByGuid(f, 0x2c9030002847c);
  ASSERT_EQ(ca.ports.size(), 1u);
  EXPECT_EQ(ca.ports[0].number, 2);  // cabled through its second port
  EXPECT_EQ(ca.lid, 2u);
}

TEST(ParseIbnetdiscover, RefusesTheNodeListFormats) {
  for (const char* name :
       {"ibnetdiscover_fattree_list_l.txt", "ibnetdiscover_edgecases_routers_R.txt"}) {
    EXPECT_THAT(ParseSample(name),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         ::testing::AllOf(HasSubstr(std::string(name) + ":1:"),
                                          HasSubstr("plain `ibnetdiscover`"), HasSubstr("-p"))));
  }
}

TEST(ParseIbnetdiscover, RefusesCaWithoutPortLines) {
  EXPECT_THAT(ParseSample("ibnetdiscover_real_nvidia_topograph_truncated_bad.txt"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       ::testing::AllOf(
                           HasSubstr("ibnetdiscover_real_nvidia_topograph_truncated_bad.txt:10:"),
                           HasSubstr("no port lines"))));
}

// A small well-formed dump the malformed cases below are derived from (line numbers matter).
constexpr char kTiny[] =
    "#\n"                                                                               // 1
    "# Topology file: generated on Sun Nov 22 01:46:55 2026\n"                          // 2
    "#\n"                                                                               // 3
    "# Initiated from node 0002c903000e0b10 port 0002c903000e0b11\n"                    // 4
    "\n"                                                                                // 5
    "vendid=0x2c9\n"                                                                    // 6
    "devid=0xc738\n"                                                                    // 7
    "sysimgguid=0x2c90200500000\n"                                                      // 8
    "switchguid=0x2c90200500000(2c90200500000)\n"                                       // 9
    "Switch\t12 \"S-0002c90200500000\"\t\t# \"sw1\" enhanced port 0 lid 49151 lmc 0\n"  // 10
    "[1]\t\"H-0002c903000e0b10\"[1](2c903000e0b11) \t\t# \"node01 mlx5_0\" lid 40737 4xHDR\n"
    "[2]\t\"S-0002c90200500000\"[3]\t\t# \"sw1\" lid 49151 4xHDR\n"  // 12
    "[3]\t\"S-0002c90200500000\"[2]\t\t# \"sw1\" lid 49151 4xHDR\n"  // 13
    " \n"                                                            // 14
    "vendid=0x2c9\n"                                                 // 15
    "devid=0x101b\n"                                                 // 16
    "caguid=0x2c903000e0b10\n"                                       // 17
    "Ca\t1 \"H-0002c903000e0b10\"\t\t# \"node01 mlx5_0\"\n"          // 18
    "[1](2c903000e0b11) \t\"S-0002c90200500000\"[1]\t\t# lid 40737 lmc 0 \"sw1\" lid 49151 "
    "4xHDR\n";  // 19

TEST(ParseIbnetdiscover, TinyDumpHighLidsAndSelfCabledSwitch) {
  ASSERT_OK_AND_ASSIGN(Fabric f, ParseText(kTiny));
  ExpectConsistent(f);
  ASSERT_EQ(f.links.size(), 2u);
  EXPECT_EQ(CountSelfLinks(f), 1);
  EXPECT_EQ(f.nodes[0].lid, 49151u);
  EXPECT_EQ(f.nodes[1].lid, 40737u);
  EXPECT_EQ(f.nodes[1].ports[0].lid, 40737u);
  EXPECT_EQ(f.links[0].speed, LinkSpeed::kHDR);
}

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

void ExpectError(const std::string& text, const std::string& where, const std::string& what) {
  EXPECT_THAT(ParseText(text),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       ::testing::AllOf(HasSubstr("t.txt:" + where + ": "), HasSubstr(what))))
      << text;
}

TEST(ParseIbnetdiscover, MalformedInputsNameFileAndLine) {
  const std::string tiny = kTiny;
  // Bad GUIDs.
  ExpectError(Replace(tiny, "caguid=0x2c903000e0b10", "caguid=0xzz"), "17", "bad GUID");
  ExpectError(Replace(tiny, "caguid=0x2c903000e0b10", "caguid=0x2c903000e0b10123456789"), "17",
              "bad GUID");
  ExpectError(Replace(tiny, "Ca\t1 \"H-0002c903000e0b10\"", "Ca\t1 \"H-00g2c903000e0b10\""), "18",
              "node id");
  ExpectError(Replace(tiny, "caguid=0x2c903000e0b10", "caguid=0x2c903000e0b11"), "18", "disagrees");
  // Port line before any node.
  ExpectError("#\n\n[1]\t\"S-0002c90200500000\"[1]\t\t# \"sw1\" lid 3 4xQDR\n", "3",
              "port line before any node header");
  // Truncated mid-record: the CA record lost its header line.
  ExpectError(tiny.substr(0, tiny.find("vendid=0x2c9\ndevid=0x101b")), "11", "never declared");
  // Truncated after the node header lines.
  ExpectError(tiny.substr(0, tiny.find("Ca\t1")) + "Ca\t1 \"H-0002c903000e0b10\"\t\t# \"x\"\n",
              "18", "no port lines");
  ExpectError(tiny.substr(0, tiny.find("caguid")), "15", "truncated");
  // The two ends disagree.
  ExpectError(Replace(tiny, "\"S-0002c90200500000\"[1]\t\t# lid 40737",
                      "\"S-0002c90200500000\"[5]\t\t# lid 40737"),
              "11", "line 19 says port 1");
  ExpectError(Replace(tiny, "[3]\t\"S-0002c90200500000\"[2]", "[3]\t\"S-0002c90200500000\"[3]"),
              "12", "line 13 says port 3");
  ExpectError(Replace(tiny, "[1](2c903000e0b11) \t\t#", "[1](2c903000e0b12) \t\t#"), "11",
              "port GUID");
  ExpectError(Replace(tiny, "\"H-0002c903000e0b10\"[1](2c903000e0b11) \t\t#",
                      "\"S-0002c903000e0b10\"[1]\t\t#"),
              "11", "declared as a ca");
  // Duplicate port line, bad rate, unknown lines.
  ExpectError(Replace(tiny, "[3]\t\"S", "[2]\t\"S"), "13", "listed twice");
  ExpectError(Replace(tiny, "lid 49151 4xHDR\n[3]", "lid 49151 4xHBR\n[3]"), "12",
              "bad link width/speed");
  ExpectError(Replace(tiny, " \n", "garbage here\n"), "14", "unrecognised line");
  ExpectError(Replace(tiny, "vendid=0x2c9\ndevid=0x101b", "vendid=0x2c9\nvendid=0x2c9"), "16",
              "truncated");
  // Nothing at all.
  EXPECT_THAT(ParseText("#\n# Topology file\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("t.txt")));
  EXPECT_THAT(ParseText(""), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("t.txt")));
}

// Text that is not printable UTF-8 is refused at its line (never
// stored, never a host silently demoted to an anonymous endpoint), and a refusal quotes a
// bounded, escaped piece of whatever the line held.
TEST(ParseIbnetdiscover, HostileTextIsRefusedWithABoundedMessage) {
  const std::string tiny = kTiny;
  ExpectError(Replace(tiny, "Ca\t1 \"H-0002c903000e0b10\"\t\t# \"node01 mlx5_0\"",
                      "Ca\t1 \"H-0002c903000e0b10\"\t\t# \"node01\xff mlx5_0\""),
              "18", "byte 0xff at column 7 is not printable UTF-8");
  ExpectError(Replace(tiny, "Ca\t1 \"H-0002c903000e0b10\"\t\t# \"node01 mlx5_0\"",
                      "Ca\t1 \"H-0002c903000e0b10\"\t\t# \"node01\x1b[2J mlx5_0\""),
              "18", "'node01\\x1b[2J mlx5_0'");
  ExpectError(Replace(tiny, "# \"sw1\" enhanced", "# \"sw\x01\" enhanced"), "10",
              "byte 0x01 at column 3");
  // A 20 KB line and a 5 KB number: the message names file and line and stays short.
  for (const std::string& junk :
       {std::string(20000, 'A'), "lid " + std::string(5000, '9'), std::string("\x1b]0;x\x07")}) {
    const auto r = ParseText(Replace(tiny, " \n", junk + "\n"));
    ASSERT_FALSE(r.ok());
    EXPECT_THAT(r.status().message(), HasSubstr("t.txt:14: "));
    EXPECT_LT(r.status().message().size(), 700u) << r.status().message().substr(0, 200);
    EXPECT_EQ(r.status().message().find('\x1b'), std::string::npos);
  }
  // The ports report (-p) goes through the same check.
  ExpectError(
      "CA    13  1 0x0002c90300aa0081 4x QDR - SW     2  2 0x0002c90200e00000 ( "
      "'hostH\x07 HCA-1' - 'edge1' )\n",
      "1", "byte 0x07");
}

TEST(ParseIbnetdiscover, MalformedPortsReport) {
  const std::string ok =
      "CA    13  1 0x0002c90300aa0081 4x QDR - SW     2  2 0x0002c90200e00000 ( 'hostH HCA-1' "
      "- 'edge1' )\n"
      "SW     2  2 0x0002c90200e00000 4x QDR - CA    13  1 0x0002c90300aa0081 ( 'edge1' - "
      "'hostH HCA-1' )\n"
      "SW     2  3 0x0002c90200e00000 4x SDR                                    'edge1'\n";
  ASSERT_OK_AND_ASSIGN(Fabric f, ParseText(ok));
  EXPECT_EQ(f.links.size(), 1u);
  EXPECT_EQ(f.nodes[0].guid, 0x2c90300aa0080u);  // port GUID - port number
  EXPECT_EQ(NodeByGuid(f, 0x2c90200e00000).num_ports, 3);
  ExpectError(Replace(ok, "4x QDR - CA    13  1", "4x QDR - CA    13  2"), "2", "already cabled");
  ExpectError(Replace(ok, "0x0002c90300aa0081 4x QDR - SW", "0x0002c90300ag0081 4x QDR - SW"), "1",
              "");
  ExpectError(Replace(ok, "( 'edge1' - 'hostH HCA-1' )", "( 'edge1' 'hostH HCA-1' )"), "2",
              "description");
}

// Xsigo-era decorations: `(scp)` after a CA description, ` slot N` after a switch port's rate,
// and the -f raw codes.
TEST(ParseIbnetdiscover, TrailingDecorations) {
  std::string text = Replace(kTiny, "# \"node01 mlx5_0\"\n", "# \"node01 mlx5_0\" (scp)\n");
  text = Replace(text, "lid 49151 4xHDR\n[3]", "lid 49151 4xHDR s=4 w=2 v=4 slot 3\n[3]");
  ASSERT_OK_AND_ASSIGN(Fabric f, ParseText(text));
  EXPECT_EQ(f.nodes[1].description, "node01 mlx5_0");
  EXPECT_EQ(f.links.size(), 2u);
  EXPECT_EQ(f.links[1].speed, LinkSpeed::kHDR);
}

// Ends that report different rates (the man page example has 4xSDR / 1xSDR): the slower
// known width and speed are kept, whichever end is printed first.
TEST(ParseIbnetdiscover, DisagreeingRatesKeepTheSlower) {
  const std::string tiny = kTiny;
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"lid 40737 lmc 0 \"sw1\" lid 49151 4xHDR", "lid 40737 lmc 0 \"sw1\" lid 49151 1xEDR"},
           {"\"node01 mlx5_0\" lid 40737 4xHDR", "\"node01 mlx5_0\" lid 40737 1xEDR"}}) {
    ASSERT_OK_AND_ASSIGN(Fabric f, ParseText(Replace(tiny, from, to)));
    const Link& l = f.links[f.nodes[1].ports[0].link];
    EXPECT_EQ(l.width_lanes, 1);
    EXPECT_EQ(l.speed, LinkSpeed::kEDR);
    EXPECT_DOUBLE_EQ(l.data_rate_gbps, 25.0);
  }
  ASSERT_OK_AND_ASSIGN(Fabric f,
                       ParseText(Replace(tiny, "lid 49151 4xHDR\n[3]", "lid 49151 ?????\n[3]")));
  EXPECT_EQ(f.links[1].width_lanes, 4);  // the unknown end does not erase the known one
  EXPECT_EQ(f.links[1].speed, LinkSpeed::kHDR);
  const std::string ports =
      "CA    13  1 0x0002c90300aa0081 4x QDR - SW     2  2 0x0002c90200e00000 ( 'h' - 'e' )\n"
      "SW     2  2 0x0002c90200e00000 1x DDR - CA    13  1 0x0002c90300aa0081 ( 'e' - 'h' )\n";
  ASSERT_OK_AND_ASSIGN(Fabric p, ParseText(ports));
  EXPECT_EQ(p.links[0].width_lanes, 1);
  EXPECT_EQ(p.links[0].speed, LinkSpeed::kDDR);
  EXPECT_DOUBLE_EQ(p.links[0].data_rate_gbps, 4.0);
}

TEST(ParseIbnetdiscover, ToleratesSpacesCrLfAndStderrNoise) {
  std::string text = kTiny;
  for (char& c : text) {
    if (c == '\t') c = ' ';
  }
  std::string crlf;
  for (char c : text) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  crlf =
      "bash: warning: setlocale: LC_ALL: cannot change locale (en_US.UTF-8)\n"
      "ibwarn: [1234] mad_rpc: _do_madrpc failed; dport (DR path slid 0; dlid 0; 0,1)\r\n" +
      crlf;
  ASSERT_OK_AND_ASSIGN(Fabric f, ParseText(crlf));
  EXPECT_EQ(f.links.size(), 2u);
  EXPECT_EQ(f.nodes[1].description, "node01 mlx5_0");
}

// Every ibnetdiscover sample that is a topology file or a -p report parses.
TEST(ParseIbnetdiscover, EverySharedSampleParses) {
  for (const char* name :
       {"ibnetdiscover_chassis_default.txt", "ibnetdiscover_chassis_grouping_g.txt",
        "ibnetdiscover_chassis_ports_p.txt", "ibnetdiscover_edgecases_default.txt",
        "ibnetdiscover_edgecases_grouping_g.txt", "ibnetdiscover_edgecases_ports_p.txt",
        "ibnetdiscover_fattree_default.txt", "ibnetdiscover_fattree_full_f.txt",
        "ibnetdiscover_fattree_grouping_g.txt", "ibnetdiscover_fattree_lmc2.txt",
        "ibnetdiscover_fattree_lmc2_ports_p.txt", "ibnetdiscover_fattree_maxhops_m.txt",
        "ibnetdiscover_fattree_ports_p.txt", "ibnetdiscover_real_ibm_small.txt",
        "ibnetdiscover_real_manpage_voltaire_g.txt", "ibnetdiscover_real_nvidia_loops_mixed.txt"}) {
    SCOPED_TRACE(name);
    ASSERT_OK_AND_ASSIGN(Fabric f, ParseSample(name));
    ExpectConsistent(f);
    EXPECT_FALSE(f.links.empty());
  }
}

// A fat tree in the exact default output format: `pods` pods, each with `leaves` leaf switches
// carrying `hosts_per_leaf` 1-port HCAs and one uplink to each of the pod's `spines` spines.
std::string MakeFatTreeDump(int pods, int spines, int leaves, int hosts_per_leaf) {
  std::string out =
      "#\n# Topology file: generated on Sun Nov 22 01:46:55 2026\n#\n"
      "# Initiated from node 0002c90300000000 port 0002c90300000001\n";
  out.reserve(static_cast<size_t>(pods) * leaves * hosts_per_leaf * 500);
  char buf[320];
  const int total_spines = pods * spines, total_leaves = pods * leaves;
  auto spine_guid = [](int s) { return 0x2c90200400000ull + s; };
  auto leaf_guid = [](int l) { return 0x2c90200500000ull + l; };
  auto host_guid = [](int h) { return 0x2c90300000000ull + 16ull * h; };
  auto spine_lid = [](int s) { return 1 + s; };
  auto leaf_lid = [&](int l) { return 1 + total_spines + l; };
  auto host_lid = [&](int h) { return 1 + total_spines + total_leaves + h; };
  for (int s = 0; s < total_spines; ++s) {
    std::snprintf(buf, sizeof(buf),
                  "\nvendid=0x2c9\ndevid=0xd2f2\nsysimgguid=0x%llx\nswitchguid=0x%llx(%llx)\n"
                  "Switch\t%d \"S-%016llx\"\t\t# \"MF0;spine%04d:MQM9700/U1\" enhanced port 0 "
                  "lid %d lmc 0\n",
                  spine_guid(s), spine_guid(s), spine_guid(s), leaves, spine_guid(s), s,
                  spine_lid(s));
    out += buf;
    const int pod = s / spines;
    for (int i = 0; i < leaves; ++i) {
      const int l = pod * leaves + i;
      std::snprintf(buf, sizeof(buf),
                    "[%d]\t\"S-%016llx\"[%d]\t\t# \"MF0;leaf%04d:MQM9700/U1\" lid %d 4xNDR\n",
                    i + 1, leaf_guid(l), hosts_per_leaf + s % spines + 1, l, leaf_lid(l));
      out += buf;
    }
  }
  for (int l = 0; l < total_leaves; ++l) {
    std::snprintf(buf, sizeof(buf),
                  "\nvendid=0x2c9\ndevid=0xd2f2\nsysimgguid=0x%llx\nswitchguid=0x%llx(%llx)\n"
                  "Switch\t%d \"S-%016llx\"\t\t# \"MF0;leaf%04d:MQM9700/U1\" enhanced port 0 "
                  "lid %d lmc 0\n",
                  leaf_guid(l), leaf_guid(l), leaf_guid(l), hosts_per_leaf + spines, leaf_guid(l),
                  l, leaf_lid(l));
    out += buf;
    for (int h = 0; h < hosts_per_leaf; ++h) {
      const int host = l * hosts_per_leaf + h;
      std::snprintf(buf, sizeof(buf),
                    "[%d]\t\"H-%016llx\"[1](%llx) \t\t# \"node%05d mlx5_0\" lid %d 4xNDR\n", h + 1,
                    host_guid(host), host_guid(host) + 1, host, host_lid(host));
      out += buf;
    }
    const int pod = l / leaves;
    for (int i = 0; i < spines; ++i) {
      const int s = pod * spines + i;
      std::snprintf(buf, sizeof(buf),
                    "[%d]\t\"S-%016llx\"[%d]\t\t# \"MF0;spine%04d:MQM9700/U1\" lid %d 4xNDR\n",
                    hosts_per_leaf + i + 1, spine_guid(s), l % leaves + 1, s, spine_lid(s));
      out += buf;
    }
  }
  for (int host = 0; host < total_leaves * hosts_per_leaf; ++host) {
    const int l = host / hosts_per_leaf, h = host % hosts_per_leaf;
    std::snprintf(buf, sizeof(buf),
                  "\nvendid=0x2c9\ndevid=0x1021\nsysimgguid=0x%llx\ncaguid=0x%llx\n"
                  "Ca\t1 \"H-%016llx\"\t\t# \"node%05d mlx5_0\"\n"
                  "[1](%llx) \t\"S-%016llx\"[%d]\t\t# lid %d lmc 0 \"MF0;leaf%04d:MQM9700/U1\" "
                  "lid %d 4xNDR\n",
                  host_guid(host), host_guid(host), host_guid(host), host, host_guid(host) + 1,
                  leaf_guid(l), h + 1, host_lid(host), l, leaf_lid(l));
    out += buf;
  }
  return out;
}

// 10,240 hosts (10 pods x 32 leaves x 32 hosts, 32 spines per pod). The parse time of a
// dump this size (target < 0.3 s) is measured by bench/ingest_bench and bench/scale_bench on
// the real ibsim + ibnetdiscover dump of the same shape, not here.
TEST(ParseIbnetdiscover, LargeFabric) {
  const std::string dump = MakeFatTreeDump(10, 32, 32, 32);
  ASSERT_OK_AND_ASSIGN(Fabric f, ParseText(dump));
  ExpectConsistent(f);
  EXPECT_EQ(f.CountNodes(NodeType::kCa), 10240u);
  EXPECT_EQ(f.CountNodes(NodeType::kSwitch), 640u);
  EXPECT_EQ(f.links.size(), 10240u + 320u * 32u);
}

}  // namespace
}  // namespace toporr::collectors

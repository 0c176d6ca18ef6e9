#include "collectors/opa_topology_xml.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "collectors/hosts.h"
#include "collectors/opareport.h"
#include "common/status_matchers.h"
#include "common/test_data.h"
#include "fabric/fabric.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::collectors {

using fabric::Fabric;
using fabric::Host;
using fabric::Link;
using fabric::LinkEnd;
using fabric::LinkSpeed;
using fabric::Node;
using fabric::NodeType;
using fabric::Port;
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::toporr::testing::ReadFileOrDie;
using ::toporr::testing::ReadSharedFabric;
using ::toporr::testing::StatusIs;

absl::StatusOr<Fabric> Parse(const std::string& text, OpaParseStats* stats = nullptr,
                             bool keep_unlinked = false) {
  OpaOptions options;
  options.file_name = "t.xml";
  options.keep_unlinked_nodes = keep_unlinked;
  return ParseOpaTopologyXml(text, options, stats);
}

int NodeByDesc(const Fabric& f, const std::string& desc) {
  int found = -1;
  for (size_t i = 0; i < f.nodes.size(); ++i) {
    if (f.nodes[i].description == desc) {
      EXPECT_EQ(found, -1) << "two nodes named " << desc;
      found = static_cast<int>(i);
    }
  }
  EXPECT_GE(found, 0) << "no node named " << desc;
  return found;
}

// The link cabled to (node named `desc`, `port`), or nullptr.
const Link* LinkAt(const Fabric& f, const std::string& desc, int port) {
  const int n = NodeByDesc(f, desc);
  if (n < 0) return nullptr;
  const Port* p = f.nodes[n].FindPort(port);
  return p && p->link >= 0 ? &f.links[p->link] : nullptr;
}

std::string PeerDesc(const Fabric& f, const std::string& desc, int port) {
  const Link* l = LinkAt(f, desc, port);
  if (!l) return "<none>";
  const LinkEnd& far = f.nodes[l->a.node].description == desc && l->a.port == port ? l->b : l->a;
  return absl::StrCat(f.nodes[far.node].description, ":", far.port);
}

// Every link is referenced by exactly its two ports.
void ExpectConsistent(const Fabric& f) {
  std::vector<int> refs(f.links.size(), 0);
  for (const Node& n : f.nodes)
    for (const Port& p : n.ports)
      if (p.link >= 0) ++refs[p.link];
  for (size_t i = 0; i < refs.size(); ++i) EXPECT_EQ(refs[i], 2) << "link " << i;
}

std::vector<std::string> HostNames(const Fabric& f) {
  std::vector<std::string> out;
  for (const Host& h : f.hosts) out.push_back(h.name);
  return out;
}

// --- the shared samples --------------------------------------------------------------------

TEST(OpaTopologyXmlTest, OpaxlattopologyDetailedSample) {
  OpaParseStats stats;
  ASSERT_OK_AND_ASSIGN(
      Fabric f, Parse(ReadSharedFabric("opa_topology_opaxlattopology_detailed.xml"), &stats));
  EXPECT_EQ(f.links.size(), 753u);
  EXPECT_EQ(stats.links, 753);
  EXPECT_EQ(stats.internal_links, 728);
  EXPECT_EQ(stats.links_without_rate, 0);
  EXPECT_EQ(stats.unlinked_nodes_dropped, 0);
  EXPECT_EQ(f.CountNodes(NodeType::kCa), 17u);
  EXPECT_EQ(f.CountNodes(NodeType::kSwitch), 70u);
  EXPECT_EQ(stats.synthesized_guids, 87);
  ExpectConsistent(f);
  for (const Link& l : f.links) {
    EXPECT_EQ(l.width_lanes, 4);
    EXPECT_EQ(l.speed, LinkSpeed::kUnknown);
    EXPECT_DOUBLE_EQ(l.data_rate_gbps, 100.0);
  }
  // External cable and director-internal link; "01" zero-padded port numbers are port 1.
  EXPECT_EQ(PeerDesc(f, "sw11", 19), "core1 L108A:9");
  EXPECT_EQ(PeerDesc(f, "core1 S201A", 1), "core1 L101A:48");
  EXPECT_EQ(PeerDesc(f, "Xhost hfi1_0", 1), "Xswitch:1");
  const Node& leaf = f.nodes[NodeByDesc(f, "core1 L101A")];
  EXPECT_EQ(leaf.type, NodeType::kSwitch);
  EXPECT_EQ(leaf.num_ports, 48);
  EXPECT_EQ(leaf.guid, SynthesizedOpaNodeGuid("core1 L101A"));
  EXPECT_TRUE(IsSynthesizedOpaNodeGuid(leaf.guid));
  // Stable across runs: a second parse gives the same GUIDs in the same order.
  ASSERT_OK_AND_ASSIGN(Fabric g,
                       Parse(ReadSharedFabric("opa_topology_opaxlattopology_detailed.xml")));
  ASSERT_EQ(g.nodes.size(), f.nodes.size());
  for (size_t i = 0; i < f.nodes.size(); ++i) EXPECT_EQ(g.nodes[i].guid, f.nodes[i].guid);
  // The first link's ends come first (file order).
  EXPECT_EQ(f.nodes[0].description, "sw11");
  EXPECT_EQ(f.nodes[1].description, "core1 L108A");

  ASSERT_OK(AssignHosts(HostRule{}, {}, &f));
  EXPECT_EQ(f.hosts.size(), 17u);
  EXPECT_GE(f.FindHost("host01"), 0);
  EXPECT_GE(f.FindHost("host208"), 0);
  EXPECT_GE(f.FindHost("Xhost"), 0);
  EXPECT_TRUE(f.anonymous_endpoints.empty());
  const Host& h = f.hosts[f.FindHost("host05")];
  ASSERT_EQ(h.cas.size(), 1u);
  EXPECT_EQ(f.nodes[h.cas[0]].description, "host05 hfi1_0");
}

TEST(OpaTopologyXmlTest, OpagentopologySample) {
  OpaParseStats stats;
  ASSERT_OK_AND_ASSIGN(Fabric f,
                       Parse(ReadSharedFabric("opa_topology_opagentopology.xml"), &stats));
  ASSERT_EQ(f.links.size(), 2u);
  EXPECT_EQ(stats.internal_links, 0);
  EXPECT_EQ(stats.synthesized_guids, 0);
  // The <Nodes> FIs carry GUIDs (0x0002c902...) the links never use: unlinked, dropped.
  EXPECT_EQ(stats.unlinked_nodes_dropped, 2);
  ASSERT_EQ(f.nodes.size(), 4u);
  const Node& bender = f.nodes[NodeByDesc(f, "bender hfi1_0")];
  EXPECT_EQ(bender.guid, 0x001175010020e004u);
  EXPECT_EQ(bender.type, NodeType::kCa);
  ASSERT_EQ(bender.ports.size(), 1u);
  EXPECT_EQ(bender.ports[0].guid, 0x001175010020e004u);  // the selector's PortGUID
  const Node& leaf4 = f.nodes[NodeByDesc(f, "Switch 1234 Leaf 4")];
  EXPECT_EQ(leaf4.guid, 0x0011750107000df6u);
  EXPECT_EQ(leaf4.type, NodeType::kSwitch);
  EXPECT_EQ(PeerDesc(f, "bender hfi1_0", 1), "Switch 1234 Leaf 4:7");
  EXPECT_EQ(PeerDesc(f, "mindy2 hfi1_0", 1), "Switch 2345 Leaf 5:4");
  for (const Link& l : f.links) {
    EXPECT_EQ(l.width_lanes, 1);
    EXPECT_DOUBLE_EQ(l.data_rate_gbps, 25.0);
  }
  ASSERT_OK(AssignHosts(HostRule{}, {}, &f));
  EXPECT_THAT(HostNames(f), ElementsAre("bender", "mindy2"));

  ASSERT_OK_AND_ASSIGN(Fabric all,
                       Parse(ReadSharedFabric("opa_topology_opagentopology.xml"), nullptr, true));
  EXPECT_EQ(all.nodes.size(), 6u);
  ASSERT_GE(all.FindNodeByGuid(0x0002c9020020e004u), 0);
  EXPECT_TRUE(all.nodes[all.FindNodeByGuid(0x0002c9020020e004u)].ports.empty());
}

// --- opareport -o topology layout (§3.2: Nodes first, ids, Rate + Rate_Int, NodeType_Int) --

// What `opareport -o topology -d 3` prints for 2 HFIs on one switch, in its exact layout.
constexpr char kOpareportTopology[] = R"(<?xml version="1.0" encoding="utf-8" ?>
<Report date="Sat Nov 22 02:00:00 2025" unixtime="1763776800" options="-o topology -d 3" >
<Nodes>
    <FIs>
        <ConnectedFICount>2</ConnectedFICount>
        <Node id="0x00117501017a0001">
            <NodeGUID>0x00117501017a0001</NodeGUID>
            <NodeType>FI</NodeType>
            <NodeType_Int>1</NodeType_Int>
            <NodeDesc>n001 hfi1_0</NodeDesc>
            <Port id="0x00117501017a0001:1">
                <PortNum>1</PortNum>
                <LID>0x0003</LID>
                <PortGUID>0x00117501017a0001</PortGUID>
                <LinkWidthActive>4x</LinkWidthActive>
                <LinkWidthActive_Int>8</LinkWidthActive_Int>
                <LinkSpeedActive>25Gb</LinkSpeedActive>
                <LinkSpeedActive_Int>2</LinkSpeedActive_Int>
            </Port>
        </Node>
        <Node id="0x00117501017a0002">
            <NodeGUID>0x00117501017a0002</NodeGUID>
            <NodeType>FI</NodeType>
            <NodeType_Int>1</NodeType_Int>
            <NodeDesc>n002 hfi1_0</NodeDesc>
            <Port id="0x00117501017a0002:1">
                <PortNum>1</PortNum>
                <LID>0x0004</LID>
                <LMC>1</LMC>
                <PortGUID>0x00117501017a0002</PortGUID>
            </Port>
        </Node>
    </FIs>
    <Switches>
        <ConnectedSwitchCount>1</ConnectedSwitchCount>
        <Node id="0x00117501026a0001">
            <NodeGUID>0x00117501026a0001</NodeGUID>
            <NodeType>SW</NodeType>
            <NodeType_Int>2</NodeType_Int>
            <NodeDesc>edge01</NodeDesc>
            <Port id="0x00117501026a0001:0">
                <PortNum>0</PortNum>
                <LID>0x0001</LID>
                <PortGUID>0x00117501026a0001</PortGUID>
            </Port>
            <Port id="0x00117501026a0001:1">
                <PortNum>1</PortNum>
            </Port>
            <Port id="0x00117501026a0001:2">
                <PortNum>2</PortNum>
            </Port>
        </Node>
    </Switches>
    <SMs>
        <ConnectedSMCount>1</ConnectedSMCount>
        <SM id="0x00117501017a0001:1">
            <NodeGUID>0x00117501017a0001</NodeGUID>
            <PortNum>1</PortNum>
            <PortGUID>0x00117501017a0001</PortGUID>
            <NodeType>FI</NodeType>
            <NodeType_Int>1</NodeType_Int>
            <NodeDesc>n001 hfi1_0</NodeDesc>
        </SM>
    </SMs>
</Nodes>
<LinkSummary>
    <LinkCount>2</LinkCount>
    <Link id="0x00117501017a0001:1">
        <Rate>100g</Rate>
        <Rate_Int>16</Rate_Int>
        <Internal>0</Internal>
        <Port id="0x00117501017a0001:1">
            <NodeGUID>0x00117501017a0001</NodeGUID>
            <PortGUID>0x00117501017a0001</PortGUID>
            <PortNum>1</PortNum>
            <NodeType>FI</NodeType>
            <NodeType_Int>1</NodeType_Int>
            <NodeDesc>n001 hfi1_0</NodeDesc>
        </Port>
        <Port id="0x00117501026a0001:1">
            <NodeGUID>0x00117501026a0001</NodeGUID>
            <PortNum>1</PortNum>
            <NodeType>SW</NodeType>
            <NodeType_Int>2</NodeType_Int>
            <NodeDesc>edge01</NodeDesc>
        </Port>
    </Link>
    <Link id="0x00117501017a0002:1">
        <Rate>75g</Rate>
        <Rate_Int>9</Rate_Int>
        <Internal>0</Internal>
        <Port id="0x00117501017a0002:1">
            <NodeGUID>0x00117501017a0002</NodeGUID>
            <PortGUID>0x00117501017a0002</PortGUID>
            <PortNum>1</PortNum>
            <NodeType>FI</NodeType>
            <NodeType_Int>1</NodeType_Int>
            <NodeDesc>n002 hfi1_0</NodeDesc>
        </Port>
        <Port id="0x00117501026a0001:2">
            <NodeGUID>0x00117501026a0001</NodeGUID>
            <PortNum>2</PortNum>
            <NodeType>SW</NodeType>
            <NodeType_Int>2</NodeType_Int>
            <NodeDesc>edge01</NodeDesc>
        </Port>
    </Link>
</LinkSummary>
</Report>
)";

TEST(OpaTopologyXmlTest, OpareportTopologyLayoutWithLids) {
  OpaParseStats stats;
  ASSERT_OK_AND_ASSIGN(Fabric f, Parse(kOpareportTopology, &stats));
  ASSERT_EQ(f.nodes.size(), 3u);
  ASSERT_EQ(f.links.size(), 2u);
  EXPECT_EQ(stats.synthesized_guids, 0);
  // <Nodes> comes first in opareport's output, so its order is the node order.
  EXPECT_EQ(f.nodes[0].description, "n001 hfi1_0");
  EXPECT_EQ(f.nodes[2].description, "edge01");
  const Node& sw = f.nodes[2];
  EXPECT_EQ(sw.lid, 1u);
  EXPECT_EQ(sw.num_ports, 2);
  for (const Port& p : sw.ports) {
    EXPECT_EQ(p.lid, 1u);
    EXPECT_EQ(p.guid, sw.guid);
  }
  const Node& n2 = f.nodes[1];
  EXPECT_EQ(n2.lid, 4u);
  EXPECT_EQ(n2.lmc, 1);
  ASSERT_NE(n2.FindPort(1), nullptr);
  EXPECT_EQ(n2.FindPort(1)->lid, 4u);
  EXPECT_EQ(n2.FindPort(1)->lmc, 1);
  EXPECT_EQ(n2.FindPort(1)->guid, 0x00117501017a0002u);
  const Link* slow = LinkAt(f, "n002 hfi1_0", 1);
  ASSERT_NE(slow, nullptr);
  EXPECT_EQ(slow->width_lanes, 3);
  EXPECT_DOUBLE_EQ(slow->data_rate_gbps, 75.0);
}

// --- resolution rules ----------------------------------------------------------------------

std::string Doc(const std::string& links, const std::string& nodes = "") {
  return "<?xml version=\"1.0\"?>\n<Topology>\n<LinkSummary>\n" + links + "</LinkSummary>\n" +
         nodes + "</Topology>\n";
}

std::string PortSel(const std::string& fields) { return "<Port>" + fields + "</Port>\n"; }

std::string LinkXml(const std::string& p1, const std::string& p2,
                    const std::string& extra = "<Rate>100g</Rate>") {
  return "<Link>" + extra + "\n" + p1 + p2 + "</Link>\n";
}

TEST(OpaTopologyXmlTest, DescOnlySelectorJoinsTheGuidNodeWithThatDesc) {
  const std::string text = Doc(
      LinkXml(PortSel("<NodeGUID>0x0011750101000001</NodeGUID><PortNum>1</PortNum>"
                      "<NodeDesc>a hfi1_0</NodeDesc><NodeType>FI</NodeType>"),
              PortSel("<NodeDesc>sw</NodeDesc><PortNum>1</PortNum><NodeType>SW</NodeType>")) +
      LinkXml(PortSel("<NodeDesc>a hfi1_0</NodeDesc><PortNum>2</PortNum>"),
              PortSel("<NodeDesc>sw</NodeDesc><PortNum>02</PortNum>"), "<Rate_Int>11</Rate_Int>"));
  OpaParseStats stats;
  ASSERT_OK_AND_ASSIGN(Fabric f, Parse(text, &stats));
  ASSERT_EQ(f.nodes.size(), 2u);
  EXPECT_EQ(stats.synthesized_guids, 1);  // only "sw"
  EXPECT_EQ(f.nodes[0].guid, 0x0011750101000001u);
  EXPECT_EQ(f.nodes[0].num_ports, 2);
  EXPECT_EQ(f.nodes[1].guid, SynthesizedOpaNodeGuid("sw"));
  EXPECT_EQ(PeerDesc(f, "a hfi1_0", 2), "sw:2");
  const Link* l = LinkAt(f, "sw", 2);
  ASSERT_NE(l, nullptr);
  EXPECT_DOUBLE_EQ(l->data_rate_gbps, 12.5);
}

TEST(OpaTopologyXmlTest, PortGuidSelectorsAndMissingRate) {
  // PortGUID only (no PortNum): the port the <Nodes> section gives that GUID.
  const std::string text =
      Doc(LinkXml(PortSel("<PortGUID>0x00117501017a0009</PortGUID>"),
                  PortSel("<NodeGUID>0x0011750102000001</NodeGUID><PortNum>3</PortNum>"
                          "<NodeType>SW</NodeType>"),
                  ""),
          "<Nodes><FIs><Node><NodeGUID>0x00117501017a0008</NodeGUID><NodeDesc>b hfi1_0</NodeDesc>"
          "<Port><PortNum>1</PortNum><LID>0x20</LID><PortGUID>0x00117501017a0009</PortGUID></Port>"
          "</Node></FIs></Nodes>\n");
  OpaParseStats stats;
  ASSERT_OK_AND_ASSIGN(Fabric f, Parse(text, &stats));
  EXPECT_EQ(stats.links_without_rate, 1);
  ASSERT_EQ(f.links.size(), 1u);
  EXPECT_EQ(f.links[0].width_lanes, 0);
  EXPECT_EQ(f.links[0].data_rate_gbps, 0.0);
  EXPECT_EQ(PeerDesc(f, "b hfi1_0", 1), ":3");  // the switch has no description
  const Node& b = f.nodes[NodeByDesc(f, "b hfi1_0")];
  EXPECT_EQ(b.guid, 0x00117501017a0008u);
  EXPECT_EQ(b.lid, 0x20u);
  EXPECT_EQ(b.FindPort(1)->guid, 0x00117501017a0009u);
}

// --- errors --------------------------------------------------------------------------------

void ExpectError(const std::string& text, const std::string& where, const std::string& what) {
  auto r = Parse(text);
  EXPECT_THAT(r.status(), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(where))) << text;
  EXPECT_THAT(r.status().message(), HasSubstr(what)) << text;
}

const std::string kFi = PortSel(
    "<NodeGUID>0x0011750101000001</NodeGUID><PortNum>1</PortNum><NodeType>FI</NodeType>"
    "<NodeDesc>a hfi1_0</NodeDesc>");
const std::string kSw =
    PortSel("<NodeDesc>sw</NodeDesc><PortNum>1</PortNum><NodeType>SW</NodeType>");

TEST(OpaTopologyXmlTest, RefusesLinkWithOnePort) {
  // The <Link> starts on line 4.
  ExpectError(Doc(LinkXml(kFi, "")), "t.xml:4:", "exactly two");
  ExpectError(Doc(LinkXml(kFi, kSw + kSw)), "t.xml:", "more than two");
}

TEST(OpaTopologyXmlTest, RefusesUnresolvableSelectors) {
  ExpectError(Doc(LinkXml(kFi, PortSel("<PortGUID>0x1234</PortGUID>"))),
              "t.xml:6:", "belongs to no port named elsewhere");
  ExpectError(Doc(LinkXml(kFi, PortSel("<NodeGUID>0x1234</NodeGUID><NodeType>SW</NodeType>"))),
              "t.xml:6:", "no <PortNum>");
  ExpectError(Doc(LinkXml(kFi, PortSel("<PortNum>3</PortNum>"))),
              "t.xml:6:", "none of NodeGUID, NodeDesc, PortGUID");
  ExpectError(Doc(LinkXml(kFi, PortSel("<NodeDesc>sw</NodeDesc><PortNum>1</PortNum>"))),
              "t.xml:", "no <NodeType>");
  // Two GUID nodes share a description; a desc-only selector cannot choose.
  ExpectError(Doc(LinkXml(kFi, PortSel("<NodeGUID>0x99</NodeGUID><PortNum>1</PortNum>"
                                       "<NodeDesc>a hfi1_0</NodeDesc><NodeType>FI</NodeType>")) +
                  LinkXml(PortSel("<NodeDesc>a hfi1_0</NodeDesc><PortNum>2</PortNum>"), kSw)),
              "t.xml:9:", "ambiguous");
}

TEST(OpaTopologyXmlTest, RefusesBadValues) {
  ExpectError(Doc(LinkXml(kFi, kSw, "<Rate>42g</Rate>")), "t.xml:4:", "unknown link rate \"42g\"");
  ExpectError(Doc(LinkXml(kFi, kSw,
                          "<Rate>??"
                          "?</Rate>")),
              "t.xml:4:", "unknown link rate");
  ExpectError(Doc(LinkXml(kFi, kSw, "<Rate_Int>99</Rate_Int>")), "t.xml:4:", "<Rate_Int>");
  ExpectError(Doc(LinkXml(kFi, kSw, "<Rate>100g</Rate><Rate_Int>15</Rate_Int>")),
              "t.xml:4:", "disagree");
  ExpectError(Doc(LinkXml(kFi, PortSel("<NodeDesc>sw</NodeDesc><PortNum>255</PortNum>"))),
              "t.xml:6:", "0..254");
  ExpectError(Doc(LinkXml(kFi, PortSel("<NodeDesc>sw</NodeDesc><PortNum>0x1</PortNum>"))),
              "t.xml:6:", "0..254");
  ExpectError(Doc(LinkXml(kFi, PortSel("<NodeDesc>sw</NodeDesc><PortNum>1</PortNum>"
                                       "<NodeType>RT</NodeType>"))),
              "t.xml:6:", "FI or SW");
  ExpectError(Doc(LinkXml(kFi, PortSel("<NodeGUID>0xZZ</NodeGUID><PortNum>1</PortNum>"))),
              "t.xml:6:", "GUID");
}

TEST(OpaTopologyXmlTest, RefusesContradictions) {
  ExpectError(Doc(LinkXml(kFi, kSw) +
                  LinkXml(PortSel("<NodeGUID>0x0011750101000001</NodeGUID><PortNum>2</PortNum>"
                                  "<NodeDesc>b hfi1_0</NodeDesc>"),
                          PortSel("<NodeDesc>sw</NodeDesc><PortNum>2</PortNum>"))),
              "t.xml:", "is named \"b hfi1_0\" here but \"a hfi1_0\"");
  ExpectError(Doc(LinkXml(kFi, kSw) + LinkXml(PortSel("<NodeDesc>sw</NodeDesc><PortNum>3</PortNum>"
                                                      "<NodeType>FI</NodeType>"),
                                              PortSel("<NodeDesc>x</NodeDesc><PortNum>1</PortNum>"
                                                      "<NodeType>SW</NodeType>"))),
              "t.xml:", "is a ca here but a switch");
  // Port cabled twice, link listed twice, port cabled to itself: reported at the second <Link>.
  ExpectError(
      Doc(LinkXml(kFi, kSw) + LinkXml(kFi, PortSel("<NodeDesc>sw</NodeDesc><PortNum>2</PortNum>"))),
      "t.xml:8:", "already cabled elsewhere");
  ExpectError(Doc(LinkXml(kFi, kSw) + LinkXml(kSw, kFi)), "t.xml:8:", "listed twice");
  ExpectError(Doc(LinkXml(kSw, kSw)), "t.xml:4:", "cabled to itself");
  ExpectError(Doc(LinkXml(kFi, kSw),
                  "<Nodes><Switches><Node><NodeDesc>sw</NodeDesc><NodeType>FI</NodeType>"
                  "</Node></Switches></Nodes>\n"),
              "t.xml:9:", "listed under <Switches>");
}

TEST(OpaTopologyXmlTest, RefusesMalformedDocuments) {
  const std::string full = ReadSharedFabric("opa_topology_opaxlattopology_detailed.xml");
  // Cut inside a <Link>: libxml2 reports the end of the data.
  const std::string truncated = full.substr(0, full.size() / 2);
  const long lines = std::count(truncated.begin(), truncated.end(), '\n') + 1;
  ExpectError(truncated, absl::StrCat("t.xml:", lines, ":"), "malformed XML");
  ExpectError("", "t.xml:1:", "malformed XML");
  // Found by fuzz/opareport_xml_fuzzer: an error at the end of a text ending in '\n' is on its
  // last line (libxml2 says the line after it).
  ExpectError("<Report>\n<LinkSummary>\n", "t.xml:2:", "malformed XML");
  ExpectError("<Report>\n<LinkSummary>\n</Report>\n", "t.xml:3:", "mismatch");
  ExpectError("<?xml version=\"1.0\"?>\n<Fabric>\n</Fabric>\n",
              "t.xml:2:", "expected <Topology> or <Report>");
  ExpectError("<Report>\n<Nodes/>\n</Report>\n", "t.xml:1:", "no <LinkSummary>");
  ExpectError("<Report>\n<LinkSummary/>\n<ExternalLinkSummary/>\n</Report>\n",
              "t.xml:3:", "second link section");
  ExpectError("<!DOCTYPE Report [<!ENTITY x \"y\">]>\n<Report><LinkSummary/></Report>\n",
              "t.xml:1:", "DOCTYPE");
}

// libxml2's advice to its callers ("use XML_PARSE_HUGE option") never reaches the operator.
TEST(OpaTopologyXmlTest, LimitsOfLibxml2AreStatedWithoutItsAdvice) {
  std::string deep = "<Report>\n";
  for (int i = 0; i < 300; ++i) deep += "<a>";
  for (int i = 0; i < 300; ++i) deep += "</a>";
  deep += "\n</Report>\n";
  auto r = Parse(deep);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("t.xml:2: malformed XML"));
  EXPECT_THAT(r.status().message(), HasSubstr("beyond libxml2's limits"));
  EXPECT_THAT(r.status().message(), ::testing::Not(HasSubstr("XML_PARSE_HUGE")));
}

TEST(OpaTopologyXmlTest, LineNumbersBeyond65535) {
  // 7000 links of 13 lines each; the last one is missing its second <Port>.
  std::string links;
  for (int i = 0; i < 7000; ++i) {
    links += absl::StrCat("<Link>\n<Rate>100g</Rate>\n<Port>\n<NodeDesc>h", i,
                          " hfi1_0</NodeDesc>\n<PortNum>1</PortNum>\n<NodeType>FI</NodeType>\n"
                          "</Port>\n<Port>\n<NodeDesc>sw",
                          i / 40, "</NodeDesc>\n<PortNum>", i % 40 + 1,
                          "</PortNum>\n<NodeType>SW</NodeType>\n</Port>\n</Link>\n");
  }
  const std::string ok = Doc(links);
  ASSERT_OK_AND_ASSIGN(Fabric f, Parse(ok));
  EXPECT_EQ(f.links.size(), 7000u);
  const std::string bad =
      Doc(links +
          "<Link>\n<Port>\n<NodeDesc>x</NodeDesc>\n<PortNum>1</PortNum>\n</Port>\n"
          "</Link>\n");
  // 3 header lines, 7000 * 13 link lines, then the bad <Link>.
  ExpectError(bad, absl::StrCat("t.xml:", 3 + 7000 * 13 + 1, ":"), "exactly two");
}

// --- inputs generated by opa-fastfabric's tools ---------------------------------------------

class GeneratedInputsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    struct stat st;
    if (stat("/usr/sbin/opaxlattopology", &st) != 0) return;
    const char* srcdir = std::getenv("TEST_SRCDIR");
    const std::string script =
        absl::StrCat(srcdir ? srcdir : ".", "/toporr/collectors/sim/opa/gen_opa_inputs.sh");
    dir_ = new std::string(::toporr::testing::MakeTempDir("opa_gen"));
    const std::string cmd = absl::StrCat(script, " ", *dir_, " 4 8 2 > ", *dir_, "/files.txt");
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  }
  void SetUp() override {
    if (dir_ == nullptr) GTEST_SKIP() << "opa-fastfabric is not installed";
  }
  static absl::StatusOr<Fabric> ParseGenerated(const std::string& name, OpaParseStats* stats) {
    OpaOptions options;
    options.file_name = name;
    return ParseOpaTopologyXml(ReadFileOrDie(*dir_ + "/" + name), options, stats);
  }
  static std::string* dir_;
};
std::string* GeneratedInputsTest::dir_ = nullptr;

TEST_F(GeneratedInputsTest, FatTreeFromOpaxlattopology) {
  OpaParseStats stats;
  ASSERT_OK_AND_ASSIGN(Fabric f, ParseGenerated("fattree-4l2s-32h.xlat.xml", &stats));
  // 32 hosts + 2 multi-rail HFIs, 4 leaves x 2 spines.
  EXPECT_EQ(f.links.size(), 42u);
  EXPECT_EQ(stats.internal_links, 0);
  EXPECT_EQ(f.CountNodes(NodeType::kCa), 34u);
  EXPECT_EQ(f.CountNodes(NodeType::kSwitch), 6u);
  ExpectConsistent(f);
  EXPECT_EQ(PeerDesc(f, "host009 hfi1_0", 1), "leaf02:1");
  EXPECT_EQ(PeerDesc(f, "leaf03", 10), "spine02:3");
  const Link* slow = LinkAt(f, "leaf01", 9);
  ASSERT_NE(slow, nullptr);
  EXPECT_EQ(PeerDesc(f, "leaf01", 9), "spine01:1");
  EXPECT_EQ(slow->width_lanes, 2);
  EXPECT_DOUBLE_EQ(slow->data_rate_gbps, 50.0);
  EXPECT_DOUBLE_EQ(LinkAt(f, "leaf01", 10)->data_rate_gbps, 100.0);

  ASSERT_OK(AssignHosts(HostRule{}, {}, &f));
  EXPECT_EQ(f.hosts.size(), 33u);
  const int mr = f.FindHost("mrail01");
  ASSERT_GE(mr, 0);
  ASSERT_EQ(f.hosts[mr].cas.size(), 2u);
  EXPECT_EQ(PeerDesc(f, f.nodes[f.hosts[mr].cas[0]].description, 1), "leaf01:11");
  EXPECT_EQ(PeerDesc(f, f.nodes[f.hosts[mr].cas[1]].description, 1), "leaf02:11");
}

TEST_F(GeneratedInputsTest, DirectorFromOpaxlattopology) {
  OpaParseStats stats;
  ASSERT_OK_AND_ASSIGN(Fabric f, ParseGenerated("director-swd06-1l-4h.xlat.xml", &stats));
  EXPECT_EQ(f.links.size(), 292u);
  EXPECT_EQ(stats.internal_links, 288);
  EXPECT_EQ(f.CountNodes(NodeType::kCa), 4u);
  ExpectConsistent(f);
  EXPECT_EQ(PeerDesc(f, "dhost03 hfi1_0", 1), "core1 L101A:3");
  ASSERT_OK(AssignHosts(HostRule{}, {}, &f));
  EXPECT_THAT(HostNames(f), ElementsAre("dhost01", "dhost02", "dhost03", "dhost04"));
}

TEST_F(GeneratedInputsTest, GuidsFromOpaxmlgenerate) {
  OpaParseStats stats;
  ASSERT_OK_AND_ASSIGN(Fabric f, ParseGenerated("guids-2sw-4fi.opaxmlgenerate.xml", &stats));
  EXPECT_EQ(f.links.size(), 5u);
  EXPECT_EQ(stats.synthesized_guids, 0);
  EXPECT_EQ(stats.unlinked_nodes_dropped, 0);
  ASSERT_EQ(f.nodes.size(), 6u);
  // fi04 is named by PortGUID only in its link; <Nodes> ties that GUID to its port 1.
  EXPECT_EQ(PeerDesc(f, "fi04 hfi1_0", 1), "edge2:47");
  EXPECT_EQ(PeerDesc(f, "edge1", 48), "edge2:48");
  EXPECT_DOUBLE_EQ(LinkAt(f, "fi03 hfi1_0", 1)->data_rate_gbps, 25.0);
  const Node& fi4 = f.nodes[NodeByDesc(f, "fi04 hfi1_0")];
  EXPECT_EQ(fi4.guid, 0x0011750101000004u);
  EXPECT_EQ(fi4.lid, 4u);
  EXPECT_EQ(fi4.FindPort(1)->lid, 4u);
  const Node& edge2 = f.nodes[NodeByDesc(f, "edge2")];
  EXPECT_EQ(edge2.lid, 0x11u);
  EXPECT_EQ(edge2.FindPort(47)->lid, 0x11u);
  ASSERT_OK(AssignHosts(HostRule{}, {}, &f));
  EXPECT_THAT(HostNames(f), ElementsAre("fi01", "fi02", "fi03", "fi04"));
}

TEST_F(GeneratedInputsTest, ShippedOpagentopologyMatchesSharedSample) {
  OpaParseStats stats;
  ASSERT_OK_AND_ASSIGN(Fabric f, ParseGenerated("opagentopology-sample.xml", &stats));
  ASSERT_OK_AND_ASSIGN(Fabric shared, Parse(ReadSharedFabric("opa_topology_opagentopology.xml")));
  ASSERT_EQ(f.nodes.size(), shared.nodes.size());
  for (size_t i = 0; i < f.nodes.size(); ++i) {
    EXPECT_EQ(f.nodes[i].guid, shared.nodes[i].guid);
    EXPECT_EQ(f.nodes[i].description, shared.nodes[i].description);
  }
  EXPECT_EQ(f.links.size(), shared.links.size());
}

}  // namespace
}  // namespace toporr::collectors

#include "collectors/opa_links.h"

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
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
using fabric::NodeType;
using fabric::Port;
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::toporr::testing::ReadFileOrDie;
using ::toporr::testing::StatusIs;

// Hand-written from opa-ff's printf formats (no real `opareport -o links` output is public):
// 2 edge switches joined by 2 ISLs, 4 HFIs, one of them trained down to 50g.
std::string Sample(const std::string& name) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  return ReadFileOrDie(absl::StrCat(srcdir ? srcdir : ".", "/toporr/collectors/sim/opa/", name));
}

absl::StatusOr<Fabric> Parse(const std::string& text) {
  OpaOptions options;
  options.file_name = "links.txt";
  return ParseOpaLinks(text, options);
}

std::string PeerOf(const Fabric& f, uint64_t guid, int port) {
  const int n = f.FindNodeByGuid(guid);
  if (n < 0) return "<no node>";
  const Port* p = f.nodes[n].FindPort(port);
  if (!p || p->link < 0) return "<no link>";
  const Link& l = f.links[p->link];
  const LinkEnd& far = (l.a == LinkEnd{n, port}) ? l.b : l.a;
  return absl::StrCat(f.nodes[far.node].description, ":", far.port);
}

constexpr uint64_t kEdge1 = 0x00117501026a0001;
constexpr uint64_t kEdge2 = 0x00117501026a0002;
constexpr uint64_t kN4 = 0x00117501017a0004;

void ExpectTwoSwitchFourFi(const Fabric& f) {
  ASSERT_EQ(f.nodes.size(), 6u);
  ASSERT_EQ(f.links.size(), 6u);
  EXPECT_EQ(f.CountNodes(NodeType::kCa), 4u);
  EXPECT_EQ(f.CountNodes(NodeType::kSwitch), 2u);
  // First mention order: n001, edge01, n002, ...
  EXPECT_EQ(f.nodes[0].description, "n001 hfi1_0");
  EXPECT_EQ(f.nodes[1].description, "edge01");
  EXPECT_EQ(f.nodes[f.FindNodeByGuid(kEdge1)].num_ports, 48);
  EXPECT_EQ(PeerOf(f, kN4, 1), "edge02:2");
  EXPECT_EQ(PeerOf(f, kEdge1, 47), "edge02:47");
  EXPECT_EQ(PeerOf(f, kEdge2, 48), "edge01:48");
  for (const Link& l : f.links) {
    const bool slow = f.nodes[l.a.node].guid == kN4 || f.nodes[l.b.node].guid == kN4;
    EXPECT_EQ(l.width_lanes, slow ? 2 : 4);
    EXPECT_DOUBLE_EQ(l.data_rate_gbps, slow ? 50.0 : 100.0);
    EXPECT_EQ(l.speed, LinkSpeed::kUnknown);
  }
}

TEST(OpaLinksTest, DefaultDetailReport) {
  OpaParseStats stats;
  OpaOptions options;
  ASSERT_OK_AND_ASSIGN(Fabric f, ParseOpaLinks(Sample("2sw-4fi-2isl.links.txt"), options, &stats));
  ExpectTwoSwitchFourFi(f);
  EXPECT_EQ(stats.links, 6);
  ASSERT_OK(AssignHosts(HostRule{}, {}, &f));
  std::vector<std::string> hosts;
  for (const Host& h : f.hosts) hosts.push_back(h.name);
  EXPECT_THAT(hosts, ElementsAre("n001", "n002", "n003", "n004"));
}

TEST(OpaLinksTest, ReportWithTopologyInputDetails) {
  // NodeDetails / PortDetails / LinkDetails / Cable lines and the cable column heading.
  ASSERT_OK_AND_ASSIGN(Fabric f, Parse(Sample("2sw-4fi-2isl-with-topology.links.txt")));
  ExpectTwoSwitchFourFi(f);
}

TEST(OpaLinksTest, OtherReportsAroundAndVariants) {
  const std::string plain = Sample("2sw-4fi-2isl.links.txt");
  // Another report before it, text after the dashed line.
  ASSERT_OK_AND_ASSIGN(Fabric f, Parse("Node Type Brief Summary\n4 Connected FIs in Fabric:\n" +
                                       plain + "trailing\n"));
  ExpectTwoSwitchFourFi(f);
  // CRLF line ends.
  ASSERT_OK_AND_ASSIGN(Fabric crlf, Parse(absl::StrReplaceAll(plain, {{"\n", "\r\n"}})));
  ExpectTwoSwitchFourFi(crlf);
  // -o islinks with -F focus: "Focused on:" block and a matching count.
  const std::string islinks =
      "Inter-Switch Link Summary\n"
      "Focused on:\n"
      "    0x00117501026a0001 SW edge01\n"
      "\n"
      "2 Inter-Switch Links in Fabric:\n"
      "Rate NodeGUID          Port Type Name\n"
      "100g 0x00117501026a0001  47 SW   edge01\n"
      "<->  0x00117501026a0002  47 SW   edge02\n"
      "2 Matching Links Found\n"
      "-------------------------------------------------------------------------------\n";
  // 1 listed vs 2 matching: refused.
  EXPECT_THAT(Parse(islinks), StatusIs(absl::StatusCode::kInvalidArgument,
                                       HasSubstr("announces 2 links but lists 1")));
  ASSERT_OK_AND_ASSIGN(Fabric is,
                       Parse(absl::StrReplaceAll(islinks, {{"2 Matching", "1 Matching"}})));
  EXPECT_EQ(is.links.size(), 1u);
  // Rates of every width; an empty description.
  ASSERT_OK_AND_ASSIGN(
      Fabric rates,
      Parse("Link Summary\n\n2 Links in Fabric:\nRate NodeGUID          Port Type Name\n"
            "12.5g 0x0000000000000001   1 FI   \n<->  0x0000000000000002   1 SW   s\n"
            "37.5g 0x0000000000000003   1 FI   x hfi1_0\n<->  0x0000000000000002   2 SW   s\n"
            "-------------------------------------------------------------------------------\n"));
  EXPECT_DOUBLE_EQ(rates.links[0].data_rate_gbps, 12.5);
  EXPECT_EQ(rates.links[1].width_lanes, 3);
  EXPECT_EQ(rates.nodes[0].description, "");
  // An empty fabric.
  ASSERT_OK_AND_ASSIGN(Fabric empty,
                       Parse("Link Summary\n\n0 Links in Fabric\n" + std::string(79, '-') + "\n"));
  EXPECT_TRUE(empty.nodes.empty());
}

void ExpectError(const std::string& text, const std::string& where, const std::string& what) {
  auto r = Parse(text);
  EXPECT_THAT(r.status(), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(where))) << text;
  EXPECT_THAT(r.status().message(), HasSubstr(what)) << text;
}

TEST(OpaLinksTest, RefusesMalformedReports) {
  const std::string plain = Sample("2sw-4fi-2isl.links.txt");
  const std::string head =
      "Link Summary\n\n1 Links in Fabric:\nRate NodeGUID          Port Type Name\n";
  const std::string dashes = std::string(79, '-') + "\n";
  ExpectError("opareport: no fabric\n", "links.txt:1:", "no \"Link Summary\" heading");
  ExpectError("Link Summary\n\n6 Links in Fabric\n" + dashes, "links.txt:3:", "-d 1 or higher");
  ExpectError("Link Summary\nbogus\n", "links.txt:2:", "Links in Fabric");
  // Truncated: cut after a from-port line, and before the dashed line.
  const size_t cut = plain.find("<->  0x00117501026a0002   2 SW");
  ExpectError(plain.substr(0, cut), "links.txt:11:", "without its \"<->\"");
  ExpectError(plain.substr(0, plain.find("-----")), "links.txt:16:", "dashed line");
  // Count mismatch.
  ExpectError(absl::StrReplaceAll(plain, {{"6 Links", "7 Links"}}),
              "links.txt:3:", "announces 7 links but lists 6");
  ExpectError(head + "100g 0x0000000000000001   1 FI   a hfi1_0\n" + dashes,
              "links.txt:5:", "without its");
  ExpectError(head + "<->  0x0000000000000001   1 FI   a hfi1_0\n" + dashes,
              "links.txt:5:", "without a port line");
  ExpectError(
      head + "100g 0x0000000000000001   1 FI   a\n100g 0x0000000000000002   1 SW   s\n" + dashes,
      "links.txt:6:", "neighbour of line 5");
  ExpectError(
      head + "???? 0x0000000000000001   1 FI   a\n<->  0x0000000000000002   1 SW   s\n" + dashes,
      "links.txt:5:", "unknown link rate \"????\"");
  ExpectError(
      head + " 42g 0x0000000000000001   1 FI   a\n<->  0x0000000000000002   1 SW   s\n" + dashes,
      "links.txt:5:", "unknown link rate \"42g\"");
  ExpectError(
      head + "100g 0x0000000000000001   1 ??   a\n<->  0x0000000000000002   1 SW   s\n" + dashes,
      "links.txt:5:", "expected FI or SW");
  ExpectError(head + "100g 0x00000001   1 FI   a\n<->  0x0000000000000002   1 SW   s\n" + dashes,
              "links.txt:5:", "16 hex digits");
  ExpectError(
      head + "100g 0x0000000000000001 300 FI   a\n<->  0x0000000000000002   1 SW   s\n" + dashes,
      "links.txt:5:", "0..254");
  // Same GUID, two descriptions; a port cabled twice; a link listed twice.
  const std::string two =
      "Link Summary\n\n2 Links in Fabric:\nRate NodeGUID          Port Type Name\n";
  ExpectError(two + "100g 0x0000000000000001   1 FI   a\n<->  0x0000000000000002   1 SW   s\n" +
                  "100g 0x0000000000000003   1 FI   b\n<->  0x0000000000000002   2 SW   t\n" +
                  dashes,
              "links.txt:8:", "here but switch \"s\" at line 6");
  ExpectError(two + "100g 0x0000000000000001   1 FI   a\n<->  0x0000000000000002   1 SW   s\n" +
                  "100g 0x0000000000000003   1 FI   b\n<->  0x0000000000000002   1 SW   s\n" +
                  dashes,
              "links.txt:8:", "already cabled elsewhere");
  ExpectError(two + "100g 0x0000000000000001   1 FI   a\n<->  0x0000000000000002   1 SW   s\n" +
                  "100g 0x0000000000000002   1 SW   s\n<->  0x0000000000000001   1 FI   a\n" +
                  dashes,
              "links.txt:8:", "listed twice");
  ExpectError(plain + plain, "links.txt:18:", "second link summary");
}

}  // namespace
}  // namespace toporr::collectors

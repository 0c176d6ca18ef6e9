#include "collectors/sim/ibsim_net.h"

#include <string>

#include "common/status_matchers.h"
#include "common/test_data.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::collectors::sim {

using fabric::LinkSpeed;
using fabric::NodeType;
namespace {

using ::testing::HasSubstr;
using ::toporr::testing::ReadSharedFabric;
using ::toporr::testing::StatusIs;

const IbsimLink* FindLink(const IbsimNet& net, const std::string& a, int pa) {
  int n = net.FindNode(a);
  for (const IbsimLink& l : net.links) {
    if ((l.node_a == n && l.port_a == pa) || (l.node_b == n && l.port_b == pa)) return &l;
  }
  return nullptr;
}

TEST(IbsimNetTest, SharedFatTree2Level) {
  ASSERT_OK_AND_ASSIGN(IbsimNet net, ParseIbsimNet(ReadSharedFabric("ibsim_fattree_2lvl.net")));
  ASSERT_EQ(net.nodes.size(), 22u);
  const IbsimNode& spine = net.nodes[net.FindNode("spine01")];
  EXPECT_EQ(spine.type, NodeType::kSwitch);
  EXPECT_EQ(spine.guid, 0x2c90200400000u);
  EXPECT_EQ(spine.description, "MF0;spine01:MSX6036/U1");
  EXPECT_FALSE(spine.enhanced_port0);
  EXPECT_TRUE(net.nodes[net.FindNode("leaf01")].enhanced_port0);
  const IbsimNode& node16 = net.nodes[net.FindNode("node16")];
  EXPECT_EQ(node16.type, NodeType::kCa);
  EXPECT_EQ(node16.guid, 0x2c903000e0c00u);
  EXPECT_EQ(node16.PortGuid(2), 0x2c903000e0c02u);
  EXPECT_EQ(node16.num_ports, 2);
  EXPECT_EQ(node16.device_id, 0x1003u);
  EXPECT_EQ(node16.description, "node16 HCA-1");
  // 4 leaves x 4 uplinks x 2 spines... = 16 inter-switch cables, 17 host cables.
  EXPECT_EQ(net.links.size(), 33u);
  for (const IbsimLink& l : net.links) {
    EXPECT_EQ(l.width_lanes, 4);
    EXPECT_EQ(l.speed, LinkSpeed::kQDR);  // speed=7 everywhere, no extended speeds
  }
  const IbsimLink* l = FindLink(net, "node16", 2);
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(net.nodes[l->node_a].id, "leaf04");
  EXPECT_EQ(l->port_a, 5);
}

TEST(IbsimNetTest, SharedEdgeCasesSpeedsWidthsRouter) {
  ASSERT_OK_AND_ASSIGN(IbsimNet net, ParseIbsimNet(ReadSharedFabric("ibsim_edgecases.net")));
  struct Want {
    const char* id;
    int port;
    int width;
    LinkSpeed speed;
  };
  // Matches what ibnetdiscover printed for this file (ibnetdiscover_edgecases_default.txt).
  for (const Want& w : {Want{"hostA", 1, 4, LinkSpeed::kHDR}, Want{"hostB", 1, 4, LinkSpeed::kEDR},
                        Want{"hostC", 1, 4, LinkSpeed::kFDR}, Want{"hostD", 1, 1, LinkSpeed::kQDR},
                        Want{"hostE", 1, 12, LinkSpeed::kQDR}, Want{"hostF", 2, 4, LinkSpeed::kDDR},
                        Want{"gw1", 2, 4, LinkSpeed::kQDR}, Want{"swB", 2, 4, LinkSpeed::kQDR}}) {
    const IbsimLink* l = FindLink(net, w.id, w.port);
    ASSERT_NE(l, nullptr) << w.id;
    EXPECT_EQ(l->width_lanes, w.width) << w.id;
    EXPECT_EQ(l->speed, w.speed) << w.id;
  }
  const IbsimNode& gw = net.nodes[net.FindNode("gw1")];
  EXPECT_EQ(gw.type, NodeType::kRouter);
  EXPECT_EQ(gw.guid, 0x0008f10400410000u);
  EXPECT_EQ(gw.vendor_id, 0x8f1u);
  EXPECT_EQ(net.nodes[net.FindNode("aggnode")].description,
            "Mellanox Technologies Aggregation Node");
}

// ibsim accepts ibnetdiscover output as a net file; the `lid L <w>x<SPEED>` comment tails
// then carry the speeds.
TEST(IbsimNetTest, IbnetdiscoverOutputAsNetFile) {
  ASSERT_OK_AND_ASSIGN(IbsimNet net,
                       ParseIbsimNet(ReadSharedFabric("ibnetdiscover_edgecases_default.txt")));
  EXPECT_EQ(net.nodes.size(), 10u);
  const IbsimLink* l = FindLink(net, "H-98039b0300c0ff00", 1);
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(l->speed, LinkSpeed::kHDR);
  l = FindLink(net, "H-0002c903001e0000", 1);
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(l->width_lanes, 12);
  EXPECT_EQ(net.nodes[net.FindNode("S-7cfe900300a1b200")].guid, 0x7cfe900300a1b200u);
}

TEST(IbsimNetTest, GuidBasesDefaultsAndRelative) {
  ASSERT_OK_AND_ASSIGN(IbsimNet net, ParseIbsimNet(R"(
Switch 2 "s1"
[1] "h1"
[2] "h2"[2] w=1

caguid+0x10
Hca 2 "h1"
[1] "s1"[1]

Hca 2 "h2"	# bare description lid 3
[2] "s1"[2] w=3
)"));
  ASSERT_EQ(net.nodes.size(), 3u);
  EXPECT_EQ(net.nodes[0].guid, 0x200000u);
  EXPECT_EQ(net.nodes[0].description, "s1");
  EXPECT_EQ(net.nodes[1].guid, 0x100010u);  // relative to the default absolute base
  EXPECT_EQ(net.nodes[2].guid, 0x100013u);  // previous CA + 2 ports + 1
  EXPECT_EQ(net.nodes[2].description, "bare description");
  ASSERT_EQ(net.links.size(), 2u);
  EXPECT_EQ(net.links[0].port_b, 1);  // default remote port
  EXPECT_EQ(net.links[1].width_lanes, 1);
  EXPECT_EQ(net.links[1].speed, LinkSpeed::kSDR);
}

TEST(IbsimNetTest, RefusesWhatIbsimWouldNotSimulate) {
  EXPECT_THAT(ParseIbsimNet("Switch 2 \"s\"\n[1] \"h\"\n\nHca 1 \"h\"\n[1] \"s\"[2]\n", "x.net"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("x.net:2: cable")));
  EXPECT_THAT(ParseIbsimNet("Switch 2 \"s\"\n[1] \"nope\"\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unknown node \"nope\"")));
  EXPECT_THAT(ParseIbsimNet("Switch 2 \"s\"\n[1] \"h\"\nHca 1 \"h\"\n[1] \"s\"\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(":3: this line ends")));
  EXPECT_THAT(ParseIbsimNet("Switch 2 \"s\"\n[3] \"h\"\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("outside 1..2")));
  EXPECT_THAT(ParseIbsimNet("include \"other.net\"\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("'include'")));
  EXPECT_THAT(ParseIbsimNet("switchguid=0x10\nSwitch 1 \"a\"\n\nswitchguid=0x10\nSwitch 1 \"b\"\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("already used on line 2")));
  EXPECT_THAT(ParseIbsimNet("Switch 1 \"s\"\n[1] \"h\" w=1\n\nHca 1 \"h\"\n[1] \"s\" w=2\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no enabled width")));
}

}  // namespace
}  // namespace toporr::collectors::sim

#include "fabric/fabric.h"

#include <string>

#include "common/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::fabric {
namespace {

using ::testing::HasSubstr;
using ::toporr::testing::StatusIs;

Node MakeNode(NodeType type, uint64_t guid, uint32_t lid = 0) {
  Node n;
  n.type = type;
  n.guid = guid;
  n.lid = lid;
  n.num_ports = type == NodeType::kSwitch ? 36 : 2;
  n.description = FormatGuid(guid);
  return n;
}

TEST(LinkRates, LaneRatesAndWidths) {
  EXPECT_DOUBLE_EQ(LinkDataRateGbps(4, LinkSpeed::kSDR), 8.0);
  EXPECT_DOUBLE_EQ(LinkDataRateGbps(4, LinkSpeed::kQDR), 32.0);
  EXPECT_DOUBLE_EQ(LinkDataRateGbps(12, LinkSpeed::kQDR), 96.0);
  EXPECT_DOUBLE_EQ(LinkDataRateGbps(4, LinkSpeed::kFDR10), 40.0);
  EXPECT_NEAR(LinkDataRateGbps(4, LinkSpeed::kFDR), 54.545, 1e-3);
  EXPECT_DOUBLE_EQ(LinkDataRateGbps(4, LinkSpeed::kHDR), 200.0);
  EXPECT_DOUBLE_EQ(LinkDataRateGbps(4, LinkSpeed::kNDR), 400.0);
  EXPECT_DOUBLE_EQ(LinkDataRateGbps(0, LinkSpeed::kNDR), 0.0);
  EXPECT_DOUBLE_EQ(LinkDataRateGbps(4, LinkSpeed::kUnknown), 0.0);
  EXPECT_EQ(ParseLinkSpeed("FDR10"), LinkSpeed::kFDR10);
  EXPECT_EQ(ParseLinkSpeed("???"), LinkSpeed::kUnknown);
  EXPECT_STREQ(LinkSpeedName(LinkSpeed::kUnknown), "???");
  EXPECT_STREQ(NodeTypeName(NodeType::kAggregation), "aggregation");
  EXPECT_EQ(FormatGuid(0x2c903000e0b10), "0x0002c903000e0b10");
}

TEST(Fabric, AddNodeRefusesDuplicateGuids) {
  Fabric f;
  int i = -1;
  ASSERT_OK(f.AddNode(MakeNode(NodeType::kSwitch, 0x10), &i));
  EXPECT_EQ(i, 0);
  EXPECT_THAT(f.AddNode(MakeNode(NodeType::kCa, 0x10), &i),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("0x0000000000000010")));
  EXPECT_EQ(f.nodes.size(), 1u);
  EXPECT_EQ(f.FindNodeByGuid(0x10), 0);
  EXPECT_EQ(f.FindNodeByGuid(0x11), -1);
}

TEST(Fabric, ConnectOrdersEndsAndIsIdempotent) {
  Fabric f;
  ASSERT_OK(f.AddNode(MakeNode(NodeType::kSwitch, 0x10, 7), nullptr));
  ASSERT_OK(f.AddNode(MakeNode(NodeType::kCa, 0x20), nullptr));
  int link = -1;
  ASSERT_OK(f.Connect(LinkEnd{1, 1}, LinkEnd{0, 5}, 4, LinkSpeed::kEDR, &link));
  ASSERT_EQ(link, 0);
  EXPECT_EQ(f.links[0].a, (LinkEnd{0, 5}));
  EXPECT_EQ(f.links[0].b, (LinkEnd{1, 1}));
  EXPECT_DOUBLE_EQ(f.links[0].data_rate_gbps, 100.0);
  // A new switch port inherits the switch GUID and LID.
  const Port* p = f.nodes[0].FindPort(5);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->guid, 0x10u);
  EXPECT_EQ(p->lid, 7u);
  EXPECT_EQ(f.Peer(0, LinkEnd{0, 5}), (LinkEnd{1, 1}));
  // Same pair again: the existing link.
  int again = -1;
  ASSERT_OK(f.Connect(LinkEnd{0, 5}, LinkEnd{1, 1}, 4, LinkSpeed::kEDR, &again));
  EXPECT_EQ(again, 0);
  EXPECT_EQ(f.links.size(), 1u);
  // A busy port cannot take a second cable.
  EXPECT_THAT(f.Connect(LinkEnd{0, 5}, LinkEnd{1, 2}, 4, LinkSpeed::kEDR),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("already cabled")));
  EXPECT_THAT(f.Connect(LinkEnd{0, 3}, LinkEnd{5, 1}, 4, LinkSpeed::kEDR),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unknown node")));
}

TEST(Fabric, SelfCabledSwitchPortsAndPortOrder) {
  Fabric f;
  ASSERT_OK(f.AddNode(MakeNode(NodeType::kSwitch, 0x10), nullptr));
  ASSERT_OK(f.Connect(LinkEnd{0, 9}, LinkEnd{0, 2}, 4, LinkSpeed::kQDR));
  ASSERT_OK(f.Connect(LinkEnd{0, 5}, LinkEnd{0, 1}, 4, LinkSpeed::kQDR));
  EXPECT_EQ(f.links[0].a, (LinkEnd{0, 2}));
  EXPECT_EQ(f.links[0].b, (LinkEnd{0, 9}));
  ASSERT_EQ(f.nodes[0].ports.size(), 4u);
  for (size_t i = 1; i < f.nodes[0].ports.size(); ++i) {
    EXPECT_LT(f.nodes[0].ports[i - 1].number, f.nodes[0].ports[i].number);
  }
  EXPECT_EQ(f.nodes[0].FindPort(9)->link, 0);
  EXPECT_EQ(f.nodes[0].FindPort(1)->link, 1);
  EXPECT_THAT(f.Connect(LinkEnd{0, 4}, LinkEnd{0, 4}, 4, LinkSpeed::kQDR),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("to itself")));
}

TEST(Fabric, HostsAndIndex) {
  Fabric f;
  ASSERT_OK(f.AddNode(MakeNode(NodeType::kCa, 0x20), nullptr));
  ASSERT_OK(f.AddNode(MakeNode(NodeType::kSwitch, 0x10), nullptr));
  f.hosts = {Host{"a01", {0}}, Host{"b02", {}}};
  EXPECT_EQ(f.FindHost("b02"), 1);
  EXPECT_EQ(f.FindHost("c03"), -1);
  EXPECT_EQ(f.CountNodes(NodeType::kSwitch), 1u);
  // Direct edits (deserialisation) need RebuildIndex.
  f.nodes[1].guid = 0x30;
  f.RebuildIndex();
  EXPECT_EQ(f.FindNodeByGuid(0x30), 1);
  EXPECT_EQ(f.FindNodeByGuid(0x10), -1);
}

}  // namespace
}  // namespace toporr::fabric

#include "collectors/opareport.h"

#include "common/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::collectors {

using fabric::Fabric;
using fabric::LinkEnd;
using fabric::LinkSpeed;
using fabric::Node;
using fabric::NodeType;
namespace {

using ::testing::HasSubstr;
using ::toporr::testing::StatusIs;

TEST(OpaRateTest, TextAndCodesAgree) {
  const struct {
    const char* text;
    int code;
    int width;
    double gbps;
  } kCases[] = {{"12.5g", 11, 1, 12.5}, {"25g", 15, 1, 25.0}, {"37.5g", 7, 3, 37.5},
                {"50g", 12, 2, 50.0},   {"75g", 9, 3, 75.0},  {"100g", 16, 4, 100.0},
                {"200g", 17, 4, 200.0}};
  for (const auto& c : kCases) {
    auto by_text = ParseOpaRateText(c.text);
    auto by_code = OpaRateFromCode(c.code);
    ASSERT_TRUE(by_text.has_value()) << c.text;
    ASSERT_TRUE(by_code.has_value()) << c.code;
    EXPECT_EQ(by_text->width_lanes, c.width) << c.text;
    EXPECT_DOUBLE_EQ(by_text->data_rate_gbps, c.gbps) << c.text;
    EXPECT_EQ(by_code->width_lanes, c.width) << c.code;
    EXPECT_DOUBLE_EQ(by_code->data_rate_gbps, c.gbps) << c.code;
  }
  for (const char* bad : {"", "???", "any", "100G", "100", "10g", "56g", " 100g"}) {
    EXPECT_FALSE(ParseOpaRateText(bad).has_value()) << bad;
  }
  for (int bad : {0, 2, 3, 10, 18, 255, -1}) EXPECT_FALSE(OpaRateFromCode(bad).has_value()) << bad;
}

TEST(OpaGuidTest, SynthesizedGuidsAreStableAndMarked) {
  // FNV-1a 64 of "" is the offset basis 0xcbf29ce484222325; the top byte becomes 0x02.
  EXPECT_EQ(SynthesizedOpaNodeGuid(""), 0x02f29ce484222325u);
  EXPECT_EQ(SynthesizedOpaNodeGuid("core1 L101A"), SynthesizedOpaNodeGuid("core1 L101A"));
  EXPECT_NE(SynthesizedOpaNodeGuid("core1 L101A"), SynthesizedOpaNodeGuid("core1 L101B"));
  EXPECT_TRUE(IsSynthesizedOpaNodeGuid(SynthesizedOpaNodeGuid("host01 hfi1_0")));
  EXPECT_FALSE(IsSynthesizedOpaNodeGuid(0x00117501010e0004u));  // Intel OUI 00:11:75
}

TEST(OpaNodeTypeTest, FiAndSwOnly) {
  EXPECT_EQ(ParseOpaNodeType("FI"), NodeType::kCa);
  EXPECT_EQ(ParseOpaNodeType("SW"), NodeType::kSwitch);
  EXPECT_FALSE(ParseOpaNodeType("CA").has_value());
  EXPECT_FALSE(ParseOpaNodeType("??").has_value());
  EXPECT_EQ(OpaNodeTypeFromCode(1), NodeType::kCa);
  EXPECT_EQ(OpaNodeTypeFromCode(2), NodeType::kSwitch);
  EXPECT_FALSE(OpaNodeTypeFromCode(3).has_value());
}

TEST(ConnectOpaLinkTest, SetsRateAndRefusesRepeats) {
  Fabric f;
  Node sw;
  sw.type = NodeType::kSwitch;
  sw.guid = 1;
  sw.description = "edge1";
  Node fi;
  fi.guid = 2;
  fi.description = "n1 hfi1_0";
  ASSERT_OK(f.AddNode(sw, nullptr));
  ASSERT_OK(f.AddNode(fi, nullptr));
  ASSERT_OK(ConnectOpaLink({1, 1}, {0, 5}, ParseOpaRateText("100g"), &f));
  ASSERT_EQ(f.links.size(), 1u);
  EXPECT_EQ(f.links[0].a, (LinkEnd{0, 5}));
  EXPECT_EQ(f.links[0].width_lanes, 4);
  EXPECT_EQ(f.links[0].speed, LinkSpeed::kUnknown);
  EXPECT_DOUBLE_EQ(f.links[0].data_rate_gbps, 100.0);
  EXPECT_THAT(ConnectOpaLink({0, 5}, {1, 1}, std::nullopt, &f),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("listed twice")));
  EXPECT_THAT(ConnectOpaLink({0, 6}, {1, 1}, std::nullopt, &f),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("port 1 of \"n1 hfi1_0\"")));
  ASSERT_OK(ConnectOpaLink({0, 6}, {0, 7}, std::nullopt, &f));
  EXPECT_EQ(f.links[1].width_lanes, 0);
  EXPECT_EQ(f.links[1].data_rate_gbps, 0.0);
}

TEST(OpaInputErrorTest, FileLineWhat) {
  OpaOptions o;
  o.file_name = "fabric.xml";
  EXPECT_THAT(OpaInputError(o, 12, "bad"),
              StatusIs(absl::StatusCode::kInvalidArgument, "fabric.xml:12: bad"));
}

}  // namespace
}  // namespace toporr::collectors

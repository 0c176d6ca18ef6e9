#include "fabric/validate.h"

#include "common/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::fabric {
namespace {

using ::testing::HasSubstr;
using ::toporr::testing::StatusIs;

// A switch cabled to one CA of host "node01".
Fabric SwitchAndHost() {
  Fabric f;
  Node sw;
  sw.type = NodeType::kSwitch;
  sw.guid = 0x10;
  sw.ports = {Port{0}, Port{1}};
  Node ca;
  ca.guid = 0x20;
  ca.ports = {Port{1}};
  int s = -1, c = -1;
  EXPECT_OK(f.AddNode(sw, &s));
  EXPECT_OK(f.AddNode(ca, &c));
  EXPECT_OK(f.Connect({s, 1}, {c, 1}, 4, LinkSpeed::kEDR));
  f.hosts.push_back(Host{"node01", {c}});
  f.nodes[c].host = 0;
  return f;
}

TEST(ValidateFabricTest, AcceptsAConsistentFabric) { EXPECT_OK(ValidateFabric(SwitchAndHost())); }

TEST(ValidateFabricTest, NamesTheBrokenInvariant) {
  Fabric dup = SwitchAndHost();
  dup.nodes[1].guid = dup.nodes[0].guid;
  EXPECT_THAT(ValidateFabric(dup),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("share GUID")));

  Fabric host = SwitchAndHost();
  host.nodes[1].host = -1;
  EXPECT_THAT(ValidateFabric(host), StatusIs(absl::StatusCode::kInvalidArgument,
                                             HasSubstr("which does not name that host")));

  Fabric anon = SwitchAndHost();
  anon.anonymous_endpoints = {1, 1};
  EXPECT_THAT(ValidateFabric(anon),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("listed twice")));
}

// The store's guard of the printable-text policy (common/printable.h): descriptions set
// after AddNode and host names from anywhere.
TEST(ValidateFabricTest, RefusesTextThatIsNotPrintableUtf8) {
  Fabric desc = SwitchAndHost();
  desc.nodes[1].description = "node01\xc3 mlx5_0";
  EXPECT_THAT(ValidateFabric(desc),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("byte 0xc3 at column 7")));
  Fabric host = SwitchAndHost();
  host.hosts[0].name = "node\x1b[31m01";
  EXPECT_THAT(ValidateFabric(host),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("'node\\x1b[31m01'")));
  Fabric added;
  Node ca;
  ca.description = "bad\x7f";
  EXPECT_THAT(added.AddNode(ca, nullptr),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("byte 0x7f at column 4")));
}

}  // namespace
}  // namespace toporr::fabric

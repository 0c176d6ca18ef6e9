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

}  // namespace
}  // namespace toporr::fabric

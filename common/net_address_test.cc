#include "common/net_address.h"

#include "common/status_matchers.h"
#include "gtest/gtest.h"

namespace toporr {
namespace {

using ::testing::HasSubstr;
using ::toporr::testing::StatusIs;

bool Allowed(const std::vector<IpPrefix>& list, std::string_view peer) {
  std::optional<IpAddress> a = PeerIpAddress(peer);
  if (!a) return false;
  for (const IpPrefix& p : list) {
    if (p.Contains(*a)) return true;
  }
  return false;
}

TEST(NetAddress, Loopback) {
  EXPECT_TRUE(IsLoopbackAddress("127.0.0.1:50051"));
  EXPECT_TRUE(IsLoopbackAddress("127.3.2.1:1"));
  EXPECT_TRUE(IsLoopbackAddress("[::1]:50051"));
  EXPECT_TRUE(IsLoopbackAddress("localhost:50051"));
  EXPECT_FALSE(IsLoopbackAddress("10.0.0.1:50051"));
  EXPECT_FALSE(IsLoopbackAddress("mgmt01:50051"));
  EXPECT_FALSE(IsLoopbackAddress("127.example.org:50051"));
}

TEST(NetAddress, PeersOfBothFamiliesMatchTheirPrefixes) {
  absl::StatusOr<std::vector<IpPrefix>> list =
      ParseIpPrefixList("10.0.0.0/8, 192.168.7.0/24 fd00::/8\t172.16.0.5");
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->size(), 4u);
  EXPECT_TRUE(Allowed(*list, "ipv4:10.200.3.4:41000"));
  EXPECT_TRUE(Allowed(*list, "ipv4:192.168.7.255:1"));
  EXPECT_FALSE(Allowed(*list, "ipv4:192.168.8.1:1"));
  EXPECT_TRUE(Allowed(*list, "ipv4:172.16.0.5:2"));
  EXPECT_FALSE(Allowed(*list, "ipv4:172.16.0.6:2"));
  EXPECT_TRUE(Allowed(*list, "ipv6:[fd12::7]:5"));
  EXPECT_TRUE(Allowed(*list, "ipv6:%5Bfd12::7%5D:5"));
  EXPECT_TRUE(Allowed(*list, "ipv6:[::ffff:10.1.1.1]:5"));  // a dual-stack socket's IPv4 peer
  EXPECT_FALSE(Allowed(*list, "ipv6:[fe80::1%eth0]:5"));
  EXPECT_FALSE(Allowed(*list, "unix:/run/toporr/toporrd.sock"));
  EXPECT_FALSE(Allowed(*list, "fd:14"));
}

TEST(NetAddress, ZeroLengthPrefixesAllowEveryAddressOfTheirFamily) {
  absl::StatusOr<std::vector<IpPrefix>> v4 = ParseIpPrefixList("0.0.0.0/0");
  ASSERT_TRUE(v4.ok());
  EXPECT_TRUE(Allowed(*v4, "ipv4:8.8.8.8:53"));
  EXPECT_FALSE(Allowed(*v4, "ipv6:[2001:db8::1]:53"));
  absl::StatusOr<std::vector<IpPrefix>> v6 = ParseIpPrefixList("::/0");
  ASSERT_TRUE(v6.ok());
  EXPECT_TRUE(Allowed(*v6, "ipv6:[2001:db8::1]:53"));
}

TEST(NetAddress, RefusesMalformedPrefixesNamingTheEntry) {
  EXPECT_THAT(ParseIpPrefixList("10.0.0.0/8, 10.0.0.0/33").status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("'10.0.0.0/33'")));
  EXPECT_THAT(ParseIpPrefixList("10.0.0.1/8").status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("host bits")));
  EXPECT_THAT(ParseIpPrefixList("cluster.example.org").status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not an IPv4 or IPv6")));
  EXPECT_THAT(ParseIpPrefixList("fd00::/129").status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("0..128")));
  absl::StatusOr<std::vector<IpPrefix>> empty = ParseIpPrefixList(" , ");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

}  // namespace
}  // namespace toporr

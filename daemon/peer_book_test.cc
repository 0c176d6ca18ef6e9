// PeerBook: Unix-socket callers by uid, TCP callers by address without the port.
#include "daemon/peer_book.h"

#include "gtest/gtest.h"

namespace toporr::daemon {
namespace {

TEST(PeerBook, UnixCallersByUidTcpCallersByAddress) {
  PeerBook book;
  book.Remember(14, {/*pid=*/4242, /*uid=*/1000, /*gid=*/100});
  EXPECT_EQ(book.Identity("fd:14", nullptr), "uid 1000");
  EXPECT_EQ(book.Describe("fd:14"), "uid 1000 gid 100 pid 4242 (unix socket, fd:14)");
  // The descriptor reused by another user's connection.
  book.Remember(14, {4343, 0, 0});
  EXPECT_EQ(book.Identity("fd:14", nullptr), "uid 0");
  EXPECT_EQ(book.Identity("fd:15", nullptr), "fd:15");
  EXPECT_EQ(book.Describe("fd:15"), "fd:15");
  // Every connection of one host is one caller.
  EXPECT_EQ(book.Identity("ipv4:10.1.2.3:5000", nullptr), "ipv4:10.1.2.3");
  EXPECT_EQ(book.Identity("ipv4:10.1.2.3:5001", nullptr), "ipv4:10.1.2.3");
  EXPECT_EQ(book.Identity("ipv6:[fd00::1]:5000", nullptr), "ipv6:[fd00::1]");
  EXPECT_EQ(book.Identity("unix:/run/toporr/toporrd.sock", nullptr),
            "unix:/run/toporr/toporrd.sock");
}

}  // namespace
}  // namespace toporr::daemon

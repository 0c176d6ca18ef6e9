#include "daemon/peer_listener.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <fstream>
#include <thread>

#include "common/status_matchers.h"
#include "common/test_data.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::daemon {
namespace {

using ::testing::HasSubstr;
using ::toporr::testing::StatusIs;

TEST(IsAdminPeer, RootSelfAndGroup) {
  const gid_t none = static_cast<gid_t>(-1);
  EXPECT_TRUE(IsAdminPeer({1, 0, 0}, 1000, none));
  EXPECT_TRUE(IsAdminPeer({1, 1000, 1000}, 1000, none));
  EXPECT_FALSE(IsAdminPeer({1, 65534, 65534}, 1000, none));
  EXPECT_TRUE(IsAdminPeer({1, 65534, 4242}, 1000, 4242)) << "primary group of the peer";
  EXPECT_FALSE(IsAdminPeer({1, 65534, 65534}, 1000, 4242));
  EXPECT_EQ(LookupGroup("no-such-group-toporr"), none);
  EXPECT_EQ(LookupGroup("root"), 0u);
}

// Unix socket paths are limited to 107 bytes; $TEST_TMPDIR can be longer.
std::string ShortTempDir() {
  char tmpl[] = "/tmp/toporr-peer.XXXXXX";
  return mkdtemp(tmpl) ? std::string(tmpl) : std::string("/tmp");
}

int Connect(const std::string& path) {
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

TEST(PeerListener, HandsOffConnectionsWithKernelCredentials) {
  const std::string path = ShortTempDir() + "/s.sock";
  std::atomic<int> seen_uid{-1};
  std::atomic<int> seen_pid{-1};
  {
    ASSERT_OK_AND_ASSIGN(auto listener,
                         PeerListener::Start(path, [&](int fd, const PeerCredentials& peer) {
                           seen_uid = static_cast<int>(peer.uid);
                           seen_pid = peer.pid;
                           close(fd);
                         }));
    struct stat st;
    ASSERT_EQ(stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0666u) << "reads are open to every local user";
    // A second daemon on the same socket is refused while the first one serves.
    EXPECT_THAT(PeerListener::Start(path, [](int fd, const PeerCredentials&) { close(fd); }),
                StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("already serving")));
    int fd = Connect(path);
    ASSERT_GE(fd, 0);
    for (int i = 0; i < 200 && seen_pid.load() < 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    close(fd);
    EXPECT_EQ(seen_uid.load(), static_cast<int>(getuid()));
    EXPECT_EQ(seen_pid.load(), getpid());
  }
  EXPECT_NE(access(path.c_str(), F_OK), 0) << "socket file removed at shutdown";
}

TEST(PeerListener, StaleSocketIsReplacedOtherFilesAreNot) {
  const std::string dir = ShortTempDir();
  const std::string plain = dir + "/not-a-socket";
  std::ofstream(plain) << "data";
  EXPECT_THAT(PeerListener::Start(plain, [](int fd, const PeerCredentials&) { close(fd); }),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("not a socket")));
  // A socket file left by a crashed daemon (nobody listening) is taken over.
  const std::string stale = dir + "/stale.sock";
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, stale.c_str(), sizeof(addr.sun_path) - 1);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  close(fd);
  EXPECT_OK(PeerListener::Start(stale, [](int fd, const PeerCredentials&) { close(fd); }));
  EXPECT_THAT(PeerListener::Start(std::string(200, 'x'), nullptr),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("too long")));
}

}  // namespace
}  // namespace toporr::daemon

#include "daemon/file_modes.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "common/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::daemon {
namespace {

using ::testing::HasSubstr;
using ::toporr::testing::StatusIs;

class FileModesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = std::string(std::getenv("TEST_TMPDIR")) + "/modes.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void Touch(const std::string& path, mode_t mode) {
    FILE* f = fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    fclose(f);
    chmod(path.c_str(), mode);
  }
  mode_t ModeOf(const std::string& path) {
    struct stat st;
    EXPECT_EQ(lstat(path.c_str(), &st), 0) << path;
    return st.st_mode & 07777;
  }
  std::string dir_;
};

TEST_F(FileModesTest, DatabaseAndItsJournalFilesBecome0640) {
  const std::string db = dir_ + "/toporr.db";
  Touch(db, 0666);
  Touch(db + "-wal", 0644);
  ASSERT_OK(SecureDatabaseFiles(db));
  EXPECT_EQ(ModeOf(db), 0640);
  EXPECT_EQ(ModeOf(db + "-wal"), 0640);
  EXPECT_NE(access((db + "-shm").c_str(), F_OK), 0) << "absent journal files stay absent";
}

TEST_F(FileModesTest, SymlinkedDatabaseIsRefusedAndItsTargetUntouched) {
  const std::string target = dir_ + "/elsewhere";
  Touch(target, 0600);
  const std::string db = dir_ + "/toporr.db";
  ASSERT_EQ(symlink(target.c_str(), db.c_str()), 0);
  EXPECT_THAT(RefuseSymlink(db, "database"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("database " + db + " is a symbolic link")));
  EXPECT_THAT(SecureDatabaseFiles(db),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("symbolic link")));
  EXPECT_EQ(ModeOf(target), 0600);
  EXPECT_OK(RefuseSymlink(dir_ + "/absent", "database"));
  EXPECT_OK(RefuseSymlink(target, "database"));
}

TEST_F(FileModesTest, SocketIsWorldReadWritableWithTheAdminGroup) {
  char tmpl[] = "/tmp/modes-sock.XXXXXX";  // a short path: sun_path holds 108 bytes
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string path = std::string(tmpl) + "/s";
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  chmod(path.c_str(), 0600);
  ASSERT_OK(SecureSocket(path, getgid()));  // the sandbox maps no other group
  struct stat st;
  ASSERT_EQ(lstat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0666);
  EXPECT_EQ(st.st_gid, getgid());
  close(fd);
  unlink(path.c_str());
  rmdir(tmpl);
}

}  // namespace
}  // namespace toporr::daemon

#include "common/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr {
namespace {

using ::testing::HasSubstr;
using ::toporr::testing::StatusIs;

constexpr uid_t kOtherUser = 65534;  // nobody

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void Write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

// A scratch directory like /tmp: world-writable and sticky.
class OutputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* base = std::getenv("TEST_TMPDIR");
    std::string pattern = std::string(base != nullptr ? base : "/tmp") + "/outfile.XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    ASSERT_NE(::mkdtemp(buf.data()), nullptr);
    dir_ = buf.data();
    ASSERT_EQ(::chmod(dir_.c_str(), 01777), 0);
    victim_ = dir_ + "/victim";
    Write(victim_, "precious\n");
  }
  void TearDown() override {
    const int removed = std::system(("rm -rf '" + dir_ + "'").c_str());
    EXPECT_EQ(removed, 0);
  }

  // A link at `name` to the victim, owned by another user (as root; else skipped).
  std::string PlantLink(const std::string& name) {
    const std::string link = dir_ + "/" + name;
    EXPECT_EQ(::symlink(victim_.c_str(), link.c_str()), 0);
    EXPECT_EQ(::lchown(link.c_str(), kOtherUser, kOtherUser), 0);
    return link;
  }
  bool CanPlant() const { return ::geteuid() == 0; }

  std::string dir_, victim_;
};

TEST_F(OutputFileTest, ReplacingWritesAWholeNewFile) {
  const std::string out = dir_ + "/plan.txt";
  ASSERT_OK(WriteFileReplacing(out, "one\n"));
  EXPECT_EQ(Read(out), "one\n");
  ASSERT_OK(WriteFileReplacing(out, "two\n"));
  EXPECT_EQ(Read(out), "two\n");
  struct stat st;
  ASSERT_EQ(::stat(out.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
  // No temporary file is left behind.
  EXPECT_EQ(std::system(("test -z \"$(ls '" + dir_ + "' | grep tmp)\"").c_str()), 0);
}

TEST_F(OutputFileTest, ReplacingNeverFollowsAPlantedLinkOrTemporary) {
  if (!CanPlant()) GTEST_SKIP() << "SKIPPED: planting another user's link needs root";
  // A link at the target itself is replaced, not followed.
  const std::string out = PlantLink("out");
  ASSERT_OK(WriteFileReplacing(out, "mine\n"));
  EXPECT_EQ(Read(victim_), "precious\n");
  EXPECT_EQ(Read(out), "mine\n");
  struct stat st;
  ASSERT_EQ(::lstat(out.c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  // A link and a FIFO at the old fixed temporary name are not used.
  const std::string profile = dir_ + "/app.prof";
  PlantLink("app.prof.tmp");
  ASSERT_EQ(::mkfifo((profile + ".tmp.fifo").c_str(), 0666), 0);
  ReplacingFile f;
  ASSERT_OK(f.Open(profile));
  EXPECT_THAT(f.temporary_path(), HasSubstr("app.prof.tmp."));
  ASSERT_OK(f.Write("profile\n"));
  ASSERT_OK(f.Commit());
  EXPECT_EQ(Read(victim_), "precious\n");
  EXPECT_EQ(Read(profile), "profile\n");
}

TEST_F(OutputFileTest, TwoWritersOfOneTargetEachRenameAWholeFile) {
  const std::string out = dir_ + "/shared.prof";
  ReplacingFile a, b;
  ASSERT_OK(a.Open(out));
  ASSERT_OK(b.Open(out));
  EXPECT_NE(a.temporary_path(), b.temporary_path());
  ASSERT_OK(a.Write("header a\n"));
  ASSERT_OK(b.Write("header b\n"));
  ASSERT_OK(a.Write("end a\n"));
  ASSERT_OK(b.Write("end b\n"));
  ASSERT_OK(a.Commit());
  EXPECT_EQ(Read(out), "header a\nend a\n");
  ASSERT_OK(b.Commit());
  EXPECT_EQ(Read(out), "header b\nend b\n");
}

TEST_F(OutputFileTest, AbandonedFileLeavesTheTargetAlone) {
  const std::string out = dir_ + "/kept";
  Write(out, "old\n");
  {
    ReplacingFile f;
    ASSERT_OK(f.Open(out));
    ASSERT_OK(f.Write("half"));
  }  // destroyed uncommitted
  EXPECT_EQ(Read(out), "old\n");
  EXPECT_THAT(WriteFileReplacing(dir_ + "/no/such/dir/x", "y").code(),
              absl::StatusCode::kUnavailable);
}

TEST_F(OutputFileTest, AppendCreatesAndAppends) {
  const std::string out = dir_ + "/report.jsonl";
  ASSERT_OK(AppendToFile(out, "a\n"));
  ASSERT_OK(AppendToFile(out, "b\n"));
  EXPECT_EQ(Read(out), "a\nb\n");
}

TEST_F(OutputFileTest, AppendRefusesAnotherUsersLinkInASharedDirectory) {
  if (!CanPlant()) GTEST_SKIP() << "SKIPPED: planting another user's link needs root";
  const std::string link = PlantLink("report.jsonl");
  EXPECT_THAT(AppendToFile(link, "x\n"),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("symbolic link")));
  EXPECT_EQ(Read(victim_), "precious\n");
  // The caller's own link is followed, as the kernel's rule would.
  const std::string own = dir_ + "/own.jsonl";
  ASSERT_EQ(::symlink(victim_.c_str(), own.c_str()), 0);
  ASSERT_OK(AppendToFile(own, "more\n"));
  EXPECT_EQ(Read(victim_), "precious\nmore\n");
  // Outside a sticky shared directory another user's link is followed too.
  ASSERT_EQ(::chmod(dir_.c_str(), 0755), 0);
  ASSERT_OK(AppendToFile(link, "x\n"));
}

TEST_F(OutputFileTest, AppendRefusesWhatIsNotARegularFile) {
  const std::string fifo = dir_ + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0666), 0);
  // No reader: refused at once, never blocking.
  EXPECT_THAT(AppendToFile(fifo, "x\n"),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("not a regular file")));
  // With a reader: still refused.
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  EXPECT_THAT(AppendToFile(fifo, "x\n"),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("not a regular file")));
  ::close(reader);
  EXPECT_FALSE(AppendToFile(dir_, "x\n").ok());
}

}  // namespace
}  // namespace toporr

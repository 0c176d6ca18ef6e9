#include "daemon/ingest_spool.h"

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <string>

#include "common/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::daemon {
namespace {

using ::testing::HasSubstr;
using ::toporr::testing::StatusIs;

int EntriesIn(const std::string& dir) {
  int n = 0;
  DIR* d = opendir(dir.c_str());
  while (dirent* e = readdir(d))
    n += std::string(e->d_name) != "." && e->d_name != std::string("..");
  closedir(d);
  return n;
}

TEST(IngestSpool, GivesBackWhatWasAppendedAndLeavesNoFile) {
  std::string dir = std::string(getenv("TEST_TMPDIR")) + "/spool";
  mkdir(dir.c_str(), 0700);
  ASSERT_OK_AND_ASSIGN(auto spool, IngestSpool::Create(dir));
  EXPECT_EQ(EntriesIn(dir), 0);
  ASSERT_OK(spool->Append("Switch 12 "));
  ASSERT_OK(spool->Append(std::string(3 << 20, 'x')));
  ASSERT_OK(spool->Append(""));
  EXPECT_EQ(spool->size(), 10 + (3 << 20));
  ASSERT_OK_AND_ASSIGN(std::string all, spool->ReadAll());
  EXPECT_EQ(all.size(), 10u + (3 << 20));
  EXPECT_EQ(all.substr(0, 11), "Switch 12 x");
  spool.reset();
  EXPECT_EQ(EntriesIn(dir), 0);
}

TEST(IngestSpool, MissingDirectoryIsNamed) {
  EXPECT_THAT(IngestSpool::Create("/nonexistent/toporr").status(),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("/nonexistent/toporr")));
}

}  // namespace
}  // namespace toporr::daemon

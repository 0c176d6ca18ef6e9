// Kills a real ingesting process at every named crash point and checks what
// survives: the file must pass integrity_check and the current snapshot must be
// the previous one (or, for "after_commit", the new one) with its content
// intact.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/status_matchers.h"
#include "common/test_data.h"
#include "db/sqlite.h"
#include "db/store.h"
#include "db/test_fabrics.h"
#include "gtest/gtest.h"

namespace toporr::db {
namespace {

using fabric::Fabric;
using testing::ExpectFabricsEqual;
using testing::MakeFatTree;

// Big enough to span many pages and WAL frames: 256 CAs, 40 switches, 512
// links.
Fabric Content(int variant) { return MakeFatTree(32, 8, 8, 8, variant); }

StoreOptions Options(const std::string& path) {
  StoreOptions o;
  o.path = path;
  o.keep_snapshots = 1;  // so the killed ingest was also deleting the previous snapshot
  return o;
}

class StoreCrashTest : public ::testing::TestWithParam<std::string> {};

TEST_P(StoreCrashTest, KilledIngestLeavesAConsistentFile) {
  const std::string crash_point = GetParam();
  const std::string path = toporr::testing::MakeTempDir("crash_" + crash_point) + "/toporr.db";
  int64_t previous_id = 0;
  {
    ASSERT_OK_AND_ASSIGN(auto store, Store::Open(Options(path)));
    ASSERT_OK_AND_ASSIGN(IngestResult r, store->Ingest(Content(0), "generated", "before"));
    previous_id = r.snapshot.id;
  }  // closed: SQLite connections must not cross fork()

  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    StoreOptions o = Options(path);
    o.crash_point = crash_point;
    auto store = Store::Open(o);
    if (!store.ok()) _exit(2);
    auto r = (*store)->Ingest(Content(1), "generated", "killed");
    _exit(r.ok() ? 3 : 4);  // reaching here means the crash point was never hit
  }
  int wstatus = 0;
  ASSERT_EQ(waitpid(pid, &wstatus, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(wstatus)) << "child exited with " << WEXITSTATUS(wstatus);
  EXPECT_EQ(WTERMSIG(wstatus), SIGKILL);

  {
    ASSERT_OK_AND_ASSIGN(auto db, Connection::Open(path));
    ASSERT_OK_AND_ASSIGN(std::string integrity, db->QueryText("PRAGMA integrity_check"));
    EXPECT_EQ(integrity, "ok");
    ASSERT_OK(db->Exec("PRAGMA foreign_keys = ON"));
    ASSERT_OK_AND_ASSIGN(Statement fk, db->Prepare("PRAGMA foreign_key_check"));
    ASSERT_OK_AND_ASSIGN(bool violation, fk.Step());
    EXPECT_FALSE(violation);
  }

  const bool committed = crash_point == "after_commit";
  ASSERT_OK_AND_ASSIGN(auto store, Store::Open(Options(path)));
  ASSERT_OK_AND_ASSIGN(auto current, store->Current());
  ASSERT_TRUE(current.has_value());
  if (committed) {
    EXPECT_GT(current->id, previous_id);
    EXPECT_EQ(current->source_name, "killed");
  } else {
    EXPECT_EQ(current->id, previous_id);
    EXPECT_EQ(current->source_name, "before");
  }
  ASSERT_OK_AND_ASSIGN(auto all, store->ListSnapshots());
  EXPECT_EQ(all.size(), 1u);
  ASSERT_OK_AND_ASSIGN(Fabric loaded, store->LoadFabric(current->id));
  ExpectFabricsEqual(Content(committed ? 1 : 0), loaded);

  // The survivor is fully usable: the next ingest works.
  ASSERT_OK_AND_ASSIGN(IngestResult next,
                       store->Ingest(Content(committed ? 0 : 1), "generated", "after"));
  EXPECT_TRUE(next.created);
}

INSTANTIATE_TEST_SUITE_P(AllCrashPoints, StoreCrashTest, ::testing::ValuesIn(IngestCrashPoints()),
                         [](const auto& info) { return info.param; });

TEST(StoreCrashPointsTest, DocumentedPointsAreThere) {
  const auto& points = IngestCrashPoints();
  for (const char* p :
       {"after_begin", "after_nodes", "after_links", "before_commit", "after_commit"}) {
    EXPECT_NE(std::find(points.begin(), points.end(), p), points.end()) << p;
  }
}

}  // namespace
}  // namespace toporr::db

#include "db/schema.h"

#include "common/status_matchers.h"
#include "common/test_data.h"
#include "db/sqlite.h"
#include "gtest/gtest.h"

namespace toporr::db {
namespace {

using ::testing::HasSubstr;
using ::toporr::testing::StatusIs;

TEST(SchemaTest, MigratesEmptyFileToLatestAndIsIdempotent) {
  const std::string path = toporr::testing::MakeTempDir("schema") + "/toporr.db";
  ASSERT_OK_AND_ASSIGN(auto db, Connection::Open(path));
  ASSERT_OK(MigrateToLatest(*db));
  ASSERT_OK_AND_ASSIGN(int64_t version, db->QueryInt("PRAGMA user_version"));
  EXPECT_EQ(version, LatestSchemaVersion());
  EXPECT_GE(LatestSchemaVersion(), 1);
  ASSERT_OK(MigrateToLatest(*db));  // already current: nothing to do, no "table exists"
  for (const char* table : {"snapshots", "current", "nodes", "ports", "links", "hosts", "host_cas",
                            "anonymous_endpoints"}) {
    ASSERT_OK_AND_ASSIGN(int64_t n, db->QueryInt(std::string("SELECT count(*) FROM sqlite_schema "
                                                             "WHERE type='table' AND name='") +
                                                 table + "'"));
    EXPECT_EQ(n, 1) << table;
  }
}

TEST(SchemaTest, RefusesNewerSchemaAndLeavesFileAlone) {
  const std::string path = toporr::testing::MakeTempDir("schema") + "/toporr.db";
  ASSERT_OK_AND_ASSIGN(auto db, Connection::Open(path));
  const int newer = LatestSchemaVersion() + 1;
  ASSERT_OK(
      db->Exec("CREATE TABLE from_the_future (x); PRAGMA user_version = " + std::to_string(newer)));
  EXPECT_THAT(MigrateToLatest(*db),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("schema version " + std::to_string(newer) + " is newer")));
  ASSERT_OK_AND_ASSIGN(int64_t version, db->QueryInt("PRAGMA user_version"));
  EXPECT_EQ(version, newer);
  ASSERT_OK_AND_ASSIGN(int64_t tables,
                       db->QueryInt("SELECT count(*) FROM sqlite_schema WHERE type='table'"));
  EXPECT_EQ(tables, 1);
  // The failed migration must not leave a transaction open.
  EXPECT_OK(db->Exec("BEGIN; COMMIT;"));
}

TEST(SchemaTest, FailedMigrationRollsBackEverything) {
  ASSERT_OK_AND_ASSIGN(auto db, Connection::Open(":memory:"));
  // A clashing object makes migration 1 fail half-way (after some tables were
  // created).
  ASSERT_OK(db->Exec("CREATE VIEW links AS SELECT 1"));
  EXPECT_THAT(MigrateToLatest(*db),
              StatusIs(absl::StatusCode::kInternal, HasSubstr("migration to schema version 1")));
  ASSERT_OK_AND_ASSIGN(int64_t version, db->QueryInt("PRAGMA user_version"));
  EXPECT_EQ(version, 0);
  ASSERT_OK_AND_ASSIGN(int64_t tables,
                       db->QueryInt("SELECT count(*) FROM sqlite_schema WHERE type='table'"));
  EXPECT_EQ(tables, 0);
}

}  // namespace
}  // namespace toporr::db

#include "db/sqlite.h"

#include "common/status_matchers.h"
#include "common/test_data.h"
#include "gtest/gtest.h"

namespace toporr::db {
namespace {

using ::testing::HasSubstr;
using ::toporr::testing::StatusIs;

TEST(ConnectionTest, PreparedStatementRoundTripsValuesAndIsReusable) {
  ASSERT_OK_AND_ASSIGN(auto db, Connection::Open(":memory:"));
  ASSERT_OK(db->Exec("CREATE TABLE t (i INTEGER, d REAL, s TEXT)"));
  ASSERT_OK_AND_ASSIGN(Statement ins, db->Prepare("INSERT INTO t VALUES (?, ?, ?)"));
  ASSERT_OK(ins.BindInt(1, -(int64_t{1} << 62))
                .BindDouble(2, 13.636363636363637)
                .BindText(3, "a\0b")
                .Run());
  ASSERT_OK(ins.BindInt(1, 7).BindNull(2).BindText(3, std::string("x\0y", 3)).Run());
  ASSERT_OK_AND_ASSIGN(Statement sel, db->Prepare("SELECT i, d, s FROM t ORDER BY rowid"));
  ASSERT_OK_AND_ASSIGN(bool row, sel.Step());
  ASSERT_TRUE(row);
  EXPECT_EQ(sel.ColumnInt(0), -(int64_t{1} << 62));
  EXPECT_EQ(sel.ColumnDouble(1), 13.636363636363637);
  ASSERT_OK_AND_ASSIGN(row, sel.Step());
  ASSERT_TRUE(row);
  EXPECT_TRUE(sel.IsNull(1));
  EXPECT_EQ(sel.ColumnText(2), std::string("x\0y", 3));
  ASSERT_OK_AND_ASSIGN(row, sel.Step());
  EXPECT_FALSE(row);
}

TEST(ConnectionTest, ErrorsCarryPathAndSqliteMessage) {
  ASSERT_OK_AND_ASSIGN(auto db, Connection::Open(":memory:"));
  EXPECT_THAT(db->Exec("SELECT * FROM missing"),
              StatusIs(absl::StatusCode::kInternal, HasSubstr(":memory:: no such table: missing")));
  EXPECT_THAT(db->Prepare("NOT SQL"), StatusIs(absl::StatusCode::kInternal, HasSubstr("syntax")));
}

TEST(ConnectionTest, LockedDatabaseIsUnavailable) {
  const std::string path = toporr::testing::MakeTempDir("sqlite") + "/toporr.db";
  ASSERT_OK_AND_ASSIGN(auto a, Connection::Open(path));
  ASSERT_OK_AND_ASSIGN(auto b, Connection::Open(path));
  ASSERT_OK(a->Exec("CREATE TABLE t (x)"));
  ASSERT_OK(a->Exec("BEGIN IMMEDIATE"));
  EXPECT_THAT(b->Exec("INSERT INTO t VALUES (1)"),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr(path + ": database is locked")));
  ASSERT_OK(a->Exec("ROLLBACK"));
}

TEST(ConnectionTest, NotADatabaseIsDataLoss) {
  const std::string path = toporr::testing::MakeTempDir("sqlite") + "/garbage.db";
  FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs(
      "this is not an SQLite file, just text long enough to have a "
      "header ......\n",
      f);
  std::fclose(f);
  ASSERT_OK_AND_ASSIGN(auto db, Connection::Open(path));
  EXPECT_THAT(db->QueryInt("PRAGMA user_version"),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr(path)));
}

TEST(ConnectionTest, UnopenablePathIsUnavailable) {
  EXPECT_THAT(Connection::Open("/nonexistent-dir/toporr.db"),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("/nonexistent-dir/toporr.db")));
}

}  // namespace
}  // namespace toporr::db

#include "db/store.h"

#include <unistd.h>

#include <cstdio>

#include "common/status_matchers.h"
#include "common/test_data.h"
#include "db/schema.h"
#include "db/sqlite.h"
#include "db/test_fabrics.h"
#include "gtest/gtest.h"

namespace toporr::db {
namespace {

using fabric::Fabric;
using ::testing::ElementsAre;
using testing::ExpectFabricsEqual;
using ::testing::HasSubstr;
using testing::MakeFatTree;
using testing::MakeSmallFabric;
using ::toporr::testing::StatusIs;

// The small fabric with one description changed: same shape, different content.
Fabric SmallVariant(int v) {
  Fabric f = MakeSmallFabric();
  f.nodes[0].description = "spine01 rev" + std::to_string(v);
  return f;
}

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override { path_ = toporr::testing::MakeTempDir("store") + "/toporr.db"; }

  StoreOptions Options(int keep = 20) {
    StoreOptions o;
    o.path = path_;
    o.keep_snapshots = keep;
    o.now_unix_ms = [this] { return now_ms_ += 1000; };
    return o;
  }

  // The file as ops staff see it with sqlite3.
  int64_t Count(const std::string& sql) {
    auto db = Connection::Open(path_);
    EXPECT_TRUE(db.ok()) << db.status();
    auto n = (*db)->QueryInt(sql);
    EXPECT_TRUE(n.ok()) << n.status();
    return n.ok() ? *n : -1;
  }

  std::string path_;
  int64_t now_ms_ = 1700000000000;
};

TEST_F(StoreTest, EmptyStoreHasNoCurrentSnapshot) {
  ASSERT_OK_AND_ASSIGN(auto store, Store::Open(Options()));
  ASSERT_OK_AND_ASSIGN(auto current, store->Current());
  EXPECT_FALSE(current.has_value());
  ASSERT_OK_AND_ASSIGN(auto all, store->ListSnapshots());
  EXPECT_TRUE(all.empty());
}

TEST_F(StoreTest, ExclusiveOpenRefusesASecondHolderNamingItsPid) {
  StoreOptions o = Options();
  o.exclusive = true;
  ASSERT_OK_AND_ASSIGN(auto first, Store::Open(o));
  EXPECT_THAT(Store::Open(o).status(),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("is in use by another toporrd (pid " + std::to_string(getpid()))));
  first.reset();  // the lock goes with the Store
  ASSERT_OK_AND_ASSIGN(auto second, Store::Open(o));
}

TEST_F(StoreTest, IngestRefusesAFileRemovedOrReplacedUnderTheStore) {
  ASSERT_OK_AND_ASSIGN(auto store, Store::Open(Options()));
  ASSERT_OK(store->Ingest(SmallVariant(1), "ibnetdiscover", "a").status());
  // Replaced: another database moved over the path.
  const std::string other = path_ + ".other";
  {
    StoreOptions o = Options();
    o.path = other;
    ASSERT_OK_AND_ASSIGN(auto elsewhere, Store::Open(o));
  }
  ASSERT_EQ(std::rename(other.c_str(), path_.c_str()), 0);
  EXPECT_THAT(store->Ingest(SmallVariant(2), "ibnetdiscover", "b").status(),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("was replaced")));
  // Removed.
  ASSERT_OK_AND_ASSIGN(store, Store::Open(Options()));
  ASSERT_EQ(std::remove(path_.c_str()), 0);
  EXPECT_THAT(store->Ingest(SmallVariant(3), "ibnetdiscover", "c").status(),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("was removed")));
  ASSERT_OK_AND_ASSIGN(auto current, store->Current());  // reads go on
}

TEST_F(StoreTest, IngestRecordsMetadataAndRoundTripsTheFabric) {
  const Fabric fabric = MakeSmallFabric();
  ASSERT_OK_AND_ASSIGN(auto store, Store::Open(Options()));
  ASSERT_OK_AND_ASSIGN(IngestResult r, store->Ingest(fabric, "ibnetdiscover", "fabric.txt"));
  EXPECT_TRUE(r.created);
  const SnapshotInfo& s = r.snapshot;
  EXPECT_GT(s.id, 0);
  EXPECT_EQ(s.created_unix_ms, 1700000001000);
  EXPECT_EQ(s.source_kind, "ibnetdiscover");
  EXPECT_EQ(s.source_name, "fabric.txt");
  EXPECT_EQ(s.content_hash, FabricContentHash(fabric));
  EXPECT_EQ(s.num_switches, 4);
  EXPECT_EQ(s.num_cas, 7);
  EXPECT_EQ(s.num_routers, 1);
  EXPECT_EQ(s.num_aggregation, 1);
  EXPECT_EQ(s.num_links, 17);
  EXPECT_EQ(s.num_hosts, 5);
  EXPECT_EQ(s.num_anonymous, 1);

  ASSERT_OK_AND_ASSIGN(auto current, store->Current());
  ASSERT_TRUE(current.has_value());
  EXPECT_EQ(current->id, s.id);
  EXPECT_EQ(current->content_hash, s.content_hash);

  ASSERT_OK_AND_ASSIGN(Fabric loaded, store->LoadFabric(s.id));
  ExpectFabricsEqual(fabric, loaded);
  EXPECT_EQ(FabricContentHash(loaded), s.content_hash);

  // A fresh process sees the same thing.
  store.reset();
  ASSERT_OK_AND_ASSIGN(store, Store::Open(Options()));
  ASSERT_OK_AND_ASSIGN(Fabric reloaded, store->LoadFabric(s.id));
  ExpectFabricsEqual(fabric, reloaded);
}

TEST_F(StoreTest, TablesAreQueryableTheWayOpsStaffWouldAsk) {
  ASSERT_OK_AND_ASSIGN(auto store, Store::Open(Options()));
  ASSERT_OK(store->Ingest(MakeSmallFabric(), "ibnetdiscover", "fabric.txt"));
  // Which leaf port is node002's HCA cabled to?
  ASSERT_OK_AND_ASSIGN(auto db, Connection::Open(path_));
  ASSERT_OK_AND_ASSIGN(
      std::string where,
      db->QueryText("SELECT sw.description || ' port ' || "
                    "  CASE WHEN l.a_node = ca.node_index THEN l.b_port ELSE l.a_port "
                    "END "
                    "FROM current c JOIN hosts h ON h.snapshot_id = c.snapshot_id "
                    "JOIN host_cas hc ON hc.snapshot_id = h.snapshot_id AND "
                    "hc.host_index = h.host_index "
                    "JOIN nodes ca ON ca.snapshot_id = hc.snapshot_id AND ca.node_index "
                    "= hc.node_index "
                    "JOIN links l ON l.snapshot_id = ca.snapshot_id "
                    "  AND (l.a_node = ca.node_index OR l.b_node = ca.node_index) "
                    "JOIN nodes sw ON sw.snapshot_id = l.snapshot_id "
                    "  AND sw.node_index = CASE WHEN l.a_node = ca.node_index THEN "
                    "l.b_node "
                    "                           ELSE l.a_node END "
                    "WHERE h.name = 'node002'"));
  EXPECT_EQ(where, "leaf01 QM8700 port 3");
  ASSERT_OK_AND_ASSIGN(std::string guid,
                       db->QueryText("SELECT guid FROM nodes WHERE description = 'router-a'"));
  EXPECT_EQ(guid, "0x0002c90300c00001");
  ASSERT_OK_AND_ASSIGN(int64_t unknown_speed,
                       db->QueryInt("SELECT count(*) FROM links WHERE speed IS NULL"));
  EXPECT_EQ(unknown_speed, 1);
  ASSERT_OK_AND_ASSIGN(std::string journal, db->QueryText("PRAGMA journal_mode"));
  EXPECT_EQ(journal, "wal");
  ASSERT_OK_AND_ASSIGN(int64_t version, db->QueryInt("PRAGMA user_version"));
  EXPECT_EQ(version, LatestSchemaVersion());
  ASSERT_OK(db->Exec("PRAGMA foreign_keys = ON"));
  ASSERT_OK_AND_ASSIGN(Statement fk, db->Prepare("PRAGMA foreign_key_check"));
  ASSERT_OK_AND_ASSIGN(bool violation, fk.Step());
  EXPECT_FALSE(violation);
}

TEST_F(StoreTest, IdenticalContentMakesNoNewSnapshot) {
  ASSERT_OK_AND_ASSIGN(auto store, Store::Open(Options()));
  ASSERT_OK_AND_ASSIGN(IngestResult first,
                       store->Ingest(SmallVariant(1), "ibnetdiscover", "a.txt"));
  ASSERT_OK_AND_ASSIGN(IngestResult again, store->Ingest(SmallVariant(1), "libibnetdisc", "live"));
  EXPECT_FALSE(again.created);
  EXPECT_EQ(again.snapshot.id, first.snapshot.id);
  EXPECT_EQ(again.snapshot.source_kind,
            "ibnetdiscover");  // the existing snapshot
  EXPECT_EQ(again.snapshot.created_unix_ms, first.snapshot.created_unix_ms);
  ASSERT_OK_AND_ASSIGN(auto all, store->ListSnapshots());
  EXPECT_EQ(all.size(), 1u);

  // A change, then a change back: both are new snapshots (the current content
  // differs).
  ASSERT_OK_AND_ASSIGN(IngestResult second, store->Ingest(SmallVariant(2), "ibnetdiscover", "b"));
  EXPECT_TRUE(second.created);
  ASSERT_OK_AND_ASSIGN(IngestResult back, store->Ingest(SmallVariant(1), "ibnetdiscover", "c"));
  EXPECT_TRUE(back.created);
  EXPECT_GT(back.snapshot.id, second.snapshot.id);
  EXPECT_GT(second.snapshot.id, first.snapshot.id);
}

TEST_F(StoreTest, ListSnapshotsIsNewestFirst) {
  ASSERT_OK_AND_ASSIGN(auto store, Store::Open(Options()));
  std::vector<int64_t> ids;
  for (int v = 0; v < 3; ++v) {
    ASSERT_OK_AND_ASSIGN(IngestResult r, store->Ingest(SmallVariant(v), "k", "n"));
    ids.push_back(r.snapshot.id);
  }
  ASSERT_OK_AND_ASSIGN(auto all, store->ListSnapshots());
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].id, ids[2]);
  EXPECT_EQ(all[1].id, ids[1]);
  EXPECT_EQ(all[2].id, ids[0]);
  EXPECT_GT(all[0].created_unix_ms, all[2].created_unix_ms);
}

TEST_F(StoreTest, RetentionKeepsTheNewestAndDeletesAllRowsOfOldOnes) {
  ASSERT_OK_AND_ASSIGN(auto store, Store::Open(Options(/*keep=*/3)));
  std::vector<int64_t> ids;
  for (int v = 0; v < 6; ++v) {
    ASSERT_OK_AND_ASSIGN(IngestResult r, store->Ingest(SmallVariant(v), "k", "n"));
    ids.push_back(r.snapshot.id);
  }
  ASSERT_OK_AND_ASSIGN(auto all, store->ListSnapshots());
  std::vector<int64_t> kept;
  for (const auto& s : all) kept.push_back(s.id);
  EXPECT_THAT(kept, ElementsAre(ids[5], ids[4], ids[3]));
  EXPECT_THAT(store->LoadFabric(ids[0]),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("snapshot")));
  ASSERT_OK_AND_ASSIGN(Fabric oldest_kept, store->LoadFabric(ids[3]));
  ExpectFabricsEqual(SmallVariant(3), oldest_kept);
  for (const char* table :
       {"nodes", "ports", "links", "hosts", "host_cas", "anonymous_endpoints"}) {
    EXPECT_EQ(Count(std::string("SELECT count(DISTINCT snapshot_id) FROM ") + table), 3) << table;
  }

  // keep_snapshots = 1: only the current one survives the next ingest.
  store.reset();
  ASSERT_OK_AND_ASSIGN(store, Store::Open(Options(/*keep=*/1)));
  ASSERT_OK_AND_ASSIGN(IngestResult last, store->Ingest(SmallVariant(9), "k", "n"));
  ASSERT_OK_AND_ASSIGN(all, store->ListSnapshots());
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].id, last.snapshot.id);
  EXPECT_EQ(
      Count("SELECT count(*) FROM nodes WHERE snapshot_id != " + std::to_string(last.snapshot.id)),
      0);
}

TEST_F(StoreTest, FailureBetweenTableWritesRollsBackAndKeepsCurrent) {
  ASSERT_OK_AND_ASSIGN(auto store, Store::Open(Options(/*keep=*/1)));
  ASSERT_OK_AND_ASSIGN(IngestResult first, store->Ingest(SmallVariant(1), "k", "first"));
  const int64_t rows_before = Count(
      "SELECT (SELECT count(*) FROM nodes) + "
      "(SELECT count(*) FROM ports) + (SELECT count(*) FROM links)");
  {
    // A real SQLite error in the middle of the ingest: nodes and ports are
    // already written when the first link insert fails.
    ASSERT_OK_AND_ASSIGN(auto db, Connection::Open(path_));
    ASSERT_OK(
        db->Exec("CREATE TRIGGER injected_fault BEFORE INSERT ON links "
                 "BEGIN SELECT RAISE(ABORT, 'injected fault'); END"));
  }
  EXPECT_THAT(store->Ingest(SmallVariant(2), "k", "second"),
              StatusIs(absl::StatusCode::kInternal,
                       ::testing::AllOf(HasSubstr("injected fault"), HasSubstr(path_))));
  ASSERT_OK_AND_ASSIGN(auto current, store->Current());
  ASSERT_TRUE(current.has_value());
  EXPECT_EQ(current->id, first.snapshot.id);
  ASSERT_OK_AND_ASSIGN(auto all, store->ListSnapshots());
  EXPECT_EQ(all.size(), 1u);  // retention (keep=1) was rolled back too
  EXPECT_EQ(Count("SELECT (SELECT count(*) FROM nodes) + "
                  "(SELECT count(*) FROM ports) + (SELECT count(*) FROM links)"),
            rows_before);
  ASSERT_OK_AND_ASSIGN(Fabric loaded, store->LoadFabric(first.snapshot.id));
  ExpectFabricsEqual(SmallVariant(1), loaded);

  // Once the fault is gone the same store ingests normally.
  {
    ASSERT_OK_AND_ASSIGN(auto db, Connection::Open(path_));
    ASSERT_OK(db->Exec("DROP TRIGGER injected_fault"));
  }
  ASSERT_OK_AND_ASSIGN(IngestResult second, store->Ingest(SmallVariant(2), "k", "second"));
  EXPECT_TRUE(second.created);
  ASSERT_OK_AND_ASSIGN(Fabric loaded2, store->LoadFabric(second.snapshot.id));
  ExpectFabricsEqual(SmallVariant(2), loaded2);
}

TEST_F(StoreTest, LockedDatabaseFailsWithUnavailableNamingTheFile) {
  StoreOptions o = Options();
  o.busy_timeout_ms = 50;
  ASSERT_OK_AND_ASSIGN(auto store, Store::Open(o));
  ASSERT_OK_AND_ASSIGN(auto other, Connection::Open(path_));
  ASSERT_OK(other->Exec("BEGIN IMMEDIATE"));
  EXPECT_THAT(store->Ingest(MakeSmallFabric(), "k", "n"),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr(path_ + ": database is locked")));
  ASSERT_OK(other->Exec("ROLLBACK"));
  EXPECT_OK(store->Ingest(MakeSmallFabric(), "k", "n"));
}

TEST_F(StoreTest, RefusesSchemaNewerThanThisBinary) {
  { ASSERT_OK_AND_ASSIGN(auto store, Store::Open(Options())); }
  {
    ASSERT_OK_AND_ASSIGN(auto db, Connection::Open(path_));
    ASSERT_OK(db->Exec("PRAGMA user_version = " + std::to_string(LatestSchemaVersion() + 7)));
  }
  EXPECT_THAT(Store::Open(Options()),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       ::testing::AllOf(HasSubstr(path_), HasSubstr("newer"))));
}

TEST_F(StoreTest, RejectsInconsistentFabricsWithoutWriting) {
  ASSERT_OK_AND_ASSIGN(auto store, Store::Open(Options()));
  Fabric bad_link = MakeSmallFabric();
  bad_link.nodes[4].ports[0].link = 5;
  EXPECT_THAT(store->Ingest(bad_link, "k", "n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("0x0002c90300b00100")));
  Fabric bad_host = MakeSmallFabric();
  bad_host.nodes[6].host = 0;
  EXPECT_THAT(store->Ingest(bad_host, "k", "n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("host")));
  Fabric dup = MakeSmallFabric();
  dup.nodes[1].guid = dup.nodes[0].guid;
  EXPECT_THAT(store->Ingest(dup, "k", "n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("share GUID")));
  Fabric bad_anon = MakeSmallFabric();
  bad_anon.anonymous_endpoints.push_back(1000);
  EXPECT_THAT(store->Ingest(bad_anon, "k", "n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("anonymous")));
  ASSERT_OK_AND_ASSIGN(auto all, store->ListSnapshots());
  EXPECT_TRUE(all.empty());
}

TEST_F(StoreTest, OptionsAreValidated) {
  StoreOptions o = Options();
  o.keep_snapshots = 0;
  EXPECT_THAT(Store::Open(o), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("keep")));
  o = Options();
  o.crash_point = "after_lunch";
  EXPECT_THAT(Store::Open(o),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("after_lunch")));
  o = Options();
  o.path = "";
  EXPECT_THAT(Store::Open(o), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("path")));
}

TEST_F(StoreTest, LoadMissingSnapshotIsNotFound) {
  ASSERT_OK_AND_ASSIGN(auto store, Store::Open(Options()));
  EXPECT_THAT(store->LoadFabric(42), StatusIs(absl::StatusCode::kNotFound, HasSubstr("42")));
}

TEST_F(StoreTest, InMemoryStoreWorks) {
  StoreOptions o = Options();
  o.path = ":memory:";
  ASSERT_OK_AND_ASSIGN(auto store, Store::Open(o));
  const Fabric f = MakeFatTree(4, 3, 2, 2);
  ASSERT_OK_AND_ASSIGN(IngestResult r, store->Ingest(f, "generated", "fattree-4l-12h"));
  ASSERT_OK_AND_ASSIGN(Fabric loaded, store->LoadFabric(r.snapshot.id));
  ExpectFabricsEqual(f, loaded);
}

TEST_F(StoreTest, DefaultClockIsWallTime) {
  StoreOptions o = Options();
  o.now_unix_ms = nullptr;
  ASSERT_OK_AND_ASSIGN(auto store, Store::Open(o));
  ASSERT_OK_AND_ASSIGN(IngestResult r, store->Ingest(MakeSmallFabric(), "k", "n"));
  EXPECT_GT(r.snapshot.created_unix_ms, int64_t{1600000000000});  // after Sept 2020
}

}  // namespace
}  // namespace toporr::db

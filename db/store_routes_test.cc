// Forwarding tables (routes) stored with a snapshot: round trip, hashing, retention.
#include "collectors/forwarding_tables.h"
#include "collectors/ibnetdiscover.h"
#include "common/status_matchers.h"
#include "common/test_data.h"
#include "db/store.h"
#include "gtest/gtest.h"

namespace toporr::db {
namespace {

using fabric::Fabric;
using fabric::ForwardingTables;

class StoreRoutesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(
        fabric_,
        collectors::ParseIbnetdiscover(
            toporr::testing::ReadSharedFabric("ibnetdiscover_fattree_default.txt"), {"fattree"}));
    ASSERT_OK_AND_ASSIGN(
        tables_, collectors::ParseForwardingTables(
                     toporr::testing::ReadSharedFabric("dump_fts_fattree.txt"), {"dump_fts"}));
    StoreOptions o;
    o.path = toporr::testing::MakeTempDir("store_routes") + "/toporr.db";
    o.keep_snapshots = 2;
    ASSERT_OK_AND_ASSIGN(store_, Store::Open(o));
  }
  Fabric fabric_;
  ForwardingTables tables_;
  std::unique_ptr<Store> store_;
};

TEST_F(StoreRoutesTest, TablesRoundTripExactly) {
  ASSERT_OK_AND_ASSIGN(IngestResult r, store_->Ingest(fabric_, &tables_, "lft", "dump_fts"));
  EXPECT_TRUE(r.created);
  EXPECT_EQ(r.snapshot.num_forwarding_tables, 6);
  ASSERT_OK_AND_ASSIGN(auto loaded, store_->LoadForwardingTables(r.snapshot.id));
  ASSERT_TRUE(loaded.has_value());
  ASSERT_EQ(loaded->switches().size(), tables_.switches().size());
  for (const auto& t : tables_.switches()) {
    const auto* l = loaded->FindTable(t.guid);
    ASSERT_NE(l, nullptr);
    EXPECT_EQ(l->lid, t.lid);
    EXPECT_EQ(l->description, t.description);
    EXPECT_EQ(l->out_port, t.out_port);
  }
  EXPECT_EQ(loaded->lid_port_guid(), tables_.lid_port_guid());
  EXPECT_EQ(SnapshotContentHash(fabric_, &*loaded), r.snapshot.content_hash);
  ASSERT_OK_AND_ASSIGN(auto current, store_->Current());
  EXPECT_EQ(current->num_forwarding_tables, 6);
}

TEST_F(StoreRoutesTest, RoutesChangeTheHashAndSnapshotsWithoutThemHaveNone) {
  ASSERT_OK_AND_ASSIGN(IngestResult plain, store_->Ingest(fabric_, "ibnetdiscover", "t"));
  EXPECT_EQ(plain.snapshot.content_hash, FabricContentHash(fabric_));
  ASSERT_OK_AND_ASSIGN(auto none, store_->LoadForwardingTables(plain.snapshot.id));
  EXPECT_FALSE(none.has_value());

  ASSERT_OK_AND_ASSIGN(IngestResult routed, store_->Ingest(fabric_, &tables_, "lft", "d"));
  EXPECT_TRUE(routed.created) << "same fabric, new routes: a new snapshot";
  ASSERT_OK_AND_ASSIGN(IngestResult again, store_->Ingest(fabric_, &tables_, "lft", "d"));
  EXPECT_FALSE(again.created);

  ForwardingTables changed = tables_;
  const auto& first = changed.switches().front();
  uint32_t lid = 1;
  while (lid < first.out_port.size() && first.out_port[lid] == ForwardingTables::kUnsetPort) ++lid;
  ASSERT_OK(changed.SetOutPort(first.guid, lid, first.out_port[lid] == 1 ? 2 : 1));
  ASSERT_OK_AND_ASSIGN(IngestResult moved, store_->Ingest(fabric_, &changed, "lft", "d2"));
  EXPECT_TRUE(moved.created);
  EXPECT_NE(moved.snapshot.content_hash, routed.snapshot.content_hash);
  // keep_snapshots = 2: the first two are gone with their tables.
  ASSERT_OK_AND_ASSIGN(auto list, store_->ListSnapshots());
  EXPECT_EQ(list.size(), 2u);
  EXPECT_EQ(store_->LoadForwardingTables(plain.snapshot.id).status().code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace toporr::db

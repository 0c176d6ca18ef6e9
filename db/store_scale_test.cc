// A 10,240-CA fat tree (960 switches, 30,720 links) through a real SQLite file: ingest,
// load back unchanged, replace (the old snapshot deleted: keep_snapshots = 1), and an
// unchanged re-ingest that makes no snapshot. The speed of these steps (target: ingest < 3 s)
// is measured by bench/scale_bench (BM_StoreIngest, BM_StoreLoad, ...), not here.
#include "common/status_matchers.h"
#include "common/test_data.h"
#include "db/store.h"
#include "db/test_fabrics.h"
#include "gtest/gtest.h"

namespace toporr::db {
namespace {

using fabric::Fabric;

TEST(StoreScaleTest, LargeFatTreeRoundTripsAndReplaces) {
  const Fabric first = testing::MakeLargeFatTree(0);
  const Fabric second = testing::MakeLargeFatTree(1);
  ASSERT_EQ(first.CountNodes(fabric::NodeType::kCa), 10240u);
  ASSERT_EQ(first.CountNodes(fabric::NodeType::kSwitch), 960u);
  ASSERT_EQ(first.links.size(), 30720u);
  EXPECT_NE(FabricContentHash(first), FabricContentHash(second));

  StoreOptions o;
  o.path = toporr::testing::MakeTempDir("scale") + "/toporr.db";
  o.keep_snapshots = 1;
  ASSERT_OK_AND_ASSIGN(auto store, Store::Open(o));

  ASSERT_OK_AND_ASSIGN(IngestResult r1, store->Ingest(first, "generated", "large-0"));
  EXPECT_TRUE(r1.created);
  ASSERT_OK_AND_ASSIGN(Fabric loaded, store->LoadFabric(r1.snapshot.id));
  testing::ExpectFabricsEqual(first, loaded);

  ASSERT_OK_AND_ASSIGN(IngestResult r2, store->Ingest(second, "generated", "large-1"));
  EXPECT_TRUE(r2.created);
  ASSERT_OK_AND_ASSIGN(IngestResult r3, store->Ingest(second, "generated", "large-1"));
  EXPECT_FALSE(r3.created);
  EXPECT_EQ(r3.snapshot.id, r2.snapshot.id);
}

}  // namespace
}  // namespace toporr::db

// Self-check of the ingest speed requirement: a 10,240-CA fat tree (960
// switches, 30,720 links) must ingest in well under 3 s into a real file.
// Prints the measured times.
#include <chrono>
#include <cstdio>

#include "common/status_matchers.h"
#include "common/test_data.h"
#include "db/store.h"
#include "db/test_fabrics.h"
#include "gtest/gtest.h"

namespace toporr::db {
namespace {

using collectors::Fabric;

template <typename F> double TimeMs(F f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}

TEST(StoreSpeedTest, LargeFatTreeIngestsWellUnderThreeSeconds) {
  const Fabric first = testing::MakeLargeFatTree(0);
  const Fabric second = testing::MakeLargeFatTree(1);
  ASSERT_EQ(first.CountNodes(collectors::NodeType::kCa), 10240u);
  ASSERT_EQ(first.CountNodes(collectors::NodeType::kSwitch), 960u);
  ASSERT_EQ(first.links.size(), 30720u);

  StoreOptions o;
  o.path = toporr::testing::MakeTempDir("speed") + "/toporr.db";
  o.keep_snapshots = 1;
  ASSERT_OK_AND_ASSIGN(auto store, Store::Open(o));

  absl::StatusOr<IngestResult> r1, r2, r3;
  absl::StatusOr<Fabric> loaded;
  const double hash_ms = TimeMs([&] { FabricContentHash(first); });
  const double ingest_ms =
      TimeMs([&] { r1 = store->Ingest(first, "generated", "large-0"); });
  ASSERT_OK(r1);
  const double load_ms =
      TimeMs([&] { loaded = store->LoadFabric(r1->snapshot.id); });
  ASSERT_OK(loaded);
  const double replace_ms =
      TimeMs([&] { r2 = store->Ingest(second, "generated", "large-1"); });
  ASSERT_OK(r2);
  EXPECT_TRUE(r2->created);
  const double unchanged_ms =
      TimeMs([&] { r3 = store->Ingest(second, "generated", "large-1"); });
  ASSERT_OK(r3);
  EXPECT_FALSE(r3->created);

  std::printf("content hash:                  %8.1f ms\n", hash_ms);
  std::printf("ingest into empty store:       %8.1f ms\n", ingest_ms);
  std::printf("load snapshot:                 %8.1f ms\n", load_ms);
  std::printf("ingest + delete old snapshot:  %8.1f ms\n", replace_ms);
  std::printf("re-ingest unchanged content:   %8.1f ms\n", unchanged_ms);
  EXPECT_LT(ingest_ms, 3000);
  EXPECT_LT(replace_ms, 3000);
  testing::ExpectFabricsEqual(first, *loaded);
}

} // namespace
} // namespace toporr::db

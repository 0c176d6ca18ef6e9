#include "db/fabric_rows.h"

#include <string>
#include <vector>

#include "common/status_matchers.h"
#include "db/schema.h"
#include "db/test_fabrics.h"
#include "gtest/gtest.h"

namespace toporr::db {
namespace {

using ::toporr::testing::StatusIs;

// A migrated in-memory database holding snapshot 1 (no rows of its own yet).
std::unique_ptr<Connection> DatabaseWithSnapshot() {
  auto db = Connection::Open(":memory:");
  EXPECT_OK(db.status());
  if (!db.ok()) return nullptr;
  EXPECT_OK(MigrateToLatest(**db));
  EXPECT_OK((*db)->Exec(
      "INSERT INTO snapshots (id, created_unix_ms, source_kind, source_name, content_hash, "
      "num_switches, num_cas, num_routers, num_aggregation, num_links, num_hosts, "
      "num_anonymous, num_forwarding_tables) VALUES (1, 0, 'test', 'test', 'h', 0, 0, 0, 0, "
      "0, 0, 0, 0)"));
  return std::move(*db);
}

TEST(FabricRowsTest, RoundTripWithCheckpointsInOrder) {
  auto db = DatabaseWithSnapshot();
  ASSERT_NE(db, nullptr);
  ASSERT_OK_AND_ASSIGN(auto st, PrepareFabricRowStatements(*db));
  const fabric::Fabric fabric = testing::MakeSmallFabric();
  fabric::ForwardingTables tables;
  tables.Add(fabric.nodes[0].guid)->lid = 7;
  ASSERT_OK(tables.SetOutPort(fabric.nodes[0].guid, 3, 2));
  tables.NoteLidOwner(3, 0x1234);
  std::vector<std::string> points;
  ASSERT_OK(WriteFabricRows(*st, 1, fabric, &tables,
                            [&](const char* point) { points.push_back(point); }));
  EXPECT_EQ(points,
            (std::vector<std::string>{"after_nodes", "after_ports", "after_links", "after_hosts"}));

  ASSERT_OK_AND_ASSIGN(fabric::Fabric back, ReadFabricRows(*db, 1));
  testing::ExpectFabricsEqual(fabric, back);
  ASSERT_OK_AND_ASSIGN(auto tables_back, ReadForwardingTableRows(*db, 1));
  ASSERT_TRUE(tables_back.has_value());
  ASSERT_EQ(tables_back->switches().size(), 1u);
  EXPECT_EQ(tables_back->switches()[0].lid, 7u);
  EXPECT_EQ(tables_back->switches()[0].OutPort(3), 2);
  EXPECT_EQ(tables_back->lid_port_guid()[3], 0x1234u);
}

TEST(FabricRowsTest, NoTablesAndMissingSnapshots) {
  auto db = DatabaseWithSnapshot();
  ASSERT_NE(db, nullptr);
  ASSERT_OK_AND_ASSIGN(auto st, PrepareFabricRowStatements(*db));
  ASSERT_OK(WriteFabricRows(*st, 1, testing::MakeSmallFabric(), nullptr, [](const char*) {}));
  ASSERT_OK_AND_ASSIGN(auto none, ReadForwardingTableRows(*db, 1));
  EXPECT_FALSE(none.has_value());
  EXPECT_THAT(ReadFabricRows(*db, 2), StatusIs(absl::StatusCode::kNotFound, ::testing::_));
  EXPECT_THAT(ReadForwardingTableRows(*db, 2), StatusIs(absl::StatusCode::kNotFound, ::testing::_));
}

}  // namespace
}  // namespace toporr::db

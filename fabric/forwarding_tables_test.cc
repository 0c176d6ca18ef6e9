#include "fabric/forwarding_tables.h"

#include "gtest/gtest.h"

namespace toporr::fabric {
namespace {

TEST(ForwardingTablesTest, AddSetAndLookUp) {
  ForwardingTables t;
  t.Add(0xa)->lid = 1;
  EXPECT_EQ(t.Add(0xa), &t.switches()[0]);  // the existing table
  ASSERT_TRUE(t.SetOutPort(0xa, 7, 3).ok());
  EXPECT_EQ(t.FindTable(0xa)->OutPort(7), 3);
  EXPECT_EQ(t.FindTable(0xa)->OutPort(6), ForwardingTables::kUnsetPort);
  EXPECT_EQ(t.FindTable(0xa)->OutPort(1000), ForwardingTables::kUnsetPort);
  EXPECT_EQ(t.Find(0xb), -1);
  EXPECT_EQ(t.FindTable(0xb), nullptr);
  EXPECT_FALSE(t.SetOutPort(0xb, 7, 3).ok());
  EXPECT_FALSE(t.SetOutPort(0xa, kMaxUnicastLid + 1, 3).ok());

  t.NoteLidOwner(7, 0x100);
  t.NoteLidOwner(7, 0x200);  // first writer wins
  t.NoteLidOwner(8, 0);      // ignored
  EXPECT_EQ(t.lid_port_guid()[7], 0x100u);
  EXPECT_EQ(t.lid_port_guid().size(), 8u);
  EXPECT_GT(t.MemoryBytes(), 0u);
}

}  // namespace
}  // namespace toporr::fabric

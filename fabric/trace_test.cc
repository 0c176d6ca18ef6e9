#include "fabric/trace.h"

#include "gtest/gtest.h"

namespace toporr::fabric {
namespace {

TEST(TraceTest, NumSwitchesCountsSwitchEndsOnce) {
  Trace t;
  t.from.port = 1;  // a CA
  t.to.port = 1;
  t.hops.resize(3);  // CA -> sw -> sw -> CA
  EXPECT_EQ(t.NumSwitches(), 2);
  t.from.port = 0;  // from a switch: sw -> sw -> sw -> CA
  EXPECT_EQ(t.NumSwitches(), 3);
  t.hops.clear();
  t.to.port = 0;  // one switch to itself
  EXPECT_EQ(t.NumSwitches(), 1);
}

}  // namespace
}  // namespace toporr::fabric

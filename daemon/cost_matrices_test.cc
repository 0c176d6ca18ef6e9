#include "daemon/cost_matrices.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace toporr::daemon {
namespace {

TEST(PackLittleEndianTest, LowByteFirst) {
  EXPECT_EQ(PackLittleEndian({0x0102, 0xff00, 0}), std::string("\x02\x01\x00\xff\x00\x00", 6));
  EXPECT_EQ(PackLittleEndian({}), "");
}

}  // namespace
}  // namespace toporr::daemon

#include "common/printable.h"

#include <string>

#include "gtest/gtest.h"

namespace toporr {
namespace {

TEST(FirstUnprintableTest, AcceptsPrintableUtf8) {
  EXPECT_EQ(FirstUnprintable("node01 mlx5_0"), std::string_view::npos);
  EXPECT_EQ(FirstUnprintable("Knoten-\xc3\xbc \xe2\x82\xac \xf0\x9f\x98\x80"),
            std::string_view::npos);
  EXPECT_EQ(FirstUnprintable(""), std::string_view::npos);
}

TEST(FirstUnprintableTest, FindsControlsAndBrokenUtf8) {
  EXPECT_EQ(FirstUnprintable("node01\x1b[2J"), 6u);
  EXPECT_EQ(FirstUnprintable("a\tb"), 1u);
  EXPECT_EQ(FirstUnprintable("a\tb", "\t"), std::string_view::npos);
  EXPECT_EQ(FirstUnprintable("ab\x7f"), 2u);
  EXPECT_EQ(FirstUnprintable(std::string("ab\0c", 4)), 2u);
  EXPECT_EQ(FirstUnprintable("x\xff"), 1u);              // never valid
  EXPECT_EQ(FirstUnprintable("x\xc3"), 1u);              // truncated
  EXPECT_EQ(FirstUnprintable("x\xc0\xaf"), 1u);          // overlong '/'
  EXPECT_EQ(FirstUnprintable("x\xed\xa0\x80"), 1u);      // surrogate
  EXPECT_EQ(FirstUnprintable("x\xc2\x9b"), 1u);          // C1 CSI
  EXPECT_EQ(FirstUnprintable("x\xf4\x90\x80\x80"), 1u);  // beyond U+10FFFF
  EXPECT_EQ(DescribeUnprintable("ab\x1b", 2), "byte 0x1b at column 3 is not printable UTF-8");
}

TEST(PrintableTest, EscapesAndCaps) {
  EXPECT_EQ(Printable("node01\x1b[2J\xff"), "node01\\x1b[2J\\xff");
  EXPECT_EQ(Printable("a\nb", 160, "\n"), "a\nb");
  const std::string big(20480, 'x');
  const std::string p = Printable(big, 100);
  EXPECT_EQ(p, std::string(100, 'x') + "...(20480 bytes)");
  // Never cuts a character in two.
  EXPECT_EQ(Printable("ab\xe2\x82\xac", 4), "ab...(5 bytes)");
  EXPECT_EQ(Quoted("n\x01"), "'n\\x01'");
}

}  // namespace
}  // namespace toporr

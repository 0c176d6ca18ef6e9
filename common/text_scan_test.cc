#include "common/text_scan.h"

#include <string>
#include <utility>
#include <vector>

#include "common/status_matchers.h"
#include "gtest/gtest.h"

namespace toporr {
namespace {

using std::string_view;

TEST(TextScan, LineCountCountsAsLineScanner) {
  EXPECT_EQ(LineCount(""), 1);
  EXPECT_EQ(LineCount("a"), 1);
  EXPECT_EQ(LineCount("a\n"), 1);
  EXPECT_EQ(LineCount("a\nb"), 2);
  EXPECT_EQ(LineCount("\n\n\n"), 3);
}

TEST(TextScan, TrimTakesBlanksAndCarriageReturnsOnly) {
  EXPECT_EQ(Trim(" \t node017 mlx5_0 \r"), "node017 mlx5_0");
  EXPECT_EQ(Trim(" \t\r "), "");
  EXPECT_EQ(Trim(""), "");
  EXPECT_EQ(Trim("\fx\v"), "\fx\v");  // not blanks in dumps
  EXPECT_EQ(TrimLeft("  a b  "), "a b  ");
  EXPECT_EQ(TrimRight("  a b \r"), "  a b");
}

TEST(TextScan, ConsumeRemovesOnlyAMatchingPrefix) {
  string_view s = "Unicast lids [0x0-0x2c]";
  EXPECT_FALSE(Consume(s, "Multicast"));
  EXPECT_EQ(s, "Unicast lids [0x0-0x2c]");
  EXPECT_TRUE(Consume(s, "Unicast lids ["));
  EXPECT_EQ(s, "0x0-0x2c]");
  EXPECT_TRUE(Consume(s, ""));
  string_view shorter = "Uni";
  EXPECT_FALSE(Consume(shorter, "Unicast"));
  EXPECT_EQ(shorter, "Uni");
}

TEST(TextScan, HexDigitValue) {
  EXPECT_EQ(HexDigitValue('0'), 0);
  EXPECT_EQ(HexDigitValue('9'), 9);
  EXPECT_EQ(HexDigitValue('a'), 10);
  EXPECT_EQ(HexDigitValue('F'), 15);
  EXPECT_EQ(HexDigitValue('g'), -1);
  EXPECT_EQ(HexDigitValue('x'), -1);
}

TEST(TextScan, ConsumeHexReadsUpTo64Bits) {
  string_view s = "0002c90200500300\"[1]";
  uint64_t v = 0;
  ASSERT_TRUE(ConsumeHex(s, &v));
  EXPECT_EQ(v, 0x0002c90200500300ULL);
  EXPECT_EQ(s, "\"[1]");

  s = "FfFfFfFfFfFfFfFf";
  ASSERT_TRUE(ConsumeHex(s, &v));
  EXPECT_EQ(v, ~uint64_t{0});
  EXPECT_TRUE(s.empty());

  s = "1";
  ASSERT_TRUE(ConsumeHex(s, &v));
  EXPECT_EQ(v, 1u);

  v = 7;
  for (string_view bad : {"", "g1", "x12", "12345678901234567"}) {  // the last: 17 digits
    s = bad;
    EXPECT_FALSE(ConsumeHex(s, &v)) << bad;
    EXPECT_EQ(s, bad);
    EXPECT_EQ(v, 7u) << "value written on failure";
  }
}

TEST(TextScan, ConsumeHex0xNeedsThePrefixAndDigits) {
  uint64_t v = 0;
  string_view s = "0x2c9 devid";
  ASSERT_TRUE(ConsumeHex0x(s, &v));
  EXPECT_EQ(v, 0x2c9u);
  EXPECT_EQ(s, " devid");
  s = "0XABC";
  ASSERT_TRUE(ConsumeHex0x(s, &v));
  EXPECT_EQ(v, 0xabcu);
  for (string_view bad : {"2c9", "0x", "0xg", "x12", "0x12345678901234567"}) {
    s = bad;
    EXPECT_FALSE(ConsumeHex0x(s, &v)) << bad;
    EXPECT_EQ(s, bad) << "consumed on failure";
  }
}

TEST(TextScan, ConsumeDecimalReadsUpTo19Digits) {
  uint64_t v = 0;
  string_view s = "12 valid lids dumped";
  ASSERT_TRUE(ConsumeDecimal(s, &v));
  EXPECT_EQ(v, 12u);
  EXPECT_EQ(s, " valid lids dumped");

  s = "9999999999999999999";  // 19 digits
  ASSERT_TRUE(ConsumeDecimal(s, &v));
  EXPECT_EQ(v, 9999999999999999999ULL);

  s = "007x";
  ASSERT_TRUE(ConsumeDecimal(s, &v));
  EXPECT_EQ(v, 7u);
  EXPECT_EQ(s, "x");

  v = 5;
  for (string_view bad : {"", "-1", "+1", " 1", "x1", "10000000000000000000"}) {  // 20 digits
    s = bad;
    EXPECT_FALSE(ConsumeDecimal(s, &v)) << bad;
    EXPECT_EQ(s, bad);
    EXPECT_EQ(v, 5u);
  }
}

TEST(TextScan, ConsumeDecimalWithMaxChecksTheRange) {
  int port = -1;
  string_view s = "255]";
  ASSERT_TRUE(ConsumeDecimal(s, 255, &port));
  EXPECT_EQ(port, 255);
  EXPECT_EQ(s, "]");

  s = "256]";
  EXPECT_FALSE(ConsumeDecimal(s, 255, &port));
  EXPECT_EQ(s, "256]") << "consumed on failure";
  EXPECT_EQ(port, 255);

  uint64_t lid = 0;
  s = "65535-";
  ASSERT_TRUE(ConsumeDecimal(s, 0xFFFF, &lid));
  EXPECT_EQ(lid, 0xFFFFu);
  s = "65536-";
  EXPECT_FALSE(ConsumeDecimal(s, 0xFFFF, &lid));

  uint32_t u = 0;
  s = "4294967295";
  ASSERT_TRUE(ConsumeDecimal(s, uint32_t{0xFFFFFFFF}, &u));
  EXPECT_EQ(u, 0xFFFFFFFFu);
}

TEST(TextScan, ParseHexU64TakesTheWholeText) {
  uint64_t v = 0;
  ASSERT_TRUE(ParseHexU64("0x0002c903000e0a11", &v));
  EXPECT_EQ(v, 0x0002c903000e0a11ULL);
  ASSERT_TRUE(ParseHexU64("2C903000E0A11", &v));
  EXPECT_EQ(v, 0x2c903000e0a11ULL);
  ASSERT_TRUE(ParseHexU64("0X1", &v));
  EXPECT_EQ(v, 1u);
  ASSERT_TRUE(ParseHexU64("0", &v));
  EXPECT_EQ(v, 0u);
  for (string_view bad : {"", "0x", "0X", "0x12 ", " 12", "12g", "0x0x1", "-1",
                          "0x12345678901234567", "12345678901234567"}) {
    EXPECT_FALSE(ParseHexU64(bad, &v)) << bad;
  }
}

TEST(TextScan, LineErrorNamesFileAndLine) {
  const absl::Status s = LineError("fattree.txt", 412, "port line before any node header");
  EXPECT_THAT(s, testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                   "fattree.txt:412: port line before any node header"));
}

std::vector<std::pair<int, std::string>> AllLines(string_view text) {
  std::vector<std::pair<int, std::string>> out;
  LineScanner lines(text);
  for (string_view line; lines.Next(&line);) out.emplace_back(lines.number(), line);
  return out;
}

TEST(TextScan, LineScannerSplitsWithoutAnEmptyLastLine) {
  using Lines = std::vector<std::pair<int, std::string>>;
  EXPECT_EQ(AllLines(""), Lines{});
  EXPECT_EQ(AllLines("\n"), (Lines{{1, ""}}));
  EXPECT_EQ(AllLines("a"), (Lines{{1, "a"}}));
  EXPECT_EQ(AllLines("a\n"), (Lines{{1, "a"}}));
  EXPECT_EQ(AllLines("a\r\n\nb c\nd"), (Lines{{1, "a\r"}, {2, ""}, {3, "b c"}, {4, "d"}}));
}

TEST(TextScan, LineScannerReturnsViewsIntoTheBuffer) {
  const std::string text = "first\nsecond\n";
  LineScanner lines(text);
  EXPECT_EQ(lines.number(), 0);
  string_view line;
  ASSERT_TRUE(lines.Next(&line));
  EXPECT_EQ(line.data(), text.data());
  ASSERT_TRUE(lines.Next(&line));
  EXPECT_EQ(line.data(), text.data() + 6);
  EXPECT_EQ(lines.number(), 2);
  EXPECT_FALSE(lines.Next(&line));
  EXPECT_EQ(lines.number(), 2);
}

}  // namespace
}  // namespace toporr

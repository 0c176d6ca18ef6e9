#include "common/key_value_file.h"

#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "common/status_matchers.h"
#include "gtest/gtest.h"

namespace toporr {
namespace {

using ::testing::HasSubstr;
using ::toporr::testing::StatusIs;

std::vector<KeyValue> All(std::string_view text, absl::Status* status) {
  std::vector<KeyValue> out;
  *status = ForEachKeyValue(text, "x.conf", [&](const KeyValue& kv) {
    out.push_back(kv);
    return absl::OkStatus();
  });
  return out;
}

TEST(KeyValueFile, SkipsCommentsAndBlanksAndUnquotes) {
  absl::Status s;
  std::vector<KeyValue> kv = All("# head\n\n a = 1 # note\nb=\"x y\"\nc =\n", &s);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(kv.size(), 3u);
  EXPECT_EQ(kv[0].key, "a");
  EXPECT_EQ(kv[0].value, "1");
  EXPECT_EQ(kv[0].line, 3);
  EXPECT_EQ(kv[1].value, "x y");
  EXPECT_EQ(kv[2].key, "c");
  EXPECT_EQ(kv[2].value, "");
}

TEST(KeyValueFile, RefusesLinesWithoutKeyOrEquals) {
  absl::Status s;
  All("a = 1\njunk\n", &s);
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("x.conf:2:")));
  All(" = 1\n", &s);
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("x.conf:1:")));
}

TEST(KeyValueFile, StopsAtTheSettingsError) {
  int seen = 0;
  absl::Status s = ForEachKeyValue("a=1\nb=2\nc=3\n", "x.conf", [&](const KeyValue& kv) {
    ++seen;
    return kv.key == "b" ? KeyValueError("x.conf", kv, "good") : absl::OkStatus();
  });
  EXPECT_EQ(seen, 2);
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                          HasSubstr("x.conf:2: b must be good, got '2'")));
}

TEST(KeyValueFile, ParsesIntegersAndBooleansInRange) {
  int64_t v = 0;
  EXPECT_TRUE(ParseKeyValueInt("f", {"k", "12", 1}, 0, 20, &v).ok());
  EXPECT_EQ(v, 12);
  EXPECT_FALSE(ParseKeyValueInt("f", {"k", "21", 1}, 0, 20, &v).ok());
  EXPECT_FALSE(ParseKeyValueInt("f", {"k", "1x", 1}, 0, 20, &v).ok());
  bool b = false;
  EXPECT_TRUE(ParseKeyValueBool("f", {"k", "true", 1}, false, &b).ok());
  EXPECT_TRUE(b);
  EXPECT_FALSE(ParseKeyValueBool("f", {"k", "yes", 1}, false, &b).ok());
  EXPECT_TRUE(ParseKeyValueBool("f", {"k", "Off", 1}, true, &b).ok());
  EXPECT_FALSE(b);
}

TEST(KeyValueFile, ReadsRegularFilesOnly) {
  std::string dir = ::testing::TempDir();
  std::string text;
  EXPECT_THAT(ReadRegularFile(dir, &text, 100, "test file"),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("not a regular file")));
  EXPECT_THAT(ReadRegularFile(dir + "/absent.conf", &text, 100, "test file"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("cannot open")));
  const std::string path = dir + "/kv_test.conf";
  FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs("a = 1\n", f);
  std::fclose(f);
  ASSERT_TRUE(ReadRegularFile(path, &text, 6, "test file").ok());
  EXPECT_EQ(text, "a = 1\n");
  // One byte beyond the bound: refused before reading, naming the bound and the kind.
  EXPECT_THAT(ReadRegularFile(path, &text, 5, "test file"),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       HasSubstr("larger than the 5 bytes a test file may have")));
  ASSERT_EQ(truncate(path.c_str(), int64_t{1} << 40), 0);  // sparse: no disk used
  EXPECT_THAT(ReadRegularFile(path, &text, int64_t{1} << 20, "test file"),
              StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("larger than")));
  unlink(path.c_str());
}

}  // namespace
}  // namespace toporr

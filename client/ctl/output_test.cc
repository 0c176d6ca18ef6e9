#include "client/ctl/output.h"

#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::client::ctl {
namespace {

struct Pair {
  std::string src, dst;
  int hops;
};

Reply PairReply(Pair p) {
  return ReplyOf(
      std::move(p),
      [](const Pair& v, JsonWriter& w) {
        w.BeginObject();
        w.Field("src", v.src);
        w.Field("hops", v.hops);
        w.EndObject();
      },
      [](const Pair& v, std::ostream& out) { out << v.src << " -> " << v.dst << "\n"; });
}

TEST(RenderTest, JsonIsOneDocumentAndANewline) {
  std::ostringstream out, err;
  EXPECT_EQ(Render(PairReply({"a", "b", 3}), /*json=*/true, out, err), 0);
  EXPECT_EQ(out.str(), "{\"src\":\"a\",\"hops\":3}\n");
  EXPECT_EQ(err.str(), "");
}

TEST(RenderTest, TextIsTheTextView) {
  std::ostringstream out, err;
  EXPECT_EQ(Render(PairReply({"a", "b", 3}), /*json=*/false, out, err), 0);
  EXPECT_EQ(out.str(), "a -> b\n");
}

// Whatever a reply or a warning holds, a terminal escape sequence is never
// printed raw (text form) and JSON escapes every control character.
TEST(RenderTest, ControlCharactersNeverReachTheTerminal) {
  Reply reply = PairReply({"node\x1b]0;owned\x07", "b\xff", 1});
  reply.warnings = {"desc \x1b[2J"};
  std::ostringstream out, err;
  Render(reply, /*json=*/false, out, err);
  EXPECT_EQ(out.str(), "node\\x1b]0;owned\\x07 -> b\\xff\n");
  EXPECT_EQ(err.str(), "toporrctl: warning: desc \\x1b[2J\n");
  std::ostringstream jout, jerr;
  Render(reply, /*json=*/true, jout, jerr);
  EXPECT_EQ(jout.str().find('\x1b'), std::string::npos) << jout.str();
  EXPECT_EQ(Displayable("tab\tnewline\n"), "tab\tnewline\n");
}

TEST(RenderTest, WarningsGoFirstToTheErrorStreamAndTheExitCodeIsKept) {
  Reply reply = PairReply({"a", "b", 1});
  reply.warnings = {"routes dropped"};
  reply.exit_code = 3;
  for (bool json : {false, true}) {
    std::ostringstream out, err;
    EXPECT_EQ(Render(reply, json, out, err), 3);
    EXPECT_EQ(err.str(), "toporrctl: warning: routes dropped\n");
    EXPECT_FALSE(out.str().empty());
  }
}

TEST(RenderTest, TextExitCodeAppliesToTextOnly) {
  Reply reply = PairReply({"a", "b", 1});
  reply.text_exit_code = 3;
  std::ostringstream out, err;
  EXPECT_EQ(Render(reply, /*json=*/false, out, err), 3);
  EXPECT_EQ(Render(reply, /*json=*/true, out, err), 0);
}

TEST(FixedTest, RoundsToTheGivenDecimals) {
  EXPECT_EQ(Fixed(32, 1), "32.0");
  EXPECT_EQ(Fixed(1234.56, 0), "1235");
}

}  // namespace
}  // namespace toporr::client::ctl

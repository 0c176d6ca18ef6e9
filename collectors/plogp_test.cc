#include "collectors/plogp.h"

#include <cmath>
#include <sstream>
#include <string>

#include "absl/strings/str_replace.h"
#include "collectors/fabric_input.h"
#include "collectors/json_value.h"
#include "common/status_matchers.h"
#include "fabric/validate.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::collectors {
namespace {

using ::testing::HasSubstr;

// 4 hosts x 2 ranks: hosts a0 a1 under one leaf, b0 b1 under another; rank levels rank ->
// host -> leaf -> top.
PlogpProbe TwoLeaves() {
  PlogpProbe p;
  p.sizes = {0, 65536};
  p.repetitions = 5;
  for (const char* h : {"a0", "a1", "b0", "b1"})
    for (int c = 0; c < 2; ++c) p.ranks.push_back({h, c});
  p.hosts = {"a0", "a1", "b0", "b1"};
  for (int a = 0; a < 8; ++a) {
    for (int b = a + 1; b < 8; ++b) {
      PlogpPair q;
      q.a = a;
      q.b = b;
      const double d = a / 2 == b / 2 ? 300 : a / 4 == b / 4 ? 1500 : 1900;
      q.rtt_ns = {2 * d, 2 * d + 2 * 2621};
      q.gap_ns = {10, 2621};
      q.os_ns = {50, 900};
      q.or_ns = {40, 800};
      q.latency_ns = d - 10;
      q.spread = 0.01;
      p.pairs.push_back(q);
    }
  }
  p.rank_levels = {{"rank", {0, 1, 2, 3, 4, 5, 6, 7}, 8, 0, 8},
                   {"host", {0, 0, 1, 1, 2, 2, 3, 3}, 4, 600, 5},
                   {"leaf", {0, 0, 0, 0, 1, 1, 1, 1}, 2, 1700, 1.27},
                   {"top", {0, 0, 0, 0, 0, 0, 0, 0}, 1, 1900, 0}};
  p.host_levels = {{"host", {0, 1, 2, 3}, 4, 0, 1.27, 0, 0},
                   {"leaf", {0, 0, 1, 1}, 2, 1700, 1.27, 1500, 200},
                   {"top", {0, 0, 0, 0}, 1, 1900, 0, 1900, 100}};
  p.schedule = {7, 1234, 0.5};
  return p;
}

std::string Text(const PlogpProbe& p) {
  std::ostringstream s;
  WritePlogpProbe(p, &s);
  return s.str();
}

// `good` with `from` replaced by `to` is refused with `message`, at a line of probe.json.
struct RefusalCase {
  std::string from, to, message;
};

template <size_t N>
void ExpectRefusals(const std::string& good, const RefusalCase (&cases)[N]) {
  for (const RefusalCase& c : cases) {
    std::string text = good;
    const size_t at = text.find(c.from);
    ASSERT_NE(at, std::string::npos) << c.from;
    text.replace(at, c.from.size(), c.to);
    auto got = ParsePlogpProbe(text, "probe.json");
    ASSERT_FALSE(got.ok()) << c.to;
    EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(got.status().message(), HasSubstr(c.message));
    EXPECT_EQ(got.status().message().substr(0, 11), "probe.json:");
  }
}

TEST(JsonValueTest, ValuesAndLines) {
  ASSERT_OK_AND_ASSIGN(JsonValue v, ParseJson("{\"a\": [1, -2.5e3, true, null],\n \"b\": "
                                              "\"x\\u00e9\\ud83d\\ude00\\n\"}",
                                              "t.json"));
  ASSERT_EQ(v.type, JsonValue::Type::kObject);
  EXPECT_EQ(v.Find("a")->items[1].number, -2500);
  EXPECT_TRUE(v.Find("a")->items[2].boolean);
  EXPECT_EQ(v.Find("b")->string, "x\xc3\xa9\xf0\x9f\x98\x80\n");
  EXPECT_EQ(v.Find("b")->line, 2);
  for (const char* bad : {"{", "[1,]", "01", "{\"a\":1,\"a\":2}", "\"\\ud800\"", "1 2", "+1",
                          "\"a\nb\"", "[1.]", "tru"}) {
    EXPECT_EQ(ParseJson(bad, "t.json").status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
  std::string deep(kMaxJsonDepth + 2, '[');
  EXPECT_THAT(ParseJson(deep, "t.json").status().message(), HasSubstr("nested deeper"));
  EXPECT_THAT(ParseJson("[1,\n\n x]", "t.json").status().message(), HasSubstr("t.json:3:"));
  // Ending inside a value after a final '\n' names the last line, not the one after it
  // (fuzz/regressions/plogp/array_open_at_end_after_newline.json).
  EXPECT_THAT(ParseJson("[1,\n2\n", "t.json").status().message(), HasSubstr("t.json:2:"));
  // Input bytes in a refusal are quoted (escaped, bounded).
  const std::string raw = ParseJson("\x01", "t.json").status().ToString();
  EXPECT_EQ(raw.find('\x01'), std::string::npos) << raw;
}

TEST(PlogpTest, RoundTrip) {
  const PlogpProbe p = TwoLeaves();
  const std::string text = Text(p);
  ASSERT_OK_AND_ASSIGN(PlogpProbe q, ParsePlogpProbe(text, "probe.json"));
  EXPECT_EQ(q.sizes, p.sizes);
  ASSERT_EQ(q.pairs.size(), 28u);
  EXPECT_EQ(q.pairs[27].rtt_ns, p.pairs[27].rtt_ns);
  EXPECT_EQ(q.ranks[5].host, "b0");
  EXPECT_EQ(q.HostOf(5), 2);
  EXPECT_EQ(q.rank_levels[1].name, "host");
  EXPECT_EQ(q.host_levels[1].group, (std::vector<int32_t>{0, 0, 1, 1}));
  EXPECT_EQ(q.host_levels[1].gbps, 200);
  EXPECT_EQ(q.schedule.rounds, 7);
  EXPECT_EQ(Text(q), text);
}

// TwoLeaves with the optional members of the real-MPI probe: every rank's hwloc location and
// the probe's hwloc check.
PlogpProbe TwoLeavesWithHwloc() {
  PlogpProbe p = TwoLeaves();
  for (size_t r = 0; r < p.ranks.size(); ++r) {
    p.ranks[r].hwloc = PlogpHwloc{0, 0, 0, static_cast<int32_t>(r % 2)};
  }
  p.hwloc_check = PlogpHwlocCheck{"nothing_to_detect",
                                  "one package and one L3 per host",
                                  {{"package", 4, "host", 1.0}, {"l3", 4, "", std::nan("")}}};
  return p;
}

TEST(PlogpTest, HwlocMembersRoundTrip) {
  const PlogpProbe p = TwoLeavesWithHwloc();
  const std::string text = Text(p);
  EXPECT_THAT(text, HasSubstr("\"hwloc\": {\"package\": 0, \"numa\": 0, \"l3\": 0, \"core\": 1}"));
  EXPECT_THAT(text,
              HasSubstr("{\"hwloc\": \"l3\", \"groups\": 4, \"measured\": null, \"ari\": null}"));
  ASSERT_OK_AND_ASSIGN(PlogpProbe q, ParsePlogpProbe(text, "probe.json"));
  ASSERT_TRUE(q.ranks[3].hwloc.has_value());
  EXPECT_EQ(*q.ranks[3].hwloc, (PlogpHwloc{0, 0, 0, 1}));
  ASSERT_TRUE(q.hwloc_check.has_value());
  EXPECT_EQ(q.hwloc_check->verdict, "nothing_to_detect");
  ASSERT_EQ(q.hwloc_check->comparisons.size(), 2u);
  EXPECT_EQ(q.hwloc_check->comparisons[0].measured, "host");
  EXPECT_EQ(q.hwloc_check->comparisons[0].ari, 1.0);
  EXPECT_TRUE(std::isnan(q.hwloc_check->comparisons[1].ari));
  EXPECT_EQ(Text(q), text);
  // Files without them (SMPI, older probes) parse and have neither.
  ASSERT_OK_AND_ASSIGN(PlogpProbe old, ParsePlogpProbe(Text(TwoLeaves()), "probe.json"));
  EXPECT_FALSE(old.ranks[0].hwloc.has_value());
  EXPECT_FALSE(old.hwloc_check.has_value());
}

TEST(PlogpTest, HwlocMembersRefused) {
  const std::string good = Text(TwoLeavesWithHwloc());
  const RefusalCase cases[] = {
      {"\"package\": 0, \"numa\": 0, \"l3\": 0, \"core\": 1}",
       "\"package\": -2, \"numa\": 0, \"l3\": 0, \"core\": 1}",
       "\"package\" must be an integer in [-1,"},
      {"\"package\": 0, \"numa\": 0, \"l3\": 0, \"core\": 1}", "\"package\": 0}",
       "missing member \"numa\""},
      {"\"verdict\": \"nothing_to_detect\"", "\"verdict\": \"fine\"", "unknown verdict"},
      {"\"measured\": \"host\"", "\"measured\": \"socket\"", "not the name of a rank level"},
      {"\"ari\": 1}", "\"ari\": 1.5}", "must be a number in [-1, 1]"},
      {"\"ari\": 1}", "\"ari\": null}", "null exactly when"},
      {"{\"hwloc\": \"l3\"", "{\"hwloc\": \"core\"", "must be \"package\" or \"l3\""},
      {"\"detail\": \"one", "\"detail\": \"\\u0007one", "printable UTF-8"},
  };
  ExpectRefusals(good, cases);
}

TEST(PlogpTest, FabricIsTheHierarchyAsSwitches) {
  ASSERT_OK_AND_ASSIGN(fabric::Fabric f, PlogpFabric(TwoLeaves()));
  EXPECT_OK(fabric::ValidateFabric(f));
  EXPECT_EQ(f.CountNodes(fabric::NodeType::kSwitch), 3u);  // two leaves, one top
  EXPECT_EQ(f.CountNodes(fabric::NodeType::kCa), 4u);
  ASSERT_EQ(f.links.size(), 6u);  // 4 host cables, 2 uplinks
  int host_cables = 0, uplinks = 0;
  for (const auto& l : f.links) {
    const bool ca = f.nodes[l.a.node].type == fabric::NodeType::kCa ||
                    f.nodes[l.b.node].type == fabric::NodeType::kCa;
    if (ca) {
      ++host_cables;
      EXPECT_EQ(l.data_rate_gbps, 200);  // 4x HDR for the leaf's 200 Gb/s
    } else {
      ++uplinks;
      EXPECT_EQ(l.data_rate_gbps, 100);  // 4x EDR for the top's 100 Gb/s
    }
  }
  EXPECT_EQ(host_cables, 4);
  EXPECT_EQ(uplinks, 2);
  // The same measurement gives the same GUIDs.
  ASSERT_OK_AND_ASSIGN(fabric::Fabric g, PlogpFabric(TwoLeaves()));
  for (size_t i = 0; i < f.nodes.size(); ++i) EXPECT_EQ(f.nodes[i].guid, g.nodes[i].guid);
}

TEST(PlogpTest, IngestAssignsHosts) {
  const std::string text = Text(TwoLeaves());
  FabricInput in;
  in.format = InputFormat::kPlogp;
  in.source_name = "probe.json";
  in.content = text;
  ASSERT_OK_AND_ASSIGN(fabric::Fabric f, ParseFabricInput(in));
  ASSERT_EQ(f.hosts.size(), 4u);
  EXPECT_EQ(f.hosts[2].name, "b0");
  EXPECT_EQ(InputFormatName(InputFormat::kPlogp), std::string("plogp"));
  EXPECT_EQ(KindOf(InputFormat::kPlogp), InputKind::kTopology);
}

TEST(PlogpTest, NearestLinkRate) {
  int w;
  fabric::LinkSpeed s;
  NearestLinkRate(190, &w, &s);
  EXPECT_EQ(fabric::LinkDataRateGbps(w, s), 200);
  NearestLinkRate(9.5, &w, &s);
  EXPECT_EQ(fabric::LinkDataRateGbps(w, s), 10);
  NearestLinkRate(50, &w, &s);
  EXPECT_EQ(fabric::LinkDataRateGbps(w, s), 50);
}

// Every refusal names the file and the line of the bad value.
TEST(PlogpTest, RefusalsNameFileAndLine) {
  const std::string good = Text(TwoLeaves());
  const RefusalCase cases[] = {
      {"\"version\": 1", "\"version\": 2", "probe.json:3: version 2"},
      {"\"sizes\": [0,65536]", "\"sizes\": [65536,0]", "probe.json:4: \"sizes\" must be ascending"},
      {"{\"host\": \"b0\", \"core\": 0}", "{\"host\": \"b 0\", \"core\": 0}",
       "is not a short host name"},
      {"{\"host\": \"b0\", \"core\": 0}", "{\"host\": \"b0.site\", \"core\": 0}",
       "is not a short host name"},
      {"{\"a\": 0, \"b\": 1,", "{\"a\": 1, \"b\": 1,", "a must be < b"},
      {"{\"a\": 0, \"b\": 1,", "{\"a\": 0, \"b\": 99,", "\"b\" must be an integer in [0, 7]"},
      {"\"rtt_ns\": [600,5842]", "\"rtt_ns\": [600]", "\"rtt_ns\" has 1 values for 2 sizes"},
      {"\"rtt_ns\": [600,5842]", "\"rtt_ns\": [600,-1]", "must be a number >= 0"},
      {"\"groups\": [0,0,1,1,2,2,3,3]", "\"groups\": [0,1,1,1,2,2,3,3]",
       "rank level \"host\" is not the host-name partition"},
      {"\"groups\": [0,0,0,0,1,1,1,1]}", "\"groups\": [0,0,0,1,1,1,1,1]}", "levels must nest"},
      {"\"groups\": [0,0,1,1]}", "\"groups\": [0,0,2,2]}", "skips group 1"},
      {"\"format\": \"toporr-plogp\"", "\"format\": \"other\"", "probe.json:2: format is not"},
  };
  ExpectRefusals(good, cases);
  std::string missing = good;
  missing.replace(missing.find("\"repetitions\""), 13, "\"reps\"");
  EXPECT_THAT(ParsePlogpProbe(missing, "probe.json").status().message(),
              HasSubstr("missing member \"repetitions\""));
}

}  // namespace
}  // namespace toporr::collectors

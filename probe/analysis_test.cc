#include "probe/analysis.h"

#include <cmath>
#include <random>
#include <sstream>
#include <string>

#include "common/status_matchers.h"
#include "gtest/gtest.h"

namespace toporr::probe {
namespace {

using collectors::PlogpPair;
using collectors::PlogpProbe;

// 8 hosts (h0..h7) of 2 sockets x 2 cores, 4 hosts per leaf; noisy distances.
PlogpProbe Machine(double sigma, uint32_t seed) {
  PlogpProbe p;
  p.sizes = {0, 1 << 20};
  p.repetitions = 5;
  for (int h = 0; h < 8; ++h) {
    p.hosts.push_back("h" + std::to_string(h));
    for (int c = 0; c < 4; ++c) p.ranks.push_back({p.hosts.back(), c});
  }
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0, sigma);
  for (int a = 0; a < 32; ++a) {
    for (int b = a + 1; b < 32; ++b) {
      const int ha = a / 4, hb = b / 4;
      double d = a / 2 == b / 2 ? 300 : ha == hb ? 600 : ha / 4 == hb / 4 ? 1600 : 2200;
      double gbps = ha == hb ? 400 : ha / 4 == hb / 4 ? 200 : 100;
      d *= std::exp(noise(rng));
      PlogpPair q;
      q.a = a;
      q.b = b;
      q.rtt_ns = {2 * d, 2 * d + 2 * 8e9 / gbps * (1 << 20) / 1e9};
      q.gap_ns = {5, 8.0 * (1 << 20) / gbps};
      q.os_ns = q.or_ns = {100, 1000};
      p.pairs.push_back(q);
    }
  }
  return p;
}

TEST(AnalysisTest, NamesRankAndHostLevels) {
  PlogpProbe p = Machine(0.02, 1);
  ASSERT_OK(AnalyzeProbe(&p));
  std::vector<std::string> names;
  for (const auto& l : p.rank_levels) names.push_back(l.name);
  EXPECT_EQ(names, (std::vector<std::string>{"rank", "socket", "host", "leaf", "top"}));
  EXPECT_EQ(HostRankLevel(p), 2);
  ASSERT_EQ(p.host_levels.size(), 3u);
  EXPECT_EQ(p.host_levels[0].name, "host");
  EXPECT_EQ(p.host_levels[1].name, "leaf");
  EXPECT_EQ(p.host_levels[1].group, (std::vector<int32_t>{0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(p.host_levels[2].name, "top");
  EXPECT_NEAR(p.host_levels[1].gbps, 200, 1e-6);
  EXPECT_NEAR(p.host_levels[2].gbps, 100, 1e-6);
  EXPECT_NEAR(p.host_levels[1].latency_ns, 1600, 1600 * 0.1);
  // What ingest does with it: a parseable file and a fabric of 2 leaves + 1 top.
  std::ostringstream text;
  collectors::WritePlogpProbe(p, &text);
  ASSERT_OK_AND_ASSIGN(PlogpProbe q, collectors::ParsePlogpProbe(text.str(), "probe.json"));
  ASSERT_OK_AND_ASSIGN(fabric::Fabric f, collectors::PlogpFabric(q));
  EXPECT_EQ(f.CountNodes(fabric::NodeType::kSwitch), 3u);
}

TEST(AnalysisTest, OneRankPerHost) {
  PlogpProbe p = Machine(0.0, 1);
  // Keep rank 0 of every host only: ranks 0, 4, 8, ... renumbered.
  PlogpProbe q;
  q.sizes = p.sizes;
  q.repetitions = 5;
  q.hosts = p.hosts;
  for (int h = 0; h < 8; ++h) q.ranks.push_back(p.ranks[4 * h]);
  for (const auto& pair : p.pairs) {
    if (pair.a % 4 || pair.b % 4) continue;
    PlogpPair x = pair;
    x.a /= 4;
    x.b /= 4;
    q.pairs.push_back(x);
  }
  ASSERT_OK(AnalyzeProbe(&q));
  EXPECT_EQ(q.rank_levels[0].name, "host");
  EXPECT_EQ(q.rank_levels[1].name, "leaf");
  EXPECT_EQ(q.rank_levels.back().name, "top");
}

TEST(AnalysisTest, RefusesEmptyProbe) {
  PlogpProbe p;
  EXPECT_EQ(AnalyzeProbe(&p).code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace toporr::probe

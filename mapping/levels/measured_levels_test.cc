#include "mapping/levels/measured_levels.h"

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "common/status_matchers.h"
#include "gtest/gtest.h"

namespace toporr::mapping {
namespace {

// A machine of `hosts` hosts of 2 sockets x `cores` cores, hosts_per_leaf hosts per leaf
// switch, leaves_per_pod leaves per pod; one rank per core. Returns the true partitions
// (socket, host, leaf, pod) and fills `d` with the noisy distances.
struct Truth {
  std::vector<std::vector<int32_t>> levels;  // socket, host, leaf, pod (only those > 1 group)
};

Truth MakeMachine(int hosts, int cores, int hosts_per_leaf, int leaves_per_pod, double sigma,
                  double outlier_fraction, uint32_t seed, std::vector<double>* d) {
  const int per_host = 2 * cores;
  const int n = hosts * per_host;
  auto socket = [&](int r) { return r / cores; };
  auto host = [&](int r) { return r / per_host; };
  auto leaf = [&](int r) { return host(r) / hosts_per_leaf; };
  auto pod = [&](int r) { return leaf(r) / leaves_per_pod; };
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0.0, sigma);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  d->assign(static_cast<size_t>(n) * n, 0);
  for (int a = 0; a < n; ++a) {
    for (int b = 0; b < n; ++b) {
      if (a == b) continue;
      double base = pod(a) != pod(b)         ? 2900
                    : leaf(a) != leaf(b)     ? 2300
                    : host(a) != host(b)     ? 1700
                    : socket(a) != socket(b) ? 650
                                             : 320;
      double v = base * std::exp(noise(rng));
      // Interference only slows a measurement, each direction on its own.
      if (u(rng) < outlier_fraction) v *= 1.5 + 2 * u(rng);
      (*d)[a * n + b] = v;
    }
  }
  Truth t;
  for (auto f : {+[](int r, int c, int hpl, int lpp) { return r / c; },
                 +[](int r, int c, int hpl, int lpp) { return r / (2 * c); },
                 +[](int r, int c, int hpl, int lpp) { return r / (2 * c) / hpl; },
                 +[](int r, int c, int hpl, int lpp) { return r / (2 * c) / hpl / lpp; }}) {
    std::vector<int32_t> g(n);
    for (int r = 0; r < n; ++r) g[r] = f(r, cores, hosts_per_leaf, leaves_per_pod);
    if (g.back() > 0) t.levels.push_back(g);
  }
  return t;
}

double Ari(const std::vector<int32_t>& x, const std::vector<int32_t>& y) {
  auto r = AdjustedRandIndex(x, y);
  EXPECT_TRUE(r.ok());
  return r.ok() ? *r : -1;
}

TEST(AdjustedRandIndexTest, KnownValues) {
  EXPECT_DOUBLE_EQ(Ari({0, 0, 1, 1}, {5, 5, 7, 7}), 1.0);
  EXPECT_DOUBLE_EQ(Ari({0, 1, 2, 3}, {0, 1, 2, 3}), 1.0);
  EXPECT_DOUBLE_EQ(Ari({0, 0, 0, 0}, {1, 1, 1, 1}), 1.0);
  EXPECT_DOUBLE_EQ(Ari({0, 1, 2, 3}, {0, 0, 0, 0}), 0.0);
  // The classic example: {0,0,0,1,1,1} vs {0,0,1,1,2,2} = 0.2424...
  EXPECT_NEAR(Ari({0, 0, 0, 1, 1, 1}, {0, 0, 1, 1, 2, 2}), 0.242424, 1e-5);
  EXPECT_LT(Ari({0, 0, 1, 1}, {0, 1, 0, 1}), 0.0);
  EXPECT_EQ(AdjustedRandIndex({0, 1}, {0}).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(MeasuredLevelsTest, FindsEveryLevelOfANoisyFourLevelMachine) {
  // 16 hosts x 2 sockets x 4 cores = 128 ranks; 4 hosts per leaf, 2 leaves per pod.
  std::vector<double> d;
  Truth truth = MakeMachine(16, 4, 4, 2, 0.03, 0.05, 7, &d);
  ASSERT_OK_AND_ASSIGN(MeasuredLevels got, ClusterMeasuredDistances(d));
  // alone, socket, host, leaf, pod, top
  ASSERT_EQ(got.levels.size(), 6u) << "classes chosen " << got.chosen_classes;
  for (size_t k = 0; k < truth.levels.size(); ++k) {
    EXPECT_DOUBLE_EQ(Ari(got.levels[k + 1].group, truth.levels[k]), 1.0) << "level " << k + 1;
  }
  EXPECT_EQ(got.levels.back().num_groups, 1);
  EXPECT_EQ(got.levels[0].num_groups, 128);
}

TEST(MeasuredLevelsTest, ManySeedsAndNoiseLevels) {
  // The search must not depend on one lucky draw: 20 seeds, noise 1 %..4 %, 10 % outliers.
  int perfect = 0;
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    std::vector<double> d;
    const double sigma = 0.01 + 0.03 * (seed % 4) / 3.0;
    Truth truth = MakeMachine(8, 4, 4, 2, sigma, 0.10, seed, &d);
    ASSERT_OK_AND_ASSIGN(MeasuredLevels got, ClusterMeasuredDistances(d));
    bool ok = got.levels.size() == truth.levels.size() + 2;
    for (size_t k = 0; ok && k < truth.levels.size(); ++k)
      ok = Ari(got.levels[k + 1].group, truth.levels[k]) == 1.0;
    perfect += ok;
    if (!ok) {
      std::string sizes;
      for (const auto& l : got.levels) sizes += " " + std::to_string(l.num_groups);
      ADD_FAILURE() << "seed " << seed << " sigma " << sigma << ": groups per level" << sizes;
    }
  }
  EXPECT_EQ(perfect, 20);
}

TEST(MeasuredLevelsTest, FlatNoiseIsOneLevel) {
  // No hierarchy (a crossbar): noise alone must not invent levels.
  std::mt19937 rng(3);
  std::normal_distribution<double> noise(0.0, 0.05);
  const int n = 64;
  std::vector<double> d(n * n, 0);
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b)
      if (a != b) d[a * n + b] = 1000 * std::exp(noise(rng));
  ASSERT_OK_AND_ASSIGN(MeasuredLevels got, ClusterMeasuredDistances(d));
  ASSERT_EQ(got.levels.size(), 2u);
  EXPECT_EQ(got.levels[0].num_groups, n);
  EXPECT_EQ(got.levels[1].num_groups, 1);
}

TEST(MeasuredLevelsTest, NoiseFreeSimulatorValues) {
  // SMPI gives the same time for every pair of a level: the resolution floor keeps the BIC
  // finite and the two leaves are found.
  const int n = 8;
  std::vector<double> d(n * n, 0);
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b)
      if (a != b) d[a * n + b] = (a / 4 == b / 4) ? 1200 : 1600;
  ASSERT_OK_AND_ASSIGN(MeasuredLevels got, ClusterMeasuredDistances(d));
  ASSERT_EQ(got.levels.size(), 3u);
  EXPECT_EQ(got.levels[1].group, (std::vector<int32_t>{0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_TRUE(got.levels[1].exact);
  EXPECT_DOUBLE_EQ(got.levels[1].separation, 1600.0 / 1200.0);
  EXPECT_GT(got.levels[1].cut, 1200);
  EXPECT_LT(got.levels[1].cut, 1600);
}

TEST(MeasuredLevelsTest, AsymmetricAndUnmeasuredPairs) {
  // One direction slowed (folded to the minimum); one element never measured.
  const int n = 5;
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> d(n * n, 0);
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b)
      if (a != b) d[a * n + b] = (a / 2 == b / 2) ? 100 : 400;
  d[0 * n + 1] = 900;  // the other direction says 100
  for (int a = 0; a < n; ++a) d[a * n + 4] = d[4 * n + a] = (a == 4 ? 0 : inf);
  ASSERT_OK_AND_ASSIGN(MeasuredLevels got, ClusterMeasuredDistances(d));
  ASSERT_EQ(got.levels.size(), 4u);
  EXPECT_EQ(got.levels[1].group, (std::vector<int32_t>{0, 0, 1, 1, 2}));
  EXPECT_EQ(got.levels[2].group, (std::vector<int32_t>{0, 0, 0, 0, 1}));
  EXPECT_EQ(got.levels[3].num_groups, 1);
  EXPECT_TRUE(std::isinf(got.levels[3].cut));
}

TEST(MeasuredLevelsTest, RefusesBadInput) {
  EXPECT_EQ(ClusterMeasuredDistances({1, 2, 3}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ClusterMeasuredDistances({}).status().code(), absl::StatusCode::kInvalidArgument);
  MeasuredLevelOptions o;
  o.resolution = 0;
  EXPECT_EQ(ClusterMeasuredDistances({0}, o).status().code(), absl::StatusCode::kInvalidArgument);
  ASSERT_OK_AND_ASSIGN(MeasuredLevels one, ClusterMeasuredDistances({0}));
  EXPECT_EQ(one.levels.size(), 1u);
}

}  // namespace
}  // namespace toporr::mapping

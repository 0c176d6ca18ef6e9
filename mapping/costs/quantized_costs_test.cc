#include "mapping/costs/quantized_costs.h"

#include <cmath>
#include <limits>
#include <vector>

#include "gtest/gtest.h"
#include "mapping/costs/host_costs.h"
#include "mapping/testing/test_fabrics.h"

namespace toporr::mapping {
namespace {

HostPairCost Pair(int hops, double gbps, double alpha) {
  HostPairCost c;
  c.hops = hops;
  c.bottleneck_gbps = gbps;
  c.latency_ns = c.alpha_ns = alpha;
  c.beta_ns_per_byte = gbps > 0 ? 8.0 / gbps : 0;
  return c;
}

TEST(QuantizedCostsTest, FatTreeIsMonotoneWithZeroDiagonalAndFullScale) {
  const fabric::Fabric f = testing::MakeFatTree3(/*pods=*/3, /*edges=*/3, /*aggs=*/2,
                                                 /*hosts_per_edge=*/4, /*cores_per_agg=*/2);
  auto costs = HostCosts::Create(f);
  ASSERT_TRUE(costs.ok()) << costs.status();
  std::vector<int> hosts;
  for (int h = 0; h < (*costs)->num_hosts(); ++h) hosts.push_back(h);
  std::vector<HostPairCost> m;
  (*costs)->Matrix(hosts, &m);
  double unit = 0;
  const std::vector<uint16_t> q = QuantizeCosts(m, {}, &unit);
  const size_t n = hosts.size();
  ASSERT_EQ(q.size(), n * n);
  ASSERT_GT(unit, 0);
  uint16_t top = 0;
  for (size_t i = 0; i < n * n; ++i) {
    if (i / n == i % n) {
      EXPECT_EQ(q[i], 0);
      continue;
    }
    EXPECT_GE(q[i], 1);
    top = std::max(top, q[i]);
    const double c = ReferenceCostNs(m[i]);
    EXPECT_NEAR(q[i] * unit, c, unit / 2 + 1e-9);
    for (size_t j = 0; j < n * n; j += 5) {
      if (j / n == j % n) continue;
      if (ReferenceCostNs(m[j]) < c) EXPECT_LE(q[j], q[i]);
    }
  }
  EXPECT_EQ(top, 65535);
  // 1-, 3- and 5-switch pairs stay apart and in order.
  const uint16_t same_leaf = q[0 * n + 1], same_pod = q[0 * n + 4], other_pod = q[0 * n + 12];
  EXPECT_LT(same_leaf, same_pod);
  EXPECT_LT(same_pod, other_pod);
}

TEST(QuantizedCostsTest, ReferenceSizeWeighsBandwidth) {
  // Pair 1: low latency, slow; pair 2: higher latency, fast. 64 KiB makes pair 2 closer; a
  // 64-byte reference message makes pair 1 closer.
  const std::vector<HostPairCost> m = {HostPairCost{}, Pair(1, 25, 700), Pair(3, 200, 1000),
                                       HostPairCost{}};
  std::vector<uint16_t> q = QuantizeCosts(m);
  EXPECT_GT(q[1], q[2]);
  QuantizeOptions small;
  small.reference_bytes = 64;
  q = QuantizeCosts(m, small);
  EXPECT_LT(q[1], q[2]);
}

TEST(QuantizedCostsTest, UnreachableNonSquareAndAllZero) {
  HostPairCost unreachable;
  unreachable.hops = -1;
  unreachable.alpha_ns = unreachable.beta_ns_per_byte = std::numeric_limits<double>::infinity();
  double unit = -1;
  const std::vector<uint16_t> q =
      QuantizeCosts({HostPairCost{}, unreachable, Pair(1, 200, 760), HostPairCost{}}, {}, &unit);
  ASSERT_EQ(q.size(), 4u);
  EXPECT_EQ(q[1], 65535);
  EXPECT_EQ(q[2], 65535);
  EXPECT_DOUBLE_EQ(unit, (760 + 65536 * 0.04) / 65535);

  EXPECT_TRUE(QuantizeCosts(std::vector<HostPairCost>(3)).empty());

  const std::vector<uint16_t> zeros = QuantizeCosts(std::vector<HostPairCost>(4), {}, &unit);
  EXPECT_EQ(zeros, (std::vector<uint16_t>{0, 1, 1, 0}));
  EXPECT_EQ(unit, 0);
}

}  // namespace
}  // namespace toporr::mapping

// HostCosts and FabricRoutes on real ibnetdiscover output (shared samples), parsed and given
// hosts by the collectors, as the daemon does it.
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "collectors/forwarding_tables.h"
#include "collectors/hosts.h"
#include "collectors/ibnetdiscover.h"
#include "common/status_matchers.h"
#include "common/test_data.h"
#include "gtest/gtest.h"
#include "mapping/costs/host_costs.h"
#include "mapping/costs/lft_host_costs.h"
#include "mapping/routes/fabric_routes.h"

namespace toporr::mapping {
namespace {

using fabric::Fabric;

Fabric Load(const std::string& name) {
  auto f = collectors::ParseIbnetdiscover(toporr::testing::ReadSharedFabric(name), {name});
  EXPECT_OK(f);
  if (!f.ok()) return Fabric();
  EXPECT_OK(collectors::AssignHosts(collectors::HostRule(), {}, &*f));
  return *std::move(f);
}

constexpr double kQdr4x = 32.0;

// 2 spines x 4 leaves, 4 hosts per leaf (node16 with both HCA ports on leaf04), two parallel
// QDR cables per leaf-spine pair.
TEST(HostCostsSampleTest, FatTreeDefault) {
  const Fabric f = Load("ibnetdiscover_fattree_default.txt");
  ASSERT_EQ(f.hosts.size(), 16u);
  ASSERT_OK_AND_ASSIGN(auto costs, HostCosts::Create(f));
  ASSERT_OK_AND_ASSIGN(auto routes, FabricRoutes::Create(f));
  auto leaf = [](int host) { return host / 4; };  // node01..04 on leaf01, ...
  std::vector<int32_t> r;
  for (int a = 0; a < 16; ++a) {
    for (int b = 0; b < 16; ++b) {
      const HostPairCost c = costs->Cost(a, b);
      routes->Route(a, b, &r);
      if (a == b) {
        EXPECT_EQ(c.hops, 0);
        EXPECT_EQ(c.alpha_ns, 0);
        EXPECT_TRUE(r.empty());
        continue;
      }
      EXPECT_EQ(c.hops, leaf(a) == leaf(b) ? 1 : 3) << f.hosts[a].name << " " << f.hosts[b].name;
      EXPECT_DOUBLE_EQ(c.bottleneck_gbps, kQdr4x);
      EXPECT_EQ(static_cast<int>(r.size()), c.hops + 1);
    }
  }
  const int n01 = f.FindHost("node01"), n16 = f.FindHost("node16");
  ASSERT_OK_AND_ASSIGN(HostPath p, costs->Path(n01, n16));
  ASSERT_EQ(p.hops.size(), 5u);
  EXPECT_EQ(f.nodes[p.hops[1].node].description, "MF0;leaf01:MSX6036/U1");
  EXPECT_NE(f.nodes[p.hops[2].node].description.find("spine"), std::string::npos);
  EXPECT_EQ(f.nodes[p.hops[3].node].description, "MF0;leaf04:MSX6036/U1");
  EXPECT_EQ(p.hops[4].in_port, 1);  // node16's first port (leaf04 port 4)
  EXPECT_EQ(p.hops[3].out_port, 4);

  // node01 to the four hosts of leaf04 (leaf ports 1..4): the four equal up-links of leaf01
  // (ports 9..12, two cables to each spine) each carry one destination.
  std::set<int32_t> up;
  for (const char* h : {"node13", "node14", "node15", "node16"}) {
    routes->Route(n01, f.FindHost(h), &r);
    ASSERT_EQ(r.size(), 4u);
    up.insert(r[1]);
  }
  EXPECT_EQ(up.size(), 4u);
}

// One switch pair with a router between them as well, mixed speeds and widths, a dual-homed
// CA (hostF on both switches), a SHARP aggregation node.
TEST(HostCostsSampleTest, EdgeCases) {
  const Fabric f = Load("ibnetdiscover_edgecases_default.txt");
  ASSERT_OK_AND_ASSIGN(auto costs, HostCosts::Create(f));
  const int a = f.FindHost("hostA"), b = f.FindHost("hostB"), d = f.FindHost("hostD");
  const int e = f.FindHost("hostE"), hf = f.FindHost("hostF");
  ASSERT_GE(std::min({a, b, d, e, hf}), 0);
  EXPECT_EQ(costs->Cost(a, b).hops, 1);
  EXPECT_DOUBLE_EQ(costs->Cost(a, b).bottleneck_gbps, 100.0);  // 4x EDR
  EXPECT_DOUBLE_EQ(costs->Cost(a, d).bottleneck_gbps, 8.0);    // 1x QDR
  EXPECT_DOUBLE_EQ(costs->Cost(a, e).bottleneck_gbps, 96.0);   // 12x QDR
  EXPECT_EQ(costs->Cost(hf, a).hops, 1);                       // via swA, not the router
  EXPECT_DOUBLE_EQ(costs->Cost(hf, a).bottleneck_gbps, 16.0);  // 4x DDR
  ASSERT_OK_AND_ASSIGN(HostPath p, costs->Path(hf, a));
  EXPECT_EQ(f.nodes[p.hops[1].node].description, "MF0;swA:MQM8700/U1");
}

// Real dump with self-looped switch ports, a multi-rail host and SDR..EDR links.
TEST(HostCostsSampleTest, RealLoopsMixed) {
  const Fabric f = Load("ibnetdiscover_real_nvidia_loops_mixed.txt");
  ASSERT_OK_AND_ASSIGN(auto costs, HostCosts::Create(f));
  const int u216 = f.FindHost("r-ufm216"), u111 = f.FindHost("r-ufm111");
  const int u100 = f.FindHost("r-ufm100"), u101 = f.FindHost("r-ufm101");
  const int u96 = f.FindHost("r-ufm96");
  ASSERT_GE(std::min({u216, u111, u100, u101, u96}), 0);
  const double fdr4x = fabric::LinkDataRateGbps(4, fabric::LinkSpeed::kFDR);
  EXPECT_EQ(costs->Cost(u216, u111).hops, 1);
  EXPECT_DOUBLE_EQ(costs->Cost(u216, u111).bottleneck_gbps, fdr4x);
  EXPECT_EQ(costs->Cost(u216, u100).hops, 2);
  EXPECT_DOUBLE_EQ(costs->Cost(u216, u100).bottleneck_gbps, fdr4x);
  EXPECT_EQ(costs->Cost(u101, u96).hops, 1);
  EXPECT_DOUBLE_EQ(costs->Cost(u101, u96).bottleneck_gbps, 8.0);  // 4x SDR
  for (int x = 0; x < costs->num_hosts(); ++x) {
    for (int y = 0; y < costs->num_hosts(); ++y) {
      if (x != y) EXPECT_GE(costs->Cost(x, y).hops, 0) << x << " " << y;
    }
  }
}

// MatrixCompact decodes, entry by entry and bit for bit, to Matrix() over `hosts`.
void ExpectCompactIsMatrix(const PairCosts& costs, const std::vector<int>& hosts) {
  std::vector<HostPairCost> m;
  costs.Matrix(hosts, &m);
  std::string hops, rate_index;
  std::vector<double> rates;
  ASSERT_OK(costs.MatrixCompact(hosts, &hops, &rate_index, &rates));
  const size_t n = hosts.size();
  ASSERT_EQ(hops.size(), n * n);
  ASSERT_EQ(rate_index.size(), n * n);
  ASSERT_LE(rates.size(), static_cast<size_t>(kCompactMaxRates));
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) {
      const size_t k = i * n + j;
      const uint8_t h = static_cast<uint8_t>(hops[k]), r = static_cast<uint8_t>(rate_index[k]);
      HostPairCost c;
      if (h != kCompactUnreachable && i == j) {
        EXPECT_EQ(r, 0);
      } else {
        if (h == kCompactUnreachable) {
          EXPECT_EQ(r, 0);
        }
        ASSERT_LT(r, std::max<size_t>(rates.size(), 1)) << i << "," << j;
        c = DecodeCompactPair(h, rates.empty() ? 0.0 : rates[r], costs.cost_model());
      }
      const HostPairCost& want = m[k];
      EXPECT_EQ(c.hops, want.hops) << i << "," << j;
      // Exact: the decoder applies the same model to the same inputs.
      EXPECT_EQ(c.bottleneck_gbps, want.bottleneck_gbps) << i << "," << j;
      EXPECT_EQ(c.latency_ns, want.latency_ns) << i << "," << j;
      EXPECT_EQ(c.alpha_ns, want.alpha_ns) << i << "," << j;
      EXPECT_EQ(c.beta_ns_per_byte, want.beta_ns_per_byte) << i << "," << j;
    }
  }
}

// Every host in order, the reverse, every other one, and a list with indices out of range
// (unreachable rows and columns, their diagonal too).
std::vector<std::vector<int>> HostLists(int num) {
  std::vector<int> all(num);
  for (int i = 0; i < num; ++i) all[i] = i;
  std::vector<int> reversed(all.rbegin(), all.rend());
  std::vector<int> odd, with_bad = {num};
  for (int i = 1; i < num; i += 2) odd.push_back(i);
  for (int i = 0; i < num; i += 3) with_bad.push_back(i);
  with_bad.push_back(-1);
  return {all, reversed, odd, with_bad, {0}};
}

fabric::ForwardingTables LoadTables(const std::string& name) {
  auto t = collectors::ParseForwardingTables(toporr::testing::ReadSharedFabric(name), {name});
  EXPECT_OK(t);
  return t.ok() ? *std::move(t) : fabric::ForwardingTables();
}

TEST(MatrixCompactTest, FatTreeShortestPaths) {
  const Fabric f = Load("ibnetdiscover_fattree_default.txt");
  ASSERT_OK_AND_ASSIGN(auto costs, HostCosts::Create(f));
  for (const auto& hosts : HostLists(costs->num_hosts())) ExpectCompactIsMatrix(*costs, hosts);
  std::string hops, rate_index;
  std::vector<double> rates;
  ASSERT_OK(costs->MatrixCompact({0, 5}, &hops, &rate_index, &rates));
  EXPECT_EQ(hops, std::string("\x00\x03\x03\x00", 4));  // node01 and node06: leaf-spine-leaf
  EXPECT_EQ(rates, std::vector<double>{kQdr4x});
}

TEST(MatrixCompactTest, FatTreeForwardingTables) {
  const Fabric f = Load("ibnetdiscover_fattree_default.txt");
  ASSERT_OK_AND_ASSIGN(auto costs, LftHostCosts::Create(f, LoadTables("dump_fts_fattree.txt")));
  for (const auto& hosts : HostLists(costs->num_hosts())) ExpectCompactIsMatrix(*costs, hosts);
}

// Mixed rates (1x QDR .. 12x QDR, 4x DDR, 4x EDR) and hostF dual-homed on both switches.
TEST(MatrixCompactTest, EdgeCasesMixedRatesAndDualHomed) {
  const Fabric f = Load("ibnetdiscover_edgecases_default.txt");
  ASSERT_OK_AND_ASSIGN(auto costs, HostCosts::Create(f));
  for (const auto& hosts : HostLists(costs->num_hosts())) ExpectCompactIsMatrix(*costs, hosts);
  std::vector<int> all(costs->num_hosts());
  for (int i = 0; i < costs->num_hosts(); ++i) all[i] = i;
  std::string hops, rate_index;
  std::vector<double> rates;
  ASSERT_OK(costs->MatrixCompact(all, &hops, &rate_index, &rates));
  EXPECT_GE(rates.size(), 4u);  // 100, 8, 96, 16 Gb/s at least
  ASSERT_OK_AND_ASSIGN(auto lft, LftHostCosts::Create(f, LoadTables("dump_fts_edgecases.txt")));
  for (const auto& hosts : HostLists(lft->num_hosts())) ExpectCompactIsMatrix(*lft, hosts);
}

// MatrixCompactRows: every row copied out equals MatrixCompact's, with one stored row per
// leaf (fattree-2l-16h: 16 hosts on 4 leaves), one for node16 (two ports on leaf04) and one
// per index out of range.
void ExpectRowsAreMatrix(const PairCosts& costs, const std::vector<int>& hosts, size_t max_rows) {
  std::string hops, rate_index;
  std::vector<double> rates;
  ASSERT_OK(costs.MatrixCompact(hosts, &hops, &rate_index, &rates));
  CompactRowSet rows;
  ASSERT_OK(costs.MatrixCompactRows(hosts, &rows));
  const size_t n = hosts.size();
  ASSERT_EQ(rows.n, n);
  EXPECT_LE(rows.num_rows(), max_rows);
  EXPECT_EQ(rows.rates_gbps, rates);
  std::string row_hops(n, '?'), row_rate(n, '?');
  for (size_t i = 0; i < n; ++i) {
    rows.CopyRow(i, row_hops.data(), row_rate.data());
    EXPECT_EQ(row_hops, hops.substr(i * n, n)) << "row " << i;
    EXPECT_EQ(row_rate, rate_index.substr(i * n, n)) << "row " << i;
  }
}

TEST(MatrixCompactTest, RowsAreStoredOncePerLeaf) {
  const Fabric f = Load("ibnetdiscover_fattree_default.txt");
  ASSERT_OK_AND_ASSIGN(auto costs, HostCosts::Create(f));
  ASSERT_OK_AND_ASSIGN(auto lft, LftHostCosts::Create(f, LoadTables("dump_fts_fattree.txt")));
  for (const PairCosts* c :
       {static_cast<const PairCosts*>(costs.get()), static_cast<const PairCosts*>(lft.get())}) {
    const std::vector<std::vector<int>> lists = HostLists(c->num_hosts());
    ExpectRowsAreMatrix(*c, lists[0], 5);
    ExpectRowsAreMatrix(*c, lists[1], 5);
    ExpectRowsAreMatrix(*c, lists[3], 5 + 2);  // with_bad: two indices out of range
  }
}

TEST(MatrixCompactTest, RepeatedHostIsRefused) {
  const Fabric f = Load("ibnetdiscover_fattree_default.txt");
  ASSERT_OK_AND_ASSIGN(auto costs, HostCosts::Create(f));
  ASSERT_OK_AND_ASSIGN(auto lft, LftHostCosts::Create(f, LoadTables("dump_fts_fattree.txt")));
  std::string hops, rate_index;
  std::vector<double> rates;
  for (const PairCosts* c :
       {static_cast<const PairCosts*>(costs.get()), static_cast<const PairCosts*>(lft.get())}) {
    EXPECT_THAT(c->MatrixCompact({3, 1, 3}, &hops, &rate_index, &rates),
                toporr::testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                          ::testing::HasSubstr("listed twice")));
  }
}

TEST(MatrixCompactTest, PaletteHoldsAtMost255Rates) {
  std::vector<double> rates = {7.0};
  CompactRates palette(&rates);
  EXPECT_TRUE(rates.empty());
  for (int r = 0; r < kCompactMaxRates; ++r) EXPECT_EQ(palette.Index(1.0 + r), r);
  EXPECT_EQ(palette.Index(3.0), 2);
  EXPECT_EQ(palette.Index(1000.0), -1);
  EXPECT_EQ(rates.size(), static_cast<size_t>(kCompactMaxRates));
}

}  // namespace
}  // namespace toporr::mapping

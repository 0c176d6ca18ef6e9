#include "client/costs/cost_matrix_codec.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "collectors/fabric_input.h"
#include "common/status_matchers.h"
#include "common/test_data.h"
#include "gtest/gtest.h"
#include "mapping/costs/host_costs.h"

namespace toporr::client {
namespace {

using ::testing::HasSubstr;
using ::toporr::testing::StatusIs;

// The two forms of one matrix, filled the way the daemon fills them (cost_matrices.cc).
struct Replies {
  v1::GetCostMatrixResponse arrays, compact;
};

Replies Serve(const mapping::PairCosts& costs, const std::vector<int>& hosts) {
  Replies r;
  for (int h : hosts) {
    r.arrays.add_hosts("h" + std::to_string(h));
    r.compact.add_hosts("h" + std::to_string(h));
  }
  std::vector<mapping::HostPairCost> m;
  costs.Matrix(hosts, &m);
  for (const auto& c : m) {
    r.arrays.mutable_costs()->add_hops(c.hops);
    r.arrays.mutable_costs()->add_bottleneck_gbps(static_cast<float>(c.bottleneck_gbps));
    r.arrays.mutable_costs()->add_latency_ns(static_cast<float>(c.latency_ns));
  }
  v1::CompactCosts* cc = r.compact.mutable_compact();
  std::vector<double> rates;
  EXPECT_OK(costs.MatrixCompact(hosts, cc->mutable_hops(), cc->mutable_rate_index(), &rates));
  for (double g : rates) cc->add_rates_gbps(static_cast<float>(g));
  cc->set_nic_latency_ns(costs.cost_model().nic_latency_ns);
  cc->set_switch_latency_ns(costs.cost_model().switch_latency_ns);
  cc->set_link_latency_ns(costs.cost_model().link_latency_ns);
  return r;
}

fabric::Fabric LoadShared(const std::string& name) {
  const std::string content = toporr::testing::ReadSharedFabric(name);
  collectors::FabricInput input;
  input.format = collectors::InputFormat::kIbnetdiscover;
  input.source_name = name;
  input.content = content;
  auto f = collectors::ParseFabricInput(input);
  EXPECT_OK(f);
  return f.ok() ? *std::move(f) : fabric::Fabric();
}

void ExpectSameArrays(const Replies& r) {
  ASSERT_OK_AND_ASSIGN(CostMatrixArrays a, DecodeCostMatrix(r.arrays));
  ASSERT_OK_AND_ASSIGN(CostMatrixArrays c, DecodeCostMatrix(r.compact));
  ASSERT_EQ(a.n, c.n);
  ASSERT_EQ(a.hops.size(), static_cast<size_t>(a.n) * a.n);
  EXPECT_EQ(a.hops, c.hops);
  EXPECT_EQ(a.bottleneck_gbps, c.bottleneck_gbps);  // float ==, bit for bit but +inf/NaN-free
  EXPECT_EQ(a.latency_ns, c.latency_ns);
}

// Mixed rates, a dual-homed host, and both kinds of unreachable pair absent: every pair of
// the sample, in order and reversed.
TEST(CostMatrixCodecTest, CompactDecodesToTheArraysOnMixedRates) {
  const fabric::Fabric f = LoadShared("ibnetdiscover_edgecases_default.txt");
  ASSERT_OK_AND_ASSIGN(auto costs, mapping::HostCosts::Create(f));
  std::vector<int> all(costs->num_hosts());
  for (int i = 0; i < costs->num_hosts(); ++i) all[i] = i;
  ExpectSameArrays(Serve(*costs, all));
  ExpectSameArrays(Serve(*costs, std::vector<int>(all.rbegin(), all.rend())));
  ASSERT_OK_AND_ASSIGN(CostMatrixArrays c, DecodeCostMatrix(Serve(*costs, all).compact));
  EXPECT_EQ(c.latency_ns[0], 0.0f);
  EXPECT_EQ(c.latency_ns[1], static_cast<float>(600.0 + 130.0 + 15.0 * 2));  // one switch
}

TEST(CostMatrixCodecTest, UnreachableAndDiagonal) {
  v1::GetCostMatrixResponse r;
  r.add_hosts("a");
  r.add_hosts("b");
  v1::CompactCosts* c = r.mutable_compact();
  c->set_hops(std::string("\x00\xff\x03\x00", 4));
  c->set_rate_index(std::string("\x00\x00\x00\x00", 4));
  c->add_rates_gbps(200.0f);
  c->set_nic_latency_ns(600);
  c->set_switch_latency_ns(130);
  c->set_link_latency_ns(15);
  ASSERT_OK_AND_ASSIGN(CostMatrixArrays m, DecodeCostMatrix(r));
  EXPECT_EQ(m.hops, (std::vector<int32_t>{0, -1, 3, 0}));
  EXPECT_EQ(m.bottleneck_gbps, (std::vector<float>{0, 0, 200, 0}));
  EXPECT_EQ(m.latency_ns[0], 0.0f);
  EXPECT_TRUE(std::isinf(m.latency_ns[1]));
  EXPECT_EQ(m.latency_ns[2], 600.0f + 390.0f + 60.0f);
}

TEST(CostMatrixCodecTest, InconsistentRepliesAreDataLoss) {
  v1::GetCostMatrixResponse r;
  r.add_hosts("a");
  r.add_hosts("b");
  r.mutable_compact()->set_hops(std::string(3, '\1'));
  r.mutable_compact()->set_rate_index(std::string(4, '\0'));
  EXPECT_THAT(DecodeCostMatrix(r),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("cost matrix reply")));
  r.mutable_compact()->set_hops(std::string("\x00\x01\x01\x00", 4));
  EXPECT_THAT(DecodeCostMatrix(r),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("cost matrix reply")));  // no palette
  v1::GetCostMatrixResponse arrays;
  arrays.add_hosts("a");
  arrays.mutable_costs()->add_hops(0);
  EXPECT_THAT(DecodeCostMatrix(arrays),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("cost matrix reply")));
}

// Every host's row, compact (CopyRow out of MatrixCompactRows, as toporrd serves a
// registered list) and as arrays, decodes to that host's row of DecodeCostMatrix.
TEST(CostRowCodecTest, BothFormsDecodeToTheMatrixRow) {
  const fabric::Fabric f = LoadShared("ibnetdiscover_edgecases_default.txt");
  ASSERT_OK_AND_ASSIGN(auto costs, mapping::HostCosts::Create(f));
  std::vector<int> hosts(costs->num_hosts());
  for (int i = 0; i < costs->num_hosts(); ++i) hosts[i] = costs->num_hosts() - 1 - i;
  const int n = static_cast<int>(hosts.size());
  const Replies matrix = Serve(*costs, hosts);
  ASSERT_OK_AND_ASSIGN(CostMatrixArrays m, DecodeCostMatrix(matrix.compact));
  mapping::CompactRowSet rows;
  ASSERT_OK(costs->MatrixCompactRows(hosts, &rows));
  for (int i = 0; i < n; ++i) {
    v1::GetCostRowResponse compact;
    compact.set_snapshot_id(7);
    compact.set_host_column(i);
    v1::CompactCosts* c = compact.mutable_compact();
    *c = matrix.compact.compact();
    c->mutable_hops()->assign(n, '\0');
    c->mutable_rate_index()->assign(n, '\0');
    rows.CopyRow(i, c->mutable_hops()->data(), c->mutable_rate_index()->data());
    v1::GetCostRowResponse arrays;
    arrays.set_snapshot_id(7);
    for (int j = 0; j < n; ++j) {
      arrays.add_hosts("h" + std::to_string(hosts[j]));
      arrays.mutable_costs()->add_hops(matrix.arrays.costs().hops(i * n + j));
      arrays.mutable_costs()->add_bottleneck_gbps(matrix.arrays.costs().bottleneck_gbps(i * n + j));
      arrays.mutable_costs()->add_latency_ns(matrix.arrays.costs().latency_ns(i * n + j));
    }
    for (const v1::GetCostRowResponse* r : {&compact, &arrays}) {
      ASSERT_OK_AND_ASSIGN(CostRowArrays row, DecodeCostRow(*r, n));
      EXPECT_EQ(row.snapshot_id, 7);
      EXPECT_EQ(row.n, n);
      for (int j = 0; j < n; ++j) {
        EXPECT_EQ(row.hops[j], m.hops[i * n + j]) << i << "," << j;
        EXPECT_EQ(row.bottleneck_gbps[j], static_cast<double>(m.bottleneck_gbps[i * n + j]));
        EXPECT_EQ(row.latency_ns[j], static_cast<double>(m.latency_ns[i * n + j]));
      }
    }
  }
}

// A compact row of three columns: itself (column 1), one switch away and three away.
v1::GetCostRowResponse CompactRow() {
  v1::GetCostRowResponse r;
  r.set_host("b");
  r.set_snapshot_id(3);
  r.set_host_column(1);
  v1::CompactCosts* c = r.mutable_compact();
  c->set_hops(std::string("\x01\x00\x03", 3));
  c->set_rate_index(std::string("\x00\x00\x01", 3));
  c->add_rates_gbps(200.0f);
  c->add_rates_gbps(100.0f);
  c->set_nic_latency_ns(600);
  c->set_switch_latency_ns(130);
  c->set_link_latency_ns(15);
  return r;
}

TEST(CostRowCodecTest, CompactRowValues) {
  ASSERT_OK_AND_ASSIGN(CostRowArrays row, DecodeCostRow(CompactRow(), 3));
  EXPECT_EQ(row.snapshot_id, 3);
  EXPECT_EQ(row.hops, (std::vector<int32_t>{1, 0, 3}));
  EXPECT_EQ(row.bottleneck_gbps, (std::vector<double>{200, 0, 100}));
  EXPECT_EQ(row.latency_ns, (std::vector<double>{600 + 130 + 30, 0, 600 + 390 + 60}));
}

TEST(CostRowCodecTest, InconsistentRowsAreDataLossNamingWhatIsWrong) {
  auto expect_loss = [](const v1::GetCostRowResponse& r, int n, const std::string& what) {
    EXPECT_THAT(
        DecodeCostRow(r, n),
        StatusIs(absl::StatusCode::kDataLoss,
                 ::testing::AllOf(HasSubstr("cost row of 'b' (snapshot 3)"), HasSubstr(what))))
        << what;
  };
  expect_loss(CompactRow(), 4, "have 3 / 3 bytes, expected 4");  // wrong n
  v1::GetCostRowResponse r = CompactRow();
  r.mutable_compact()->mutable_hops()->resize(2);  // truncated hops
  expect_loss(r, 3, "have 2 / 3 bytes, expected 3");
  r = CompactRow();
  (*r.mutable_compact()->mutable_rate_index())[2] = 2;
  expect_loss(r, 3, "column 2 has rate_index 2 outside the palette of 2");
  r = CompactRow();
  (*r.mutable_compact()->mutable_hops())[0] = '\xff';
  expect_loss(r, 3, "column 0 is unreachable");
  r = CompactRow();
  r.mutable_compact()->set_rates_gbps(1, std::numeric_limits<float>::quiet_NaN());
  expect_loss(r, 3, "palette rate 1 is nan");
  r = CompactRow();
  r.mutable_compact()->set_rates_gbps(0, -5.0f);
  expect_loss(r, 3, "palette rate 0 is -5");
  r = CompactRow();
  r.mutable_compact()->set_switch_latency_ns(std::numeric_limits<double>::infinity());
  expect_loss(r, 3, "a latency constant is inf");
  r = CompactRow();
  r.set_host_column(3);
  expect_loss(r, 3, "host_column 3 is outside the 3 columns");
  r = CompactRow();
  r.set_host_column(0);
  expect_loss(r, 3, "its own column 0 is not zero");
  r = CompactRow();
  r.add_hosts("a");
  expect_loss(r, 3, "names 1 columns, expected 3");

  v1::GetCostRowResponse arrays;
  arrays.set_host("b");
  arrays.set_snapshot_id(3);
  for (const char* h : {"a", "b", "c"}) arrays.add_hosts(h);
  for (int j = 0; j < 3; ++j) {
    arrays.mutable_costs()->add_hops(j == 1 ? 0 : 1);
    arrays.mutable_costs()->add_bottleneck_gbps(j == 1 ? 0 : 100);
    arrays.mutable_costs()->add_latency_ns(j == 1 ? 0 : 760);
  }
  EXPECT_OK(DecodeCostRow(arrays, 3));
  r = arrays;
  r.mutable_costs()->mutable_latency_ns()->RemoveLast();
  expect_loss(r, 3, "have 3 / 3 / 2 elements, expected 3");
  r = arrays;
  r.mutable_costs()->set_hops(2, -1);
  r.mutable_costs()->set_latency_ns(2, std::numeric_limits<float>::infinity());
  expect_loss(r, 3, "column 2 ('c') is unreachable");
  r = arrays;
  r.mutable_costs()->set_latency_ns(0, std::numeric_limits<float>::infinity());
  expect_loss(r, 3, "column 0 has bottleneck 100 Gb/s, latency inf ns");
  r = arrays;
  r.mutable_costs()->set_bottleneck_gbps(2, -1);
  expect_loss(r, 3, "column 2 has bottleneck -1 Gb/s");
  EXPECT_THAT(DecodeCostRow(arrays, 0),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("expected_n")));
}

}  // namespace
}  // namespace toporr::client

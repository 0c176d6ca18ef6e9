#include "client/cost_matrix_codec.h"

#include <cmath>
#include <string>
#include <vector>

#include "collectors/fabric_input.h"
#include "common/status_matchers.h"
#include "common/test_data.h"
#include "gtest/gtest.h"
#include "mapping/host_costs.h"

namespace toporr::client {
namespace {

using ::testing::HasSubstr;
using ::toporr::testing::StatusIs;

// The two forms of one matrix, filled the way the daemon fills them (grpc_services.cc).
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

}  // namespace
}  // namespace toporr::client

#include "mapping/prediction/host_link_routes.h"

#include <gtest/gtest.h>

#include <vector>

#include "mapping/costs/dense_cost_matrix.h"
#include "mapping/prediction/predict.h"
#include "mapping/schedules/pattern.h"

namespace toporr::mapping {
namespace {

// 4 hosts, 100 Gb/s everywhere (beta 0.08 ns/B) except host 3, whose pairs run at 50 Gb/s.
std::unique_ptr<DenseCostMatrix> Costs() {
  std::vector<double> alpha(16, 1000), beta(16, 0.08);
  for (int i = 0; i < 4; ++i) {
    alpha[i * 4 + i] = beta[i * 4 + i] = 0;
    if (i != 3) beta[i * 4 + 3] = beta[3 * 4 + i] = 0.16;
  }
  return *DenseCostMatrix::Create(4, alpha, beta);
}

TEST(HostLinkRoutesTest, EachMessageCrossesItsHostsLinks) {
  auto costs = Costs();
  auto routes = HostLinkRoutes(*costs);
  ASSERT_EQ(routes->num_directed_links(), 8);
  std::vector<int32_t> r;
  routes->Route(1, 2, &r);
  EXPECT_EQ(r, (std::vector<int32_t>{2, 5}));
  routes->Route(2, 2, &r);
  EXPECT_TRUE(r.empty());
  EXPECT_DOUBLE_EQ(routes->link_gbps(0), 100);
  EXPECT_DOUBLE_EQ(routes->link_gbps(7), 50);
}

TEST(HostLinkRoutesTest, RanksOfOneHostShareItsLink) {
  // 6 ranks, 2 per host, dealt round-robin: ring neighbours r, r + 1 are on different hosts,
  // so both ranks of every host send out at once. With the hosts' links modelled the ring
  // step takes twice as long as with the cost matrix alone.
  auto costs = Costs();
  auto routes = HostLinkRoutes(*costs);
  Placement placement;
  placement.num_hosts = 3;
  for (int r = 0; r < 6; ++r) placement.ranks.push_back({r % 3, 0, 0, 0, r / 3});
  PatternSpec spec;
  spec.collective = Collective::kAllreduce;
  spec.algorithm = Algorithm::kRing;
  spec.num_ranks = 6;
  spec.count = 6 << 20;
  PredictInputs plain;
  plain.placement = &placement;
  plain.costs = costs.get();
  PredictInputs shared = plain;
  shared.routes = routes.get();
  auto a = PredictCollective(spec, {}, plain);
  auto b = PredictCollective(spec, {}, shared);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(b->max_link_load, 2);
  EXPECT_GT(b->time_ns, 1.8 * a->time_ns);
  // Ranks grouped by host: only one of each host's two ranks sends out per step.
  std::vector<int> grouped = {0, 3, 1, 4, 2, 5};
  auto c = PredictCollective(spec, grouped, shared);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->max_link_load, 1);
  EXPECT_LT(c->time_ns, 0.6 * b->time_ns);
}

}  // namespace
}  // namespace toporr::mapping

#include "client/ctl/probe_validation.h"

#include <string>

#include "common/status_matchers.h"
#include "gtest/gtest.h"
#include "mapping/costs/dense_cost_matrix.h"

namespace toporr::client::ctl {
namespace {

using collectors::PlogpPair;
using collectors::PlogpProbe;

// 4 hosts, one rank each; the model says every pair costs 1000 + m * 0.04 ns, the
// measurement says twice that, except pair (1, 3), measured 3x slower than the others.
PlogpProbe Probe() {
  PlogpProbe p;
  p.sizes = {0, 65536};
  for (const char* h : {"a", "b", "c", "d"}) {
    p.hosts.push_back(h);
    p.ranks.push_back({h, 0});
  }
  for (int a = 0; a < 4; ++a) {
    for (int b = a + 1; b < 4; ++b) {
      PlogpPair q;
      q.a = a;
      q.b = b;
      const double t = 2 * (1000 + 65536 * 0.04) * (a == 1 && b == 3 ? 3 : 1);
      q.rtt_ns = {4000, 2 * t};
      q.gap_ns = q.os_ns = q.or_ns = {0, 0};
      p.pairs.push_back(q);
    }
  }
  return p;
}

TEST(ProbeValidationTest, FindsTheSlowPair) {
  const PlogpProbe p = Probe();
  std::vector<double> alpha(9, 1000), beta(9, 0.04);
  for (int i = 0; i < 3; ++i) alpha[4 * i] = beta[4 * i] = 0;
  ASSERT_OK_AND_ASSIGN(auto model, mapping::DenseCostMatrix::Create(3, alpha, beta));
  ValidationInput in;
  in.probe = &p;
  in.hosts = {"a", "b", "d"};  // c is not in the model
  in.model = model.get();
  ASSERT_OK_AND_ASSIGN(Validation v, ValidateProbe(in));
  EXPECT_EQ(v.bytes, 65536);
  EXPECT_EQ(v.missing, (std::vector<std::string>{"c"}));
  ASSERT_EQ(v.pairs.size(), 3u);
  EXPECT_DOUBLE_EQ(v.scale, 2.0);
  EXPECT_EQ(v.hosts[v.pairs[0].x], "b");
  EXPECT_EQ(v.hosts[v.pairs[0].y], "d");
  EXPECT_DOUBLE_EQ(v.pairs[0].ratio, 3.0);
  EXPECT_DOUBLE_EQ(v.pairs[1].ratio, 1.0);
  in.bytes = 100;
  EXPECT_EQ(ValidateProbe(in).status().code(), absl::StatusCode::kInvalidArgument);
  in.bytes = -1;
  in.hosts = {"a"};
  EXPECT_EQ(ValidateProbe(in).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ProbeValidationTest, Spearman) {
  EXPECT_DOUBLE_EQ(Spearman({1, 2, 3, 4}, {10, 20, 30, 40}), 1.0);
  EXPECT_DOUBLE_EQ(Spearman({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0);
  EXPECT_DOUBLE_EQ(Spearman({1, 1, 1}, {1, 2, 3}), 0.0);
  EXPECT_NEAR(Spearman({1, 2, 2, 3}, {1, 2, 3, 4}), 0.9486833, 1e-6);
}

}  // namespace
}  // namespace toporr::client::ctl

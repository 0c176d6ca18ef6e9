#include "mapping/costs/hierarchical_cost_matrix.h"

#include <vector>

#include "common/status_matchers.h"
#include "gtest/gtest.h"
#include "mapping/costs/dense_cost_matrix.h"

namespace toporr::mapping {
namespace {

using ::testing::HasSubstr;
using ::toporr::testing::StatusIs;

// Dense copy of any matrix (what a small job would receive from the daemon).
std::unique_ptr<DenseCostMatrix> Densify(const HostCostMatrix& m) {
  const int n = m.num_hosts();
  std::vector<double> alpha(static_cast<size_t>(n) * n), beta(alpha.size());
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      alpha[static_cast<size_t>(a) * n + b] = m.AlphaNs(a, b);
      beta[static_cast<size_t>(a) * n + b] = m.BetaNs(a, b);
    }
  return DenseCostMatrix::Create(n, alpha, beta).value();
}

TEST(HierarchicalCostMatrixTest, FatTreeDenseAndCompressedAgreeEverywhere) {
  // 2 pods x 3 leaves x 4 hosts, the last leaf half full (22 hosts), tapered core.
  FatTreeShape shape;
  shape.num_hosts = 22;
  shape.hosts_per_leaf = 4;
  shape.leaves_per_pod = 3;
  shape.core_gbps = 50;
  ASSERT_OK_AND_ASSIGN(auto tree, FatTreeCostMatrix(shape));
  auto dense = Densify(*tree);
  ASSERT_OK_AND_ASSIGN(auto compressed, CompressToHierarchical(*dense, tree->host_group()));
  EXPECT_EQ(compressed->num_groups(), 6);
  for (int a = 0; a < 22; ++a)
    for (int b = 0; b < 22; ++b) {
      EXPECT_EQ(compressed->AlphaNs(a, b), dense->AlphaNs(a, b)) << a << "," << b;
      EXPECT_EQ(compressed->BetaNs(a, b), dense->BetaNs(a, b)) << a << "," << b;
      EXPECT_EQ(compressed->TimeNs(a, b, 4096), dense->TimeNs(a, b, 4096));
    }
  // Hand-checked values: same leaf 1 switch, same pod 3, across pods 5 and the taper.
  EXPECT_EQ(dense->AlphaNs(0, 3), 700);
  EXPECT_EQ(dense->AlphaNs(0, 4), 900);
  EXPECT_EQ(dense->AlphaNs(0, 12), 1100);
  EXPECT_DOUBLE_EQ(dense->BetaNs(0, 12), 8.0 / 50);
  EXPECT_EQ(dense->AlphaNs(5, 5), 0);
}

TEST(HierarchicalCostMatrixTest, RefusesToCompressInequivalentHosts) {
  FatTreeShape shape;
  shape.num_hosts = 8;
  shape.hosts_per_leaf = 4;
  ASSERT_OK_AND_ASSIGN(auto tree, FatTreeCostMatrix(shape));
  const int n = 8;
  std::vector<double> alpha(n * n), beta(n * n);
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      alpha[a * n + b] = tree->AlphaNs(a, b);
      beta[a * n + b] = tree->BetaNs(a, b);
    }
  alpha[5 * n + 1] += 1;  // host 5 is slightly further from host 1 than its leaf mates
  ASSERT_OK_AND_ASSIGN(auto dense, DenseCostMatrix::Create(n, alpha, beta));
  EXPECT_THAT(CompressToHierarchical(*dense, tree->host_group()),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("cost(5,1)")));
  EXPECT_THAT(CompressToHierarchical(*dense, {0, 0, 0}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("3 group ids for 8")));
}

TEST(HierarchicalCostMatrixTest, SixteenThousandHostsFitInOneMegabyte) {
  FatTreeShape shape;
  shape.num_hosts = 16384;
  shape.hosts_per_leaf = 32;  // 512 leaf groups
  ASSERT_OK_AND_ASSIGN(auto tree, FatTreeCostMatrix(shape));
  EXPECT_EQ(tree->num_groups(), 512);
  // 16k ints + 512^2 two-byte palette indexes = 64 KiB + 512 KiB (the fat tree has three
  // distinct group-pair costs).
  EXPECT_LT(tree->size_bytes(), size_t{1} << 20);
  EXPECT_GE(tree->size_bytes(), 16384 * sizeof(int32_t) + 512 * 512 * sizeof(uint16_t));
}

TEST(HierarchicalCostMatrixTest, ManyDistinctPairCostsKeepTheDoubles) {
  // 300 groups whose pair costs are all different (more than the 65,536 palette entries):
  // the answers stay exact either way.
  HierarchicalCostMatrix::Options o;
  const int g = 300;
  o.num_groups = g;
  for (int h = 0; h < g; ++h) o.host_group.push_back(h);
  o.group_alpha_ns.assign(g * g, 0);
  o.group_beta_ns.assign(g * g, 0);
  for (int a = 0; a < g; ++a) {
    for (int b = 0; b < g; ++b) {
      if (a != b) o.group_alpha_ns[a * g + b] = 1000 + a * g + b;
    }
  }
  ASSERT_OK_AND_ASSIGN(auto m, HierarchicalCostMatrix::Create(o));
  EXPECT_EQ(m->AlphaNs(7, 9), 1000 + 7 * g + 9);
  EXPECT_EQ(m->AlphaNs(299, 0), 1000 + 299 * g);
  EXPECT_GE(m->size_bytes(), size_t{2} * g * g * sizeof(double));
}

TEST(HierarchicalCostMatrixTest, CreateValidates) {
  HierarchicalCostMatrix::Options o;
  o.num_groups = 2;
  o.host_group = {0, 2};
  o.group_alpha_ns = {0, 1, 1, 0};
  o.group_beta_ns = {0, 1, 1, 0};
  EXPECT_THAT(HierarchicalCostMatrix::Create(o),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("host 1 has group 2")));
  o.host_group = {0, 1};
  o.group_alpha_ns = {3, 1, 1, 0};
  EXPECT_THAT(HierarchicalCostMatrix::Create(o),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("non-zero")));
}

}  // namespace
}  // namespace toporr::mapping

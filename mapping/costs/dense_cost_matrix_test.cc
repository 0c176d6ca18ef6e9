#include "mapping/costs/dense_cost_matrix.h"

#include <vector>

#include "common/status_matchers.h"
#include "gtest/gtest.h"

namespace toporr::mapping {
namespace {

using ::testing::HasSubstr;
using ::toporr::testing::StatusIs;

TEST(DenseCostMatrixTest, AnswersRowMajorAndTimeIsAlphaPlusBytesBeta) {
  // 3 hosts; asymmetric on purpose: (0,1) differs from (1,0).
  std::vector<double> alpha = {0, 900, 1100, 950, 0, 1200, 1100, 1200, 0};
  std::vector<double> beta = {0, 0.08, 0.16, 0.08, 0, 0.16, 0.16, 0.16, 0};
  ASSERT_OK_AND_ASSIGN(auto m, DenseCostMatrix::Create(3, alpha, beta));
  EXPECT_EQ(m->num_hosts(), 3);
  EXPECT_EQ(m->AlphaNs(0, 1), 900);
  EXPECT_EQ(m->AlphaNs(1, 0), 950);
  EXPECT_EQ(m->BetaNs(2, 0), 0.16);
  EXPECT_DOUBLE_EQ(m->TimeNs(0, 2, 1000), 1100 + 160);
  EXPECT_EQ(m->TimeNs(1, 1, 1 << 20), 0);
  EXPECT_GE(m->size_bytes(), 2 * 9 * sizeof(double));
}

TEST(DenseCostMatrixTest, RefusesBadShapesAndValues) {
  EXPECT_THAT(DenseCostMatrix::Create(2, {0, 1, 1}, {0, 0, 0, 0}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("expected 4")));
  EXPECT_THAT(DenseCostMatrix::Create(2, {5, 1, 1, 0}, {0, 0, 0, 0}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("diagonal")));
  EXPECT_THAT(DenseCostMatrix::Create(2, {0, -1, 1, 0}, {0, 0, 0, 0}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("alpha(0,1)")));
  EXPECT_THAT(DenseCostMatrix::Create(-1, {}, {}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("negative")));
}

}  // namespace
}  // namespace toporr::mapping

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "client/costs/row_source.h"
#include "common/status_matchers.h"
#include "gtest/gtest.h"

namespace toporr::client {
namespace {

using ::testing::HasSubstr;
using ::toporr::testing::StatusIs;

// Answers every Row with `values`.
class FixedRows final : public RowSource {
 public:
  explicit FixedRows(std::vector<float> values) : values_(std::move(values)) {}
  std::string_view kind() const override { return "file"; }
  absl::StatusOr<HostListTicket> Prepare(const std::vector<std::string>&) override {
    return HostListTicket{1, ""};
  }
  absl::StatusOr<CostRow> Row(const HostListTicket&, const std::vector<std::string>&, int,
                              bool) override {
    CostRow r;
    r.snapshot_id = 1;
    r.values = values_;
    return r;
  }

 private:
  std::vector<float> values_;
};

const std::vector<std::string> kHosts = {"node01", "node02", "node03"};

absl::Status RowOf(std::vector<float> values) {
  std::unique_ptr<RowSource> s = WithCostChecks(std::make_unique<FixedRows>(std::move(values)));
  EXPECT_EQ(s->kind(), "file");
  return s->Row(HostListTicket{1, ""}, kHosts, 0, false).status();
}

TEST(CheckedRowsTest, RealCostsPass) {
  EXPECT_OK(RowOf({0, 1200, 1900, 0, 100, 25}));
  EXPECT_OK(RowOf({0, 0, 1e9, 0, 0, 1e5}));  // the bounds themselves
}

TEST(CheckedRowsTest, NonCostsAreRefusedNamingTheColumn) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_THAT(RowOf({0, nan, 1900, 0, 100, 25}),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("the row of node01: latency_ns to node02 is NaN")));
  EXPECT_THAT(RowOf({0, 1200, -5, 0, 100, 25}),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("latency_ns to node03 is -5")));
  EXPECT_THAT(RowOf({0, 1200, 1900, 0, inf, 25}),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("bottleneck_gbps to node02 is inf")));
  EXPECT_THAT(RowOf({0, 1200, 5e9, 0, 100, 25}),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("not a cost (finite, 0..1e+09 ns)")));
  EXPECT_THAT(RowOf({0, 1200, 1900, 0, 100, 2e6}),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("bottleneck_gbps to node03")));
}

}  // namespace
}  // namespace toporr::client

#include "mapping/routes/route_source.h"

#include <memory>
#include <vector>

#include "gtest/gtest.h"

namespace toporr::mapping {
namespace {

// n hosts, each pair joined by its own directed link a * n + b of rate 10 * (link + 1) Gb/s:
// every route and rate tells which fabric hosts it was asked for.
class AllPairsLinks final : public RouteSource {
 public:
  explicit AllPairsLinks(int n) : n_(n) {}
  int num_directed_links() const override { return n_ * n_; }
  double link_gbps(int directed_link) const override { return 10.0 * (directed_link + 1); }
  void Route(int a, int b, std::vector<int32_t>* directed_links) const override {
    directed_links->clear();
    if (a != b) directed_links->push_back(a * n_ + b);
  }

 private:
  int n_;
};

TEST(JobView, RoutesOverTheJobsHostList) {
  const AllPairsLinks fabric(10);
  const std::unique_ptr<RouteSource> job = JobView(fabric, {7, 2, 9});
  EXPECT_EQ(job->num_directed_links(), 100);
  EXPECT_DOUBLE_EQ(job->link_gbps(72), fabric.link_gbps(72));
  std::vector<int32_t> links = {1, 2, 3};  // Route clears what was there
  job->Route(0, 1, &links);
  EXPECT_EQ(links, std::vector<int32_t>{7 * 10 + 2});
  job->Route(2, 0, &links);
  EXPECT_EQ(links, std::vector<int32_t>{9 * 10 + 7});
  job->Route(1, 1, &links);
  EXPECT_TRUE(links.empty());
}

TEST(JobView, ViewsOfOneSourceAreIndependent) {
  const AllPairsLinks fabric(4);
  const std::unique_ptr<RouteSource> a = JobView(fabric, {0, 3});
  const std::unique_ptr<RouteSource> b = JobView(fabric, {3, 0});
  std::vector<int32_t> la, lb;
  a->Route(0, 1, &la);
  b->Route(0, 1, &lb);
  EXPECT_EQ(la, std::vector<int32_t>{3});
  EXPECT_EQ(lb, std::vector<int32_t>{12});
}

}  // namespace
}  // namespace toporr::mapping

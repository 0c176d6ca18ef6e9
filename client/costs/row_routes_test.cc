#include "client/costs/row_routes.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/status_matchers.h"

namespace toporr::client {
namespace {

using ::testing::HasSubstr;

// Host h of two: its route to the other is {10 + h (up), 20 + other (down)}.
mapping::RouteRow RowOf(int h) {
  mapping::RouteRow r;
  r.offsets = h == 0 ? std::vector<uint32_t>{0, 0, 2} : std::vector<uint32_t>{0, 2, 2};
  r.links = {10u + h, 20u + (1 - h)};
  r.link_ids = r.links;
  r.link_gbps = {100.0f, h == 0 ? 25.0f : 100.0f};
  return r;
}

TEST(RowRoutesTest, PacketsInAnyOrderMakeTheJobsRoutes) {
  std::vector<uint32_t> words;
  PackRouteRow(1, RowOf(1), &words);
  PackRouteRow(0, RowOf(0), &words);
  std::string why;
  ASSERT_OK_AND_ASSIGN(auto routes, UnpackRoutes(words, 2, &why));
  ASSERT_NE(routes, nullptr) << why;
  std::vector<int32_t> r;
  routes->Route(0, 1, &r);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_DOUBLE_EQ(routes->link_gbps(r[1]), 25.0);  // link 21, host 1's cable down
  routes->Route(1, 0, &r);
  EXPECT_DOUBLE_EQ(routes->link_gbps(r[0]), 100.0);
  EXPECT_EQ(routes->num_directed_links(), 4);
}

TEST(RowRoutesTest, AMissingRowMeansNoRoutesAndBrokenPacketsAreErrors) {
  std::vector<uint32_t> words;
  PackRouteRow(0, RowOf(0), &words);
  std::string why;
  ASSERT_OK_AND_ASSIGN(auto none, UnpackRoutes(words, 2, &why));
  EXPECT_EQ(none, nullptr);
  EXPECT_THAT(why, HasSubstr("no routes for job host 1 (no packet)"));

  PackRouteRow(1, mapping::RouteRow{}, &words);  // the source had none for host 1
  ASSERT_OK_AND_ASSIGN(none, UnpackRoutes(words, 2, &why));
  EXPECT_EQ(none, nullptr);
  EXPECT_THAT(why, HasSubstr("from the source"));

  words.clear();
  PackRouteRow(0, RowOf(0), &words);
  words.pop_back();
  EXPECT_THAT(UnpackRoutes(words, 2, &why).status().message(), HasSubstr("truncated"));
  words.clear();
  PackRouteRow(0, RowOf(0), &words);
  PackRouteRow(0, RowOf(0), &words);
  EXPECT_THAT(UnpackRoutes(words, 2, &why).status().message(), HasSubstr("(twice)"));
}

}  // namespace
}  // namespace toporr::client

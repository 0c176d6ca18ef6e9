#include "mapping/routes/table_routes.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/status_matchers.h"

namespace toporr::mapping {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Three hosts on one switch: host h's cable up is link 10 + h, down 20 + h (source ids).
std::vector<RouteRow> Star() {
  std::vector<RouteRow> rows(3);
  for (uint32_t a = 0; a < 3; ++a) {
    RouteRow& r = rows[a];
    r.offsets.push_back(0);
    for (uint32_t b = 0; b < 3; ++b) {
      if (a != b) {
        r.links.push_back(10 + a);
        r.links.push_back(20 + b);
      }
      r.offsets.push_back(static_cast<uint32_t>(r.links.size()));
    }
    for (uint32_t h = 0; h < 3; ++h) {
      r.link_ids.insert(r.link_ids.end(), {10 + h, 20 + h});
      r.link_gbps.insert(r.link_gbps.end(), {100.0f, h == 2 ? 50.0f : 100.0f});
    }
  }
  return rows;
}

TEST(TableRoutesTest, RenumbersLinksDenselyAndKeepsTheirRates) {
  ASSERT_OK_AND_ASSIGN(auto t, TableRoutes::Create(Star()));
  EXPECT_EQ(t->num_hosts(), 3);
  EXPECT_EQ(t->num_directed_links(), 6);
  std::vector<int32_t> route = {99};
  t->Route(0, 0, &route);
  EXPECT_TRUE(route.empty());
  t->Route(0, 1, &route);
  EXPECT_THAT(route, ElementsAre(0, 1));  // 10, 21 in order of first use
  t->Route(0, 2, &route);
  EXPECT_THAT(route, ElementsAre(0, 2));
  EXPECT_DOUBLE_EQ(t->link_gbps(2), 50.0);  // 22: host 2's cable down
  t->Route(2, 0, &route);
  ASSERT_EQ(route.size(), 2u);
  EXPECT_DOUBLE_EQ(t->link_gbps(route[0]), 100.0);  // 12: host 2 up
  EXPECT_NE(route[1], route[0]);
  // Two routes into host 1 share its down link (id 21 -> one dense id).
  std::vector<int32_t> other;
  t->Route(2, 1, &other);
  t->Route(0, 1, &route);
  EXPECT_EQ(other[1], route[1]);
}

TEST(TableRoutesTest, RefusesBrokenRows) {
  auto rows = Star();
  rows[1].offsets.pop_back();
  EXPECT_THAT(TableRoutes::Create(rows).status().message(), HasSubstr("job host 1: 3 offsets"));

  rows = Star();
  rows[0].offsets[2] = rows[0].offsets[1];  // no route 0 -> 1
  rows[0].offsets[3] = rows[0].offsets[1];
  rows[0].offsets[3] = static_cast<uint32_t>(rows[0].links.size());
  EXPECT_THAT(TableRoutes::Create(rows).status().message(), HasSubstr("no route to job host 1"));

  rows = Star();
  rows[2].link_gbps[0] = 0;
  EXPECT_THAT(TableRoutes::Create(rows).status().message(), HasSubstr("has rate 0"));

  rows = Star();
  rows[1].link_gbps[5] = 25;  // link 22 at 25 here, 50 in row 0
  EXPECT_THAT(TableRoutes::Create(rows).status().message(),
              HasSubstr("another rate in an earlier row"));

  rows = Star();
  rows[0].link_ids.pop_back();
  rows[0].link_gbps.pop_back();  // link 22 without a rate
  EXPECT_THAT(TableRoutes::Create(rows).status().message(), HasSubstr("link 22 has no rate"));
}

}  // namespace
}  // namespace toporr::mapping

#include "mapping/schedules/collective_shapes.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace toporr::mapping {
namespace {

TEST(CollectiveShapesTest, PowersOfTwo) {
  for (int64_t n = 1; n <= 70; ++n) {
    const int64_t floor = FloorPowerOfTwo(n), ceil = CeilPowerOfTwo(n);
    EXPECT_LE(floor, n);
    EXPECT_GT(2 * floor, n);
    EXPECT_GE(ceil, n);
    EXPECT_LT(ceil, 2 * n);
    EXPECT_EQ(int64_t{1} << Log2Floor(n), floor) << n;
    EXPECT_EQ(int64_t{1} << Log2Ceil(n), ceil) << n;
  }
  EXPECT_EQ(FloorPowerOfTwo(int64_t{3} << 40), int64_t{2} << 40);
  EXPECT_EQ(CeilPowerOfTwo((int64_t{1} << 40) + 1), int64_t{2} << 40);
}

TEST(CollectiveShapesTest, FoldIsABijection) {
  for (int64_t n = 1; n <= 70; ++n) {
    const int64_t pof2 = FloorPowerOfTwo(n);
    for (bool keep_odd : {false, true}) {
      int64_t out = 0;
      for (int64_t r = 0; r < n; ++r) {
        const int64_t v = FoldedRank(r, n, keep_odd);
        if (v < 0) {
          ++out;
          continue;
        }
        ASSERT_LT(v, pof2);
        EXPECT_EQ(UnfoldedRank(v, n, keep_odd), r);
      }
      EXPECT_EQ(out, n - pof2);
      EXPECT_EQ(FoldedRank(0, n, keep_odd) >= 0, !keep_odd || n == pof2);
    }
  }
}

// Children of every shifted rank of a tree over p ranks, as the ForEach visitor lists them.
template <typename ForEach>
std::vector<std::vector<int64_t>> Children(int64_t p, ForEach for_each) {
  std::vector<std::vector<int64_t>> out(p);
  for (int64_t v = 0; v < p; ++v) for_each(v, [&](int64_t c) { out[v].push_back(c); });
  return out;
}

// Every rank but the root has exactly one parent, `parent(c)`, and a larger shifted rank.
template <typename Parent>
void ExpectTree(const std::vector<std::vector<int64_t>>& children, Parent parent,
                const char* what) {
  const int64_t p = static_cast<int64_t>(children.size());
  std::vector<int> reached(p, 0);
  for (int64_t v = 0; v < p; ++v) {
    for (int64_t c : children[v]) {
      ASSERT_GT(c, v) << what << " p=" << p;
      ASSERT_LT(c, p) << what << " p=" << p;
      ASSERT_EQ(parent(c), v) << what << " p=" << p << " child " << c;
      ++reached[c];
    }
  }
  EXPECT_EQ(parent(0), -1) << what;
  for (int64_t v = 1; v < p; ++v) ASSERT_EQ(reached[v], 1) << what << " p=" << p << " v=" << v;
}

TEST(CollectiveShapesTest, TreesAreTreesWithTheirParents) {
  for (int64_t p = 1; p <= 130; ++p) {
    ExpectTree(Children(p, [p](int64_t v, auto add) { ForEachBinomialTreeChild(v, p, add); }),
               BinomialTreeParent, "binomial");
    ExpectTree(Children(p,
                        [p](int64_t v, auto add) {
                          ForEachInOrderBinomialTreeChild(v, p, [&](int64_t c, int64_t m) {
                            EXPECT_EQ(InOrderBinomialTreeSpan(c, p), m);
                            add(c);
                          });
                        }),
               InOrderBinomialTreeParent, "in-order binomial");
    for (int64_t fanout = 1; fanout <= 3; ++fanout) {
      ExpectTree(
          Children(p, [=](int64_t v, auto add) { ForEachKaryTreeChild(v, p, fanout, add); }),
          [=](int64_t v) { return KaryTreeParent(v, fanout); }, "k-ary");
    }
    for (int64_t radix = 2; radix <= 5; ++radix) {
      ExpectTree(
          Children(p, [=](int64_t v, auto add) { ForEachKnomialTreeChild(v, p, radix, add); }),
          [=](int64_t v) { return KnomialTreeParent(v, radix); }, "k-nomial");
    }
  }
}

TEST(CollectiveShapesTest, ChildrenInOpenMpiOrderOnTenRanks) {
  using V = std::vector<int64_t>;
  const auto binomial =
      Children(10, [](int64_t v, auto add) { ForEachBinomialTreeChild(v, 10, add); });
  EXPECT_EQ(binomial[0], (V{1, 2, 4, 8}));
  EXPECT_EQ(binomial[1], (V{3, 5, 9}));
  EXPECT_EQ(binomial[6], (V{}));
  const auto in_order = Children(10, [](int64_t v, auto add) {
    ForEachInOrderBinomialTreeChild(v, 10, [&](int64_t c, int64_t) { add(c); });
  });
  EXPECT_EQ(in_order[0], (V{8, 4, 2, 1}));
  EXPECT_EQ(in_order[4], (V{6, 5}));
  EXPECT_EQ(in_order[8], (V{9}));
  const auto binary =
      Children(10, [](int64_t v, auto add) { ForEachKaryTreeChild(v, 10, 2, add); });
  EXPECT_EQ(binary[0], (V{1, 2}));
  EXPECT_EQ(binary[1], (V{3, 5}));
  EXPECT_EQ(binary[2], (V{4, 6}));
  EXPECT_EQ(binary[3], (V{7}));
  EXPECT_EQ(binary[4], (V{8}));
  EXPECT_EQ(binary[5], (V{9}));
  const auto knomial =
      Children(10, [](int64_t v, auto add) { ForEachKnomialTreeChild(v, 10, 3, add); });
  EXPECT_EQ(knomial[0], (V{9, 3, 6, 1, 2}));
  EXPECT_EQ(knomial[3], (V{4, 5}));
  EXPECT_EQ(knomial[9], (V{}));
}

}  // namespace
}  // namespace toporr::mapping

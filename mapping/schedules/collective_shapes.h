// The shapes collective algorithms are built from — powers of two, the fold of a size that is
// not one, and the trees of Open MPI's coll_base_topo.c — written once for the three readers
// that must agree on them: the schedules the predictor replays (pattern.h), the reordering
// heuristics that place ranks along them (mapping/reorder/reorder.h), and toporr's own MPI
// implementations that run them (client/mpi/coll/). What is predicted and reordered for is
// therefore what runs.
//
// Trees are over SHIFTED ranks 0..p-1 (shifted rank v = (rank - root + p) % p, the root is
// 0). Every child has a larger shifted rank than its parent. Children are visited in the
// order Open MPI's tree builders list them, which is the order a parent sends in:
//   binomial    (build_bmtree, bcast binomial): the children of v are v + m for the powers of
//               two m > v with v + m < p, smallest m first; the parent of v > 0 is v minus
//               its highest set bit. The subtree of v + m holds min(m, p - v - m) ranks.
//   in-order binomial (build_in_order_bmtree: gather and reduce binomial, the scatter of
//               the scatter-allgather bcasts): the children of v are v + m for the powers of
//               two m < span(v) with v + m < p, LARGEST m first; span(v) is v's lowest set bit
//               (v > 0) or CeilPowerOfTwo(p) (v == 0); the parent of v > 0 is v minus its
//               lowest set bit. Shifted rank v's subtree is the contiguous range
//               [v, min(v + span(v), p)), so blocks of v..v+span(v)-1 travel together.
//   k-ary       (build_tree(fanout), bcast binary tree with fanout 2): level-order; level L
//               holds the fanout^L ranks after those of the levels above, and the children of
//               v at level L are v + fanout^L * i for i = 1..fanout, below p, in that order.
//   k-nomial    (build_kmtree(radix), bcast knomial): the children of v are v + k * m for
//               the powers m of radix below span(v) and k = 1..radix-1, below p, LARGEST m
//               first and k increasing; span(v) is the place value of v's lowest non-zero
//               base-radix digit (v > 0) or the smallest power of radix >= p (v == 0); the
//               parent of v > 0 is v with that digit cleared.
//
// Pure functions on int64 ranks (up to the pattern generator's 2^24 ranks), thread-safe.
// The ForEach* visitors are templates so that schedule generation over millions of ranks
// allocates nothing per rank.
#ifndef TOPORR_MAPPING_SCHEDULES_COLLECTIVE_SHAPES_H_
#define TOPORR_MAPPING_SCHEDULES_COLLECTIVE_SHAPES_H_

#include <cstdint>

namespace toporr::mapping {

// Largest power of two <= n and smallest power of two >= n (n >= 1), and their log2.
int64_t FloorPowerOfTwo(int64_t n);
int64_t CeilPowerOfTwo(int64_t n);
int Log2Floor(int64_t n);
int Log2Ceil(int64_t n);

// The fold of a size n that is not a power of two onto pof2 = FloorPowerOfTwo(n) virtual
// ranks, as Open MPI's recursive doubling and Rabenseifner allreduces do it: the first
// 2 * extra ranks (extra = n - pof2) pair up (2j, 2j + 1) and one member of each pair plays
// virtual rank j, the other sits out; rank r >= 2 * extra plays virtual rank r - extra.
// `keep_odd` says which member of a pair plays (recursive doubling: the odd one;
// Rabenseifner: the even one).
// FoldedRank: the virtual rank of `rank`, or -1 for the pair member that sits out.
// UnfoldedRank: the rank that plays virtual rank v (0 <= v < pof2).
int64_t FoldedRank(int64_t rank, int64_t n, bool keep_odd);
int64_t UnfoldedRank(int64_t v, int64_t n, bool keep_odd);

// Parents (v > 0; -1 for v == 0) and spans in the trees described above.
int64_t BinomialTreeParent(int64_t v);
int64_t InOrderBinomialTreeParent(int64_t v);
int64_t InOrderBinomialTreeSpan(int64_t v, int64_t p);
int64_t KaryTreeParent(int64_t v, int64_t fanout);    // fanout >= 1
int64_t KnomialTreeParent(int64_t v, int64_t radix);  // radix >= 2
int64_t KnomialTreeSpan(int64_t v, int64_t p, int64_t radix);

// visit(child) for every child of shifted rank v among p ranks, in the order above.
template <typename Visit>
void ForEachBinomialTreeChild(int64_t v, int64_t p, Visit&& visit) {
  int64_t m = 1;
  while (m <= v) m <<= 1;
  for (; v + m < p; m <<= 1) visit(v + m);
}

// visit(child, m): m = child - v, the child's span (its subtree's extent in shifted ranks).
template <typename Visit>
void ForEachInOrderBinomialTreeChild(int64_t v, int64_t p, Visit&& visit) {
  for (int64_t m = InOrderBinomialTreeSpan(v, p) >> 1; m > 0; m >>= 1) {
    if (v + m < p) visit(v + m, m);
  }
}

template <typename Visit>
void ForEachKaryTreeChild(int64_t v, int64_t p, int64_t fanout, Visit&& visit) {
  int64_t level_start = 0, width = 1;  // ranks on the levels above v's, ranks on v's level
  while (level_start + width <= v) {
    level_start += width;
    width *= fanout;
  }
  for (int64_t i = 1; i <= fanout && v + width * i < p; ++i) visit(v + width * i);
}

template <typename Visit>
void ForEachKnomialTreeChild(int64_t v, int64_t p, int64_t radix, Visit&& visit) {
  for (int64_t m = KnomialTreeSpan(v, p, radix) / radix; m > 0; m /= radix) {
    for (int64_t k = 1; k < radix; ++k) {
      if (v + k * m < p) visit(v + k * m);
    }
  }
}

}  // namespace toporr::mapping

#endif  // TOPORR_MAPPING_SCHEDULES_COLLECTIVE_SHAPES_H_

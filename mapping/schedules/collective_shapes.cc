#include "mapping/schedules/collective_shapes.h"

namespace toporr::mapping {

int64_t FloorPowerOfTwo(int64_t n) {
  int64_t p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

int64_t CeilPowerOfTwo(int64_t n) {
  int64_t p = 1;
  while (p < n) p *= 2;
  return p;
}

int Log2Floor(int64_t n) {
  int k = 0;
  while ((int64_t{2} << k) <= n) ++k;
  return k;
}

int Log2Ceil(int64_t n) {
  int k = 0;
  while ((int64_t{1} << k) < n) ++k;
  return k;
}

int64_t FoldedRank(int64_t rank, int64_t n, bool keep_odd) {
  const int64_t extra = n - FloorPowerOfTwo(n);
  if (rank >= 2 * extra) return rank - extra;
  return (rank % 2 != 0) == keep_odd ? rank / 2 : -1;
}

int64_t UnfoldedRank(int64_t v, int64_t n, bool keep_odd) {
  const int64_t extra = n - FloorPowerOfTwo(n);
  if (v >= extra) return v + extra;
  return 2 * v + (keep_odd ? 1 : 0);
}

int64_t BinomialTreeParent(int64_t v) { return v == 0 ? -1 : v - (int64_t{1} << Log2Floor(v)); }

int64_t InOrderBinomialTreeParent(int64_t v) { return v == 0 ? -1 : v - (v & -v); }

int64_t InOrderBinomialTreeSpan(int64_t v, int64_t p) {
  return v == 0 ? CeilPowerOfTwo(p) : (v & -v);
}

int64_t KaryTreeParent(int64_t v, int64_t fanout) {
  if (v == 0) return -1;
  int64_t level_start = 0, width = 1;
  while (level_start + width <= v) {
    level_start += width;
    width *= fanout;
  }
  // Child i (1-based) of the j-th rank of the level above is the (j + (i - 1) * above)-th
  // rank of this level, `above` being the width of the level above.
  const int64_t above = width / fanout;
  return level_start - above + (v - level_start) % above;
}

int64_t KnomialTreeParent(int64_t v, int64_t radix) {
  if (v == 0) return -1;
  int64_t m = 1;
  while ((v / m) % radix == 0) m *= radix;
  return v - ((v / m) % radix) * m;
}

int64_t KnomialTreeSpan(int64_t v, int64_t p, int64_t radix) {
  int64_t m = 1;
  if (v == 0) {
    while (m < p) m *= radix;
  } else {
    while (v % (radix * m) == 0) m *= radix;
  }
  return m;
}

}  // namespace toporr::mapping

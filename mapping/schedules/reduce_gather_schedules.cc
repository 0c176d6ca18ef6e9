// The reduce and gather family of the schedule generators (generators.h).
#include <algorithm>
#include <cstdint>

#include "mapping/schedules/collective_shapes.h"
#include "mapping/schedules/generators.h"

namespace toporr::mapping::schedules_internal {

// Up the in-order binomial tree (collective_shapes.h): at step k every rank v whose lowest
// set bit is 2^k sends its subtree's blocks to its parent.
void GatherBinomial(const Ctx& ctx, Sink& sink) {
  const int64_t p = ctx.p, c = ctx.count;
  for (int64_t m = 1; m < p; m <<= 1) {
    for (int64_t v = m; v < p; v += 2 * m) {
      sink.Add(ctx.Real(v), ctx.Real(InOrderBinomialTreeParent(v)), ctx.Real(v) * c,
               std::min(m, p - v) * c, Combine::kCopy);
    }
    sink.Flush();
  }
}

void ReduceBinomial(const Ctx& ctx, Sink& sink) {
  const int64_t p = ctx.p;
  const int64_t segcount = SegmentCount(ctx.spec.segment_bytes, ctx.spec.type_size, ctx.count);
  const int64_t nseg = (ctx.count + segcount - 1) / segcount;
  // In-order binomial tree (collective_shapes.h); a node with lowest set bit 2^k reduces
  // into its parent at stage k. Edges are stored parent->child and reversed on emission.
  StagedEdges se;
  for (int64_t m = 1, k = 0; m < p; m <<= 1, ++k) {
    se.by_stage.emplace_back();
    for (int64_t v = m; v < p; v += 2 * m) {
      se.by_stage[k].push_back(
          {static_cast<int32_t>(InOrderBinomialTreeParent(v)), static_cast<int32_t>(v)});
    }
  }
  RunWavefront(
      ctx, se, nseg, nseg - 1, Combine::kReduce, /*reverse_edges=*/true,
      [&](int64_t, int64_t, int64_t s, int64_t* begin, int64_t* len) {
        *begin = s * segcount;
        *len = s == nseg - 1 ? ctx.count - s * segcount : segcount;
        return true;
      },
      sink);
}

}  // namespace toporr::mapping::schedules_internal

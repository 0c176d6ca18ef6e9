// The allgather family of the schedule generators (generators.h).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "mapping/schedules/generators.h"

namespace toporr::mapping::schedules_internal {

void AllgatherRing(const Ctx& ctx, Sink& sink) {
  const int64_t c = ctx.count;
  RingPass(
      ctx, 0, false, [&](int64_t) { return c; }, [&](int64_t b) { return b * c; }, Combine::kCopy,
      sink);
}

void AllgatherRecursiveDoubling(const Ctx& ctx, Sink& sink) {
  const int64_t p = ctx.p, c = ctx.count;
  std::vector<int64_t> loc(p);
  for (int64_t r = 0; r < p; ++r) loc[r] = r;
  for (int64_t dist = 1; dist < p; dist <<= 1) {
    for (int64_t r = 0; r < p; ++r) sink.Add(r, r ^ dist, loc[r] * c, dist * c, Combine::kCopy);
    sink.Flush();
    for (int64_t r = 0; r < p; ++r)
      if (r > (r ^ dist)) loc[r] -= dist;
  }
}

void AllgatherBruck(const Ctx& ctx, Sink& sink) {
  const int64_t p = ctx.p, c = ctx.count;
  for (int64_t d = 1; d < p; d *= 2) {
    const int64_t blocks = d <= p / 2 ? d : std::min(d, p - d);
    for (int64_t r = 0; r < p; ++r) sink.Add(r, (r - d + p) % p, r * c, blocks * c, Combine::kCopy);
    sink.Flush();
  }
}

}  // namespace toporr::mapping::schedules_internal

// The allreduce family of the schedule generators (generators.h).
#include <cstdint>
#include <utility>
#include <vector>

#include "mapping/schedules/collective_shapes.h"
#include "mapping/schedules/generators.h"
#include "mapping/schedules/swing_schedule.h"

namespace toporr::mapping::schedules_internal {
namespace {

// Recursive doubling and Swing (latency-optimal): full vectors exchanged with
// `peer(v, k)` at step k on the folded virtual ranks (odd members of the first pairs stay).
template <typename Peer>
void AllreduceFullVectorButterfly(const Ctx& ctx, Peer peer, Sink& sink) {
  const int64_t p = ctx.p, m = ctx.count;
  const int64_t adj = FloorPowerOfTwo(p), extra = p - adj;
  for (int64_t r = 0; r < 2 * extra; r += 2) sink.Add(r, r + 1, 0, m, Combine::kReduce);
  sink.Flush();
  for (int k = 0; (int64_t{1} << k) < adj; ++k) {
    for (int64_t r = 0; r < p; ++r) {
      const int64_t v = FoldedRank(r, p, /*keep_odd=*/true);
      if (v < 0) continue;
      sink.Add(r, UnfoldedRank(peer(v, k), p, true), 0, m, Combine::kReduce);
    }
    sink.Flush();
  }
  for (int64_t r = 1; r < 2 * extra; r += 2) sink.Add(r, r - 1, 0, m, Combine::kCopy);
  sink.Flush();
}

// Rabenseifner and Swing (bandwidth-optimal): reduce-scatter by recursive halving with
// `peer(v, k)` at step k, then allgather over the same peers in reverse, on the folded
// virtual ranks (pairs trade halves, the even member stays). `key(v)` selects the windows:
// peer(v, k) must have a key that agrees with key(v) on bits < k and differs in bit k.
template <typename Peer, typename Key>
void AllreduceHalvingButterfly(const Ctx& ctx, Peer peer, Key key, Sink& sink) {
  const int64_t p = ctx.p, count = ctx.count;
  const int64_t pof2 = FloorPowerOfTwo(p), rem = p - pof2;
  const int nsteps = Log2Floor(pof2);
  const int64_t lhalf = count / 2, rhalf = count - lhalf;
  for (int64_t r = 0; r < 2 * rem; ++r) {
    if (r % 2 != 0) {
      sink.Add(r, r - 1, 0, lhalf, Combine::kReduce);
    } else {
      sink.Add(r, r + 1, lhalf, rhalf, Combine::kReduce);
    }
  }
  sink.Flush();
  for (int64_t r = 1; r < 2 * rem; r += 2) sink.Add(r, r - 1, lhalf, rhalf, Combine::kCopy);
  sink.Flush();
  // Windows after k halvings depend only on the low k bits of vrank: level k holds 2^k
  // (start, size) windows indexed by vrank mod 2^k. Bit 0 keeps the left half.
  std::vector<std::vector<std::pair<int64_t, int64_t>>> win(nsteps + 1);
  win[0] = {{0, count}};
  for (int k = 0; k < nsteps; ++k) {
    const int64_t n = int64_t{1} << k;
    win[k + 1].resize(2 * n);
    for (int64_t key = 0; key < n; ++key) {
      const auto [start, size] = win[k][key];
      win[k + 1][key] = {start, size / 2};
      win[k + 1][key + n] = {start + size / 2, size - size / 2};
    }
  }
  auto real = [&](int64_t v) { return UnfoldedRank(v, p, /*keep_odd=*/false); };
  for (int k = 0; k < nsteps; ++k) {  // reduce-scatter, distance doubling
    const int64_t mask = int64_t{1} << k;
    for (int64_t v = 0; v < pof2; ++v) {
      const int64_t q = peer(v, k);
      const auto [start, size] = win[k + 1][key(q) & (2 * mask - 1)];
      sink.Add(real(v), real(q), start, size, Combine::kReduce);
    }
    sink.Flush();
  }
  for (int k = nsteps - 1; k >= 0; --k) {  // allgather, distance halving
    const int64_t mask = int64_t{1} << k;
    for (int64_t v = 0; v < pof2; ++v) {
      const auto [start, size] = win[k + 1][key(v) & (2 * mask - 1)];
      sink.Add(real(v), real(peer(v, k)), start, size, Combine::kCopy);
    }
    sink.Flush();
  }
  for (int64_t r = 0; r < 2 * rem; r += 2) sink.Add(r, r + 1, 0, count, Combine::kCopy);
  sink.Flush();
}

int64_t XorPeer(int64_t v, int k) { return v ^ (int64_t{1} << k); }

}  // namespace

void AllreduceRing(const Ctx& ctx, Sink& sink) {
  const Blocks blocks(ctx.count, ctx.p);
  auto len = [&](int64_t b) { return blocks.Len(b); };
  auto off = [&](int64_t b) { return blocks.Offset(b); };
  RingPass(ctx, 0, false, len, off, Combine::kReduce, sink);  // reduce-scatter
  RingPass(ctx, 1, false, len, off, Combine::kCopy, sink);    // allgather
}

void AllreduceSegmentedRing(const Ctx& ctx, Sink& sink) {
  const int64_t p = ctx.p, count = ctx.count;
  const int64_t segcount = SegmentCount(ctx.spec.segment_bytes, ctx.spec.type_size, count);
  int64_t num_phases = count / (p * segcount);
  const int64_t rest = count % (p * segcount);
  if (rest >= p && rest > (p * segcount) / 2) ++num_phases;
  const Blocks blocks(count, p);
  for (int64_t phase = 0; phase < num_phases; ++phase) {
    auto slice_len = [&](int64_t b) { return Blocks(blocks.Len(b), num_phases).Len(phase); };
    auto slice_off = [&](int64_t b) {
      return blocks.Offset(b) + Blocks(blocks.Len(b), num_phases).Offset(phase);
    };
    RingPass(ctx, 0, false, slice_len, slice_off, Combine::kReduce, sink);
  }
  auto len = [&](int64_t b) { return blocks.Len(b); };
  auto off = [&](int64_t b) { return blocks.Offset(b); };
  RingPass(ctx, 1, false, len, off, Combine::kCopy, sink);
}

void AllreduceRecursiveDoubling(const Ctx& ctx, Sink& sink) {
  AllreduceFullVectorButterfly(ctx, XorPeer, sink);
}

void AllreduceRabenseifner(const Ctx& ctx, Sink& sink) {
  AllreduceHalvingButterfly(
      ctx, XorPeer, [](int64_t v) { return v; }, sink);
}

void AllreduceSwing(const Ctx& ctx, Sink& sink) {
  const int64_t pof2 = FloorPowerOfTwo(ctx.p);
  AllreduceFullVectorButterfly(
      ctx, [pof2](int64_t v, int k) { return SwingPeer(v, k, pof2); }, sink);
}

void AllreduceSwingBandwidth(const Ctx& ctx, Sink& sink) {
  const int64_t pof2 = FloorPowerOfTwo(ctx.p);
  AllreduceHalvingButterfly(
      ctx, [pof2](int64_t v, int k) { return SwingPeer(v, k, pof2); },
      [pof2](int64_t v) { return SwingBlockKey(v, pof2); }, sink);
}

}  // namespace toporr::mapping::schedules_internal

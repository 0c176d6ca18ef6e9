// Building blocks of the schedule generators (generators.h): the Sink that collects a step's
// transfers and folds runs of identical steps, Open MPI's block and segment arithmetic, and
// the two drivers several families share — the pipelined wavefront over staged tree edges
// and the ring pass. Internal to mapping/schedules (the data model is pattern.h's).
#ifndef TOPORR_MAPPING_SCHEDULES_STEP_BUILDER_H_
#define TOPORR_MAPPING_SCHEDULES_STEP_BUILDER_H_

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "mapping/schedules/pattern.h"

namespace toporr::mapping::schedules_internal {

// Open MPI's rectify_diff: a - b if a > b, else 0.
inline int64_t Rectify(int64_t a, int64_t b) { return a > b ? a - b : 0; }

// COLL_BASE_COMPUTED_SEGCOUNT with SEGCOUNT starting at `count`.
int64_t SegmentCount(int64_t segment_bytes, int64_t type_size, int64_t count);

// COLL_BASE_COMPUTE_BLOCKCOUNT: `num` blocks of `count`; blocks < split are one larger.
struct Blocks {
  int64_t early = 0, late = 0, split = 0;
  Blocks(int64_t count, int64_t num)
      : early(count / num + (count % num != 0 ? 1 : 0)), late(count / num), split(count % num) {}
  int64_t Len(int64_t b) const { return b < split ? early : late; }
  int64_t Offset(int64_t b) const { return b < split ? b * early : b * late + split; }
};

// Collects transfers of one step and hands finished steps to the visitor. In folded mode it
// merges a step into the previous one when peers and sizes are identical.
class Sink {
 public:
  Sink(const PatternSpec& spec, bool exact, const StepVisitor& visit)
      : type_size_(spec.type_size), exact_(exact), visit_(visit) {}

  bool exact() const { return exact_; }

  void Add(int64_t src, int64_t dst, int64_t elem_begin, int64_t elem_count, Combine c) {
    Transfer t;
    t.src = static_cast<int32_t>(src);
    t.dst = static_cast<int32_t>(dst);
    t.bytes = elem_count * type_size_;
    t.total_bytes = t.bytes;
    t.elem_begin = elem_begin;
    t.elem_count = exact_ ? elem_count : -1;
    t.combine = c;
    current_.transfers.push_back(t);
  }

  // A transfer of a step that will be flushed with repeat k: `max_elems` in the largest
  // repetition, `total_elems` over all k. Folded mode only.
  void AddFolded(int64_t src, int64_t dst, int64_t max_elems, int64_t total_elems, Combine c) {
    Add(src, dst, 0, max_elems, c);
    current_.transfers.back().total_bytes = total_elems * type_size_;
    explicit_totals_ = true;
  }

  // Ends the current step, `repeat` consecutive times; a step without transfers is dropped.
  void Flush(int64_t repeat = 1);
  // Ends the schedule: flushes, then hands over the step held back for folding.
  void Finish();

 private:
  static bool SameShape(const Step& a, const Step& b);

  const int64_t type_size_;
  const bool exact_;
  const StepVisitor& visit_;
  Step current_;
  Step pending_;
  bool has_pending_ = false;
  bool explicit_totals_ = false;  // current_ was filled by AddFolded
};

// Shared context of a generator: sizes and the shifted<->real rank map.
struct Ctx {
  int64_t p;
  int64_t root;
  int64_t count;
  const PatternSpec& spec;
  int64_t Real(int64_t v) const { return (v + root) % p; }
};

// Tree edges grouped by the stage (depth of the sending parent) for the pipelined drivers.
struct StagedEdges {
  std::vector<std::vector<std::pair<int32_t, int32_t>>> by_stage;  // (parent, child) shifted
};

// Pipelined wavefront: segment s leaves stage d at step s + d. `segment(parent, child, s,
// &begin, &len)` returns false when that edge has no segment s. Segments
// 0..full_segments-1 have the same size on every edge, so the steady-state steps (every
// stage busy with one of them) are identical and folded in non-exact mode.
template <typename SegmentFn>
void RunWavefront(const Ctx& ctx, const StagedEdges& se, int64_t num_segments,
                  int64_t full_segments, Combine combine, bool reverse_edges, SegmentFn segment,
                  Sink& sink) {
  const int64_t stages = static_cast<int64_t>(se.by_stage.size());
  if (stages == 0 || num_segments == 0) return;
  const int64_t last_step = num_segments + stages - 2;
  for (int64_t t = 0; t <= last_step; ++t) {
    int64_t repeat = 1;
    // Steady state: t in [stages-1, full_segments-1].
    if (!sink.exact() && t == stages - 1 && full_segments - 1 > t) {
      repeat = full_segments - t;
    }
    const int64_t d_lo = std::max<int64_t>(0, t - num_segments + 1);
    const int64_t d_hi = std::min(t, stages - 1);
    for (int64_t d = d_lo; d <= d_hi; ++d) {
      for (const auto& [parent, child] : se.by_stage[d]) {
        int64_t begin = 0, len = 0;
        if (!segment(parent, child, t - d, &begin, &len)) continue;
        if (reverse_edges) {
          sink.Add(ctx.Real(child), ctx.Real(parent), begin, len, combine);
        } else {
          sink.Add(ctx.Real(parent), ctx.Real(child), begin, len, combine);
        }
      }
    }
    sink.Flush(repeat);
    t += repeat - 1;
  }
}

// Ring pass over p blocks, p-1 steps, every rank sending to its right neighbour (real r+1):
// at step t rank r sends block (me + first_shift - t) mod p, me = r or its shifted rank.
// `len(b)`, `off(b)` describe block b.
template <typename Len, typename Off>
void RingPass(const Ctx& ctx, int64_t first_shift, bool shifted_blocks, Len len, Off off,
              Combine combine, Sink& sink) {
  const int64_t p = ctx.p;
  auto block_of = [&](int64_t r, int64_t t) {
    const int64_t me = shifted_blocks ? (r - ctx.root + p) % p : r;
    return ((me + first_shift - t) % p + p) % p;
  };
  if (sink.exact()) {
    for (int64_t t = 0; t < p - 1; ++t) {
      for (int64_t r = 0; r < p; ++r) {
        const int64_t b = block_of(r, t);
        sink.Add(r, (r + 1) % p, off(b), len(b), combine);
      }
      sink.Flush();
    }
    return;
  }
  // Every caller's blocks are non-increasing in b (early blocks first), so the largest block
  // a rank sends is block 0 unless block 0 is the one it never sends.
  int64_t total = 0;
  for (int64_t b = 0; b < p; ++b) total += len(b);
  for (int64_t r = 0; r < p; ++r) {
    const int64_t excluded = block_of(r, p - 1);
    const int64_t max_len = excluded == 0 ? len(1) : len(0);
    sink.AddFolded(r, (r + 1) % p, max_len, total - len(excluded), combine);
  }
  sink.Flush(p - 1);
}

}  // namespace toporr::mapping::schedules_internal

#endif  // TOPORR_MAPPING_SCHEDULES_STEP_BUILDER_H_

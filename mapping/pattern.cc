#include "mapping/pattern.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "mapping/collective_shapes.h"
#include "mapping/swing_schedule.h"

namespace toporr::mapping {
namespace {

constexpr std::array<std::pair<Algorithm, std::string_view>, 17> kAlgorithmNames = {{
    {Algorithm::kRing, "ring"},
    {Algorithm::kSegmentedRing, "segmented_ring"},
    {Algorithm::kRecursiveDoubling, "recursive_doubling"},
    {Algorithm::kRabenseifner, "rabenseifner"},
    {Algorithm::kBruck, "bruck"},
    {Algorithm::kBinomial, "binomial"},
    {Algorithm::kBinaryTree, "binary_tree"},
    {Algorithm::kSplitBinaryTree, "split_binary_tree"},
    {Algorithm::kKnomial, "knomial"},
    {Algorithm::kChain, "chain"},
    {Algorithm::kPipeline, "pipeline"},
    {Algorithm::kScatterAllgather, "scatter_allgather"},
    {Algorithm::kScatterAllgatherRing, "scatter_allgather_ring"},
    {Algorithm::kLinear, "linear"},
    {Algorithm::kSwing, "swing"},
    {Algorithm::kSwingBandwidth, "swing_bandwidth"},
    {Algorithm::kBine, "bine"},
}};

constexpr std::array<std::pair<Collective, std::string_view>, 5> kCollectiveNames = {{
    {Collective::kAllreduce, "allreduce"},
    {Collective::kBcast, "bcast"},
    {Collective::kAllgather, "allgather"},
    {Collective::kGather, "gather"},
    {Collective::kReduce, "reduce"},
}};

template <typename E, size_t N>
std::string_view NameOf(const std::array<std::pair<E, std::string_view>, N>& table, E e) {
  for (const auto& [value, name] : table)
    if (value == e) return name;
  return "unknown";
}

template <typename E, size_t N>
absl::StatusOr<E> ParseName(const std::array<std::pair<E, std::string_view>, N>& table,
                            std::string_view name, const char* what) {
  std::vector<std::string> names;
  for (const auto& [value, n] : table) {
    if (n == name) return value;
    names.emplace_back(n);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown ", what, " \"", std::string(name),
                   "\"; expected one of: ", absl::StrJoin(names, ", ")));
}

// Open MPI's rectify_diff: a - b if a > b, else 0.
int64_t Rectify(int64_t a, int64_t b) { return a > b ? a - b : 0; }

// COLL_BASE_COMPUTED_SEGCOUNT with SEGCOUNT starting at `count`.
int64_t SegmentCount(int64_t segment_bytes, int64_t type_size, int64_t count) {
  int64_t segcount = count;
  if (segment_bytes >= type_size && segment_bytes < type_size * count) {
    segcount = segment_bytes / type_size;
    const int64_t residual = segment_bytes - segcount * type_size;
    if (residual > (type_size >> 1)) ++segcount;
  }
  return segcount;
}

// COLL_BASE_COMPUTE_BLOCKCOUNT: `num` blocks of `count`; blocks < split are one larger.
struct Blocks {
  int64_t early = 0, late = 0, split = 0;
  Blocks(int64_t count, int64_t num)
      : early(count / num + (count % num != 0 ? 1 : 0)), late(count / num), split(count % num) {}
  int64_t Len(int64_t b) const { return b < split ? early : late; }
  int64_t Offset(int64_t b) const { return b < split ? b * early : b * late + split; }
  // Largest block among all blocks except `excluded` (num >= 2).
  int64_t MaxExcept(int64_t excluded, int64_t num) const {
    const int64_t early_blocks = split - (excluded < split ? 1 : 0);
    return early_blocks > 0 ? early : (num - split - (excluded >= split ? 1 : 0) > 0 ? late : 0);
  }
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

  void Flush(int64_t repeat = 1) {
    if (current_.transfers.empty()) return;
    current_.repeat = repeat;
    if (!explicit_totals_ && repeat > 1) {
      for (Transfer& t : current_.transfers) t.total_bytes = t.bytes * repeat;
    }
    explicit_totals_ = false;
    if (exact_) {
      visit_(current_);
      current_.transfers.clear();
      return;
    }
    if (has_pending_ && SameShape(pending_, current_)) {
      pending_.repeat += current_.repeat;
      for (size_t i = 0; i < pending_.transfers.size(); ++i)
        pending_.transfers[i].total_bytes += current_.transfers[i].total_bytes;
      current_.transfers.clear();
      return;
    }
    if (has_pending_) visit_(pending_);
    std::swap(pending_, current_);
    has_pending_ = true;
    current_.transfers.clear();
  }

  void Finish() {
    Flush();
    if (has_pending_) visit_(pending_);
    has_pending_ = false;
  }

 private:
  static bool SameShape(const Step& a, const Step& b) {
    if (a.transfers.size() != b.transfers.size()) return false;
    for (size_t i = 0; i < a.transfers.size(); ++i) {
      const Transfer& x = a.transfers[i];
      const Transfer& y = b.transfers[i];
      if (x.src != y.src || x.dst != y.dst || x.bytes != y.bytes) return false;
    }
    return true;
  }

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

// ---------------------------------------------------------------- trees (coll_base_topo.c)

// Children lists of all shifted ranks, in Open MPI's order (collective_shapes.h), as CSR.
struct Tree {
  std::vector<int64_t> first;  // size p+1
  std::vector<int32_t> child;  // shifted ranks
  int64_t NumChildren(int64_t v) const { return first[v + 1] - first[v]; }
};

template <typename ChildrenOf>
Tree BuildTree(int64_t p, ChildrenOf children_of) {
  Tree t;
  t.first.reserve(p + 1);
  t.first.push_back(0);
  for (int64_t v = 0; v < p; ++v) {
    children_of(v, [&](int64_t c) { t.child.push_back(static_cast<int32_t>(c)); });
    t.first.push_back(static_cast<int64_t>(t.child.size()));
  }
  return t;
}

Tree KaryTree(int64_t p, int64_t fanout) {
  return BuildTree(p, [&](int64_t v, auto add) { ForEachKaryTreeChild(v, p, fanout, add); });
}

Tree BinomialTree(int64_t p) {
  return BuildTree(p, [&](int64_t v, auto add) { ForEachBinomialTreeChild(v, p, add); });
}

Tree KnomialTree(int64_t p, int64_t radix) {
  return BuildTree(p, [&](int64_t v, auto add) { ForEachKnomialTreeChild(v, p, radix, add); });
}

// build_chain(fanout): `fanout` chains of consecutive shifted ranks hanging off the root.
Tree ChainTree(int64_t p, int64_t fanout) {
  fanout = std::clamp<int64_t>(fanout, 1, 32);  // MAXTREEFANOUT
  if (p - 1 < fanout) fanout = p - 1;
  std::vector<int64_t> heads;
  std::vector<char> is_tail(p, 0);
  if (fanout >= 1) {
    int64_t len_max = (p - 1) / fanout, mark = fanout + 1;
    if ((p - 1) % fanout != 0) {
      ++len_max;
      mark = (p - 1) % fanout;
    }
    int64_t head = 1;
    for (int64_t i = 0; i < fanout; ++i) {
      const int64_t len = i < mark ? len_max : len_max - 1;
      heads.push_back(head);
      is_tail[head + len - 1] = 1;
      head += len;
    }
  }
  return BuildTree(p, [&](int64_t v, auto add) {
    if (v == 0) {
      for (int64_t h : heads) add(h);
    } else if (!is_tail[v] && v + 1 < p) {
      add(v + 1);
    }
  });
}

// Tree edges grouped by the stage (depth of the sending parent) for the pipelined drivers.
struct StagedEdges {
  std::vector<std::vector<std::pair<int32_t, int32_t>>> by_stage;  // (parent, child) shifted
};

StagedEdges StageByDepth(const Tree& t, int64_t p) {
  StagedEdges s;
  std::vector<int32_t> depth(p, 0);
  // Children always have larger shifted ranks than their parent in every Open MPI tree
  // builder, so one increasing sweep sees parents first.
  for (int64_t v = 0; v < p; ++v) {
    const int64_t n = t.NumChildren(v);
    if (n == 0) continue;
    if (static_cast<int64_t>(s.by_stage.size()) <= depth[v]) s.by_stage.resize(depth[v] + 1);
    for (int64_t i = t.first[v]; i < t.first[v + 1]; ++i) {
      const int32_t c = t.child[i];
      depth[c] = depth[v] + 1;
      s.by_stage[depth[v]].push_back({static_cast<int32_t>(v), c});
    }
  }
  return s;
}

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

// ----------------------------------------------------------------------------- bcast

void BcastTree(const Ctx& ctx, const Tree& tree, Sink& sink) {
  const int64_t segcount = SegmentCount(ctx.spec.segment_bytes, ctx.spec.type_size, ctx.count);
  const int64_t nseg = (ctx.count + segcount - 1) / segcount;
  const StagedEdges se = StageByDepth(tree, ctx.p);
  RunWavefront(
      ctx, se, nseg, nseg - 1, Combine::kCopy, /*reverse_edges=*/false,
      [&](int64_t, int64_t, int64_t s, int64_t* begin, int64_t* len) {
        *begin = s * segcount;
        *len = s == nseg - 1 ? ctx.count - s * segcount : segcount;
        return true;
      },
      sink);
}

void BcastLinear(const Ctx& ctx, Sink& sink) {
  for (int64_t v = 1; v < ctx.p; ++v) sink.Add(ctx.root, ctx.Real(v), 0, ctx.count, Combine::kCopy);
  sink.Flush();
}

void BcastSplitBinaryTree(const Ctx& ctx, Sink& sink) {
  const int64_t ts = ctx.spec.type_size;
  const std::array<int64_t, 2> counts = {ctx.count - ctx.count / 2, ctx.count / 2};
  std::array<int64_t, 2> segcount = counts, nseg = {1, 1};
  if (ctx.spec.segment_bytes > 0) {
    const int64_t segsize = std::max<int64_t>(ctx.spec.segment_bytes, ts);
    for (int i = 0; i < 2; ++i) {
      segcount[i] = segsize / ts;
      nseg[i] = (counts[i] + segcount[i] - 1) / segcount[i];
    }
  }
  const Tree tree = KaryTree(ctx.p, 2);
  const StagedEdges se = StageByDepth(tree, ctx.p);
  const std::array<int64_t, 2> base = {0, counts[0]};
  // The half an edge carries is the "lr" of its child: odd shifted ranks are left (0).
  const int64_t full = nseg[0] == 1 ? 0 : std::min(nseg[0], nseg[1]) - 1;
  RunWavefront(
      ctx, se, std::max(nseg[0], nseg[1]), full, Combine::kCopy, false,
      [&](int64_t, int64_t child, int64_t s, int64_t* begin, int64_t* len) {
        const int lr = static_cast<int>((child + 1) % 2);
        if (s >= nseg[lr]) return false;
        *begin = base[lr] + s * segcount[lr];
        *len = s == nseg[lr] - 1 ? counts[lr] - s * segcount[lr] : segcount[lr];
        return true;
      },
      sink);
  // Step 2: exchange halves with the twin node of the other subtree.
  for (int64_t v = 1; v < ctx.p; ++v) {
    const int lr = static_cast<int>((v + 1) % 2);
    const int64_t r = ctx.Real(v);
    if (ctx.p % 2 == 0 && v == ctx.p - 1) continue;  // receives half 1 from the root
    const int64_t pair = lr == 0 ? (r + 1) % ctx.p : (r + ctx.p - 1) % ctx.p;
    sink.Add(r, pair, base[lr], counts[lr], Combine::kCopy);
  }
  if (ctx.p % 2 == 0) sink.Add(ctx.root, ctx.Real(ctx.p - 1), base[1], counts[1], Combine::kCopy);
  sink.Flush();
}

// Binomial scatter of ceil(count/p)-element blocks (shared by both scatter_allgather
// variants). Leaves `curr[v]` = elements v holds and `recv_var[v]` = Open MPI's recv_count
// variable (an upper bound for non-roots), which the non-pof2 allgather fix-up reuses.
void BinomialScatter(const Ctx& ctx, int64_t sc, std::vector<int64_t>* curr,
                     std::vector<int64_t>* recv_var, Sink& sink) {
  const int64_t p = ctx.p;
  curr->assign(p, 0);
  recv_var->assign(p, 0);
  (*curr)[0] = ctx.count;
  for (int64_t v = 1; v < p; ++v) (*recv_var)[v] = Rectify(ctx.count, v * sc);
  // Down the in-order binomial tree (collective_shapes.h), largest subtrees first: at the
  // step of span m every rank c whose lowest set bit is m gets its subtree's blocks.
  for (int64_t m = InOrderBinomialTreeSpan(0, p) >> 1; m > 0; m >>= 1) {
    for (int64_t c = m; c < p; c += 2 * m) {
      const int64_t v = InOrderBinomialTreeParent(c);
      const int64_t send = Rectify((*curr)[v], sc * m);
      if (send == 0) continue;
      sink.Add(ctx.Real(v), ctx.Real(c), c * sc, send, Combine::kCopy);
      (*curr)[v] -= send;
      (*curr)[c] = send;
    }
    sink.Flush();
  }
}

void BcastScatterAllgather(const Ctx& ctx, Sink& sink) {
  const int64_t p = ctx.p;
  const int64_t sc = (ctx.count + p - 1) / p;
  std::vector<int64_t> curr, recv_var;
  BinomialScatter(ctx, sc, &curr, &recv_var, sink);
  for (int64_t v = 0; v < p; ++v) curr[v] = std::min(sc, Rectify(ctx.count, v * sc));
  std::vector<int64_t> got(p, 0);
  for (int64_t mask = 1; mask < p; mask <<= 1) {
    for (int64_t v = 0; v < p; ++v) {
      const int64_t vremote = v ^ mask;
      if (vremote >= p) continue;
      sink.Add(ctx.Real(v), ctx.Real(vremote), (v / mask) * mask * sc, curr[v], Combine::kCopy);
    }
    sink.Flush();
    for (int64_t v = 0; v < p; ++v) got[v] = (v ^ mask) < p ? curr[v ^ mask] : -1;
    for (int64_t v = 0; v < p; ++v) {
      if (got[v] < 0) continue;
      curr[v] += got[v];
      recv_var[v] = got[v];
    }
    // Non-power-of-two: groups whose partner group is truncated forward the received data
    // by recursive halving. Only the group facing the last (partial) group and the last
    // group itself can qualify.
    const int64_t last_group = ((p - 1) / mask) * mask;
    std::array<int64_t, 2> groups = {last_group ^ mask, last_group};
    for (int64_t rh = mask >> 1; rh > 0; rh >>= 1) {
      for (int gi = 0; gi < 2; ++gi) {
        const int64_t vtr = groups[gi];
        if (vtr >= p) continue;
        const int64_t vremote_tr = vtr ^ mask;
        if (vremote_tr + mask <= p) continue;
        const int64_t alldata = p - vtr - mask;
        for (int64_t v = vtr; v < std::min(vtr + mask, p); ++v) {
          const int64_t vremote = v ^ rh;
          const int64_t tree_root = (v / (rh << 1)) * (rh << 1);
          if (vremote > v && v < tree_root + alldata && vremote >= tree_root + alldata &&
              vremote < p) {
            sink.Add(ctx.Real(v), ctx.Real(vremote), sc * (vtr + mask), recv_var[v],
                     Combine::kCopy);
            recv_var[vremote] = recv_var[v];
            curr[vremote] += recv_var[v];
          }
        }
      }
      sink.Flush();
    }
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

void BcastScatterAllgatherRing(const Ctx& ctx, Sink& sink) {
  const int64_t p = ctx.p;
  const int64_t sc = (ctx.count + p - 1) / p;
  std::vector<int64_t> curr, recv_var;
  BinomialScatter(ctx, sc, &curr, &recv_var, sink);
  auto len = [&](int64_t b) { return std::min(sc, Rectify(ctx.count, b * sc)); };
  auto off = [&](int64_t b) { return b * sc; };
  RingPass(ctx, 0, /*shifted_blocks=*/true, len, off, Combine::kCopy, sink);
}

// Bine tree (swing_schedule.h): stage t carries the tree edges into the ranks reached at t.
void BcastBine(const Ctx& ctx, Sink& sink) {
  const BineTree tree = BineBcastTree(ctx.p);
  std::vector<std::vector<int32_t>> by_stage(tree.num_stages);
  for (int64_t v = 1; v < ctx.p; ++v) by_stage[tree.stage[v]].push_back(static_cast<int32_t>(v));
  for (const std::vector<int32_t>& reached : by_stage) {
    for (int32_t v : reached) {
      sink.Add(ctx.Real(tree.parent[v]), ctx.Real(v), 0, ctx.count, Combine::kCopy);
    }
    sink.Flush();
  }
}

// -------------------------------------------------------------------------- allreduce

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

void AllreduceRing(const Ctx& ctx, Sink& sink) {
  const Blocks blocks(ctx.count, ctx.p);
  auto len = [&](int64_t b) { return blocks.Len(b); };
  auto off = [&](int64_t b) { return blocks.Offset(b); };
  RingPass(ctx, 0, false, len, off, Combine::kReduce, sink);  // reduce-scatter
  RingPass(ctx, 1, false, len, off, Combine::kCopy, sink);    // allgather
}

void AllreduceSegmentedRing(const Ctx& ctx, int64_t segcount, Sink& sink) {
  const int64_t p = ctx.p, count = ctx.count;
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

// -------------------------------------------------------------------------- allgather

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

// ------------------------------------------------------------------- gather / reduce

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

bool Implements(Collective c, Algorithm a) {
  const std::vector<Algorithm> algs = AlgorithmsFor(c);
  return std::find(algs.begin(), algs.end(), a) != algs.end() ||
         (c == Collective::kBcast && a == Algorithm::kLinear);
}

absl::Status Generate(const PatternSpec& spec, bool exact, const StepVisitor& visit) {
  if (absl::Status s = ValidateSpec(spec); !s.ok()) return s;
  if (spec.num_ranks == 1) return absl::OkStatus();
  Sink sink(spec, exact, visit);
  const Ctx ctx{spec.num_ranks, spec.root, spec.count, spec};
  const int64_t p = ctx.p;
  const int64_t pof2 = FloorPowerOfTwo(p);
  auto xor_peer = [](int64_t v, int k) { return v ^ (int64_t{1} << k); };
  auto swing_peer = [pof2](int64_t v, int k) { return SwingPeer(v, k, pof2); };
  switch (EffectiveAlgorithm(spec)) {
    case Algorithm::kRing:
      if (spec.collective == Collective::kAllgather) {
        AllgatherRing(ctx, sink);
      } else {
        AllreduceRing(ctx, sink);
      }
      break;
    case Algorithm::kSegmentedRing:
      AllreduceSegmentedRing(ctx, SegmentCount(spec.segment_bytes, spec.type_size, spec.count),
                             sink);
      break;
    case Algorithm::kRecursiveDoubling:
      if (spec.collective == Collective::kAllgather) {
        AllgatherRecursiveDoubling(ctx, sink);
      } else {
        AllreduceFullVectorButterfly(ctx, xor_peer, sink);
      }
      break;
    case Algorithm::kRabenseifner:
      AllreduceHalvingButterfly(
          ctx, xor_peer, [](int64_t v) { return v; }, sink);
      break;
    case Algorithm::kSwing:
      AllreduceFullVectorButterfly(ctx, swing_peer, sink);
      break;
    case Algorithm::kSwingBandwidth:
      AllreduceHalvingButterfly(
          ctx, swing_peer, [pof2](int64_t v) { return SwingBlockKey(v, pof2); }, sink);
      break;
    case Algorithm::kBine:
      BcastBine(ctx, sink);
      break;
    case Algorithm::kBruck:
      AllgatherBruck(ctx, sink);
      break;
    case Algorithm::kBinomial:
      if (spec.collective == Collective::kGather) {
        GatherBinomial(ctx, sink);
      } else if (spec.collective == Collective::kReduce) {
        ReduceBinomial(ctx, sink);
      } else {
        BcastTree(ctx, BinomialTree(p), sink);
      }
      break;
    case Algorithm::kBinaryTree:
      BcastTree(ctx, KaryTree(p, 2), sink);
      break;
    case Algorithm::kSplitBinaryTree:
      BcastSplitBinaryTree(ctx, sink);
      break;
    case Algorithm::kKnomial:
      BcastTree(ctx, KnomialTree(p, spec.radix), sink);
      break;
    case Algorithm::kChain:
      BcastTree(ctx, ChainTree(p, spec.chain_fanout), sink);
      break;
    case Algorithm::kPipeline:
      BcastTree(ctx, ChainTree(p, 1), sink);
      break;
    case Algorithm::kScatterAllgather:
      BcastScatterAllgather(ctx, sink);
      break;
    case Algorithm::kScatterAllgatherRing:
      BcastScatterAllgatherRing(ctx, sink);
      break;
    case Algorithm::kLinear:
      BcastLinear(ctx, sink);
      break;
  }
  sink.Finish();
  return absl::OkStatus();
}

}  // namespace

std::string_view AlgorithmName(Algorithm a) { return NameOf(kAlgorithmNames, a); }
std::string_view CollectiveName(Collective c) { return NameOf(kCollectiveNames, c); }

absl::StatusOr<Algorithm> ParseAlgorithm(std::string_view name) {
  return ParseName(kAlgorithmNames, name, "algorithm");
}

absl::StatusOr<Collective> ParseCollective(std::string_view name) {
  return ParseName(kCollectiveNames, name, "collective");
}

std::vector<Algorithm> AlgorithmsFor(Collective c) {
  switch (c) {
    case Collective::kAllreduce:
      return {Algorithm::kRing,         Algorithm::kSegmentedRing, Algorithm::kRecursiveDoubling,
              Algorithm::kRabenseifner, Algorithm::kSwing,         Algorithm::kSwingBandwidth};
    case Collective::kBcast:
      return {Algorithm::kBinomial,
              Algorithm::kBinaryTree,
              Algorithm::kSplitBinaryTree,
              Algorithm::kKnomial,
              Algorithm::kChain,
              Algorithm::kPipeline,
              Algorithm::kScatterAllgather,
              Algorithm::kScatterAllgatherRing,
              Algorithm::kBine};
    case Collective::kAllgather:
      return {Algorithm::kRing, Algorithm::kRecursiveDoubling, Algorithm::kBruck};
    case Collective::kGather:
    case Collective::kReduce:
      return {Algorithm::kBinomial};
  }
  return {};
}

absl::Status ValidateSpec(const PatternSpec& spec) {
  constexpr int64_t kMaxRanks = int64_t{1} << 24;
  if (spec.num_ranks < 1 || spec.num_ranks > kMaxRanks)
    return absl::InvalidArgumentError(
        absl::StrCat("num_ranks ", spec.num_ranks, " out of range [1, ", kMaxRanks, "]"));
  if (spec.root < 0 || spec.root >= spec.num_ranks)
    return absl::InvalidArgumentError(
        absl::StrCat("root ", spec.root, " out of range [0, ", spec.num_ranks, ")"));
  if (spec.count < 1)
    return absl::InvalidArgumentError(absl::StrCat("count ", spec.count, " must be >= 1"));
  if (spec.type_size < 1)
    return absl::InvalidArgumentError(absl::StrCat("type_size ", spec.type_size, " must be >= 1"));
  if (spec.radix < 2)
    return absl::InvalidArgumentError(absl::StrCat("radix ", spec.radix, " must be >= 2"));
  if (spec.chain_fanout < 1)
    return absl::InvalidArgumentError(
        absl::StrCat("chain_fanout ", spec.chain_fanout, " must be >= 1"));
  if (spec.segment_bytes < 0)
    return absl::InvalidArgumentError(
        absl::StrCat("segment_bytes ", spec.segment_bytes, " must be >= 0"));
  // Bytes of the whole data space must fit comfortably in int64 (totals add up to p times).
  const long double space =
      static_cast<long double>(spec.count) * spec.type_size * spec.num_ranks *
      (spec.collective == Collective::kAllgather || spec.collective == Collective::kGather
           ? spec.num_ranks
           : 1);
  if (space > 4e18L)
    return absl::InvalidArgumentError(absl::StrCat("count ", spec.count, " x type_size ",
                                                   spec.type_size, " too large for ",
                                                   spec.num_ranks, " ranks"));
  if (!Implements(spec.collective, spec.algorithm))
    return absl::InvalidArgumentError(
        absl::StrCat("algorithm ", std::string(AlgorithmName(spec.algorithm)),
                     " does not implement ", std::string(CollectiveName(spec.collective))));
  return absl::OkStatus();
}

Algorithm EffectiveAlgorithm(const PatternSpec& spec) {
  const int64_t p = spec.num_ranks, count = spec.count;
  switch (spec.algorithm) {
    case Algorithm::kSegmentedRing: {
      const int64_t segcount = SegmentCount(spec.segment_bytes, spec.type_size, count);
      if (count >= p * segcount) return Algorithm::kSegmentedRing;
      return count < p ? Algorithm::kRecursiveDoubling : Algorithm::kRing;
    }
    case Algorithm::kRing:
      if (spec.collective == Collective::kAllreduce && count < p)
        return Algorithm::kRecursiveDoubling;
      return Algorithm::kRing;
    case Algorithm::kRecursiveDoubling:
      if (spec.collective == Collective::kAllgather && FloorPowerOfTwo(p) != p)
        return Algorithm::kBruck;
      return Algorithm::kRecursiveDoubling;
    case Algorithm::kSplitBinaryTree: {
      const int64_t half1 = count / 2, half0 = count - half1;
      const int64_t ts = spec.type_size;
      const int64_t segsize =
          spec.segment_bytes > 0 ? std::max<int64_t>(spec.segment_bytes, ts) : 0;
      if (half1 == 0 || segsize > half0 * ts || segsize > half1 * ts) return Algorithm::kPipeline;
      return Algorithm::kSplitBinaryTree;
    }
    case Algorithm::kScatterAllgather:
    case Algorithm::kScatterAllgatherRing:
      if (count < p) return Algorithm::kLinear;
      return spec.algorithm;
    case Algorithm::kSwingBandwidth:
      return count < FloorPowerOfTwo(p) ? Algorithm::kSwing : Algorithm::kSwingBandwidth;
    default:
      return spec.algorithm;
  }
}

void DropOwnScatterAllgatherBelowBlock(int64_t bytes, int ranks,
                                       std::vector<Algorithm>* candidates) {
  if (bytes >= ranks) return;
  candidates->erase(std::remove_if(candidates->begin(), candidates->end(),
                                   [](Algorithm a) {
                                     return a == Algorithm::kScatterAllgather ||
                                            a == Algorithm::kScatterAllgatherRing;
                                   }),
                    candidates->end());
}

int64_t DataSpaceElements(const PatternSpec& spec) {
  if (spec.collective == Collective::kAllgather || spec.collective == Collective::kGather)
    return spec.count * spec.num_ranks;
  return spec.count;
}

absl::Status ForEachStep(const PatternSpec& spec, const StepVisitor& visit) {
  return Generate(spec, /*exact=*/false, visit);
}

absl::Status ForEachExactStep(const PatternSpec& spec, const StepVisitor& visit) {
  return Generate(spec, /*exact=*/true, visit);
}

absl::StatusOr<std::vector<WeightedEdge>> CommunicationGraph(const PatternSpec& spec) {
  absl::flat_hash_map<uint64_t, int64_t> bytes;
  absl::Status s = ForEachStep(spec, [&](const Step& step) {
    for (const Transfer& t : step.transfers) {
      const uint64_t key = (static_cast<uint64_t>(static_cast<uint32_t>(t.src)) << 32) |
                           static_cast<uint32_t>(t.dst);
      bytes[key] += t.total_bytes;
    }
  });
  if (!s.ok()) return s;
  std::vector<WeightedEdge> edges;
  edges.reserve(bytes.size());
  for (const auto& [key, b] : bytes)
    edges.push_back({static_cast<int32_t>(key >> 32), static_cast<int32_t>(key & 0xffffffffu), b});
  std::sort(edges.begin(), edges.end(), [](const WeightedEdge& a, const WeightedEdge& b) {
    return a.src != b.src ? a.src < b.src : a.dst < b.dst;
  });
  return edges;
}

}  // namespace toporr::mapping

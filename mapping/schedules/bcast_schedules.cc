// The bcast family of the schedule generators (generators.h).
#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "mapping/schedules/collective_shapes.h"
#include "mapping/schedules/generators.h"
#include "mapping/schedules/swing_schedule.h"

namespace toporr::mapping::schedules_internal {
namespace {

// Trees of coll_base_topo.c (collective_shapes.h): children lists of all shifted ranks, in
// Open MPI's order, as CSR.
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

// Tree edges by the depth of the sending parent.
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

}  // namespace

void BcastBinomial(const Ctx& ctx, Sink& sink) { BcastTree(ctx, BinomialTree(ctx.p), sink); }

void BcastBinaryTree(const Ctx& ctx, Sink& sink) { BcastTree(ctx, KaryTree(ctx.p, 2), sink); }

void BcastKnomial(const Ctx& ctx, Sink& sink) {
  BcastTree(ctx, KnomialTree(ctx.p, ctx.spec.radix), sink);
}

void BcastChain(const Ctx& ctx, Sink& sink) {
  BcastTree(ctx, ChainTree(ctx.p, ctx.spec.chain_fanout), sink);
}

void BcastPipeline(const Ctx& ctx, Sink& sink) { BcastTree(ctx, ChainTree(ctx.p, 1), sink); }

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

}  // namespace toporr::mapping::schedules_internal

#include "mapping/embedding/graph_bisection.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <numeric>

namespace toporr::mapping::embedding_internal {
namespace {

// Multilevel bisection tuning, chosen on the 3-D torus of bench/reorder_bench.cc and the
// graphs of graph_embed_test.cc: fewer seeds or passes lost up to 3% of predicted cost
// there, more gained nothing measurable.
constexpr int kCoarsestVertices = 64;  // stop coarsening at this size
constexpr int kGrowSeeds = 6;          // greedy-growing starts at the coarsest level
constexpr int kRefinedSeeds = 2;       // of those, how many (the best cuts) get FM
constexpr int kInitialPasses = 4;      // FM passes on the coarsest level
constexpr int kCoarsePasses = 3;       // FM passes on intermediate levels
constexpr int kFinestPasses = 6;       // FM passes on the original graph
// An FM pass stops after min(50 + n / 50, 10 + n / 4) moves without a new best.
constexpr int kStallMovesBase = 50;
constexpr int kStallMovesDivisor = 50;
constexpr int kSmallStallMovesBase = 10;
constexpr int kSmallStallMovesDivisor = 4;

// Deterministic 64-bit mixer (splitmix64) for visit orders and tie-breaks.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

WGraph BuildWeightedGraph(const RankDistance& d, const CommGraph& graph) {
  const int p = d.size();
  int other = p > 1 ? 1 : 0;
  for (int s = 1; s < p; ++s) {
    if (d.host(s) != d.host(0)) {
      other = s;
      break;
    }
  }
  // Both directions of every message into a CSR with repeats, then repeats merged per row
  // (O(E), no sort).
  std::vector<int64_t> start(p + 1, 0);
  for (const CommEdge& e : graph.edges) {
    if (e.from == e.to) continue;
    ++start[e.from + 1];
    ++start[e.to + 1];
  }
  for (int v = 0; v < p; ++v) start[v + 1] += start[v];
  std::vector<int32_t> arc_to(start.back());
  std::vector<int64_t> arc_w(start.back());
  {
    // Weights in whole ns, scaled down when needed so that all of them together stay below
    // 2^62 (cut and gain sums are int64).
    double max_ns = 1;
    for (const CommEdge& e : graph.edges) max_ns = std::max(max_ns, d.TimeNs(0, other, e.bytes));
    const double cap = std::ldexp(1.0, 62) / (static_cast<double>(start.back()) + 1);
    const double scale = std::min(1.0, cap / max_ns);
    std::vector<int64_t> pos(start.begin(), start.end() - 1);
    for (const CommEdge& e : graph.edges) {
      if (e.from == e.to) continue;
      const int64_t w = std::max<int64_t>(1, std::llround(scale * d.TimeNs(0, other, e.bytes)));
      arc_to[pos[e.from]] = e.to;
      arc_w[pos[e.from]++] = w;
      arc_to[pos[e.to]] = e.from;
      arc_w[pos[e.to]++] = w;
    }
  }
  WGraph g;
  g.vw.assign(p, 1);
  g.xadj.assign(p + 1, 0);
  g.adj.reserve(arc_to.size());
  g.ew.reserve(arc_to.size());
  std::vector<int64_t> where(p, -1);  // position of a neighbour in the current row
  for (int v = 0; v < p; ++v) {
    const int64_t row = static_cast<int64_t>(g.adj.size());
    for (int64_t i = start[v]; i < start[v + 1]; ++i) {
      const int u = arc_to[i];
      if (where[u] >= row) {
        g.ew[where[u]] += arc_w[i];
      } else {
        where[u] = static_cast<int64_t>(g.adj.size());
        g.adj.push_back(u);
        g.ew.push_back(arc_w[i]);
      }
    }
    g.xadj[v + 1] = static_cast<int64_t>(g.adj.size());
  }
  return g;
}

namespace {

// Heavy-edge matching and contraction. Returns false when the graph barely shrinks.
bool Coarsen(const WGraph& g, int64_t max_vw, WGraph& coarse, std::vector<int32_t>& cmap) {
  const int n = g.n();
  // Visit vertices in a scrambled order and break weight ties by a hash: on regular
  // graphs (grids, tori) a fixed order would match along one dimension only, and the
  // coarse graphs would lose the shape that good cuts follow.
  std::vector<uint64_t> key(n);
  for (int v = 0; v < n; ++v) key[v] = Mix(static_cast<uint64_t>(v) * 0x100000001b3ULL + n);
  uint64_t stride = (static_cast<uint64_t>(n) * 40503) / 65536 + 1;  // about 0.618 n
  while (std::gcd<uint64_t, uint64_t>(stride, n) != 1) ++stride;
  std::vector<int32_t> match(n, -1);
  for (int i = 0; i < n; ++i) {
    const int u = static_cast<int>((static_cast<uint64_t>(i) * stride) % n);
    if (match[u] >= 0) continue;
    int best = -1;
    int64_t best_w = -1;
    for (int64_t i = g.xadj[u]; i < g.xadj[u + 1]; ++i) {
      const int v = g.adj[i];
      if (match[v] >= 0 || g.vw[u] + g.vw[v] > max_vw) continue;
      if (g.ew[i] > best_w || (g.ew[i] == best_w && key[v] < key[best])) {
        best_w = g.ew[i];
        best = v;
      }
    }
    if (best < 0) best = u;
    match[u] = best;
    match[best] = u;
  }
  cmap.assign(n, -1);
  int nc = 0;
  for (int u = 0; u < n; ++u) {
    if (cmap[u] >= 0) continue;
    cmap[u] = nc;
    cmap[match[u]] = nc;
    ++nc;
  }
  if (nc > 0.95 * n) return false;
  coarse = WGraph();
  coarse.vw.assign(nc, 0);
  coarse.xadj.assign(nc + 1, 0);
  coarse.adj.reserve(g.adj.size() / 2);
  coarse.ew.reserve(g.adj.size() / 2);
  std::vector<int64_t> slot(nc, -1);  // position of coarse neighbour in the current row
  int c = 0;
  for (int u = 0; u < n; ++u) {
    if (cmap[u] != c) continue;  // rows are built in coarse-id order, by the first member
    const int start = static_cast<int>(coarse.adj.size());
    for (int k = 0; k < 2; ++k) {
      const int m = k == 0 ? u : match[u];
      if (k == 1 && m == u) break;
      coarse.vw[c] += g.vw[m];
      for (int64_t i = g.xadj[m]; i < g.xadj[m + 1]; ++i) {
        const int cv = cmap[g.adj[i]];
        if (cv == c) continue;
        if (slot[cv] >= start) {
          coarse.ew[slot[cv]] += g.ew[i];
        } else {
          slot[cv] = static_cast<int64_t>(coarse.adj.size());
          coarse.adj.push_back(cv);
          coarse.ew.push_back(g.ew[i]);
        }
      }
    }
    coarse.xadj[c + 1] = static_cast<int64_t>(coarse.adj.size());
    ++c;
  }
  return true;
}

// Two-way partition state with Fiduccia-Mattheyses refinement.
class Bipartition {
 public:
  // Uses scratch.to: one Bipartition per scratch at a time.
  Bipartition(const WGraph& g, int64_t target0, FmScratch& scratch)
      : g_(g), target0_(target0), s_(scratch), to_(scratch.to) {}

  std::vector<uint8_t>& side() { return side_; }

  // Recomputes per-vertex weights to each side, the cut and the side weights.
  void Init(std::vector<uint8_t> side) {
    side_ = std::move(side);
    const int n = g_.n();
    to_.assign(2 * static_cast<size_t>(n), 0);
    w0_ = 0;
    cut_ = 0;
    for (int v = 0; v < n; ++v) {
      if (side_[v] == 0) w0_ += g_.vw[v];
      for (int64_t i = g_.xadj[v]; i < g_.xadj[v + 1]; ++i) {
        to_[2 * v + side_[g_.adj[i]]] += g_.ew[i];
        if (side_[g_.adj[i]] != side_[v]) cut_ += g_.ew[i];
      }
    }
    cut_ /= 2;
  }

  int64_t cut() const { return cut_; }
  int64_t imbalance() const { return std::llabs(w0_ - target0_); }

  // FM passes over boundary vertices: moves from the heavier side (either when balanced),
  // best gain first; keeps the best state with imbalance <= tol (or, when no state is
  // within tol, the least imbalanced one). Stops early after a pass without gain.
  void Refine(int64_t tol, int max_passes) {
    const int n = g_.n();
    s_.locked.assign(n, 0);
    for (int pass = 0; pass < max_passes; ++pass) {
      for (auto& h : s_.heap) h.clear();
      for (int v = 0; v < n; ++v) {
        if (Boundary(v)) Push(v);
      }
      std::vector<int32_t>& moved = s_.moved;
      moved.clear();
      auto score = [&]() {
        const int64_t imb = imbalance();
        return imb <= tol ? std::make_pair(int64_t{0}, cut_) : std::make_pair(int64_t{1}, imb);
      };
      auto best = score();
      const auto start = best;
      size_t best_len = 0;
      const size_t limit = std::min(kStallMovesBase + n / kStallMovesDivisor,
                                    kSmallStallMovesBase + n / kSmallStallMovesDivisor);
      int32_t scan[2] = {0, 0};
      while (moved.size() < static_cast<size_t>(n)) {
        int from;
        if (w0_ > target0_) {
          from = 0;
        } else if (w0_ < target0_) {
          from = 1;
        } else {
          from = Top(0) >= Top(1) ? 0 : 1;
        }
        int v = Top(from) == kNone ? -1 : Pop(from);
        if (v < 0) {  // no boundary vertex left on that side: take any free one
          while (scan[from] < n && (s_.locked[scan[from]] || side_[scan[from]] != from)) {
            ++scan[from];
          }
          if (scan[from] == n) break;
          v = scan[from];
        }
        Move(v);
        s_.locked[v] = 1;
        moved.push_back(v);
        // Neighbours left on v's old side gained: queue them. Those on its new side lost
        // gain; their now too high entries are requeued lazily by Top().
        for (int64_t i = g_.xadj[v]; i < g_.xadj[v + 1]; ++i) {
          const int u = g_.adj[i];
          if (!s_.locked[u] && side_[u] == from) Push(u);
        }
        const auto sc = score();
        if (sc < best) {
          best = sc;
          best_len = moved.size();
        } else if (best.first == 0 && moved.size() - best_len > limit) {
          break;
        }
      }
      for (int32_t v : moved) s_.locked[v] = 0;
      while (moved.size() > best_len) {
        Move(moved.back());
        moved.pop_back();
      }
      if (!(best < start)) break;
    }
  }

 private:
  static constexpr int64_t kNone = std::numeric_limits<int64_t>::min();

  int64_t Gain(int v) const { return to_[2 * v + 1 - side_[v]] - to_[2 * v + side_[v]]; }
  bool Boundary(int v) const { return to_[2 * v + 1 - side_[v]] > 0; }
  void Push(int v) {
    auto& h = s_.heap[side_[v]];
    h.emplace_back(Gain(v), -v);
    std::push_heap(h.begin(), h.end());
  }

  // Highest current gain on side s, or kNone. Stale entries are dropped, except that an
  // entry above its vertex's current gain is requeued at the current gain (gains that fell
  // are not pushed when they fall).
  int64_t Top(int s) {
    auto& h = s_.heap[s];
    while (!h.empty()) {
      const auto [gain, neg] = h.front();
      const int v = -neg;
      const bool live = !s_.locked[v] && side_[v] == s;
      if (live && Gain(v) == gain) return gain;
      std::pop_heap(h.begin(), h.end());
      h.pop_back();
      if (live && Gain(v) < gain && Boundary(v)) Push(v);
    }
    return kNone;
  }
  // Precondition: Top(s) != kNone.
  int Pop(int s) {
    auto& h = s_.heap[s];
    const int v = -h.front().second;
    std::pop_heap(h.begin(), h.end());
    h.pop_back();
    return v;
  }

  void Move(int v) {
    const int s = side_[v];
    cut_ -= Gain(v);
    side_[v] = static_cast<uint8_t>(1 - s);
    w0_ += s == 0 ? -g_.vw[v] : g_.vw[v];
    for (int64_t i = g_.xadj[v]; i < g_.xadj[v + 1]; ++i) {
      const int u = g_.adj[i];
      to_[2 * u + s] -= g_.ew[i];
      to_[2 * u + 1 - s] += g_.ew[i];
    }
  }

  const WGraph& g_;
  int64_t target0_;
  FmScratch& s_;
  std::vector<uint8_t> side_;
  std::vector<int64_t>& to_;  // 2 per vertex: weight to side 0, to side 1
  int64_t w0_ = 0;
  int64_t cut_ = 0;
};

// Greedy graph growing from `seed` until side 0 reaches target0, then FM.
// `degree` is each vertex's total edge weight.
struct Grown {
  std::vector<uint8_t> side;
  int64_t cut = 0;
  int64_t w0 = 0;  // weight of side 0
};
Grown GrowBisection(const WGraph& g, const std::vector<int64_t>& degree, int64_t target0, int seed,
                    FmScratch& scratch) {
  const int n = g.n();
  Grown out;
  std::vector<uint8_t>& side = out.side;
  side.assign(n, 1);
  std::vector<int64_t>& gain = scratch.gain;  // weight to side 0 minus weight to side 1
  gain.resize(n);
  for (int v = 0; v < n; ++v) gain[v] = -degree[v];
  std::vector<FmScratch::Entry>& heap = scratch.grow_heap;
  heap.clear();
  heap.emplace_back(gain[seed], -seed);
  int64_t& w0 = out.w0;
  int next = 0;
  while (w0 < target0) {
    int v = -1;
    while (!heap.empty()) {
      const auto [gv, neg] = heap.front();
      std::pop_heap(heap.begin(), heap.end());
      heap.pop_back();
      if (side[-neg] == 1 && gain[-neg] == gv) {
        v = -neg;
        break;
      }
    }
    if (v < 0) {  // disconnected rest
      while (next < n && side[next] == 0) ++next;
      if (next == n) break;
      v = next;
    }
    side[v] = 0;
    w0 += g.vw[v];
    out.cut -= gain[v];  // v's edges to side 0 leave the cut, those to side 1 join it
    for (int64_t i = g.xadj[v]; i < g.xadj[v + 1]; ++i) {
      const int u = g.adj[i];
      gain[u] += 2 * g.ew[i];
      if (side[u] == 1) {
        heap.emplace_back(gain[u], -u);
        std::push_heap(heap.begin(), heap.end());
      }
    }
  }
  return out;
}

}  // namespace

std::vector<uint8_t> Bisect(const WGraph& g, int64_t target0, FmScratch& scratch) {
  const int n = g.n();
  int64_t total = 0;
  for (int64_t w : g.vw) total += w;
  if (target0 <= 0) return std::vector<uint8_t>(n, 1);
  if (target0 >= total) return std::vector<uint8_t>(n, 0);
  std::vector<WGraph> levels;
  std::vector<std::vector<int32_t>> cmaps;
  const WGraph* cur = &g;
  const int64_t max_vw = std::max<int64_t>(1, std::min(target0, total - target0) / 8);
  while (cur->n() > kCoarsestVertices) {
    WGraph coarse;
    std::vector<int32_t> cmap;
    if (!Coarsen(*cur, max_vw, coarse, cmap)) break;
    levels.push_back(std::move(coarse));
    cmaps.push_back(std::move(cmap));
    cur = &levels.back();
  }
  auto tol_of = [&](const WGraph& w) {
    int64_t m = 0;
    for (int64_t x : w.vw) m = std::max(m, x);
    return m - 1;
  };
  // Initial partition at the coarsest level: grow from a few seeds, refine the best few.
  std::vector<uint8_t> side;
  {
    const int cn = cur->n();
    const int64_t tol = tol_of(*cur);
    const int seeds = std::min(cn, kGrowSeeds);
    std::vector<std::pair<std::pair<int64_t, int64_t>, int>> grown;
    std::vector<std::vector<uint8_t>> sides;
    std::vector<int64_t> degree(cn, 0);
    for (int v = 0; v < cn; ++v) {
      for (int64_t i = cur->xadj[v]; i < cur->xadj[v + 1]; ++i) degree[v] += cur->ew[i];
    }
    for (int k = 0; k < seeds; ++k) {
      const int seed = static_cast<int>((static_cast<int64_t>(k) * cn) / seeds);
      Grown gr = GrowBisection(*cur, degree, target0, seed, scratch);
      grown.push_back({{std::llabs(gr.w0 - target0) > tol ? 1 : 0, gr.cut}, k});
      sides.push_back(std::move(gr.side));
    }
    std::sort(grown.begin(), grown.end());
    std::pair<int64_t, int64_t> best{std::numeric_limits<int64_t>::max(), 0};
    for (int i = 0; i < std::min(seeds, kRefinedSeeds); ++i) {
      Bipartition b(*cur, target0, scratch);
      b.Init(std::move(sides[grown[i].second]));
      b.Refine(tol, kInitialPasses);
      const std::pair<int64_t, int64_t> s{b.imbalance() > tol ? 1 : 0, b.cut()};
      if (s < best) {
        best = s;
        side = std::move(b.side());
      }
    }
  }
  // Project and refine level by level.
  for (int l = static_cast<int>(levels.size()) - 1; l >= 0; --l) {
    const WGraph& fine = l == 0 ? g : levels[l - 1];
    std::vector<uint8_t> fine_side(fine.n());
    for (int v = 0; v < fine.n(); ++v) fine_side[v] = side[cmaps[l][v]];
    Bipartition b(fine, target0, scratch);
    b.Init(std::move(fine_side));
    b.Refine(l == 0 ? 0 : tol_of(fine), l == 0 ? kFinestPasses : kCoarsePasses);
    side = std::move(b.side());
  }
  return side;
}

}  // namespace toporr::mapping::embedding_internal

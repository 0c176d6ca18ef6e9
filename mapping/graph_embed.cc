#include "mapping/graph_embed.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <tuple>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "mapping/hierarchical_cost_matrix.h"

// Scotch's header needs FILE and fixed-width types declared first.
#include <scotch/scotch.h>

namespace toporr::mapping {
namespace {

// RAII owners for the Scotch objects of one call.
struct ScotchGraph {
  SCOTCH_Graph g;
  ScotchGraph() { SCOTCH_graphInit(&g); }
  ~ScotchGraph() { SCOTCH_graphExit(&g); }
};
struct ScotchArch {
  SCOTCH_Arch a;
  ScotchArch() { SCOTCH_archInit(&a); }
  ~ScotchArch() { SCOTCH_archExit(&a); }
};
struct ScotchStrat {
  SCOTCH_Strat s;
  ScotchStrat() { SCOTCH_stratInit(&s); }
  ~ScotchStrat() { SCOTCH_stratExit(&s); }
};
// Scotch 7 runs threaded parts whose results vary from run to run unless a context asks
// for deterministic behaviour (and a fixed seed: Debian's build seeds from the clock).
struct ScotchContext {
  SCOTCH_Context c;
  ScotchContext() { SCOTCH_contextInit(&c); }
  ~ScotchContext() { SCOTCH_contextExit(&c); }
};

absl::Status ScotchError(const char* call, int rc) {
  return absl::InternalError(absl::StrCat("graph embed: ", call, " failed with ", rc,
                                          " (Scotch prints details on stderr)"));
}

// Scotch's process-global random state is reset before every mapping for determinism; the
// lock keeps concurrent callers from interleaving reset and use.
absl::Mutex scotch_random_mu(absl::kConstInit);

// The symmetrised graph in Scotch's CSR form; edge loads scaled to 1..kMaxLoad so that
// Scotch's 32-bit communication sums cannot overflow.
struct SymmetricCsr {
  std::vector<SCOTCH_Num> vert;  // n + 1
  std::vector<SCOTCH_Num> edge;
  std::vector<SCOTCH_Num> load;
};

SymmetricCsr Symmetrise(const CommGraph& g) {
  constexpr double kMaxLoad = 100;
  std::vector<std::pair<std::pair<int32_t, int32_t>, int64_t>> pairs;
  pairs.reserve(g.edges.size());
  for (const CommEdge& e : g.edges) {
    if (e.from == e.to) continue;
    pairs.push_back({{std::min(e.from, e.to), std::max(e.from, e.to)}, e.bytes});
  }
  std::sort(pairs.begin(), pairs.end());
  std::vector<std::pair<std::pair<int32_t, int32_t>, int64_t>> merged;
  for (const auto& p : pairs) {
    if (!merged.empty() && merged.back().first == p.first) {
      merged.back().second += p.second;
    } else {
      merged.push_back(p);
    }
  }
  int64_t max_bytes = 0;
  for (const auto& m : merged) max_bytes = std::max(max_bytes, m.second);
  SymmetricCsr csr;
  csr.vert.assign(g.num_ranks + 1, 0);
  for (const auto& m : merged) {
    ++csr.vert[m.first.first + 1];
    ++csr.vert[m.first.second + 1];
  }
  for (int v = 0; v < g.num_ranks; ++v) csr.vert[v + 1] += csr.vert[v];
  csr.edge.resize(csr.vert.back());
  csr.load.resize(csr.vert.back());
  std::vector<SCOTCH_Num> pos(csr.vert.begin(), csr.vert.end() - 1);
  for (const auto& m : merged) {
    const SCOTCH_Num w =
        max_bytes == 0
            ? 1
            : std::max<SCOTCH_Num>(
                  1, static_cast<SCOTCH_Num>(std::llround(kMaxLoad * m.second / max_bytes)));
    const auto [a, b] = m.first;
    csr.edge[pos[a]] = b;
    csr.load[pos[a]++] = w;
    csr.edge[pos[b]] = a;
    csr.load[pos[b]++] = w;
  }
  return csr;
}

// Tree-leaf target: levels (leaf group, host in group, slot in host), with terminals only
// for slots that exist (`slot_of_terminal[k]` is the slot of sub-architecture terminal k).
struct TleafTarget {
  std::vector<SCOTCH_Num> sizes;
  std::vector<SCOTCH_Num> links;
  std::vector<SCOTCH_Num> terminals;  // ascending terminal numbers of the real slots
  std::vector<int32_t> slot_of_terminal;
};

absl::StatusOr<TleafTarget> BuildTarget(const RankDistance& d) {
  const int p = d.size();
  const HostCostMatrix& m = d.hosts();
  const int n = m.num_hosts();
  std::vector<int32_t> group(n);
  const auto* hier = dynamic_cast<const HierarchicalCostMatrix*>(&m);
  for (int h = 0; h < n; ++h) group[h] = hier ? hier->group_of(h) : h;
  std::vector<std::vector<int32_t>> host_slots(n);
  for (int s = 0; s < p; ++s) host_slots[d.host(s)].push_back(s);
  const int num_groups = hier ? hier->num_groups() : n;
  std::vector<std::vector<int32_t>> group_hosts(num_groups);
  for (int h = 0; h < n; ++h) {
    if (!host_slots[h].empty()) group_hosts[group[h]].push_back(h);
  }
  std::vector<int32_t> used_groups;
  int64_t hmax = 1, smax = 1;
  for (int g = 0; g < num_groups; ++g) {
    if (group_hosts[g].empty()) continue;
    used_groups.push_back(g);
    hmax = std::max<int64_t>(hmax, group_hosts[g].size());
    for (int h : group_hosts[g]) smax = std::max<int64_t>(smax, host_slots[h].size());
  }
  const int64_t total = static_cast<int64_t>(used_groups.size()) * hmax * smax;
  if (total > std::numeric_limits<SCOTCH_Num>::max()) {
    return absl::InvalidArgumentError(
        absl::StrCat("graph embed: Scotch tree-leaf target would need ", total, " terminals"));
  }
  // Link costs in whole ns, non-increasing from the top level down.
  double inter = 0;
  int64_t pairs = 0;
  const size_t sample = std::min<size_t>(used_groups.size(), 256);
  for (size_t i = 0; i < sample; ++i) {
    for (size_t j = 0; j < sample; ++j) {
      if (i == j) continue;
      inter += m.AlphaNs(group_hosts[used_groups[i]][0], group_hosts[used_groups[j]][0]);
      ++pairs;
    }
  }
  double intra_group = 0;
  for (int g : used_groups) {
    if (group_hosts[g].size() > 1) {
      intra_group = m.AlphaNs(group_hosts[g][0], group_hosts[g][1]);
      break;
    }
  }
  const double intra_host = d.intra().LatencyNs(LocalityLevel::kSameNuma);
  TleafTarget t;
  const SCOTCH_Num l2 = std::max<SCOTCH_Num>(1, std::lround(intra_host));
  const SCOTCH_Num l1 = std::max<SCOTCH_Num>(l2, std::lround(intra_group));
  const SCOTCH_Num l0 = std::max<SCOTCH_Num>(l1, std::lround(pairs ? inter / pairs : 0));
  t.sizes = {static_cast<SCOTCH_Num>(used_groups.size()), static_cast<SCOTCH_Num>(hmax),
             static_cast<SCOTCH_Num>(smax)};
  t.links = {l0, l1, l2};
  t.terminals.reserve(p);
  t.slot_of_terminal.reserve(p);
  for (size_t gi = 0; gi < used_groups.size(); ++gi) {
    const auto& hosts = group_hosts[used_groups[gi]];
    for (size_t hi = 0; hi < hosts.size(); ++hi) {
      const auto& slots = host_slots[hosts[hi]];
      for (size_t si = 0; si < slots.size(); ++si) {
        t.terminals.push_back(static_cast<SCOTCH_Num>((gi * hmax + hi) * smax + si));
        t.slot_of_terminal.push_back(slots[si]);
      }
    }
  }
  return t;
}

// ---------------------------------------------------------------------------------------
// Hierarchical recursive bipartitioning (our embedder).

// Undirected weighted graph in CSR form; vertex weights count original ranks.
struct WGraph {
  std::vector<int64_t> xadj{0};
  std::vector<int32_t> adj;
  std::vector<int64_t> ew;
  std::vector<int64_t> vw;
  int n() const { return static_cast<int>(vw.size()); }
};

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

// The symmetrised process graph; an edge weighs the predicted ns of its messages between
// two slots of a representative pair (different hosts when there are several), so that a
// cut counts both the per-message latency and the bytes.
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

// Scratch buffers of Bipartition, reused across calls to avoid allocations in the many
// small bisections deep in the machine hierarchy.
struct FmScratch {
  using Entry = std::pair<int64_t, int32_t>;  // (gain, -vertex): max-heap, lowest vertex first
  std::vector<Entry> heap[2];
  std::vector<uint8_t> locked;
  std::vector<int32_t> moved;
  std::vector<int64_t> to;    // Bipartition: 2 per vertex, weight to side 0 and to side 1
  std::vector<int64_t> gain;  // GrowBisection
  std::vector<Entry> grow_heap;
};

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

// Multilevel bisection of `g` into side 0 of weight exactly target0 (vertex weights are 1
// at the finest level, so exact balance is reachable) and side 1 of the rest.
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

// Walks the machine hierarchy (leaf-group clusters, host, package, NUMA, L3, core) and
// bisects the process graph at every split so that each side gets exactly as many ranks as
// it has slots. Not thread-safe (scratch state); one instance per call.
class HierarchicalEmbedder {
 public:
  // `typical_bytes`: the message size that decides which boundary is dearest to cross.
  HierarchicalEmbedder(const RankDistance& d, const WGraph& g, double typical_bytes)
      : d_(d), g_(g), typical_bytes_(typical_bytes), local_(g.n(), -1), mapping_(g.n(), -1) {
    const int n = d.hosts().num_hosts();
    group_.resize(n);
    const auto* hier = dynamic_cast<const HierarchicalCostMatrix*>(&d.hosts());
    for (int h = 0; h < n; ++h) group_[h] = hier ? hier->group_of(h) : h;
    group_rep_.assign(hier ? hier->num_groups() : n, -1);
    group_pos_.assign(group_rep_.size(), 0);
    for (int s = 0; s < d.size(); ++s) {
      int32_t& rep = group_rep_[group_[d.host(s)]];
      if (rep < 0) rep = d.host(s);
    }
  }

  Mapping Run() {
    std::vector<int32_t> all(g_.n());
    std::iota(all.begin(), all.end(), 0);
    Place(all, all);
    return std::move(mapping_);
  }

 private:
  static constexpr int kCoreLevel = 5;
  static constexpr int kSlotLevel = 6;

  // Key of `slot` at `level` (1 host .. 5 core, 6 the slot itself).
  int64_t Key(int slot, int level) const {
    const RankLocation& l = d_.placement().ranks[slot];
    switch (level) {
      case 1:
        return l.host;
      case 2:
        return l.package;
      case 3:
        return l.numa;
      case 4:
        return l.l3;
      case 5:
        return l.core;
      default:
        return slot;
    }
  }

  // Orders `slots` into units of `level` and returns the unit boundaries (start indexes,
  // plus slots.size() at the end). Level 0 orders leaf groups by cost from a peripheral
  // one, so that halving the order keeps near groups together.
  std::vector<size_t> Units(std::vector<int32_t>& slots, int level) {
    if (level == 0) {
      std::vector<int32_t> groups;
      for (int s : slots) groups.push_back(group_[d_.host(s)]);
      std::sort(groups.begin(), groups.end());
      groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
      const HostCostMatrix& m = d_.hosts();
      // Order from a peripheral group (the farthest from the lowest-numbered one): on a
      // ring or a line of groups, halves are then contiguous arcs, not a middle and two
      // ends.
      auto order_from = [&](int32_t first) {
        const int ref = group_rep_[first];
        std::vector<std::tuple<double, double, int32_t>> keyed;
        for (int32_t x : groups) {
          keyed.emplace_back(x == first ? -1.0 : m.AlphaNs(ref, group_rep_[x]),
                             x == first ? -1.0 : m.BetaNs(ref, group_rep_[x]), x);
        }
        std::sort(keyed.begin(), keyed.end());
        return keyed;
      };
      const int32_t far = std::get<2>(order_from(groups[0]).back());
      const auto keyed = order_from(far);
      for (size_t i = 0; i < keyed.size(); ++i) {
        group_pos_[std::get<2>(keyed[i])] = static_cast<int32_t>(i);
      }
      std::stable_sort(slots.begin(), slots.end(), [&](int a, int b) {
        return group_pos_[group_[d_.host(a)]] < group_pos_[group_[d_.host(b)]];
      });
      std::vector<size_t> bounds{0};
      for (size_t i = 1; i < slots.size(); ++i) {
        if (group_[d_.host(slots[i])] != group_[d_.host(slots[i - 1])]) bounds.push_back(i);
      }
      bounds.push_back(slots.size());
      return bounds;
    }
    std::stable_sort(slots.begin(), slots.end(),
                     [&](int a, int b) { return Key(a, level) < Key(b, level); });
    std::vector<size_t> bounds{0};
    for (size_t i = 1; i < slots.size(); ++i) {
      if (Key(slots[i], level) != Key(slots[i - 1], level)) bounds.push_back(i);
    }
    bounds.push_back(slots.size());
    return bounds;
  }

  // Cost of sending a typical message across a boundary of `level` between slots of
  // `slots` (which spans more than one unit of it).
  double CrossingNs(const std::vector<int32_t>& slots, int level, size_t cut) const {
    const IntraHostModel& intra = d_.intra();
    auto local = [&](LocalityLevel l) {
      return intra.LatencyNs(l) + typical_bytes_ * intra.BetaNs(l);
    };
    switch (level) {
      case 0:  // the first group and the nearest group across the cut
        return d_.hosts().TimeNs(group_rep_[group_[d_.host(slots[0])]],
                                 group_rep_[group_[d_.host(slots[cut])]], typical_bytes_);
      case 1:
        for (int s : slots) {
          if (d_.host(s) != d_.host(slots[0])) {
            return d_.hosts().TimeNs(d_.host(slots[0]), d_.host(s), typical_bytes_);
          }
        }
        return 0;
      case 2:
        return local(LocalityLevel::kOtherPackage);
      case 3:
        return local(LocalityLevel::kSamePackage);
      case 4:
        return local(LocalityLevel::kSameNuma);
      default:
        return local(LocalityLevel::kSameL3);
    }
  }

  // Index where the units (boundaries `bounds`) split the slots closest to half.
  static size_t HalfCut(const std::vector<size_t>& bounds) {
    const size_t half = bounds.back() / 2;
    const auto dist = [&](size_t x) { return x > half ? x - half : half - x; };
    size_t cut = bounds[1];
    for (size_t i = 1; i + 1 < bounds.size(); ++i) {
      if (dist(bounds[i]) < dist(cut)) cut = bounds[i];
    }
    return cut;
  }

  // Splits the slots at the boundary that is dearest to cross for a typical message (so
  // that the bisection minimises the edges cut there first): normally the machine's
  // nesting (leaf-group clusters, host, package, NUMA, L3), but when, say, crossing packages
  // costs more than crossing hosts of one leaf group, the packages are split first. Then
  // the process graph is bisected to the two sides' slot counts, and both sides recurse.
  void Place(std::vector<int32_t> verts, std::vector<int32_t> slots) {
    if (verts.empty()) return;
    if (verts.size() == 1) {
      mapping_[verts[0]] = slots[0];
      return;
    }
    // Which kinds of boundary run through these slots.
    bool spans[kSlotLevel] = {};
    const RankLocation& l0 = d_.placement().ranks[slots[0]];
    const int32_t g0 = group_[l0.host];
    for (int s : slots) {
      const RankLocation& l = d_.placement().ranks[s];
      spans[0] |= group_[l.host] != g0;
      spans[1] |= l.host != l0.host;
      spans[2] |= l.package != l0.package;
      spans[3] |= l.numa != l0.numa;
      spans[4] |= l.l3 != l0.l3;
      spans[5] |= l.core != l0.core;
    }
    spans[1] &= !spans[0];  // hosts split within one leaf group
    int level = kSlotLevel;
    double dearest = -1;
    std::vector<size_t> bounds;
    size_t cut = 0;
    if (spans[0]) {
      bounds = Units(slots, 0);
      cut = HalfCut(bounds);
      level = 0;
      dearest = CrossingNs(slots, 0, cut);
    }
    for (int l = 1; l <= kCoreLevel; ++l) {
      if (!spans[l]) continue;
      const double c = CrossingNs(slots, l, 0);
      if (c > dearest) {
        dearest = c;
        level = l;
      }
    }
    if (level != 0 && level != kSlotLevel) {
      bounds = Units(slots, level);
      cut = HalfCut(bounds);
    }
    // Different cores of one L3 (or hyperthreads of one core) are all equally far apart:
    // any assignment is as good as any other.
    if (level == kSlotLevel || (level == kCoreLevel && bounds.size() == slots.size() + 1)) {
      for (size_t i = 0; i < verts.size(); ++i) mapping_[verts[i]] = slots[i];
      return;
    }
    const WGraph sub = Induced(verts);
    const std::vector<uint8_t> side = Bisect(sub, static_cast<int64_t>(cut), scratch_);
    std::vector<int32_t> va, vb;
    va.reserve(cut);
    vb.reserve(verts.size() - cut);
    for (size_t i = 0; i < verts.size(); ++i) (side[i] == 0 ? va : vb).push_back(verts[i]);
    std::vector<int32_t> sb(slots.begin() + cut, slots.end());
    slots.resize(cut);
    verts.clear();
    verts.shrink_to_fit();
    Place(std::move(va), std::move(slots));
    Place(std::move(vb), std::move(sb));
  }

  WGraph Induced(const std::vector<int32_t>& verts) {
    for (size_t i = 0; i < verts.size(); ++i) local_[verts[i]] = static_cast<int32_t>(i);
    WGraph s;
    s.vw.assign(verts.size(), 1);
    s.adj.reserve(verts.size() * 8);
    s.ew.reserve(verts.size() * 8);
    s.xadj.assign(verts.size() + 1, 0);
    for (size_t i = 0; i < verts.size(); ++i) {
      const int v = verts[i];
      for (int64_t k = g_.xadj[v]; k < g_.xadj[v + 1]; ++k) {
        const int u = g_.adj[k];
        if (local_[u] < 0) continue;
        s.adj.push_back(local_[u]);
        s.ew.push_back(g_.ew[k]);
      }
      s.xadj[i + 1] = static_cast<int64_t>(s.adj.size());
    }
    for (int32_t v : verts) local_[v] = -1;
    return s;
  }

  const RankDistance& d_;
  const WGraph& g_;
  double typical_bytes_;
  std::vector<int32_t> group_;      // per host
  std::vector<int32_t> group_rep_;  // per group: one host with slots, -1 if none
  std::vector<int32_t> group_pos_;  // scratch: per group, position in the cost order
  std::vector<int32_t> local_;      // scratch: global vertex -> local id, -1 outside
  FmScratch scratch_;
  Mapping mapping_;
};

}  // namespace

std::string_view EmbedMethodName(EmbedMethod m) {
  switch (m) {
    case EmbedMethod::kIdentity:
      return "identity";
    case EmbedMethod::kBipartition:
      return "bipartition";
    case EmbedMethod::kGreedy:
      return "greedy";
    case EmbedMethod::kScotch:
      return "scotch";
  }
  return "unknown";
}

absl::StatusOr<Mapping> EmbedBipartition(const RankDistance& d, const CommGraph& graph,
                                         const EmbedOptions& o) {
  if (d.size() == 0) return absl::InvalidArgumentError("graph embed: no ranks");
  if (absl::Status s = ValidateCommGraph(d, graph); !s.ok()) return s;
  const WGraph g = BuildWeightedGraph(d, graph);
  double bytes = 0;
  int64_t messages = 0;
  for (const CommEdge& e : graph.edges) {
    if (e.from == e.to) continue;
    bytes += static_cast<double>(e.bytes);
    ++messages;
  }
  return HierarchicalEmbedder(d, g, messages > 0 ? bytes / messages : 0).Run();
}

absl::StatusOr<Mapping> EmbedGreedy(const RankDistance& d, const CommGraph& graph,
                                    const EmbedOptions& o) {
  ReorderOptions ro;
  ro.root = 0;
  ro.refinement_passes = o.refinement_passes;
  ro.max_swap_candidates = o.max_swap_candidates;
  return ReorderGraph(d, graph, ro);
}

absl::StatusOr<Mapping> EmbedScotch(const RankDistance& d, const CommGraph& graph,
                                    const EmbedOptions& o) {
  if (d.size() == 0) return absl::InvalidArgumentError("graph embed: no ranks");
  if (absl::Status s = ValidateCommGraph(d, graph); !s.ok()) return s;
  const int p = d.size();
  if (p == 1) return IdentityMapping(1);
  const SymmetricCsr csr = Symmetrise(graph);
  ScotchGraph g;
  int rc = SCOTCH_graphBuild(&g.g, 0, p, csr.vert.data(), csr.vert.data() + 1, nullptr, nullptr,
                             static_cast<SCOTCH_Num>(csr.edge.size()),
                             const_cast<SCOTCH_Num*>(csr.edge.data()),
                             const_cast<SCOTCH_Num*>(csr.load.data()));
  if (rc != 0) return ScotchError("SCOTCH_graphBuild", rc);
  auto target = BuildTarget(d);
  if (!target.ok()) return target.status();
  ScotchArch tree, sub;
  rc = SCOTCH_archTleaf(&tree.a, 3, target->sizes.data(), target->links.data());
  if (rc != 0) return ScotchError("SCOTCH_archTleaf", rc);
  rc = SCOTCH_archSub(&sub.a, &tree.a, static_cast<SCOTCH_Num>(target->terminals.size()),
                      target->terminals.data());
  if (rc != 0) return ScotchError("SCOTCH_archSub", rc);
  ScotchStrat strat;
  rc = SCOTCH_stratGraphMapBuild(&strat.s, o.scotch_strategy, p, 0.0);
  if (rc != 0) return ScotchError("SCOTCH_stratGraphMapBuild", rc);
  ScotchContext context;
  if ((rc = SCOTCH_contextOptionSetNum(&context.c, SCOTCH_OPTIONNUMDETERMINISTIC, 1)) != 0 ||
      (rc = SCOTCH_contextOptionSetNum(&context.c, SCOTCH_OPTIONNUMRANDOMFIXEDSEED, 1)) != 0) {
    return ScotchError("SCOTCH_contextOptionSetNum", rc);
  }
  ScotchGraph bound;  // declared after `g` and `context`: exits before them
  rc = SCOTCH_contextBindGraph(&context.c, &g.g, &bound.g);
  if (rc != 0) return ScotchError("SCOTCH_contextBindGraph", rc);
  std::vector<SCOTCH_Num> part(p, -1);
  {
    absl::MutexLock lock(&scotch_random_mu);
    SCOTCH_randomSeed(1);
    SCOTCH_randomReset();
    rc = SCOTCH_graphMap(&bound.g, &sub.a, &strat.s, part.data());
  }
  if (rc != 0) return ScotchError("SCOTCH_graphMap", rc);
  // Sub-architecture terminal k is target->terminals[k]; Scotch may overload a terminal, so
  // the first vertex keeps it and later ones go to the closest free slot.
  FreeSlotIndex free(d);
  Mapping mapping(p, -1);
  std::vector<int32_t> wanted(p, -1);
  for (int v = 0; v < p; ++v) {
    const SCOTCH_Num k = part[v];
    if (k < 0 || k >= static_cast<SCOTCH_Num>(target->slot_of_terminal.size())) {
      return absl::InternalError(
          absl::StrCat("graph embed: Scotch mapped vertex ", v, " to terminal ", k));
    }
    wanted[v] = target->slot_of_terminal[k];
    if (free.IsFree(wanted[v])) {
      mapping[v] = wanted[v];
      free.Take(wanted[v]);
    }
  }
  for (int v = 0; v < p; ++v) {
    if (mapping[v] >= 0) continue;
    mapping[v] = free.Closest(wanted[v], v);
    free.Take(mapping[v]);
  }
  return mapping;
}

absl::StatusOr<Embedding> EmbedGraph(const RankDistance& d, const CommGraph& graph,
                                     const EmbedOptions& o) {
  auto ours = EmbedBipartition(d, graph, o);
  if (!ours.ok()) return ours.status();
  Embedding e;
  e.mapping = IdentityMapping(d.size());
  e.identity_cost_ns = GraphCostNs(d, graph, e.mapping);
  e.cost_ns = e.identity_cost_ns;
  // Candidates in tie-break order: a later one must be strictly cheaper to win.
  auto consider = [&](Mapping m, EmbedMethod method, double& cost_out) {
    cost_out = GraphCostNs(d, graph, m);
    if (cost_out < e.cost_ns) {
      e.mapping = std::move(m);
      e.method = method;
      e.cost_ns = cost_out;
    }
  };
  consider(*std::move(ours), EmbedMethod::kBipartition, e.bipartition_cost_ns);
  if (o.run_greedy) {
    auto greedy = EmbedGreedy(d, graph, o);
    if (!greedy.ok()) return greedy.status();
    consider(*std::move(greedy), EmbedMethod::kGreedy, e.greedy_cost_ns);
  }
  if (o.run_scotch) {
    auto scotch = EmbedScotch(d, graph, o);
    if (!scotch.ok()) return scotch.status();
    consider(*std::move(scotch), EmbedMethod::kScotch, e.scotch_cost_ns);
  }
  return e;
}

absl::StatusOr<CommGraph> CartesianGraph(const std::vector<int>& dims,
                                         const std::vector<bool>& periods, int64_t bytes_per_edge) {
  if (dims.size() != periods.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cartesian graph: ", dims.size(), " dims but ", periods.size(), " periods"));
  }
  int64_t n = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("cartesian graph: dimension ", i, " has size ", dims[i]));
    }
    n *= dims[i];
    if (n > std::numeric_limits<int32_t>::max()) {
      return absl::InvalidArgumentError("cartesian graph: more than 2^31-1 ranks");
    }
  }
  CommGraph g;
  g.num_ranks = static_cast<int32_t>(n);
  // stride[i]: rank distance between neighbours along dimension i (row-major).
  std::vector<int64_t> stride(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i)
    stride[i] = stride[i + 1] * dims[i + 1];
  for (int64_t r = 0; r < n; ++r) {
    for (size_t i = 0; i < dims.size(); ++i) {
      const int64_t c = (r / stride[i]) % dims[i];
      int64_t nb;
      if (c + 1 < dims[i]) {
        nb = r + stride[i];
      } else if (periods[i] && dims[i] > 2) {
        nb = r - c * stride[i];  // wrap to coordinate 0
      } else {
        continue;
      }
      g.edges.push_back({static_cast<int32_t>(r), static_cast<int32_t>(nb), bytes_per_edge});
      g.edges.push_back({static_cast<int32_t>(nb), static_cast<int32_t>(r), bytes_per_edge});
    }
  }
  return g;
}

}  // namespace toporr::mapping

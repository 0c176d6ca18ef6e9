#include "mapping/reorder.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <queue>
#include <string>
#include <tuple>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "mapping/collective_shapes.h"
#include "mapping/hierarchical_cost_matrix.h"
#include "mapping/predict.h"

namespace toporr::mapping {

// ---------------------------------------------------------------------------------------
// FreeSlotIndex

FreeSlotIndex::FreeSlotIndex(const RankDistance& distance) : d_(distance) {
  const int p = d_.size();
  const int n = d_.hosts().num_hosts();
  free_.assign(p, 1);
  num_free_ = p;
  host_free_.resize(n);
  for (int s = 0; s < p; ++s) host_free_[d_.host(s)].push_back(s);  // ascending by build

  int num_groups = n;
  if (const auto* h = dynamic_cast<const HierarchicalCostMatrix*>(&d_.hosts())) {
    host_group_ = h->host_group();
    num_groups = h->num_groups();
  } else {
    host_group_.resize(n);
    std::iota(host_group_.begin(), host_group_.end(), 0);
  }
  group_hosts_.resize(num_groups);
  group_free_.assign(num_groups, 0);
  group_rep_.assign(num_groups, -1);
  for (int h = 0; h < n; ++h) {
    if (host_free_[h].empty()) continue;
    const int g = host_group_[h];
    group_hosts_[g].push_back(h);
    group_free_[g] += static_cast<int64_t>(host_free_[h].size());
    if (group_rep_[g] < 0) group_rep_[g] = h;
  }
  group_cursor_.assign(num_groups, 0);
  group_order_.resize(num_groups);
  group_order_cursor_.assign(num_groups, 0);
}

int FreeSlotIndex::FirstFreeHostOfGroup(int g) {
  int32_t& c = group_cursor_[g];
  const auto& hosts = group_hosts_[g];
  // Hosts never regain free slots, so the cursor only moves forward.
  while (c < static_cast<int32_t>(hosts.size()) && host_free_[hosts[c]].empty()) ++c;
  return hosts[c];
}

void FreeSlotIndex::BuildGroupOrder(int g) {
  const HostCostMatrix& m = d_.hosts();
  const int rep = group_rep_[g];
  std::vector<std::tuple<double, double, int32_t>> keyed;
  for (int x = 0; x < static_cast<int>(group_hosts_.size()); ++x) {
    if (group_rep_[x] < 0) continue;
    // Same group: cost between two different hosts of it (0 when it has one host, which is
    // then full anyway since we only get here when the reference host is full).
    int other = group_rep_[x];
    if (x == g && group_hosts_[g].size() > 1) other = group_hosts_[g][1];
    keyed.emplace_back(m.AlphaNs(rep, other), m.BetaNs(rep, other), x);
  }
  std::sort(keyed.begin(), keyed.end());
  auto& order = group_order_[g];
  order.reserve(keyed.size());
  for (const auto& k : keyed) order.push_back(std::get<2>(k));
}

int FreeSlotIndex::Closest(int ref, int prefer) {
  if (num_free_ == 0) return -1;
  if (free_[ref]) return ref;
  const int h = d_.host(ref);
  int cand = -1;
  if (!host_free_[h].empty()) {
    const RankLocation& lr = d_.placement().ranks[ref];
    int best_level = kNumLocalityLevels + 1;
    for (int32_t s : host_free_[h]) {
      const int level = static_cast<int>(SharedLevel(lr, d_.placement().ranks[s]));
      if (level < best_level) {
        best_level = level;
        cand = s;
        if (level == 0) break;
      }
    }
  } else {
    const int g = host_group_[h];
    if (group_free_[g] > 0) {
      cand = host_free_[FirstFreeHostOfGroup(g)].front();
    } else {
      if (group_order_[g].empty()) BuildGroupOrder(g);
      const auto& order = group_order_[g];
      int32_t& c = group_order_cursor_[g];
      // Exhausted groups stay exhausted: skip them for good.
      while (group_free_[order[c]] == 0) ++c;
      cand = host_free_[FirstFreeHostOfGroup(order[c])].front();
    }
  }
  if (prefer >= 0 && prefer != cand && free_[prefer] && d_.EquallyFar(ref, cand, prefer)) {
    return prefer;
  }
  return cand;
}

void FreeSlotIndex::Take(int slot) {
  free_[slot] = 0;
  --num_free_;
  const int h = d_.host(slot);
  auto& v = host_free_[h];
  v.erase(std::lower_bound(v.begin(), v.end(), slot));
  --group_free_[host_group_[h]];
}

// ---------------------------------------------------------------------------------------
// Heuristics

namespace {

// Greedy placement state shared by all heuristics.
class Placer {
 public:
  explicit Placer(const RankDistance& d) : index_(d), mapping_(d.size(), -1) {}

  // The root (or seed) keeps its own slot.
  void Seed(int rank) {
    mapping_[rank] = rank;
    index_.Take(rank);
  }
  // Places `rank` on the free slot closest to where `ref` was placed; ties to its own slot.
  void Place(int rank, int ref) {
    const int s = index_.Closest(mapping_[ref], rank);
    mapping_[rank] = s;
    index_.Take(s);
  }
  // Places `rank` on `slot`, which must be free.
  void PlaceAt(int rank, int slot) {
    mapping_[rank] = slot;
    index_.Take(slot);
  }
  bool placed(int rank) const { return mapping_[rank] >= 0; }
  bool taken(int slot) const { return !index_.IsFree(slot); }
  int slot(int rank) const { return mapping_[rank]; }
  Mapping Release() { return std::move(mapping_); }

 private:
  FreeSlotIndex index_;
  Mapping mapping_;
};

absl::Status CheckCommon(const RankDistance& d, const ReorderOptions& o) {
  if (d.size() == 0) return absl::InvalidArgumentError("reorder: the placement has no ranks");
  if (o.root < 0 || o.root >= d.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("reorder: root ", o.root, " is outside 0..", d.size() - 1));
  }
  return absl::OkStatus();
}

// Walks a hypercube of 2^dims.size() vertices so that heavier dimensions (earlier in
// `dims`) are placed closest: vertex order is i = 1, 2, 3, ... with bit b of i selecting
// dimension dims[b], and each vertex's reference is the vertex without its heaviest
// dimension (the placed partner it exchanges the most with). visit(w, ref_w) is called in
// placement order with cube vertices; ref_w < w numerically, so a callback that skips
// vertices >= some bound never sees an unplaced reference.
template <typename Visit>
void WalkHypercube(const std::vector<int>& dims, Visit visit) {
  const int64_t n = int64_t{1} << dims.size();
  for (int64_t i = 1; i < n; ++i) {
    int64_t w = 0;
    for (int64_t rest = i; rest != 0; rest &= rest - 1) {
      w |= int64_t{1} << dims[__builtin_ctzll(static_cast<unsigned long long>(rest))];
    }
    const int heaviest = dims[__builtin_ctzll(static_cast<unsigned long long>(i))];
    visit(w, w ^ (int64_t{1} << heaviest));
  }
}

std::vector<int> Dims(int levels, bool last_heaviest) {
  std::vector<int> dims(levels);
  for (int k = 0; k < levels; ++k) dims[k] = last_heaviest ? levels - 1 - k : k;
  return dims;
}

// Shifted rank helpers for rooted trees: v = (r - root) mod p.
struct Shift {
  int p, root;
  int Real(int64_t v) const { return static_cast<int>((v + root) % p); }
};

// How every heuristic starts: check the placement and the root, keep the root in its own
// slot, then let `place` put the other ranks next to ranks already placed. `place(placer,
// shift)` gets the seeded placer and the shift that makes the root virtual rank 0; it
// returns an error only for options of its own (nothing placed so far is returned then).
template <typename Place>
absl::StatusOr<Mapping> PlaceFromRoot(const RankDistance& d, const ReorderOptions& o, Place place) {
  if (absl::Status s = CheckCommon(d, o); !s.ok()) return s;
  Placer placer(d);
  placer.Seed(o.root);
  if (absl::Status s = place(placer, Shift{d.size(), o.root}); !s.ok()) return s;
  return placer.Release();
}

// Recursive doubling / Rabenseifner on real ranks with the non-power-of-two pre-step (the
// fold of collective_shapes.h): pairs (2i, 2i+1), i < rem, merge into one vrank held by the
// survivor (odd for recursive doubling, even for Rabenseifner); the dropout is placed right
// after its survivor because the pre/post steps exchange the whole vector between them.
absl::StatusOr<Mapping> PairedHypercube(const RankDistance& d, const ReorderOptions& o,
                                        bool last_heaviest, bool keep_odd) {
  return PlaceFromRoot(d, o, [&](Placer& placer, const Shift&) {
    const int p = d.size();
    const int levels = Log2Floor(p);
    const int rem = p - static_cast<int>(FloorPowerOfTwo(p));
    auto real = [&](int v) { return static_cast<int>(UnfoldedRank(v, p, keep_odd)); };
    auto vrank = [&](int r) { return static_cast<int>(FoldedRank(r, p, keep_odd)); };
    int v0 = vrank(o.root);
    if (v0 < 0) {  // the root is a dropout: its survivor comes next to it
      v0 = o.root / 2;
      placer.Place(real(v0), o.root);
    } else if (v0 < rem) {
      placer.Place(real(v0) ^ 1, o.root);
    }
    WalkHypercube(Dims(levels, last_heaviest), [&](int64_t w, int64_t ref) {
      const int v = static_cast<int>(w) ^ v0;
      const int r = real(v);
      placer.Place(r, real(static_cast<int>(ref) ^ v0));
      if (v < rem) placer.Place(r ^ 1, r);
    });
    return absl::OkStatus();
  });
}

// Breadth-first walk of a tree on shifted ranks rooted at 0: children(v, child) calls
// child(c) for every child c of v, nearest-first; each child is placed next to its parent.
template <typename Children>
absl::StatusOr<Mapping> PlaceTreeBreadthFirst(const RankDistance& d, const ReorderOptions& o,
                                              Children children) {
  return PlaceFromRoot(d, o, [&](Placer& placer, const Shift& sh) {
    std::vector<int32_t> queue{0};
    queue.reserve(d.size());
    for (size_t head = 0; head < queue.size(); ++head) {
      const int64_t v = queue[head];
      children(v, [&](int64_t c) {
        placer.Place(sh.Real(c), sh.Real(v));
        queue.push_back(static_cast<int32_t>(c));
      });
    }
    return absl::OkStatus();
  });
}

}  // namespace

std::string_view HeuristicName(Heuristic h) {
  switch (h) {
    case Heuristic::kRing:
      return "ring";
    case Heuristic::kRecursiveDoublingAllgather:
      return "recursive_doubling_allgather";
    case Heuristic::kRecursiveDoublingAllreduce:
      return "recursive_doubling_allreduce";
    case Heuristic::kRabenseifner:
      return "rabenseifner";
    case Heuristic::kBinomialBcast:
      return "binomial_bcast";
    case Heuristic::kBinaryTreeBcast:
      return "binary_tree_bcast";
    case Heuristic::kKnomialBcast:
      return "knomial_bcast";
    case Heuristic::kScatterAllgather:
      return "scatter_allgather";
    case Heuristic::kBinomialGather:
      return "binomial_gather";
  }
  return "unknown";
}

absl::StatusOr<Mapping> ReorderRing(const RankDistance& d, const ReorderOptions& o) {
  return PlaceFromRoot(d, o, [&](Placer& placer, const Shift& sh) {
    for (int i = 1; i < sh.p; ++i) placer.Place(sh.Real(i), sh.Real(i - 1));
    return absl::OkStatus();
  });
}

absl::StatusOr<Mapping> ReorderRecursiveDoubling(const RankDistance& d, bool last_stage_heaviest,
                                                 const ReorderOptions& o) {
  // Open MPI's recursive doubling allreduce: even ranks < 2*extra drop out, odd survive.
  return PairedHypercube(d, o, last_stage_heaviest, /*keep_odd=*/true);
}

absl::StatusOr<Mapping> ReorderRabenseifner(const RankDistance& d, const ReorderOptions& o) {
  // Reduce-scatter step k exchanges m/2^(k+1) with vrank^2^k: the first stage is heaviest.
  // Odd ranks < 2*rem drop out, even survive.
  return PairedHypercube(d, o, /*last_heaviest=*/false, /*keep_odd=*/false);
}

absl::StatusOr<Mapping> ReorderBinomialBcast(const RankDistance& d, const ReorderOptions& o) {
  const int64_t p = d.size();
  // Binomial tree (collective_shapes.h): children in Open MPI's order, smallest subtree first.
  return PlaceTreeBreadthFirst(
      d, o, [p](int64_t v, auto&& child) { ForEachBinomialTreeChild(v, p, child); });
}

absl::StatusOr<Mapping> ReorderBinaryTreeBcast(const RankDistance& d, const ReorderOptions& o) {
  return PlaceFromRoot(d, o, [&](Placer& placer, const Shift& sh) {
    const int p = sh.p;
    // Binary tree (collective_shapes.h, fanout 2). Both children are placed when their parent
    // is visited (it sends to them concurrently), greater child first; exploration is
    // depth-first, greater child first.
    std::vector<int64_t> stack{0};
    while (!stack.empty()) {
      const int64_t v = stack.back();
      stack.pop_back();
      int64_t children[2];  // increasing
      int n = 0;
      ForEachKaryTreeChild(v, p, 2, [&](int64_t c) { children[n++] = c; });
      for (int i = n - 1; i >= 0; --i) placer.Place(sh.Real(children[i]), sh.Real(v));
      stack.insert(stack.end(), children, children + n);
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<Mapping> ReorderKnomialBcast(const RankDistance& d, const ReorderOptions& o) {
  return PlaceFromRoot(d, o, [&](Placer& placer, const Shift& sh) {
    const int64_t radix = o.knomial_radix;
    if (radix < 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("reorder: k-nomial radix ", radix, " must be >= 2"));
    }
    const int p = sh.p;
    // K-nomial tree (collective_shapes.h): the children of v are v + k*mask (k = 1..radix-1)
    // for the masks below KnomialTreeSpan(v). Mask 1 children are leaves: they go first,
    // next to v; then subtrees in increasing size, each depth-first, which keeps every
    // subtree (a contiguous shifted range) together.
    struct Frame {
      int64_t v, mask, k, top;  // next (mask, k) to expand; masks below `top` exist
    };
    std::vector<Frame> stack{{0, 1, 1, KnomialTreeSpan(0, p, radix)}};
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.mask >= f.top) {
        stack.pop_back();
        continue;
      }
      if (f.mask == 1) {
        for (int64_t k = 1; k < radix && f.v + k < p; ++k) {
          placer.Place(sh.Real(f.v + k), sh.Real(f.v));
        }
        f.mask = radix;
        continue;
      }
      if (f.k >= radix) {
        f.mask *= radix;
        f.k = 1;
        continue;
      }
      const int64_t v = f.v, c = f.v + f.k * f.mask;
      ++f.k;
      if (c >= p) {  // larger k and larger masks are out of range too
        f.mask = f.top;
        continue;
      }
      placer.Place(sh.Real(c), sh.Real(v));
      stack.push_back({c, 1, 1, KnomialTreeSpan(c, p, radix)});  // invalidates f
    }
    return absl::OkStatus();
  });
}

namespace {

// The heuristics ReorderTreeSpread has a spread order for.
bool IsTreeBcast(Heuristic h) {
  return h == Heuristic::kBinomialBcast || h == Heuristic::kBinaryTreeBcast ||
         h == Heuristic::kKnomialBcast;
}

// The parent of every shifted rank v > 0 in the tree of a tree bcast heuristic (parent[0] =
// -1), empty for other heuristics.
std::vector<int64_t> TreeParents(Heuristic h, int64_t p, int64_t radix) {
  if (!IsTreeBcast(h)) return {};
  std::vector<int64_t> parent(p, -1);
  for (int64_t v = 1; v < p; ++v) {
    parent[v] = h == Heuristic::kBinomialBcast     ? BinomialTreeParent(v)
                : h == Heuristic::kBinaryTreeBcast ? KaryTreeParent(v, 2)
                                                   : KnomialTreeParent(v, radix);
  }
  return parent;
}

}  // namespace

absl::StatusOr<Mapping> ReorderTreeSpread(Heuristic h, const RankDistance& d,
                                          const ReorderOptions& o, bool nearest) {
  if (o.knomial_radix < 2 && h == Heuristic::kKnomialBcast) {
    return absl::InvalidArgumentError(
        absl::StrCat("reorder: k-nomial radix ", o.knomial_radix, " must be >= 2"));
  }
  if (!IsTreeBcast(h)) {
    return absl::InvalidArgumentError(
        absl::StrCat("reorder: ", std::string(HeuristicName(h)), " is not a tree bcast"));
  }
  return PlaceFromRoot(d, o, [&](Placer& placer, const Shift& sh) {
    std::vector<std::vector<int>> slots_of(d.hosts().num_hosts());  // in slot order
    for (int s = 0; s < sh.p; ++s) slots_of[d.host(s)].push_back(s);
    const int root_host = d.host(o.root);
    if (!nearest) {
      // Round-robin over the hosts from the root's, as the by-node order deals ranks: shifted
      // rank v on the (v mod hosts)-th host's next free slot (a full host passes it on).
      std::vector<int> hosts;
      const int num_hosts = static_cast<int>(slots_of.size());
      for (int i = 0; i < num_hosts; ++i) {
        const int hst = (root_host + i) % num_hosts;
        if (!slots_of[hst].empty()) hosts.push_back(hst);
      }
      std::vector<size_t> next(slots_of.size(), 0);
      auto take_on = [&](int hst) {
        while (next[hst] < slots_of[hst].size() && placer.taken(slots_of[hst][next[hst]]))
          ++next[hst];
        return next[hst] < slots_of[hst].size() ? slots_of[hst][next[hst]] : -1;
      };
      for (int64_t v = 1; v < sh.p; ++v) {
        for (size_t i = 0; i < hosts.size(); ++i) {
          const int slot = take_on(hosts[(v + i) % hosts.size()]);
          if (slot < 0) continue;
          placer.PlaceAt(sh.Real(v), slot);
          break;
        }
      }
      return absl::OkStatus();
    }
    const std::vector<int64_t> parent = TreeParents(h, sh.p, o.knomial_radix);
    std::vector<int> unused;  // hosts holding no placed rank
    for (int hst = 0; hst < static_cast<int>(slots_of.size()); ++hst) {
      if (!slots_of[hst].empty() && hst != root_host) unused.push_back(hst);
    }
    for (int64_t v = 1; v < sh.p; ++v) {
      const int r = sh.Real(v), from = placer.slot(sh.Real(parent[v]));
      if (unused.empty()) {
        placer.Place(r, sh.Real(parent[v]));
        continue;
      }
      // A new host, the one nearest the parent (ties: the lower host index); its first slot.
      size_t best = 0;
      for (size_t i = 1; i < unused.size(); ++i) {
        if (d.DistanceClass(from, slots_of[unused[i]][0]) <
            d.DistanceClass(from, slots_of[unused[best]][0])) {
          best = i;
        }
      }
      placer.PlaceAt(r, slots_of[unused[best]][0]);
      unused.erase(unused.begin() + static_cast<std::ptrdiff_t>(best));
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<Mapping> ReorderScatterAllgather(const RankDistance& d, const ReorderOptions& o) {
  return PlaceFromRoot(d, o, [&](Placer& placer, const Shift& sh) {
    const int p = sh.p;
    // Allgather partner at step k is v ^ 2^k with 2^k blocks: last stage heaviest. Shifted
    // ranks >= p do not exist; their references are smaller, hence always real.
    WalkHypercube(Dims(Log2Ceil(p), /*last_heaviest=*/true), [&](int64_t w, int64_t ref) {
      if (w < p) placer.Place(sh.Real(w), sh.Real(ref));
    });
    return absl::OkStatus();
  });
}

absl::StatusOr<Mapping> ReorderBinomialGather(const RankDistance& d, const ReorderOptions& o) {
  const int64_t p = d.size();
  // In-order binomial tree (collective_shapes.h): child v + m forwards min(m, p - v - m)
  // blocks, and Open MPI's order puts larger subtrees first.
  return PlaceTreeBreadthFirst(d, o, [p](int64_t v, auto&& child) {
    ForEachInOrderBinomialTreeChild(v, p, [&](int64_t c, int64_t) { child(c); });
  });
}

absl::StatusOr<Mapping> Reorder(Heuristic h, const RankDistance& d, const ReorderOptions& o) {
  switch (h) {
    case Heuristic::kRing:
      return ReorderRing(d, o);
    case Heuristic::kRecursiveDoublingAllgather:
      return ReorderRecursiveDoubling(d, true, o);
    case Heuristic::kRecursiveDoublingAllreduce:
      return ReorderRecursiveDoubling(d, false, o);
    case Heuristic::kRabenseifner:
      return ReorderRabenseifner(d, o);
    case Heuristic::kBinomialBcast:
      return ReorderBinomialBcast(d, o);
    case Heuristic::kBinaryTreeBcast:
      return ReorderBinaryTreeBcast(d, o);
    case Heuristic::kKnomialBcast:
      return ReorderKnomialBcast(d, o);
    case Heuristic::kScatterAllgather:
      return ReorderScatterAllgather(d, o);
    case Heuristic::kBinomialGather:
      return ReorderBinomialGather(d, o);
  }
  return absl::InvalidArgumentError("reorder: unknown heuristic");
}

// ---------------------------------------------------------------------------------------
// Generic graph heuristic

namespace {

// Undirected adjacency in CSR form; `out` tells the direction of the original edge.
struct Adjacency {
  std::vector<int64_t> start;  // num_ranks + 1
  struct Arc {
    int32_t other;
    bool out;  // true: this rank sends to `other`
    int64_t bytes;
  };
  std::vector<Arc> arcs;
};

Adjacency BuildAdjacency(const CommGraph& g) {
  Adjacency a;
  a.start.assign(g.num_ranks + 1, 0);
  for (const CommEdge& e : g.edges) {
    ++a.start[e.from + 1];
    ++a.start[e.to + 1];
  }
  for (int r = 0; r < g.num_ranks; ++r) a.start[r + 1] += a.start[r];
  a.arcs.resize(a.start.back());
  std::vector<int64_t> pos(a.start.begin(), a.start.end() - 1);
  for (const CommEdge& e : g.edges) {
    a.arcs[pos[e.from]++] = {e.to, true, e.bytes};
    a.arcs[pos[e.to]++] = {e.from, false, e.bytes};
  }
  return a;
}

}  // namespace

absl::Status ValidateCommGraph(const RankDistance& d, const CommGraph& g) {
  if (g.num_ranks != d.size()) {
    return absl::InvalidArgumentError(absl::StrCat("reorder: graph has ", g.num_ranks,
                                                   " ranks but the placement has ", d.size()));
  }
  for (size_t i = 0; i < g.edges.size(); ++i) {
    const CommEdge& e = g.edges[i];
    if (e.from < 0 || e.from >= g.num_ranks || e.to < 0 || e.to >= g.num_ranks || e.bytes < 0) {
      return absl::InvalidArgumentError(absl::StrCat("reorder: edge ", i, " (", e.from, " -> ",
                                                     e.to, ", ", e.bytes,
                                                     " bytes) is out of range"));
    }
  }
  return absl::OkStatus();
}

namespace {

// Cost of all arcs of `r` given the current mapping.
double RankCost(const RankDistance& d, const Adjacency& adj, const Mapping& m, int r) {
  double c = 0;
  for (int64_t i = adj.start[r]; i < adj.start[r + 1]; ++i) {
    const Adjacency::Arc& a = adj.arcs[i];
    c += a.out ? d.TimeNs(m[r], m[a.other], a.bytes) : d.TimeNs(m[a.other], m[r], a.bytes);
  }
  return c;
}

// Grows one host at a time: the next rank is the unplaced one with the most bytes to the
// ranks already on the current host (then to any placed rank, then the lowest index), put
// on the free slot closest to its heaviest neighbour on the current host. Filling a host
// with a connected "ball" before moving to the nearest host with free slots keeps host
// boundaries short; a frontier-wide greedy would scatter each new host's slots over the
// whole frontier.
Mapping GreedyGrow(const RankDistance& d, const Adjacency& adj, int root) {
  const int p = d.size();
  Placer placer(d);
  using Entry = std::pair<int64_t, int32_t>;  // (bytes, -rank): max-heap, lowest rank on ties
  std::priority_queue<Entry> to_placed_heap, to_host_heap;
  std::vector<int64_t> to_placed(p, 0), to_host(p, 0);
  std::vector<int32_t> host_epoch(p, -1);  // which host fill to_host[r] belongs to
  int epoch = 0;
  int current_host = d.host(root);
  int last = root;
  auto on_placed = [&](int r) {
    for (int64_t i = adj.start[r]; i < adj.start[r + 1]; ++i) {
      const int o = adj.arcs[i].other;
      if (placer.placed(o)) continue;
      to_placed[o] += adj.arcs[i].bytes;
      to_placed_heap.emplace(to_placed[o], -o);
      if (host_epoch[o] != epoch) {
        host_epoch[o] = epoch;
        to_host[o] = 0;
      }
      to_host[o] += adj.arcs[i].bytes;
      to_host_heap.emplace(to_host[o], -o);
    }
  };
  auto pop = [&](std::priority_queue<Entry>& heap, const std::vector<int64_t>& value) {
    while (!heap.empty()) {
      const auto [w, neg] = heap.top();
      heap.pop();
      if (!placer.placed(-neg) && w == value[-neg]) return static_cast<int>(-neg);
    }
    return -1;
  };
  placer.Seed(root);
  on_placed(root);
  int next_unconnected = 0;
  for (int count = 1; count < p; ++count) {
    int r = pop(to_host_heap, to_host);
    if (r < 0) r = pop(to_placed_heap, to_placed);
    if (r < 0) {  // disconnected (or zero-weight) remainder: lowest index next
      while (placer.placed(next_unconnected)) ++next_unconnected;
      r = next_unconnected;
    }
    int ref = last;
    int64_t best = -1;
    for (int64_t i = adj.start[r]; i < adj.start[r + 1]; ++i) {
      const Adjacency::Arc& a = adj.arcs[i];
      if (placer.placed(a.other) && a.bytes > best &&
          d.host(placer.slot(a.other)) == current_host) {
        best = a.bytes;
        ref = a.other;
      }
    }
    placer.Place(r, ref);
    if (d.host(placer.slot(r)) != current_host) {  // the host filled up: start the next one
      current_host = d.host(placer.slot(r));
      ++epoch;
      to_host_heap = {};
    }
    on_placed(r);
    last = r;
  }
  return placer.Release();
}

// Cuts `vertices` into consecutive chunks of `sizes` (summing to vertices.size()), each
// grown as a connected ball: a chunk starts from the vertex with the most bytes to earlier
// chunks (vertices[0] for the first), then repeatedly adds the vertex with the most bytes
// into the chunk; ties and disconnected rest go to the lowest rank. Only edges inside
// `vertices` count. Returns the vertices in chunk order.
class BallGrower {
 public:
  explicit BallGrower(const Adjacency& adj, int n)
      : adj_(adj), member_(n, -1), done_(n, 0), to_done_(n, 0), to_chunk_(n, 0), chunk_of_(n, -1) {}

  std::vector<int32_t> Grow(const std::vector<int32_t>& vertices,
                            const std::vector<int64_t>& sizes) {
    ++call_;
    for (int32_t v : vertices) {
      member_[v] = call_;
      done_[v] = 0;
      to_done_[v] = 0;
      chunk_of_[v] = -1;
    }
    std::vector<int32_t> sorted(vertices);
    std::sort(sorted.begin(), sorted.end());
    size_t lowest = 0;
    std::priority_queue<Entry> done_heap;
    std::vector<int32_t> order;
    order.reserve(vertices.size());
    for (size_t c = 0; c < sizes.size(); ++c) {
      std::priority_queue<Entry> chunk_heap;
      for (int64_t k = 0; k < sizes[c]; ++k) {
        int r = order.empty() ? vertices[0] : Pop(chunk_heap, to_chunk_, static_cast<int>(c));
        if (r < 0) r = Pop(done_heap, to_done_, -1);
        if (r < 0) {
          while (done_[sorted[lowest]]) ++lowest;
          r = sorted[lowest];
        }
        done_[r] = 1;
        order.push_back(r);
        for (int64_t i = adj_.start[r]; i < adj_.start[r + 1]; ++i) {
          const int o = adj_.arcs[i].other;
          if (member_[o] != call_ || done_[o]) continue;
          const int64_t b = adj_.arcs[i].bytes;
          to_done_[o] += b;
          done_heap.emplace(to_done_[o], -o);
          if (chunk_of_[o] != static_cast<int>(c)) {
            chunk_of_[o] = static_cast<int>(c);
            to_chunk_[o] = 0;
          }
          to_chunk_[o] += b;
          chunk_heap.emplace(to_chunk_[o], -o);
        }
      }
    }
    return order;
  }

 private:
  using Entry = std::pair<int64_t, int32_t>;  // (bytes, -rank)
  int Pop(std::priority_queue<Entry>& heap, const std::vector<int64_t>& value, int chunk) {
    while (!heap.empty()) {
      const auto [w, neg] = heap.top();
      heap.pop();
      const int v = -neg;
      if (!done_[v] && w == value[v] && (chunk < 0 || chunk_of_[v] == chunk)) return v;
    }
    return -1;
  }

  const Adjacency& adj_;
  int32_t call_ = 0;
  std::vector<int32_t> member_;
  std::vector<uint8_t> done_;
  std::vector<int64_t> to_done_, to_chunk_;
  std::vector<int32_t> chunk_of_;
};

// Two-level partition growth: slots are visited from the root's slot outwards (host by
// host, leaf group by leaf group, as FreeSlotIndex orders them); ranks are cut into balls
// of the leaf groups' sizes, each ball into balls of its hosts' sizes, and the i-th rank of
// that order takes the i-th slot.
Mapping PartitionGrow(const RankDistance& d, const Adjacency& adj, int root) {
  const int p = d.size();
  std::vector<int32_t> slots;
  slots.reserve(p);
  {
    FreeSlotIndex index(d);
    int s = root;
    for (int i = 0; i < p; ++i) {
      slots.push_back(s);
      index.Take(s);
      if (i + 1 < p) s = index.Closest(s);
    }
  }
  std::vector<int32_t> group_of_host(d.hosts().num_hosts());
  const auto* hier = dynamic_cast<const HierarchicalCostMatrix*>(&d.hosts());
  for (int h = 0; h < d.hosts().num_hosts(); ++h) group_of_host[h] = hier ? hier->group_of(h) : h;
  // Nesting levels of the slot order: leaf group, host, package, L3. Two consecutive slots
  // are in the same unit at `level` when all keys up to it agree.
  constexpr int kLevels = 4;
  auto same_unit = [&](int level, int32_t a, int32_t b) {
    const RankLocation& la = d.placement().ranks[a];
    const RankLocation& lb = d.placement().ranks[b];
    if (group_of_host[la.host] != group_of_host[lb.host]) return false;
    if (level >= 1 && la.host != lb.host) return false;
    if (level >= 2 && la.package != lb.package) return false;
    if (level >= 3 && la.l3 != lb.l3) return false;
    return true;
  };
  BallGrower grower(adj, p);
  Mapping mapping(p, -1);
  // members[i] goes to slots[lo + i] once the levels below are cut.
  std::function<void(int, size_t, std::vector<int32_t>)> cut = [&](int level, size_t lo,
                                                                   std::vector<int32_t> members) {
    if (level == kLevels) {
      for (size_t i = 0; i < members.size(); ++i) mapping[members[i]] = slots[lo + i];
      return;
    }
    std::vector<int64_t> sizes{1};
    for (size_t i = lo + 1; i < lo + members.size(); ++i) {
      if (same_unit(level, slots[i - 1], slots[i])) {
        ++sizes.back();
      } else {
        sizes.push_back(1);
      }
    }
    if (sizes.size() > 1) members = grower.Grow(members, sizes);
    size_t pos = 0;
    for (int64_t n : sizes) {
      cut(level + 1, lo + pos,
          std::vector<int32_t>(members.begin() + pos, members.begin() + pos + n));
      pos += n;
    }
  };
  std::vector<int32_t> all(p);
  std::iota(all.begin(), all.end(), 0);
  std::swap(all[0], all[root]);
  cut(0, 0, std::move(all));
  return mapping;
}

}  // namespace

double GraphCostNs(const RankDistance& d, const CommGraph& graph, const Mapping& mapping) {
  double c = 0;
  for (const CommEdge& e : graph.edges) c += d.TimeNs(mapping[e.from], mapping[e.to], e.bytes);
  return c;
}

int64_t RefineBySwaps(const RankDistance& d, const CommGraph& graph, int32_t root, int32_t passes,
                      int32_t max_candidates, Mapping& mapping) {
  const int p = d.size();
  if (passes <= 0 || p < 3) return 0;
  const Adjacency adj = BuildAdjacency(graph);
  // Slots per host, and which rank currently sits in each slot.
  std::vector<std::vector<int32_t>> host_slots(d.hosts().num_hosts());
  for (int s = 0; s < p; ++s) host_slots[d.host(s)].push_back(s);
  std::vector<int32_t> owner(p);
  for (int r = 0; r < p; ++r) owner[mapping[r]] = r;
  int64_t swaps = 0;
  std::vector<int32_t> nbrs;
  for (int pass = 0; pass < passes; ++pass) {
    int64_t pass_swaps = 0;
    for (int u = 0; u < p; ++u) {
      if (u == root || adj.start[u] == adj.start[u + 1]) continue;
      // Heaviest neighbours first; their hosts hold the promising slots.
      nbrs.clear();
      for (int64_t i = adj.start[u]; i < adj.start[u + 1]; ++i) nbrs.push_back(int32_t(i));
      std::sort(nbrs.begin(), nbrs.end(), [&](int32_t a, int32_t b) {
        return std::make_pair(-adj.arcs[a].bytes, a) < std::make_pair(-adj.arcs[b].bytes, b);
      });
      int tried = 0;
      bool moved = false;
      for (int32_t arc : nbrs) {
        if (tried >= max_candidates || moved) break;
        const int h = d.host(mapping[adj.arcs[arc].other]);
        for (int32_t s : host_slots[h]) {
          if (tried >= max_candidates) break;
          const int w = owner[s];
          if (w == root || w == u) continue;
          ++tried;
          const double before = RankCost(d, adj, mapping, u) + RankCost(d, adj, mapping, w);
          std::swap(mapping[u], mapping[w]);
          const double after = RankCost(d, adj, mapping, u) + RankCost(d, adj, mapping, w);
          if (after < before * (1 - 1e-12) - 1e-9) {
            owner[mapping[u]] = u;
            owner[mapping[w]] = w;
            ++pass_swaps;
            moved = true;  // u's neighbourhood changed: go to the next rank
            break;
          }
          std::swap(mapping[u], mapping[w]);
        }
      }
    }
    swaps += pass_swaps;
    if (pass_swaps == 0) break;
  }
  return swaps;
}

absl::StatusOr<Mapping> ReorderGraph(const RankDistance& d, const CommGraph& graph,
                                     const ReorderOptions& o) {
  if (absl::Status s = CheckCommon(d, o); !s.ok()) return s;
  if (absl::Status s = ValidateCommGraph(d, graph); !s.ok()) return s;
  // Two constructions; the cheaper one is refined. Ties keep the slot-preserving greedy, so
  // a flat topology still yields the identity.
  const Adjacency adj = BuildAdjacency(graph);
  Mapping m = GreedyGrow(d, adj, o.root);
  Mapping balls = PartitionGrow(d, adj, o.root);
  if (GraphCostNs(d, graph, balls) < GraphCostNs(d, graph, m)) m = std::move(balls);
  RefineBySwaps(d, graph, o.root, o.refinement_passes, o.max_swap_candidates, m);
  return m;
}

absl::StatusOr<Heuristic> HeuristicFor(const PatternSpec& spec) {
  if (absl::Status s = ValidateSpec(spec); !s.ok()) return s;
  const Algorithm a = EffectiveAlgorithm(spec);
  switch (spec.collective) {
    case Collective::kAllreduce:
      if (a == Algorithm::kRing || a == Algorithm::kSegmentedRing) return Heuristic::kRing;
      if (a == Algorithm::kRecursiveDoubling) return Heuristic::kRecursiveDoublingAllreduce;
      if (a == Algorithm::kRabenseifner) return Heuristic::kRabenseifner;
      // Swing's peers short-cut a ring: steps 0 and 1 chain all ranks (r, r + 1), the later
      // ones stay at odd distances, so consecutive ranks packed host by host suit it.
      if (a == Algorithm::kSwing || a == Algorithm::kSwingBandwidth) return Heuristic::kRing;
      break;
    case Collective::kAllgather:
      if (a == Algorithm::kRing) return Heuristic::kRing;
      if (a == Algorithm::kRecursiveDoubling) return Heuristic::kRecursiveDoublingAllgather;
      break;
    case Collective::kBcast:
      if (a == Algorithm::kBinomial) return Heuristic::kBinomialBcast;
      if (a == Algorithm::kBinaryTree) return Heuristic::kBinaryTreeBcast;
      if (a == Algorithm::kKnomial) return Heuristic::kKnomialBcast;
      if (a == Algorithm::kScatterAllgather) return Heuristic::kScatterAllgather;
      if (a == Algorithm::kScatterAllgatherRing) return Heuristic::kRing;
      if (a == Algorithm::kBine) return Heuristic::kRing;  // Swing distances around the root
      break;
    case Collective::kGather:
      if (a == Algorithm::kBinomial) return Heuristic::kBinomialGather;
      break;
    case Collective::kReduce:
      if (a == Algorithm::kBinomial) return Heuristic::kBinomialBcast;
      break;
  }
  return absl::NotFoundError(absl::StrCat("reorder: no dedicated heuristic for ",
                                          std::string(CollectiveName(spec.collective)), " ",
                                          std::string(AlgorithmName(a))));
}

absl::StatusOr<ReorderDecision> ReorderOrIdentity(const PatternSpec& spec, const RankDistance& d,
                                                  const RouteSource* routes,
                                                  const ReorderOptions& options) {
  if (spec.num_ranks != d.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("reorder: spec has ", spec.num_ranks, " ranks, the placement ", d.size()));
  }
  ReorderOptions o = options;
  const bool rooted = spec.collective == Collective::kBcast ||
                      spec.collective == Collective::kGather ||
                      spec.collective == Collective::kReduce;
  o.root = rooted ? spec.root : 0;
  o.knomial_radix = spec.radix;
  ReorderDecision out;
  absl::StatusOr<Mapping> candidate;
  absl::StatusOr<Heuristic> h = HeuristicFor(spec);
  if (h.ok()) {
    out.method = HeuristicName(*h);
    candidate = Reorder(*h, d, o);
  } else if (h.status().code() == absl::StatusCode::kNotFound) {
    out.method = "graph";
    auto edges = CommunicationGraph(spec);
    if (!edges.ok()) return edges.status();
    CommGraph g{spec.num_ranks, {}};
    g.edges.reserve(edges->size());
    for (const WeightedEdge& e : *edges) g.edges.push_back({e.src, e.dst, e.bytes});
    candidate = ReorderGraph(d, g, o);
  } else {
    return h.status();
  }
  if (!candidate.ok()) return candidate.status();
  PredictInputs in;
  in.placement = &d.placement();
  in.costs = &d.hosts();
  in.routes = routes;
  in.intra = d.intra();
  const Mapping identity = IdentityMapping(d.size());
  auto base = PredictCollective(spec, identity, in);
  if (!base.ok()) return base.status();
  auto mine = PredictCollective(spec, *candidate, in);
  if (!mine.ok()) return mine.status();
  if (h.ok() && IsTreeBcast(*h)) {
    for (bool nearest : {true, false}) {
      // The nearest-host scan is O(hosts) per host: quadratic, so only up to
      // kSpreadNearestMaxHosts.
      if (nearest && d.hosts().num_hosts() > kSpreadNearestMaxHosts) continue;
      absl::StatusOr<Mapping> spread = ReorderTreeSpread(*h, d, o, nearest);
      if (!spread.ok()) return spread.status();
      auto theirs = PredictCollective(spec, *spread, in);
      if (!theirs.ok()) return theirs.status();
      if (theirs->time_ns < mine->time_ns) {
        static constexpr std::string_view kSpreadNames[] = {
            "binomial_bcast_spread", "binary_tree_bcast_spread", "knomial_bcast_spread"};
        out.method = kSpreadNames[*h == Heuristic::kBinomialBcast     ? 0
                                  : *h == Heuristic::kBinaryTreeBcast ? 1
                                                                      : 2];
        candidate = *std::move(spread);
        mine = *std::move(theirs);
      }
    }
  }
  out.identity_ns = base->time_ns;
  out.candidate_ns = mine->time_ns;
  out.reordered = mine->time_ns < base->time_ns && *candidate != identity;
  out.mapping = out.reordered ? *std::move(candidate) : identity;
  return out;
}

Mapping IdentityMapping(int n) {
  Mapping m(n);
  std::iota(m.begin(), m.end(), 0);
  return m;
}

bool IsPermutation(const Mapping& m) {
  std::vector<uint8_t> seen(m.size(), 0);
  for (int32_t s : m) {
    if (s < 0 || s >= static_cast<int64_t>(m.size()) || seen[s]) return false;
    seen[s] = 1;
  }
  return true;
}

}  // namespace toporr::mapping

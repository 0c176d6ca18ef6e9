#include "mapping/reorder/heuristics.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "mapping/schedules/collective_shapes.h"

namespace toporr::mapping {
namespace {

// Walks a hypercube of 2^levels vertices so that heavier dimensions are placed closest:
// dimension k is the k-th heaviest (levels - 1 - k when `last_heaviest`, else k), vertex order
// is i = 1, 2, 3, ... with bit b of i selecting the b-th heaviest dimension, and each vertex's
// reference is the vertex without its heaviest dimension (the placed partner it exchanges the
// most with). visit(w, ref_w) is called in placement order with cube vertices; ref_w < w
// numerically, so a callback that skips vertices >= some bound never sees an unplaced
// reference.
template <typename Visit>
void WalkHypercube(int levels, bool last_heaviest, Visit visit) {
  const uint64_t n = uint64_t{1} << levels;
  if (!last_heaviest) {
    // Dimension b is bit b: the vertex is i itself.
    for (uint64_t i = 1; i < n; ++i) {
      const int64_t w = static_cast<int64_t>(i);
      visit(w, w ^ static_cast<int64_t>(i & (~i + 1)));
    }
    return;
  }
  // Dimension b is bit levels - 1 - b: the vertex is i with its low `levels` bits reversed.
  for (uint64_t i = 1; i < n; ++i) {
    uint64_t r = i;
    r = ((r >> 1) & 0x5555555555555555) | ((r & 0x5555555555555555) << 1);
    r = ((r >> 2) & 0x3333333333333333) | ((r & 0x3333333333333333) << 2);
    r = ((r >> 4) & 0x0F0F0F0F0F0F0F0F) | ((r & 0x0F0F0F0F0F0F0F0F) << 4);
    r = __builtin_bswap64(r) >> (64 - levels);
    const int64_t w = static_cast<int64_t>(r);
    visit(w, w ^ (int64_t{1} << (levels - 1 - __builtin_ctzll(i))));
  }
}

// Shifted rank helpers for rooted trees: v = (r - root) mod p.
struct Shift {
  int p, root;
  // The real rank of shifted rank v, 0 <= v < p.
  int Real(int64_t v) const {
    const int64_t r = v + root;
    return static_cast<int>(r < p ? r : r - p);
  }
};

// How every heuristic starts: check the placement and the root, keep the root in its own
// slot, then let `place` put the other ranks next to ranks already placed. `place(placer,
// shift)` gets the seeded placer and the shift that makes the root virtual rank 0; it
// returns an error only for options of its own (nothing placed so far is returned then).
template <typename Place>
absl::StatusOr<Mapping> PlaceFromRoot(const RankDistance& d, const ReorderOptions& o, Place place) {
  if (absl::Status s = CheckReorderInputs(d, o); !s.ok()) return s;
  Placer placer(d);
  placer.Seed(o.root);
  if (absl::Status s = place(placer, Shift{d.size(), o.root}); !s.ok()) return s;
  return placer.Release();
}

// Recursive doubling / Rabenseifner on real ranks with the non-power-of-two pre-step (the
// fold of mapping/schedules/collective_shapes.h): pairs (2i, 2i+1), i < rem, merge into one vrank
// held by the survivor (odd for recursive doubling, even for Rabenseifner); the dropout is placed
// right after its survivor because the pre/post steps exchange the whole vector between them.
absl::StatusOr<Mapping> PairedHypercube(const RankDistance& d, const ReorderOptions& o,
                                        bool last_heaviest, bool keep_odd) {
  return PlaceFromRoot(d, o, [&](Placer& placer, const Shift&) {
    const int p = d.size();
    const int levels = Log2Floor(p);
    const int rem = p - static_cast<int>(FloorPowerOfTwo(p));
    // Virtual rank v >= rem is played by rank v + rem (collective_shapes.h).
    auto real = [&](int v) {
      return v >= rem ? v + rem : static_cast<int>(UnfoldedRank(v, p, keep_odd));
    };
    auto vrank = [&](int r) { return static_cast<int>(FoldedRank(r, p, keep_odd)); };
    int v0 = vrank(o.root);
    if (v0 < 0) {  // the root is a dropout: its survivor comes next to it
      v0 = o.root / 2;
      placer.Place(real(v0), o.root);
    } else if (v0 < rem) {
      placer.Place(real(v0) ^ 1, o.root);
    }
    WalkHypercube(levels, last_heaviest, [&](int64_t w, int64_t ref) {
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
    struct Node {
      int32_t v, slot;  // shifted rank, where it was placed
    };
    // Every rank enters the queue once. Fields are written one by one: a Node built whole
    // from a fresh slot would be read back before its halves have reached memory.
    std::unique_ptr<Node[]> queue(new Node[sh.p]);
    queue[0].v = 0;
    queue[0].slot = placer.slot(sh.Real(0));
    int tail = 1;
    for (int head = 0; head < tail; ++head) {
      const int32_t v = queue[head].v, slot = queue[head].slot;
      children(int64_t{v}, [&](int64_t c) {
        Node& q = queue[tail++];
        q.v = static_cast<int32_t>(c);
        q.slot = placer.PlaceNear(sh.Real(c), slot);
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
  // Binomial tree (mapping/schedules/collective_shapes.h): children in Open MPI's order, smallest
  // subtree first.
  // ForEachBinomialTreeChild's children, v + m for the powers of two m > v, with the first m
  // from v's highest bit.
  return PlaceTreeBreadthFirst(d, o, [p](int64_t v, auto&& child) {
    for (int64_t m = v == 0 ? 1 : int64_t{2} << (63 - __builtin_clzll(v)); v + m < p; m <<= 1)
      child(v + m);
  });
}

absl::StatusOr<Mapping> ReorderBinaryTreeBcast(const RankDistance& d, const ReorderOptions& o) {
  return PlaceFromRoot(d, o, [&](Placer& placer, const Shift& sh) {
    const int p = sh.p;
    // Binary tree (mapping/schedules/collective_shapes.h, fanout 2). Both children are placed when
    // their parent is visited (it sends to them concurrently), greater child first; exploration is
    // depth-first, greater child first.
    struct Node {
      int32_t v, slot;  // shifted rank, where it was placed
    };
    // The stack never holds more than every rank once. Fields are written one by one (see
    // PlaceTreeBreadthFirst).
    std::unique_ptr<Node[]> stack(new Node[p]);
    stack[0].v = 0;
    stack[0].slot = placer.slot(sh.Real(0));
    int top = 1;
    while (top > 0) {
      --top;
      const int32_t v = stack[top].v, slot = stack[top].slot;
      // ForEachKaryTreeChild's children for fanout 2: v + w and v + 2w, w the width of v's
      // level (the highest power of two <= v + 1).
      const int64_t w = int64_t{1} << (63 - __builtin_clzll(static_cast<uint64_t>(v) + 1));
      const int64_t c0 = v + w, c1 = v + 2 * w;
      if (c0 >= p) continue;
      if (c1 < p) {
        const int32_t s1 = placer.PlaceNear(sh.Real(c1), slot);
        const int32_t s0 = placer.PlaceNear(sh.Real(c0), slot);
        stack[top].v = static_cast<int32_t>(c0);
        stack[top].slot = s0;
        stack[top + 1].v = static_cast<int32_t>(c1);
        stack[top + 1].slot = s1;
        top += 2;
      } else {
        stack[top].v = static_cast<int32_t>(c0);
        stack[top].slot = placer.PlaceNear(sh.Real(c0), slot);
        ++top;
      }
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
    // K-nomial tree (mapping/schedules/collective_shapes.h): the children of v are v + k*mask (k
    // = 1..radix-1) for the masks below KnomialTreeSpan(v). Mask 1 children are leaves: they go
    // first, next to v; then subtrees in increasing size, each depth-first, which keeps every
    // subtree (a contiguous shifted range) together.
    struct Frame {
      int64_t v, mask, k, top;  // next (mask, k) to expand; masks below `top` exist
      int32_t slot;             // where v was placed
    };
    std::vector<Frame> stack{{0, 1, 1, KnomialTreeSpan(0, p, radix), placer.slot(sh.Real(0))}};
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.mask >= f.top) {
        stack.pop_back();
        continue;
      }
      if (f.mask == 1) {
        for (int64_t k = 1; k < radix && f.v + k < p; ++k)
          placer.PlaceNear(sh.Real(f.v + k), f.slot);
        f.mask = radix;
        continue;
      }
      if (f.k >= radix) {
        f.mask *= radix;
        f.k = 1;
        continue;
      }
      const int64_t c = f.v + f.k * f.mask;
      ++f.k;
      if (c >= p) {  // larger k and larger masks are out of range too
        f.mask = f.top;
        continue;
      }
      const int32_t slot = placer.PlaceNear(sh.Real(c), f.slot);
      stack.push_back({c, 1, 1, KnomialTreeSpan(c, p, radix), slot});  // invalidates f
    }
    return absl::OkStatus();
  });
}

bool IsTreeBcast(Heuristic h) {
  return h == Heuristic::kBinomialBcast || h == Heuristic::kBinaryTreeBcast ||
         h == Heuristic::kKnomialBcast;
}

namespace {

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
    WalkHypercube(Log2Ceil(p), /*last_heaviest=*/true, [&](int64_t w, int64_t ref) {
      if (w < p) placer.Place(sh.Real(w), sh.Real(ref));
    });
    return absl::OkStatus();
  });
}

absl::StatusOr<Mapping> ReorderBinomialGather(const RankDistance& d, const ReorderOptions& o) {
  const int64_t p = d.size();
  // In-order binomial tree (mapping/schedules/collective_shapes.h): child v + m forwards min(m, p -
  // v - m) blocks, and Open MPI's order puts larger subtrees first.
  // ForEachInOrderBinomialTreeChild's children, v + m for m = span / 2, span / 4, ..., 1.
  const int64_t root_span = CeilPowerOfTwo(p);
  return PlaceTreeBreadthFirst(d, o, [p, root_span](int64_t v, auto&& child) {
    for (int64_t m = (v == 0 ? root_span : v & -v) >> 1; m > 0; m >>= 1) {
      if (v + m < p) child(v + m);
    }
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

}  // namespace toporr::mapping

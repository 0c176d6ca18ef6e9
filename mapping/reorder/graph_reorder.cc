#include "mapping/reorder/graph_reorder.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <queue>
#include <utility>

#include "absl/strings/str_cat.h"
#include "mapping/costs/hierarchical_cost_matrix.h"

namespace toporr::mapping {
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
  if (absl::Status s = CheckReorderInputs(d, o); !s.ok()) return s;
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

}  // namespace toporr::mapping

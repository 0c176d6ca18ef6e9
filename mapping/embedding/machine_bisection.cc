#include "mapping/embedding/machine_bisection.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <tuple>
#include <utility>
#include <vector>

#include "mapping/costs/hierarchical_cost_matrix.h"
#include "mapping/embedding/graph_bisection.h"

namespace toporr::mapping::embedding_internal {
namespace {

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

Mapping BisectAlongMachine(const RankDistance& d, const CommGraph& graph) {
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

}  // namespace toporr::mapping::embedding_internal

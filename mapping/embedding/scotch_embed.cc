#include "mapping/embedding/scotch_embed.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "mapping/costs/hierarchical_cost_matrix.h"

// Scotch's header needs FILE and fixed-width types declared first.
#include <scotch/scotch.h>

namespace toporr::mapping::embedding_internal {
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

}  // namespace

absl::StatusOr<Mapping> ScotchMap(const RankDistance& d, const CommGraph& graph, int32_t strategy) {
  const int p = d.size();
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
  rc = SCOTCH_stratGraphMapBuild(&strat.s, strategy, p, 0.0);
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

}  // namespace toporr::mapping::embedding_internal

#include "mapping/reorder/placer.h"

#include <algorithm>
#include <numeric>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "mapping/costs/hierarchical_cost_matrix.h"

namespace toporr::mapping {

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

absl::Status CheckReorderInputs(const RankDistance& d, const ReorderOptions& o) {
  if (d.size() == 0) return absl::InvalidArgumentError("reorder: the placement has no ranks");
  if (o.root < 0 || o.root >= d.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("reorder: root ", o.root, " is outside 0..", d.size() - 1));
  }
  return absl::OkStatus();
}

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

}  // namespace toporr::mapping

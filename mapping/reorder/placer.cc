#include "mapping/reorder/placer.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
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

namespace {

int LowestBit(uint64_t w) { return __builtin_ctzll(w); }

// Non-zero when x and y differ in package, numa, l3 or core (consecutive int32 fields,
// compared as two words).
inline uint64_t LocationsDiffer(const RankLocation& x, const RankLocation& y) {
  static_assert(offsetof(RankLocation, core) == offsetof(RankLocation, package) + 12);
  uint64_t wx[2], wy[2];
  std::memcpy(wx, &x.package, sizeof(wx));
  std::memcpy(wy, &y.package, sizeof(wy));
  return (wx[0] ^ wy[0]) | (wx[1] ^ wy[1]);
}

}  // namespace

FreeSlotIndex::FreeSlotIndex(const RankDistance& distance)
    : d_(distance), hier_(dynamic_cast<const HierarchicalCostMatrix*>(&distance.hosts())) {
  const int n = d_.hosts().num_hosts();
  num_free_ = d_.size();
  BuildLayout();

  host_free_.resize(n);
  host_word_.resize(n + 1);
  int32_t words = 0;
  for (int h = 0; h < n; ++h) {
    host_free_[h] = HostSize(h);
    host_word_[h] = words;
    words += (host_free_[h] + 63) / 64;
  }
  host_word_[n] = words;
  word_per_host_ = words == n;
  for (int h = 0; h < n && word_per_host_; ++h) word_per_host_ = host_word_[h] == h;
  free_words_.assign(words, ~uint64_t{0});
  int last = -1;  // the host whose masks were built last
  for (int h = 0; h < n; ++h) {
    const int count = host_free_[h];
    if (count % 64 != 0) free_words_[host_word_[h + 1] - 1] = (uint64_t{1} << (count % 64)) - 1;
    if (count == 0 || count > kMaskSlots) {
      host_masks_[h] = -1;
      continue;
    }
    if (host_masks_[h] == kSameAsPrevious) {
      // Block layout: every host has count slots, so the previous host's masks were the
      // last built or shared.
      host_masks_[h] = host_masks_[h - 1];
    } else if (layout_ != Layout::kBlock && last >= 0 && SameLayout(h, last)) {
      host_masks_[h] = host_masks_[last];
    } else {
      host_masks_[h] = BuildLevelMasks(h);
      last = h;
    }
  }

  int num_groups = n;
  if (hier_ != nullptr) {
    host_group_ = hier_->host_group();
    num_groups = hier_->num_groups();
  } else {
    host_group_.resize(n);
    std::iota(host_group_.begin(), host_group_.end(), 0);
  }
  group_start_.assign(num_groups + 1, 0);
  group_free_.assign(num_groups, 0);
  for (int h = 0; h < n; ++h) {
    if (host_free_[h] == 0) continue;
    ++group_start_[host_group_[h] + 1];
    group_free_[host_group_[h]] += host_free_[h];
  }
  for (int g = 0; g < num_groups; ++g) group_start_[g + 1] += group_start_[g];
  group_hosts_.resize(group_start_[num_groups]);
  {
    std::vector<int32_t> fill(group_start_.begin(), group_start_.end() - 1);
    for (int h = 0; h < n; ++h) {
      if (host_free_[h] > 0) group_hosts_[fill[host_group_[h]]++] = h;
    }
  }
  group_cursor_.assign(num_groups, 0);
  group_order_.resize(num_groups);
  group_cost_class_.resize(num_groups);
  group_found_host_.assign(num_groups, -1);
  group_order_cursor_.assign(num_groups, 0);
}

void FreeSlotIndex::BuildLayout() {
  const int p = d_.size();
  const int n = d_.hosts().num_hosts();
  const std::vector<RankLocation>& ranks = d_.placement().ranks;
  host_start_.assign(n + 1, 0);
  if (n > 0 && p % n == 0) {
    const int k = p / n;
    // Block: slots h * k ... h * k + k - 1 on host h; cyclic: slot s on host s % n. Checked
    // one host (one round) at a time, without a branch per slot. The block check also
    // compares each host's slot locations with the previous host's (SameLayout) in the same
    // pass.
    bool block = true;
    host_masks_.assign(n, -1);
    for (int h = 0; h < n && block; ++h) {
      int32_t differ = 0;
      uint64_t loc_differ = h == 0;
      const RankLocation* r = &ranks[h * k];
      for (int i = 0; i < k; ++i) differ |= r[i].host ^ h;
      if (h > 0) {
        for (int i = 0; i < k; ++i) loc_differ |= LocationsDiffer(r[i], r[i - k]);
      }
      block = differ == 0;
      if (loc_differ == 0) host_masks_[h] = kSameAsPrevious;
    }
    if (!block) std::fill(host_masks_.begin(), host_masks_.end(), -1);
    bool cyclic = !block;
    for (int round = 0; round < k && cyclic; ++round) {
      int32_t differ = 0;
      const RankLocation* r = &ranks[round * n];
      for (int h = 0; h < n; ++h) differ |= r[h].host ^ h;
      cyclic = differ == 0;
    }
    if (block || cyclic) {
      layout_ = block ? Layout::kBlock : Layout::kCyclic;
      stride_ = block ? k : n;
      if ((stride_ & (stride_ - 1)) == 0) {
        stride_shift_ = __builtin_ctz(static_cast<unsigned>(stride_));
      } else {
        stride_magic_ = ~uint64_t{0} / static_cast<uint32_t>(stride_) + 1;
      }
      for (int h = 0; h <= n; ++h) host_start_[h] = h * k;
      return;
    }
  }
  // Slots grouped by host (a counting sort keeps each host's slots ascending).
  layout_ = Layout::kGeneral;
  host_masks_.assign(n, -1);
  for (int s = 0; s < p; ++s) ++host_start_[ranks[s].host + 1];
  for (int h = 0; h < n; ++h) host_start_[h + 1] += host_start_[h];
  host_slots_.resize(p);
  slot_info_.resize(p);
  std::vector<int32_t> fill(host_start_.begin(), host_start_.end() - 1);
  for (int s = 0; s < p; ++s) {
    const int h = ranks[s].host;
    slot_info_[s] = {h, fill[h] - host_start_[h]};
    host_slots_[fill[h]++] = s;
  }
}

bool FreeSlotIndex::SameLayout(int a, int b) const {
  const int count = HostSize(a);
  if (HostSize(b) != count) return false;
  const RankLocation* ranks = d_.placement().ranks.data();
  uint64_t d = 0;
  if (layout_ == Layout::kGeneral) {
    for (int i = 0; i < count; ++i) d |= LocationsDiffer(ranks[SlotAt(a, i)], ranks[SlotAt(b, i)]);
  } else {
    // A host's i-th slot is its first slot + i * step.
    const int step = layout_ == Layout::kBlock ? 1 : stride_;
    const RankLocation* ra = ranks + SlotAt(a, 0);
    const RankLocation* rb = ranks + SlotAt(b, 0);
    for (int i = 0; i < count; ++i) d |= LocationsDiffer(ra[i * step], rb[i * step]);
  }
  return d == 0;
}

int32_t FreeSlotIndex::BuildLevelMasks(int h) {
  static constexpr int32_t RankLocation::*kLevelKey[4] = {
      &RankLocation::core, &RankLocation::l3, &RankLocation::numa, &RankLocation::package};
  const int count = HostSize(h);
  const std::vector<RankLocation>& ranks = d_.placement().ranks;
  const int32_t first = static_cast<int32_t>(level_masks_.size());
  level_masks_.resize(level_masks_.size() + count);
  LevelMasks* masks = level_masks_.data() + first;
  for (int k = 0; k < 4; ++k) {
    // The distinct objects of this level, the slots in each, and each slot's object (-1:
    // unknown). Objects usually come in order, so a key above all seen so far is new.
    int32_t keys[kMaskSlots];
    uint64_t members[kMaskSlots];
    int8_t object[kMaskSlots];
    int num_objects = 0;
    int32_t max_key = -1;
    for (int i = 0; i < count; ++i) {
      const int32_t key = ranks[SlotAt(h, i)].*kLevelKey[k];
      int o = -1;
      if (key >= 0) {
        if (key <= max_key) {
          for (int j = num_objects - 1; j >= 0; --j) {
            if (keys[j] == key) {
              o = j;
              break;
            }
          }
        }
        if (o < 0) {
          o = num_objects++;
          keys[o] = key;
          members[o] = 0;
          if (key > max_key) max_key = key;
        }
        members[o] |= uint64_t{1} << i;
      }
      object[i] = static_cast<int8_t>(o);
    }
    for (int i = 0; i < count; ++i) masks[i][k] = object[i] < 0 ? 0 : members[object[i]];
  }
  return first;
}

[[gnu::always_inline]] inline int FreeSlotIndex::LowestFreeLocal(int h) const {
  if (word_per_host_) return LowestBit(free_words_[h]);
  for (int w = host_word_[h]; w < host_word_[h + 1]; ++w) {
    if (free_words_[w] != 0) return 64 * (w - host_word_[h]) + LowestBit(free_words_[w]);
  }
  return -1;
}

[[gnu::always_inline]] inline int FreeSlotIndex::FirstFreeHostOfGroup(int g) {
  int32_t& c = group_cursor_[g];
  const int32_t* hosts = group_hosts_.data() + group_start_[g];
  // Hosts never regain free slots, so the cursor only moves forward.
  while (c < group_start_[g + 1] - group_start_[g] && host_free_[hosts[c]] == 0) ++c;
  return hosts[c];
}

void FreeSlotIndex::BuildGroupOrder(int g) {
  const int num_groups = static_cast<int>(group_free_.size());
  const int rep = group_hosts_[group_start_[g]];
  auto& order = group_order_[g];
  // The groups with slots are ordered by (alpha, beta, group) of the cost from `rep` to
  // one of their hosts. Fabrics have few distinct costs: the groups are dealt, in index
  // order, into the sorted distinct costs (a stable counting sort); with many distinct
  // costs, a plain sort.
  constexpr int kMaxDistinct = 16;
  std::pair<double, double> distinct[kMaxDistinct];
  int num_distinct = 0;
  std::vector<int8_t> cost_of(num_groups, -1);  // index into `distinct`; -1: no slots
  int c = 0;                                    // the last cost seen
  for (int x = 0; x < num_groups; ++x) {
    if (group_start_[x] == group_start_[x + 1]) continue;
    // Same group: cost between two different hosts of it (0 when it has one host, which is
    // then full anyway since we only get here when the reference host is full).
    int other = group_hosts_[group_start_[x]];
    if (x == g && group_start_[g + 1] - group_start_[g] > 1) {
      other = group_hosts_[group_start_[g] + 1];
    }
    const std::pair<double, double> cost =
        hier_ != nullptr
            ? std::make_pair(hier_->AlphaNs(rep, other), hier_->BetaNs(rep, other))
            : std::make_pair(d_.hosts().AlphaNs(rep, other), d_.hosts().BetaNs(rep, other));
    if (num_distinct == 0 || distinct[c] != cost) {
      c = 0;
      while (c < num_distinct && distinct[c] != cost) ++c;
      if (c == num_distinct) {
        if (num_distinct == kMaxDistinct) {
          SortGroupsByCost(g);
          return;
        }
        distinct[num_distinct++] = cost;
      }
    }
    cost_of[x] = static_cast<int8_t>(c);
  }
  int by_cost[kMaxDistinct];  // distinct cost indexes, sorted by cost
  std::iota(by_cost, by_cost + num_distinct, 0);
  std::sort(by_cost, by_cost + num_distinct,
            [&](int a, int b) { return distinct[a] < distinct[b]; });
  int start[kMaxDistinct];  // per distinct cost, where its groups go in `order`
  int count[kMaxDistinct] = {0};
  for (int x = 0; x < num_groups; ++x) {
    if (cost_of[x] >= 0) ++count[cost_of[x]];
  }
  int total = 0;
  for (int r = 0; r < num_distinct; ++r) {
    start[by_cost[r]] = total;
    total += count[by_cost[r]];
  }
  order.resize(total);
  for (int x = 0; x < num_groups; ++x) {
    if (cost_of[x] >= 0) order[start[cost_of[x]]++] = x;
  }
  group_cost_class_[g] = std::move(cost_of);
}

void FreeSlotIndex::SortGroupsByCost(int g) {
  const HostCostMatrix& m = d_.hosts();
  const int num_groups = static_cast<int>(group_free_.size());
  const int rep = group_hosts_[group_start_[g]];
  std::vector<std::tuple<double, double, int32_t>> keyed;
  for (int x = 0; x < num_groups; ++x) {
    if (group_start_[x] == group_start_[x + 1]) continue;
    int other = group_hosts_[group_start_[x]];
    if (x == g && group_start_[g + 1] - group_start_[g] > 1) {
      other = group_hosts_[group_start_[g] + 1];
    }
    keyed.emplace_back(m.AlphaNs(rep, other), m.BetaNs(rep, other), x);
  }
  std::sort(keyed.begin(), keyed.end());
  auto& order = group_order_[g];
  order.resize(keyed.size());
  for (size_t i = 0; i < keyed.size(); ++i) order[i] = std::get<2>(keyed[i]);
}

bool FreeSlotIndex::InterHostEquallyFar(int ref, int hr, int b, int hb, int c, int hc) const {
  if (hier_ == nullptr) return d_.EquallyFar(ref, b, c);
  // RankDistance::EquallyFar for two slots on hosts other than ref's, without virtual calls.
  // A hierarchical matrix answers by group pair, and its values are finite (never NaN).
  if (hb == hc || host_group_[hb] == host_group_[hc]) return true;
  return hier_->AlphaNs(hr, hb) == hier_->AlphaNs(hr, hc) &&
         hier_->BetaNs(hr, hb) == hier_->BetaNs(hr, hc);
}

[[gnu::always_inline]] inline FreeSlotIndex::Found FreeSlotIndex::ClosestOnHost(int ref, SlotInfo r,
                                                                                int prefer) const {
  const int h = r.host;
  const uint64_t free = free_words_[HostWord(h)];
  const LevelMasks& m = level_masks_[host_masks_[h] + r.local];
  // The first level with a free slot sharing ref's object holds the closest free slots (a
  // free slot matching at a lower level would have been found there); none: all free slots
  // of the host share nothing with ref but the host.
  int level = 4;
  uint64_t pick = free;
  for (int k = 0; k < 4; ++k) {
    if ((free & m[k]) != 0) {
      pick = free & m[k];
      level = k;
      break;
    }
  }
  const int local = LowestBit(pick);
  const int cand = SlotAt(h, local);
  // `prefer` must be a free slot of this host at the same level. In the general layout,
  // slots outside the host's range of slot numbers are not on it (and need no lookup).
  if (prefer >= 0 && prefer != cand &&
      (layout_ != Layout::kGeneral ||
       (prefer >= SlotAt(h, 0) && prefer <= SlotAt(h, HostSize(h) - 1)))) {
    const SlotInfo pi = Locate(prefer);
    if (pi.host == h && ((free >> pi.local) & 1) != 0 &&
        (level == 4 || ((m[level] >> pi.local) & 1) != 0)) {
      return {prefer, h, pi.local};
    }
  }
  return {cand, h, local};
}

FreeSlotIndex::Found FreeSlotIndex::ClosestOnLargeHost(int ref, int h, int prefer) const {
  const RankLocation& lr = d_.placement().ranks[ref];
  int best_level = kNumLocalityLevels + 1;
  int cand = -1;
  for (int w = host_word_[h]; w < host_word_[h + 1] && best_level > 0; ++w) {
    for (uint64_t bits = free_words_[w]; bits != 0; bits &= bits - 1) {
      const int s = SlotAt(h, 64 * (w - host_word_[h]) + LowestBit(bits));
      const int level = static_cast<int>(SharedLevel(lr, d_.placement().ranks[s]));
      if (level < best_level) {
        best_level = level;
        cand = s;
        if (level == 0) break;
      }
    }
  }
  if (prefer >= 0 && prefer != cand && IsFree(prefer) && d_.EquallyFar(ref, cand, prefer)) {
    cand = prefer;
  }
  const SlotInfo c = Locate(cand);
  return {cand, c.host, c.local};
}

// Inlined into its two callers: a Found returned through memory stalls the load of it.
[[gnu::always_inline]] inline FreeSlotIndex::Found FreeSlotIndex::Find(int ref, int prefer) {
  if (num_free_ == 0) return {-1, -1, -1};
  const SlotInfo r = Locate(ref);
  if (IsFreeAt(r.host, r.local)) return {ref, r.host, r.local};
  const int h = r.host;
  if (host_free_[h] > 0) {
    return host_masks_[h] >= 0 ? ClosestOnHost(ref, r, prefer) : ClosestOnLargeHost(ref, h, prefer);
  }
  // From a full host, the search visits hosts in one sequence per group (its own hosts, then
  // the other groups' in group order) and takes the first with free slots. Hosts never regain
  // free slots, so a host found earlier that still has some is still the first.
  const int g = host_group_[h];
  int host = group_found_host_[g];
  if (host < 0 || host_free_[host] == 0) {
    host = FirstFreeHostFrom(g);
    group_found_host_[g] = host;
  }
  const int local = LowestFreeLocal(host);
  const int cand = SlotAt(host, local);
  if (prefer >= 0 && prefer != cand) {
    const SlotInfo pi = Locate(prefer);
    if (IsFreeAt(pi.host, pi.local)) {
      bool equally_far;
      if (hier_ == nullptr) {
        equally_far = InterHostEquallyFar(ref, h, cand, host, prefer, pi.host);
      } else {
        const int gp = host_group_[pi.host], gc = host_group_[host];
        const std::vector<int8_t>& cost_class = group_cost_class_[g];
        equally_far = gp == gc || (!cost_class.empty()
                                       ? cost_class[gp] == cost_class[gc]
                                       : InterHostEquallyFar(ref, h, cand, host, prefer, pi.host));
      }
      if (equally_far) return {prefer, pi.host, pi.local};
    }
  }
  return {cand, host, local};
}

int FreeSlotIndex::FirstFreeHostFrom(int g) {
  if (group_free_[g] > 0) return FirstFreeHostOfGroup(g);
  if (group_order_[g].empty()) BuildGroupOrder(g);
  const auto& order = group_order_[g];
  int32_t& c = group_order_cursor_[g];
  // Exhausted groups stay exhausted: skip them for good.
  while (group_free_[order[c]] == 0) ++c;
  return FirstFreeHostOfGroup(order[c]);
}

int FreeSlotIndex::Closest(int ref, int prefer) { return Find(ref, prefer).slot; }

int FreeSlotIndex::TakeClosest(int ref, int prefer) {
  const Found f = Find(ref, prefer);
  if (f.slot >= 0) TakeAt(f.host, f.local);
  return f.slot;
}

void FreeSlotIndex::Take(int slot) {
  const SlotInfo info = Locate(slot);
  TakeAt(info.host, info.local);
}

}  // namespace toporr::mapping

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "fabric/fabric_diff_internal.h"

namespace toporr::fabric::diff_internal {
namespace {

// owner[lid] = port GUID owning the LID (0 = none): from the fabric's LIDs, else from the
// tables.
std::vector<uint64_t> LidOwners(const Fabric& f, const ForwardingTables& t) {
  std::vector<uint64_t> owner;
  auto set = [&owner](uint32_t base, uint8_t lmc, uint64_t guid) {
    if (base == 0 || lmc > 7) return;
    const uint32_t end = std::min<uint32_t>(base + (1u << lmc), kMaxUnicastLid + 1);
    if (owner.size() < end) owner.resize(end, 0);
    for (uint32_t l = base; l < end; ++l) owner[l] = guid;
  };
  for (const Node& n : f.nodes) {
    if (n.type == NodeType::kSwitch) {
      set(n.lid, n.lmc, n.guid);
      continue;
    }
    for (const Port& p : n.ports) set(p.lid, p.lmc, p.guid != 0 ? p.guid : n.guid);
  }
  if (owner.empty()) owner = t.lid_port_guid();
  return owner;
}

// Port GUID -> node index (switches by node GUID).
std::unordered_map<uint64_t, int> NodesByPortGuid(const Fabric& f) {
  std::unordered_map<uint64_t, int> m;
  m.reserve(f.nodes.size() * 2);
  for (size_t i = 0; i < f.nodes.size(); ++i) {
    const Node& n = f.nodes[i];
    m.emplace(n.guid, int(i));
    if (n.type == NodeType::kSwitch) continue;
    for (const Port& p : n.ports) {
      if (p.guid != 0) m.emplace(p.guid, int(i));
    }
  }
  return m;
}

uint8_t Out(const SwitchForwardingTable& t, uint32_t lid) {
  return lid < t.out_port.size() ? t.out_port[lid] : ForwardingTables::kUnsetPort;
}

// Where each port of a compared switch leads, in one snapshot.
constexpr int kNoPeer = -1;            // unconnected or an endpoint (CA, router, aggregation)
constexpr int kUncomparedSwitch = -2;  // a switch without a table in both snapshots
struct Hop {
  uint64_t peer_guid = 0;  // 0 = unconnected
  int peer = kNoPeer;      // compared-switch index, or kNoPeer / kUncomparedSwitch
};

class RouteComparer {
 public:
  RouteComparer(const Fabric& a, const ForwardingTables& ra, const Fabric& b,
                const ForwardingTables& rb) {
    for (const SwitchForwardingTable& ta : ra.switches()) {
      const SwitchForwardingTable* tb = rb.FindTable(ta.guid);
      const int na = a.FindNodeByGuid(ta.guid);
      const int nb = b.FindNodeByGuid(ta.guid);
      if (tb == nullptr || na < 0 || nb < 0 || a.nodes[na].type != NodeType::kSwitch ||
          b.nodes[nb].type != NodeType::kSwitch) {
        continue;
      }
      index_.emplace(ta.guid, int(sw_.size()));
      sw_.push_back({&ta, tb, na, nb});
    }
    hops_a_.resize(sw_.size());
    hops_b_.resize(sw_.size());
    for (size_t s = 0; s < sw_.size(); ++s) {
      hops_a_[s] = HopsOf(a, sw_[s].node_a);
      hops_b_[s] = HopsOf(b, sw_[s].node_b);
      const size_t n = std::max(hops_a_[s].size(), hops_b_[s].size());
      hops_a_[s].resize(n);
      hops_b_[s].resize(n);
      for (size_t p = 0; p < n; ++p) {
        if (hops_a_[s][p].peer_guid != hops_b_[s][p].peer_guid) recabled_ = true;
      }
    }
    state_.assign(sw_.size(), kUnknown);
  }

  size_t size() const { return sw_.size(); }
  const SwitchForwardingTable& table_a(int s) const { return *sw_[s].a; }
  const SwitchForwardingTable& table_b(int s) const { return *sw_[s].b; }
  // True when some compared switch port leads to a different node in B than in A: then a
  // route can change without any LFT entry changing.
  bool recabled() const { return recabled_; }
  // Compared-switch index of a switch GUID, -1 if not compared.
  int IndexOf(uint64_t guid) const {
    auto it = index_.find(guid);
    return it == index_.end() ? -1 : it->second;
  }

  // Starts a new destination LID (clears the memo).
  void Begin(uint32_t lid) {
    for (int s : touched_) state_[s] = kUnknown;
    touched_.clear();
    lid_ = lid;
  }
  // Whether the path from compared switch `s` to the current LID differs between A and B.
  bool Differs(int s) {
    if (state_[s] == kSame || state_[s] == kDiffers) return state_[s] == kDiffers;
    // Back at a switch of the current walk: the two snapshots forward identically around a
    // loop so far. Any difference on the loop is found by its switches' own steps, which
    // are all on this walk (one next hop per switch and LID), so "same" here is exact.
    if (state_[s] == kVisiting) return false;
    if (state_[s] == kUnknown) touched_.push_back(s);
    state_[s] = kVisiting;
    const bool differs = Step(s);
    state_[s] = differs ? kDiffers : kSame;
    return differs;
  }

 private:
  enum : uint8_t { kUnknown, kVisiting, kSame, kDiffers };
  struct Compared {
    const SwitchForwardingTable* a;
    const SwitchForwardingTable* b;
    int node_a, node_b;
  };

  bool Step(int s) {
    const uint8_t pa = Out(*sw_[s].a, lid_);
    const uint8_t pb = Out(*sw_[s].b, lid_);
    if (pa != pb) return true;
    if (pa == 0 || pa == ForwardingTables::kUnsetPort) return false;
    const Hop ha = pa < hops_a_[s].size() ? hops_a_[s][pa] : Hop{};
    const Hop hb = pb < hops_b_[s].size() ? hops_b_[s][pb] : Hop{};
    if (ha.peer_guid != hb.peer_guid) return true;
    if (ha.peer == kUncomparedSwitch || hb.peer == kUncomparedSwitch) return true;
    if (ha.peer == kNoPeer) return false;  // delivered to the same endpoint, or dropped alike
    return Differs(ha.peer);
  }

  std::vector<Hop> HopsOf(const Fabric& f, int node) {
    const Node& n = f.nodes[node];
    std::vector<Hop> hops(n.ports.empty() ? 1 : n.ports.back().number + 1);
    for (const Port& p : n.ports) {
      if (p.link < 0 || p.number < 0) continue;
      const LinkEnd& peer = f.Peer(p.link, LinkEnd{node, p.number});
      const Node& pn = f.nodes[peer.node];
      Hop& h = hops[p.number];
      h.peer_guid = pn.guid;
      if (pn.type == NodeType::kSwitch) {
        const int i = IndexOf(pn.guid);
        h.peer = i >= 0 ? i : kUncomparedSwitch;
      }
    }
    return hops;
  }

  std::vector<Compared> sw_;
  std::unordered_map<uint64_t, int> index_;
  std::vector<std::vector<Hop>> hops_a_, hops_b_;
  bool recabled_ = false;
  uint32_t lid_ = 0;
  std::vector<uint8_t> state_;
  std::vector<int> touched_;
};

std::string OwnerName(const Fabric& f, const std::unordered_map<uint64_t, int>& by_port,
                      uint64_t port_guid) {
  auto it = by_port.find(port_guid);
  if (it == by_port.end()) return FormatGuid(port_guid);
  const Node& n = f.nodes[it->second];
  return n.host >= 0 && n.host < int(f.hosts.size()) ? f.hosts[n.host].name : n.description;
}

void CountHostPairs(const Fabric& a, const Fabric& b,
                    const std::vector<std::pair<int, int>>& stable,
                    const std::vector<uint32_t>& lids, const std::vector<uint64_t>& owner,
                    const std::vector<char>& entry_changed,
                    const std::unordered_map<uint64_t, int>& b_by_port, RouteComparer* rc,
                    FabricDiff* d) {
  const size_t hs = stable.size();
  d->host_pairs_compared = hs < 2 ? 0 : hs * (hs - 1);
  if (hs < 2) return;
  // Sources: hosts grouped by the set of compared switches they hang off, so each group's
  // switches are walked once per destination LID.
  std::map<std::vector<int>, int> group_of_set;
  std::vector<std::vector<int>> group_switches;
  std::vector<size_t> group_size;
  std::vector<int> group_of_host(hs);
  std::unordered_map<int, int> stable_of_b_host;  // host index in B -> index in `stable`
  for (size_t h = 0; h < hs; ++h) {
    std::vector<int> set;
    for (const Attachment& at : AttachmentsOf(a, a.hosts[stable[h].first])) {
      const int s = at.switch_guid ? rc->IndexOf(at.switch_guid) : -1;
      if (s >= 0) set.push_back(s);
    }
    std::sort(set.begin(), set.end());
    set.erase(std::unique(set.begin(), set.end()), set.end());
    auto [it, fresh] = group_of_set.emplace(set, int(group_switches.size()));
    if (fresh) {
      group_switches.push_back(set);
      group_size.push_back(0);
    }
    ++group_size[it->second];
    group_of_host[h] = it->second;
    stable_of_b_host[stable[h].second] = int(h);
  }
  // Destinations: the compared LIDs of each stable host that need a walk.
  std::vector<std::vector<uint32_t>> lids_of(hs);
  for (uint32_t lid : lids) {
    if (!rc->recabled() && !entry_changed[lid]) continue;
    auto node = b_by_port.find(owner[lid]);
    if (node == b_by_port.end()) continue;
    auto h = stable_of_b_host.find(b.nodes[node->second].host);
    if (h != stable_of_b_host.end()) lids_of[h->second].push_back(lid);
  }
  std::vector<char> marked(group_switches.size());
  for (size_t t = 0; t < hs; ++t) {
    if (lids_of[t].empty()) continue;
    std::fill(marked.begin(), marked.end(), 0);
    for (uint32_t lid : lids_of[t]) {
      rc->Begin(lid);
      for (size_t g = 0; g < group_switches.size(); ++g) {
        if (marked[g]) continue;
        for (int s : group_switches[g]) {
          if (rc->Differs(s)) {
            marked[g] = 1;
            break;
          }
        }
      }
    }
    for (size_t g = 0; g < marked.size(); ++g) {
      if (marked[g]) d->host_pairs_changed += group_size[g];
    }
    if (marked[group_of_host[t]]) --d->host_pairs_changed;  // (t, t) is not a pair
  }
}

}  // namespace

void DiffRoutes(const Fabric& a, const ForwardingTables& ra, const Fabric& b,
                const ForwardingTables& rb, const std::vector<std::pair<int, int>>& stable,
                const DiffOptions& options, FabricDiff* d) {
  d->routes_compared = true;
  const std::vector<uint64_t> owner_a = LidOwners(a, ra);
  const std::vector<uint64_t> owner_b = LidOwners(b, rb);
  std::vector<uint32_t> lids;
  const size_t n = std::min(owner_a.size(), owner_b.size());
  for (uint32_t lid = 1; lid < n; ++lid) {
    if (owner_a[lid] != 0 && owner_a[lid] == owner_b[lid]) lids.push_back(lid);
  }
  d->lids_compared = lids.size();

  RouteComparer rc(a, ra, b, rb);
  d->switches_compared = rc.size();
  const std::unordered_map<uint64_t, int> b_by_port = NodesByPortGuid(b);
  std::vector<char> entry_changed(n, 0);
  for (size_t s = 0; s < rc.size(); ++s) {
    const SwitchForwardingTable& ta = rc.table_a(int(s));
    const SwitchForwardingTable& tb = rc.table_b(int(s));
    SwitchRouteChange c;
    for (uint32_t lid : lids) {
      const uint8_t pa = Out(ta, lid);
      const uint8_t pb = Out(tb, lid);
      if (pa == pb) continue;
      ++c.entries_changed;
      entry_changed[lid] = 1;
      if (c.examples.size() < options.max_route_examples_per_switch) {
        c.examples.push_back({lid, pa, pb, OwnerName(b, b_by_port, owner_b[lid])});
      }
    }
    if (c.entries_changed == 0) continue;
    c.switch_guid = tb.guid;
    const int node = b.FindNodeByGuid(tb.guid);
    c.description = node >= 0 ? b.nodes[node].description : tb.description;
    c.lids_compared = lids.size();
    d->route_changes.push_back(std::move(c));
  }
  std::sort(d->route_changes.begin(), d->route_changes.end(),
            [](const SwitchRouteChange& x, const SwitchRouteChange& y) {
              if (x.entries_changed != y.entries_changed) {
                return x.entries_changed > y.entries_changed;
              }
              return x.switch_guid < y.switch_guid;
            });
  for (uint32_t lid : lids) {
    if (!entry_changed[lid]) continue;
    ++d->destinations_changed;
    if (d->destinations.size() < options.max_destinations) {
      d->destinations.push_back({lid, owner_b[lid], OwnerName(b, b_by_port, owner_b[lid])});
    }
  }
  if (options.count_host_pairs) {
    CountHostPairs(a, b, stable, lids, owner_b, entry_changed, b_by_port, &rc, d);
  }
}

}  // namespace toporr::fabric::diff_internal

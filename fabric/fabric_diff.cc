#include "fabric/fabric_diff.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace toporr::fabric {
namespace {

struct EndKey {
  uint64_t guid = 0;
  int port = 0;
  bool operator==(const EndKey& o) const { return guid == o.guid && port == o.port; }
  bool operator<(const EndKey& o) const { return guid != o.guid ? guid < o.guid : port < o.port; }
};

struct LinkKey {
  EndKey a, b;  // a < b (or equal for nothing: a port is never cabled to itself)
  bool operator==(const LinkKey& o) const { return a == o.a && b == o.b; }
};

struct LinkKeyHash {
  size_t operator()(const LinkKey& k) const {
    uint64_t h = k.a.guid * 0x9E3779B97F4A7C15ull;
    h ^= (k.b.guid + 0x632BE59BD9B4E019ull + (h << 6) + (h >> 2));
    h ^= (static_cast<uint64_t>(k.a.port) << 32 | static_cast<uint32_t>(k.b.port)) *
         0xC2B2AE3D27D4EB4Full;
    return static_cast<size_t>(h ^ (h >> 29));
  }
};

LinkKey KeyOf(const Fabric& f, const Link& l) {
  EndKey x{f.nodes[l.a.node].guid, l.a.port};
  EndKey y{f.nodes[l.b.node].guid, l.b.port};
  if (y < x) std::swap(x, y);
  return {x, y};
}

LinkEndRef EndRef(const Fabric& f, const EndKey& k) {
  LinkEndRef r;
  r.node_guid = k.guid;
  r.port = k.port;
  const int n = f.FindNodeByGuid(k.guid);
  if (n >= 0) {
    r.node_type = f.nodes[n].type;
    r.node_description = f.nodes[n].description;
  }
  return r;
}

LinkChange MakeLinkChange(const Fabric& f, const LinkKey& k, const Link& l) {
  LinkChange c;
  c.a = EndRef(f, k.a);
  c.b = EndRef(f, k.b);
  c.width_lanes = l.width_lanes;
  c.speed = l.speed;
  c.data_rate_gbps = l.data_rate_gbps;
  return c;
}

// -1 slower, +1 faster, 0 same: data rate first, then width, then speed.
int CompareRate(const Link& before, const Link& after) {
  if (after.data_rate_gbps != before.data_rate_gbps) {
    return after.data_rate_gbps < before.data_rate_gbps ? -1 : 1;
  }
  if (after.width_lanes != before.width_lanes) {
    return after.width_lanes < before.width_lanes ? -1 : 1;
  }
  if (after.speed != before.speed) return after.speed < before.speed ? -1 : 1;
  return 0;
}

bool EndLess(const LinkEndRef& x, const LinkEndRef& y) {
  return std::tie(x.node_guid, x.port) < std::tie(y.node_guid, y.port);
}
template <typename T>
void SortByEnds(std::vector<T>* v) {
  std::sort(v->begin(), v->end(), [](const T& x, const T& y) {
    if (x.a.node_guid != y.a.node_guid || x.a.port != y.a.port) return EndLess(x.a, y.a);
    return EndLess(x.b, y.b);
  });
}

void DiffNodes(const Fabric& a, const Fabric& b, FabricDiff* d) {
  auto collect = [](const Fabric& from, const Fabric& other, std::vector<NodeChange>* out) {
    for (const Node& n : from.nodes) {
      if (other.FindNodeByGuid(n.guid) < 0) out->push_back({n.guid, n.type, n.description});
    }
    std::sort(out->begin(), out->end(), [](const NodeChange& x, const NodeChange& y) {
      return std::tie(x.type, x.guid) < std::tie(y.type, y.guid);
    });
  };
  collect(b, a, &d->nodes_added);
  collect(a, b, &d->nodes_removed);
}

void DiffLinks(const Fabric& a, const Fabric& b, FabricDiff* d) {
  std::unordered_map<LinkKey, int, LinkKeyHash> in_a;
  in_a.reserve(a.links.size() * 2);
  for (size_t i = 0; i < a.links.size(); ++i) in_a.emplace(KeyOf(a, a.links[i]), int(i));
  std::vector<char> matched(a.links.size(), 0);
  for (const Link& lb : b.links) {
    const LinkKey k = KeyOf(b, lb);
    auto it = in_a.find(k);
    if (it == in_a.end()) {
      d->links_added.push_back(MakeLinkChange(b, k, lb));
      continue;
    }
    matched[it->second] = 1;
    const Link& la = a.links[it->second];
    const int cmp = CompareRate(la, lb);
    if (cmp == 0) continue;
    LinkRateChange c;
    c.a = EndRef(b, k.a);
    c.b = EndRef(b, k.b);
    c.width_before = la.width_lanes;
    c.width_after = lb.width_lanes;
    c.speed_before = la.speed;
    c.speed_after = lb.speed;
    c.rate_before_gbps = la.data_rate_gbps;
    c.rate_after_gbps = lb.data_rate_gbps;
    (cmp < 0 ? d->links_degraded : d->links_upgraded).push_back(std::move(c));
  }
  for (size_t i = 0; i < a.links.size(); ++i) {
    if (!matched[i])
      d->links_removed.push_back(MakeLinkChange(a, KeyOf(a, a.links[i]), a.links[i]));
  }
  SortByEnds(&d->links_added);
  SortByEnds(&d->links_removed);
  SortByEnds(&d->links_degraded);
  SortByEnds(&d->links_upgraded);
}

// Every cabled port of a host's CAs with the switch it leads to (switch_guid 0 when the
// peer is not a switch), ascending by (CA GUID, port).
struct Attachment {
  uint64_t ca_guid = 0;
  int ca_port = 0;
  uint64_t switch_guid = 0;
  int switch_port = 0;
};

std::vector<Attachment> AttachmentsOf(const Fabric& f, const Host& h) {
  std::vector<Attachment> out;
  for (int ca : h.cas) {
    const Node& n = f.nodes[ca];
    for (const Port& p : n.ports) {
      if (p.link < 0) continue;
      const LinkEnd& peer = f.Peer(p.link, LinkEnd{ca, p.number});
      const Node& pn = f.nodes[peer.node];
      Attachment at{n.guid, p.number, 0, 0};
      if (pn.type == NodeType::kSwitch) {
        at.switch_guid = pn.guid;
        at.switch_port = peer.port;
      }
      out.push_back(at);
    }
  }
  std::sort(out.begin(), out.end(), [](const Attachment& x, const Attachment& y) {
    return std::tie(x.ca_guid, x.ca_port) < std::tie(y.ca_guid, y.ca_port);
  });
  return out;
}

std::vector<uint64_t> SwitchSet(const std::vector<Attachment>& v) {
  std::vector<uint64_t> s;
  for (const Attachment& at : v) {
    if (at.switch_guid != 0) s.push_back(at.switch_guid);
  }
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
  return s;
}

SwitchAttachment Describe(const Fabric& f, const Attachment* at) {
  SwitchAttachment s;
  if (at == nullptr || at->switch_guid == 0) return s;
  s.switch_guid = at->switch_guid;
  s.switch_port = at->switch_port;
  const int n = f.FindNodeByGuid(at->switch_guid);
  if (n >= 0) s.switch_description = f.nodes[n].description;
  return s;
}

HostMove MakeHostMove(const Fabric& a, const std::vector<Attachment>& va, const Fabric& b,
                      const std::vector<Attachment>& vb, const std::string& name) {
  HostMove m;
  m.host = name;
  size_t i = 0, j = 0;
  while (i < va.size() || j < vb.size()) {
    const Attachment* x = i < va.size() ? &va[i] : nullptr;
    const Attachment* y = j < vb.size() ? &vb[j] : nullptr;
    if (x && y) {
      const auto kx = std::tie(x->ca_guid, x->ca_port);
      const auto ky = std::tie(y->ca_guid, y->ca_port);
      if (kx < ky) y = nullptr;
      if (ky < kx) x = nullptr;
    }
    if (x) ++i;
    if (y) ++j;
    const Attachment& any = x ? *x : *y;
    if (x && y && x->switch_guid == y->switch_guid && x->switch_port == y->switch_port) continue;
    m.ports.push_back({any.ca_guid, any.ca_port, Describe(a, x), Describe(b, y)});
  }
  return m;
}

// Hosts added / removed / moved. Returns, for hosts present in both and not moved, the
// host's index in A and B (the route comparison's sources and destinations).
std::vector<std::pair<int, int>> DiffHosts(const Fabric& a, const Fabric& b, FabricDiff* d) {
  std::vector<std::pair<int, int>> stable;
  // Fabric::hosts is sorted by name; do not rely on it for inputs built by hand.
  std::map<std::string, std::pair<int, int>> by_name;
  for (size_t i = 0; i < a.hosts.size(); ++i) by_name[a.hosts[i].name] = {int(i), -1};
  for (size_t i = 0; i < b.hosts.size(); ++i) {
    auto it = by_name.emplace(b.hosts[i].name, std::make_pair(-1, int(i))).first;
    it->second.second = int(i);
  }
  for (const auto& [name, ab] : by_name) {
    if (ab.first < 0) {
      d->hosts_added.push_back(name);
    } else if (ab.second < 0) {
      d->hosts_removed.push_back(name);
    } else {
      const std::vector<Attachment> va = AttachmentsOf(a, a.hosts[ab.first]);
      const std::vector<Attachment> vb = AttachmentsOf(b, b.hosts[ab.second]);
      if (SwitchSet(va) != SwitchSet(vb)) {
        d->hosts_moved.push_back(MakeHostMove(a, va, b, vb, name));
      } else {
        stable.push_back(ab);
      }
    }
  }
  return stable;
}

// ---------------------------------------------------------------------------------------
// Routes.

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

// ---------------------------------------------------------------------------------------
// Formatting.

std::string Quoted(const std::string& s) { return "\"" + s + "\""; }

std::string EndText(const LinkEndRef& e) {
  return FormatGuid(e.node_guid) + " " + Quoted(e.node_description) + " port " +
         std::to_string(e.port);
}

std::string RateText(int width, LinkSpeed speed, double gbps) {
  char rate[32];
  std::snprintf(rate, sizeof(rate), "%.4g", gbps);
  return (width > 0 ? std::to_string(width) + "x" : std::string("??")) + LinkSpeedName(speed) +
         " " + rate + " Gb/s";
}

std::string AttachmentText(const SwitchAttachment& s) {
  if (s.switch_guid == 0) return "(not cabled to a switch)";
  return FormatGuid(s.switch_guid) + " " + Quoted(s.switch_description) + " port " +
         std::to_string(s.switch_port);
}

std::string PortText(uint8_t port) {
  return port == ForwardingTables::kUnsetPort ? std::string("unset") : std::to_string(port);
}

template <typename T>
void Section(const std::string& title, const std::vector<T>& items,
             const std::function<std::string(const T&)>& line, size_t cap, std::string* out) {
  if (items.empty()) return;
  *out += title + " (" + std::to_string(items.size()) + "):\n";
  for (size_t i = 0; i < items.size() && i < cap; ++i) *out += "  " + line(items[i]) + "\n";
  if (items.size() > cap) *out += "  ... and " + std::to_string(items.size() - cap) + " more\n";
}

}  // namespace

bool FabricDiff::empty() const {
  return nodes_added.empty() && nodes_removed.empty() && links_added.empty() &&
         links_removed.empty() && links_degraded.empty() && links_upgraded.empty() &&
         hosts_added.empty() && hosts_removed.empty() && hosts_moved.empty() &&
         route_changes.empty() && destinations_changed == 0 && host_pairs_changed == 0;
}

FabricDiff DiffFabrics(const Fabric& a, const ForwardingTables* routes_a, const Fabric& b,
                       const ForwardingTables* routes_b, const DiffOptions& options) {
  FabricDiff d;
  DiffNodes(a, b, &d);
  DiffLinks(a, b, &d);
  const std::vector<std::pair<int, int>> stable = DiffHosts(a, b, &d);
  if (routes_a != nullptr && routes_b != nullptr) {
    DiffRoutes(a, *routes_a, b, *routes_b, stable, options, &d);
  }
  return d;
}

std::string FormatFabricDiff(const FabricDiff& d, const DiffFormatOptions& options) {
  const size_t cap = options.max_lines_per_section;
  std::string out;
  if (d.empty()) {
    out = "No differences between " + options.label_a + " and " + options.label_b + ".\n";
  } else {
    out = "Changes from " + options.label_a + " to " + options.label_b + ":\n";
  }
  const std::function<std::string(const NodeChange&)> node_line = [](const NodeChange& n) {
    return std::string(NodeTypeName(n.type)) + " " + FormatGuid(n.guid) + " " +
           Quoted(n.description);
  };
  Section("Nodes added", d.nodes_added, node_line, cap, &out);
  Section("Nodes removed", d.nodes_removed, node_line, cap, &out);
  const std::function<std::string(const LinkChange&)> link_line = [](const LinkChange& l) {
    return EndText(l.a) + " <-> " + EndText(l.b) + " (" +
           RateText(l.width_lanes, l.speed, l.data_rate_gbps) + ")";
  };
  Section("Links added", d.links_added, link_line, cap, &out);
  Section("Links removed", d.links_removed, link_line, cap, &out);
  const std::function<std::string(const LinkRateChange&)> rate_line = [](const LinkRateChange& l) {
    return EndText(l.a) + " <-> " + EndText(l.b) + ": " +
           RateText(l.width_before, l.speed_before, l.rate_before_gbps) + " -> " +
           RateText(l.width_after, l.speed_after, l.rate_after_gbps);
  };
  Section("Links degraded", d.links_degraded, rate_line, cap, &out);
  Section("Links upgraded", d.links_upgraded, rate_line, cap, &out);
  const std::function<std::string(const std::string&)> name_line = [](const std::string& s) {
    return s;
  };
  Section("Hosts added", d.hosts_added, name_line, cap, &out);
  Section("Hosts removed", d.hosts_removed, name_line, cap, &out);
  const std::function<std::string(const HostMove&)> move_line = [](const HostMove& m) {
    std::string s = m.host + ":";
    for (size_t i = 0; i < m.ports.size(); ++i) {
      const HostPortMove& p = m.ports[i];
      s += (i ? "; " : " ") + std::string("CA ") + FormatGuid(p.ca_guid) + " port " +
           std::to_string(p.ca_port) + ": " + AttachmentText(p.before) + " -> " +
           AttachmentText(p.after);
    }
    return s;
  };
  Section("Hosts moved", d.hosts_moved, move_line, cap, &out);

  if (!d.routes_compared) {
    out += "Routes: not compared (forwarding tables are missing from one or both snapshots).\n";
    return out;
  }
  out += "Routes: " + std::to_string(d.switches_compared) + " switches x " +
         std::to_string(d.lids_compared) + " LIDs compared; " +
         std::to_string(d.route_changes.size()) + " switches changed entries for " +
         std::to_string(d.destinations_changed) + " destination LIDs; " +
         std::to_string(d.host_pairs_changed) + " of " + std::to_string(d.host_pairs_compared) +
         " host pairs changed route.\n";
  const std::function<std::string(const SwitchRouteChange&)> switch_line =
      [](const SwitchRouteChange& c) {
        std::string s = FormatGuid(c.switch_guid) + " " + Quoted(c.description) + ": " +
                        std::to_string(c.entries_changed) + " of " +
                        std::to_string(c.lids_compared) + " entries changed (";
        for (size_t i = 0; i < c.examples.size(); ++i) {
          const RouteEntryChange& e = c.examples[i];
          s += (i ? ", " : "") + std::string("lid ") + std::to_string(e.lid) + " " + e.destination +
               ": " + PortText(e.port_before) + " -> " + PortText(e.port_after);
        }
        if (c.entries_changed > c.examples.size()) s += ", ...";
        return s + ")";
      };
  Section("Switches with changed routes", d.route_changes, switch_line, cap, &out);
  if (d.destinations_changed > 0) {
    out += "Destinations with changed routes (" + std::to_string(d.destinations_changed) + "):\n";
    const size_t shown = std::min(cap, d.destinations.size());
    for (size_t i = 0; i < shown; ++i) {
      out += "  lid " + std::to_string(d.destinations[i].lid) + " " + d.destinations[i].name +
             " (port " + FormatGuid(d.destinations[i].port_guid) + ")\n";
    }
    if (d.destinations_changed > shown) {
      out += "  ... and " + std::to_string(d.destinations_changed - shown) + " more\n";
    }
  }
  return out;
}

}  // namespace toporr::fabric

#include "fabric/fabric_diff.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "fabric/fabric_diff_internal.h"

namespace toporr::fabric {

namespace diff_internal {

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

}  // namespace diff_internal

namespace {

using diff_internal::Attachment;
using diff_internal::AttachmentsOf;

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
    diff_internal::DiffRoutes(a, *routes_a, b, *routes_b, stable, options, &d);
  }
  return d;
}

}  // namespace toporr::fabric

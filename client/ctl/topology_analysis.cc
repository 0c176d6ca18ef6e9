#include "client/ctl/topology_analysis.h"

#include <algorithm>
#include <deque>
#include <map>
#include <numeric>
#include <set>
#include <unordered_map>
#include <utility>

#include "absl/strings/str_cat.h"

namespace toporr::client::ctl {
namespace {

// The other end of link `l` seen from node `n`: (node, port).
std::pair<int, int> PeerOf(const v1::TopologyLink& l, int n) {
  return l.a_node() == n ? std::make_pair(l.b_node(), l.b_port())
                         : std::make_pair(l.a_node(), l.a_port());
}

// Switches kept for the selected hosts: their leaves and every switch above them (a switch
// of level L is kept when one of its children is).
std::vector<bool> KeptSwitches(const TopologyAnalysis& a, const std::vector<int>& hosts) {
  std::vector<bool> keep(a.switches.size(), false);
  int max_level = 0;
  for (const SwitchInfo& s : a.switches) max_level = std::max(max_level, s.level);
  for (int h : hosts) keep[a.hosts[h].leaf] = true;
  for (int level = 1; level <= max_level; ++level) {
    for (size_t i = 0; i < a.switches.size(); ++i) {
      const SwitchInfo& s = a.switches[i];
      if (s.level != level) continue;
      for (int c : s.children) keep[i] = keep[i] || keep[c];
    }
  }
  return keep;
}

// Text for a comment line: control characters (a newline would end the comment) as '_'.
std::string CommentText(const std::string& s) {
  std::string out = s;
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '_';
  }
  return out;
}

}  // namespace

std::string SwitchNameFromDescription(const std::string& description) {
  std::string name = description;
  // Mellanox / NVIDIA switches: "MF0;<system name>:<model>/U<n>".
  if (name.rfind("MF0;", 0) == 0) {
    name = name.substr(4);
    size_t colon = name.find(':');
    if (colon != std::string::npos) name = name.substr(0, colon);
  }
  for (char& c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '.' || c == '-';
    if (!ok) c = '_';
  }
  if (name.find_first_not_of('_') == std::string::npos) return "";
  return name;
}

TopologyAnalysis AnalyzeTopology(const v1::GetTopologyResponse& topo) {
  TopologyAnalysis a;
  const int n = topo.nodes_size();
  a.switch_of_node.assign(n, -1);
  for (int i = 0; i < n; ++i) {
    if (topo.nodes(i).type() != "switch") continue;
    a.switch_of_node[i] = static_cast<int>(a.switches.size());
    SwitchInfo s;
    s.node = i;
    a.switches.push_back(s);
  }
  // Names: from the description unless empty or shared.
  std::map<std::string, int> uses;
  for (SwitchInfo& s : a.switches) {
    s.name = SwitchNameFromDescription(topo.nodes(s.node).description());
    ++uses[s.name];
  }
  for (SwitchInfo& s : a.switches) {
    if (s.name.empty() || uses[s.name] > 1) {
      std::string guid = topo.nodes(s.node).guid();
      if (guid.rfind("0x", 0) == 0) guid = guid.substr(2);
      s.name = "ib-" + guid;
    }
  }
  // Links by node, in the reply's order.
  std::vector<std::vector<int>> links_of(n);
  for (int l = 0; l < topo.links_size(); ++l) {
    const v1::TopologyLink& link = topo.links(l);
    if (link.a_node() < 0 || link.a_node() >= n || link.b_node() < 0 || link.b_node() >= n)
      continue;
    links_of[link.a_node()].push_back(l);
    if (link.b_node() != link.a_node()) links_of[link.b_node()].push_back(l);
  }
  // Hosts: the switch of the first connected port of their first CA (CAs sorted by GUID).
  std::unordered_map<std::string, int> host_index;
  for (const std::string& h : topo.hosts()) {
    host_index[h] = static_cast<int>(a.hosts.size());
    a.hosts.push_back({h, -1, 0, 0});
  }
  std::vector<bool> is_leaf(a.switches.size(), false);
  for (int i = 0; i < n; ++i) {
    const v1::TopologyNode& node = topo.nodes(i);
    if (node.host().empty()) continue;
    auto hit = host_index.find(node.host());
    if (hit == host_index.end()) continue;
    HostAttachment& h = a.hosts[hit->second];
    std::vector<int> ls = links_of[i];
    std::sort(ls.begin(), ls.end(), [&](int x, int y) {
      auto port = [&](int l) {
        return topo.links(l).a_node() == i ? topo.links(l).a_port() : topo.links(l).b_port();
      };
      return port(x) < port(y);
    });
    for (int l : ls) {
      auto [peer, peer_port] = PeerOf(topo.links(l), i);
      const int sw = a.switch_of_node[peer];
      if (sw < 0) continue;
      is_leaf[sw] = true;
      if (h.leaf < 0) {
        h.leaf = sw;
        h.port = peer_port;
        h.rate_gbps = topo.links(l).rate_gbps();
      }
    }
  }
  for (size_t h = 0; h < a.hosts.size(); ++h) {
    if (a.hosts[h].leaf >= 0) a.switches[a.hosts[h].leaf].hosts.push_back(static_cast<int>(h));
  }
  // Levels: breadth-first from the leaves over switch-to-switch links.
  std::deque<int> queue;
  for (size_t s = 0; s < a.switches.size(); ++s) {
    if (is_leaf[s]) {
      a.switches[s].level = 0;
      queue.push_back(static_cast<int>(s));
    }
  }
  while (!queue.empty()) {
    const int s = queue.front();
    queue.pop_front();
    for (int l : links_of[a.switches[s].node]) {
      const int peer = a.switch_of_node[PeerOf(topo.links(l), a.switches[s].node).first];
      if (peer < 0 || a.switches[peer].level >= 0) continue;
      a.switches[peer].level = a.switches[s].level + 1;
      queue.push_back(peer);
    }
  }
  for (SwitchInfo& s : a.switches) {
    if (s.level <= 0) continue;
    std::set<int> children;
    for (int l : links_of[s.node]) {
      const int peer = a.switch_of_node[PeerOf(topo.links(l), s.node).first];
      if (peer >= 0 && a.switches[peer].level == s.level - 1) children.insert(peer);
    }
    s.children.assign(children.begin(), children.end());
  }
  return a;
}

absl::StatusOr<HostSelection> SelectHosts(const TopologyAnalysis& a,
                                          const std::vector<std::string>& names,
                                          int64_t snapshot_id, bool allow_repeats) {
  std::unordered_map<std::string, int> index;
  for (size_t i = 0; i < a.hosts.size(); ++i) index[a.hosts[i].name] = static_cast<int>(i);
  HostSelection out;
  out.chosen.assign(a.hosts.size(), names.empty());
  if (names.empty()) {
    out.order.resize(a.hosts.size());
    std::iota(out.order.begin(), out.order.end(), 0);
  }
  for (const std::string& n : names) {
    auto it = index.find(n);
    if (it == index.end()) {
      return absl::NotFoundError(absl::StrCat("host '", n, "' is not in snapshot ", snapshot_id,
                                              " (see `toporrctl hosts`)"));
    }
    if (out.chosen[it->second] && !allow_repeats) continue;
    out.chosen[it->second] = true;
    out.order.push_back(it->second);
  }
  for (int h : out.order) {
    if (a.hosts[h].leaf < 0) {
      return absl::FailedPreconditionError(
          absl::StrCat("host '", a.hosts[h].name, "' is not cabled to any switch"));
    }
  }
  out.keep = KeptSwitches(a, out.order);
  return out;
}

std::vector<int> ComponentsUpTo(const TopologyAnalysis& a, int level) {
  std::vector<int> parent(a.switches.size());
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](int x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (size_t i = 0; i < a.switches.size(); ++i) {
    const SwitchInfo& s = a.switches[i];
    if (s.level < 1 || s.level > level) continue;
    for (int c : s.children) parent[find(c)] = find(static_cast<int>(i));
  }
  std::vector<int> out(a.switches.size(), -1);
  for (size_t i = 0; i < a.switches.size(); ++i) {
    const int l = a.switches[i].level;
    if (l >= 0 && l <= level) out[i] = find(static_cast<int>(i));
  }
  return out;
}

std::vector<int> DomainsAt(const TopologyAnalysis& a, int level) {
  const std::vector<int> component = ComponentsUpTo(a, level);
  std::map<int, int> first;  // component -> its first switch of `level`
  for (size_t i = 0; i < a.switches.size(); ++i) {
    if (a.switches[i].level == level) first.emplace(component[i], static_cast<int>(i));
  }
  std::vector<int> out(a.switches.size(), -1);
  for (size_t i = 0; i < a.switches.size(); ++i) {
    if (a.switches[i].level < 0 || a.switches[i].level >= level) continue;
    auto it = first.find(component[i]);
    if (it != first.end()) out[i] = it->second;
  }
  return out;
}

std::string SnapshotLabel(const v1::GetTopologyResponse& topo) {
  return CommentText(absl::StrCat("snapshot ", topo.snapshot().id(), " (",
                                  topo.snapshot().source_kind(), " ", topo.snapshot().source_name(),
                                  ", content ", topo.snapshot().content_hash().substr(0, 12), ")"));
}

}  // namespace toporr::client::ctl

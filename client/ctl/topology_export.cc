#include "client/ctl/topology_export.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <map>
#include <numeric>
#include <set>
#include <sstream>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/json_writer.h"
#include "common/status_macros.h"

namespace toporr::client::ctl {
namespace {

// The other end of link `l` seen from node `n`: (node, port).
std::pair<int, int> PeerOf(const v1::TopologyLink& l, int n) {
  return l.a_node() == n ? std::make_pair(l.b_node(), l.b_port())
                         : std::make_pair(l.a_node(), l.a_port());
}

std::string RateLabel(double gbps) {
  if (gbps <= 0) return "?";
  if (std::fabs(gbps - std::round(gbps)) < 0.05) return absl::StrCat(std::lround(gbps), "G");
  std::ostringstream out;
  out.precision(1);
  out << std::fixed << gbps << "G";
  return out.str();
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

// The selected hosts (all when `names` is empty): their indexes in `names` order, and per
// host whether it is selected.
struct HostSelection {
  std::vector<int> order;
  std::vector<bool> chosen;
  std::vector<bool> keep;  // per switch: KeptSwitches
};

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

std::string DotQuote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// Union-find over the switches of levels 0..`level`, each switch of level 1..`level` joined
// with its children: the representative of every switch's component, -1 for switches of
// other levels.
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

// The level-`level` domain of every switch below that level (see the header's "Domains"):
// the index of the domain's first switch of that level, -1 when none is above it.
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

// Text for a comment line: control characters (a newline would end the comment) as '_'.
std::string CommentText(const std::string& s) {
  std::string out = s;
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '_';
  }
  return out;
}

// "snapshot 4 (ibnetdiscover fabric.topo, content 0123456789ab)"
std::string SnapshotLabel(const v1::GetTopologyResponse& topo) {
  return CommentText(absl::StrCat("snapshot ", topo.snapshot().id(), " (",
                                  topo.snapshot().source_kind(), " ", topo.snapshot().source_name(),
                                  ", content ", topo.snapshot().content_hash().substr(0, 12), ")"));
}

// One switch of a Slurm tree: a leaf with its selected hosts, or an upper switch with its
// kept children.
struct TreeSwitch {
  std::string name;
  bool leaf = false;
  std::vector<std::string> members;  // hosts of a leaf, switch names of an upper switch
};

// The switches of the tree plugin's topology for the selected hosts, lowest level first.
absl::StatusOr<std::vector<TreeSwitch>> SlurmTree(const v1::GetTopologyResponse& topo,
                                                  const std::vector<std::string>& hosts) {
  const TopologyAnalysis a = AnalyzeTopology(topo);
  ASSIGN_OR_RETURN(const HostSelection selected,
                   SelectHosts(a, hosts, topo.snapshot().id(), /*allow_repeats=*/false));
  std::vector<TreeSwitch> out;
  int max_level = 0;
  for (const SwitchInfo& s : a.switches) max_level = std::max(max_level, s.level);
  for (int level = 0; level <= max_level; ++level) {
    for (size_t i = 0; i < a.switches.size(); ++i) {
      const SwitchInfo& s = a.switches[i];
      if (s.level != level || !selected.keep[i]) continue;
      TreeSwitch t{s.name, level == 0, {}};
      if (level == 0) {
        for (int h : s.hosts) {
          if (selected.chosen[h]) t.members.push_back(a.hosts[h].name);
        }
      } else {
        for (int c : s.children) {
          if (selected.keep[c]) t.members.push_back(a.switches[c].name);
        }
      }
      out.push_back(std::move(t));
    }
  }
  return out;
}

// The block plugin's blocks and BlockSizes for the selected hosts (the header's "Blocks").
struct BlockPlan {
  std::vector<TreeSwitch> blocks;  // leaf name and its selected hosts, pod by pod
  std::vector<int> sizes;          // BlockSizes, in hosts
};

// Slurm refuses block levels above 2^15 base blocks.
constexpr int kMaxBlockLevel = 15;

absl::StatusOr<BlockPlan> SlurmBlocks(const v1::GetTopologyResponse& topo,
                                      const std::vector<std::string>& hosts) {
  const TopologyAnalysis a = AnalyzeTopology(topo);
  ASSIGN_OR_RETURN(const HostSelection selected,
                   SelectHosts(a, hosts, topo.snapshot().id(), /*allow_repeats=*/false));
  const std::vector<bool>& chosen = selected.chosen;
  const std::vector<int> pod = ComponentsUpTo(a, 1);
  // Leaves with selected hosts, grouped by pod in the order of each pod's first leaf.
  std::vector<int> pod_order;
  std::map<int, std::vector<int>> leaves_of_pod;
  for (size_t i = 0; i < a.switches.size(); ++i) {
    const SwitchInfo& s = a.switches[i];
    if (s.level != 0) continue;
    if (std::none_of(s.hosts.begin(), s.hosts.end(), [&](int h) { return chosen[h]; })) continue;
    auto [it, fresh] = leaves_of_pod.emplace(pod[i], std::vector<int>());
    if (fresh) pod_order.push_back(pod[i]);
    it->second.push_back(static_cast<int>(i));
  }
  BlockPlan plan;
  std::vector<int> pod_of_block;
  for (int p : pod_order) {
    for (int leaf : leaves_of_pod[p]) {
      TreeSwitch b{a.switches[leaf].name, true, {}};
      for (int h : a.switches[leaf].hosts) {
        if (chosen[h]) b.members.push_back(a.hosts[h].name);
      }
      plan.blocks.push_back(std::move(b));
      pod_of_block.push_back(p);
    }
  }
  const int n = static_cast<int>(plan.blocks.size());
  if (n == 0) return plan;
  size_t base = plan.blocks[0].members.size();
  for (const TreeSwitch& b : plan.blocks) base = std::min(base, b.members.size());
  // An aggregate of blocks [begin, end) is kept when it lies in one pod or holds whole pods.
  std::map<int, std::pair<int, int>> pod_span;  // pod -> [first block, last block]
  for (int b = 0; b < n; ++b) {
    auto [it, fresh] = pod_span.emplace(pod_of_block[b], std::make_pair(b, b));
    it->second.second = b;
  }
  auto whole = [&](int begin, int end) {
    if (pod_of_block[begin] == pod_of_block[end - 1]) return true;
    for (int b = begin; b < end; ++b) {
      const auto& [first, last] = pod_span[pod_of_block[b]];
      if (first < begin || last >= end) return false;
    }
    return true;
  };
  for (int level = 0; level <= kMaxBlockLevel; ++level) {
    const int group = 1 << level;
    bool ok = true;
    for (int begin = 0; begin < n && ok; begin += group)
      ok = whole(begin, std::min(begin + group, n));
    if (ok) plan.sizes.push_back(static_cast<int>(base) * group);
    if (group >= n) break;
  }
  return plan;
}

// A YAML double-quoted scalar.
std::string YamlQuote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "\\x%02x", u);
      out += hex;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// A word for sh: as it is when made of [A-Za-z0-9_.-], else single-quoted.
std::string ShellWord(const std::string& s) {
  const bool plain = !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-';
  });
  if (plain) return s;
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
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

absl::StatusOr<std::string> SlurmTopologyConf(const v1::GetTopologyResponse& topo,
                                              const std::vector<std::string>& hosts) {
  ASSIGN_OR_RETURN(std::vector<TreeSwitch> tree, SlurmTree(topo, hosts));
  std::ostringstream out;
  out << "# Slurm topology.conf (TopologyPlugin=topology/tree) written by toporrctl from toporr\n"
      << "# " << SnapshotLabel(topo) << ". Switch names come from node descriptions or GUIDs.\n";
  for (const TreeSwitch& s : tree) {
    out << "SwitchName=" << s.name << (s.leaf ? " Nodes=" : " Switches=")
        << absl::StrJoin(s.members, ",") << "\n";
  }
  return out.str();
}

absl::StatusOr<std::string> SlurmBlockConf(const v1::GetTopologyResponse& topo,
                                           const std::vector<std::string>& hosts) {
  ASSIGN_OR_RETURN(BlockPlan plan, SlurmBlocks(topo, hosts));
  std::ostringstream out;
  out << "# Slurm topology.conf (TopologyPlugin=topology/block) written by toporrctl from\n"
      << "# toporr " << SnapshotLabel(topo) << ". A block is the hosts of one leaf\n"
      << "# switch; blocks are listed pod by pod and no BlockSizes aggregate splits a pod.\n";
  for (const TreeSwitch& b : plan.blocks) {
    out << "BlockName=" << b.name << " Nodes=" << absl::StrJoin(b.members, ",") << "\n";
  }
  if (!plan.sizes.empty()) out << "BlockSizes=" << absl::StrJoin(plan.sizes, ",") << "\n";
  return out.str();
}

absl::StatusOr<std::string> SlurmTopologyYaml(const v1::GetTopologyResponse& topo,
                                              const std::vector<std::string>& hosts) {
  ASSIGN_OR_RETURN(std::vector<TreeSwitch> tree, SlurmTree(topo, hosts));
  ASSIGN_OR_RETURN(BlockPlan plan, SlurmBlocks(topo, hosts));
  auto quoted_list = [](const std::vector<std::string>& names) {
    return YamlQuote(absl::StrJoin(names, ","));
  };
  std::ostringstream out;
  out << "# Slurm topology.yaml (Slurm 25.05 and later) written by toporrctl from toporr\n"
      << "# " << SnapshotLabel(topo) << ": the tree (as topology.conf for\n"
      << "# topology/tree) and the blocks (one per leaf switch, pod by pod).\n"
      << "---\n"
      << "- topology: \"fabric-tree\"\n"
      << "  cluster_default: true\n"
      << "  tree:\n"
      << "    switches:\n";
  for (const TreeSwitch& s : tree) {
    out << "      - switch: " << YamlQuote(s.name) << "\n"
        << "        " << (s.leaf ? "nodes: " : "children: ") << quoted_list(s.members) << "\n";
  }
  out << "- topology: \"fabric-block\"\n"
      << "  cluster_default: false\n"
      << "  block:\n"
      << "    block_sizes:\n";
  for (int size : plan.sizes) out << "      - " << size << "\n";
  out << "    blocks:\n";
  for (const TreeSwitch& b : plan.blocks) {
    out << "      - block: " << YamlQuote(b.name) << "\n"
        << "        nodes: " << quoted_list(b.members) << "\n";
  }
  return out.str();
}

std::string KubernetesLabelValue(const std::string& value) {
  auto alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  };
  bool valid = value.size() <= 63;
  for (char c : value) valid = valid && (alnum(c) || c == '-' || c == '_' || c == '.');
  if (valid && (value.empty() || (alnum(value.front()) && alnum(value.back())))) return value;
  uint64_t hash = 14695981039346656037ull;  // FNV-64a offset basis
  for (char c : value) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ull;  // FNV-64 prime
  }
  char hex[24];
  std::snprintf(hex, sizeof(hex), "x%llx", static_cast<unsigned long long>(hash));
  return hex;
}

absl::StatusOr<std::string> KubernetesLabels(const v1::GetTopologyResponse& topo,
                                             const std::vector<std::string>& hosts) {
  const TopologyAnalysis a = AnalyzeTopology(topo);
  ASSIGN_OR_RETURN(const HostSelection selected,
                   SelectHosts(a, hosts, topo.snapshot().id(), /*allow_repeats=*/false));
  constexpr const char* kKeys[] = {"network.topology.nvidia.com/leaf",
                                   "network.topology.nvidia.com/spine",
                                   "network.topology.nvidia.com/core"};
  const std::vector<int> spine = DomainsAt(a, 1), core = DomainsAt(a, 2);
  std::ostringstream out;
  out << "#!/bin/sh\n"
      << "# Kubernetes node labels in NVIDIA topograph's format, written by toporrctl from\n"
      << "# toporr " << SnapshotLabel(topo) << ".\n"
      << "# leaf: the host's leaf switch; spine: its level-1 domain; core: its level-2 domain\n"
      << "# (switch names; over 63 characters: x + FNV-64a hash). A level the fabric lacks is\n"
      << "# removed. Usage: sh FILE [kubectl options, e.g. --dry-run=client]; KUBECTL\n"
      << "# overrides the command.\n"
      << "set -e\n";
  for (int h : selected.order) {
    const int leaf = a.hosts[h].leaf;
    const int domains[] = {leaf, spine[leaf], core[leaf]};
    out << "${KUBECTL:-kubectl} label node " << ShellWord(a.hosts[h].name) << " --overwrite";
    for (int level = 0; level < 3; ++level) {
      if (domains[level] < 0) {
        out << " " << kKeys[level] << "-";
      } else {
        out << " " << kKeys[level] << "=" << KubernetesLabelValue(a.switches[domains[level]].name);
      }
    }
    out << " \"$@\"\n";
  }
  return out.str();
}

absl::StatusOr<std::string> MpichCoordinates(const v1::GetTopologyResponse& topo,
                                             const std::vector<std::string>& ranks) {
  const TopologyAnalysis a = AnalyzeTopology(topo);
  ASSIGN_OR_RETURN(const HostSelection selected,
                   SelectHosts(a, ranks, topo.snapshot().id(), /*allow_repeats=*/true));
  // Leaves numbered in GUID order (the reply's order); groups by union-find over shared
  // level-1 switches, each numbered by its first leaf.
  std::vector<int> leaf_number(a.switches.size(), -1);
  int leaves = 0;
  for (size_t i = 0; i < a.switches.size(); ++i) {
    if (a.switches[i].level == 0) leaf_number[i] = leaves++;
  }
  const std::vector<int> pod = ComponentsUpTo(a, 1);
  std::map<int, int> group_of_root;
  std::vector<int> group(a.switches.size(), -1);
  for (size_t i = 0; i < a.switches.size(); ++i) {
    if (leaf_number[i] < 0) continue;
    auto [it, fresh] = group_of_root.emplace(pod[i], 0);
    if (fresh) it->second = static_cast<int>(group_of_root.size()) - 1;
    group[i] = it->second;
  }
  std::ostringstream out;
  out << "# rank: group id, switch id, port number (toporr snapshot " << topo.snapshot().id()
      << ")\n";
  for (size_t r = 0; r < selected.order.size(); ++r) {
    const HostAttachment& h = a.hosts[selected.order[r]];
    out << r << ": " << group[h.leaf] << " " << leaf_number[h.leaf] << " " << h.port << "\n";
  }
  return out.str();
}

absl::StatusOr<std::string> FabricDot(const v1::GetTopologyResponse& topo,
                                      const std::vector<std::string>& hosts) {
  const TopologyAnalysis a = AnalyzeTopology(topo);
  ASSIGN_OR_RETURN(const HostSelection selected,
                   SelectHosts(a, hosts, topo.snapshot().id(), /*allow_repeats=*/false));
  const std::vector<bool>& chosen = selected.chosen;
  const std::vector<bool>& keep = selected.keep;
  std::unordered_map<std::string, int> host_index;
  for (size_t h = 0; h < a.hosts.size(); ++h) host_index[a.hosts[h].name] = static_cast<int>(h);

  // Graph vertices: kept switches ("s<i>") and chosen hosts ("h<i>").
  auto vertex = [&](int node) -> std::string {
    const int sw = a.switch_of_node[node];
    if (sw >= 0) return keep[sw] ? absl::StrCat("s", sw) : "";
    const std::string& host = topo.nodes(node).host();
    if (host.empty()) return "";
    auto it = host_index.find(host);
    return it != host_index.end() && chosen[it->second] ? absl::StrCat("h", it->second) : "";
  };
  std::ostringstream out;
  out << "// toporr snapshot " << topo.snapshot().id() << " (" << topo.snapshot().source_name()
      << "): switches by level, hosts, link rates in Gb/s\n"
      << "digraph fabric {\n"
      << "  graph [rankdir=BT, nodesep=0.15, ranksep=1.2, fontname=\"Helvetica\", label="
      << DotQuote(absl::StrCat("toporr snapshot ", topo.snapshot().id(), ": ",
                               topo.snapshot().source_name()))
      << ", labelloc=t];\n"
      << "  node [fontname=\"Helvetica\", fontsize=10];\n"
      << "  edge [fontname=\"Helvetica\", fontsize=8, dir=none];\n";
  int max_level = 0;
  for (const SwitchInfo& s : a.switches) max_level = std::max(max_level, s.level);
  for (int level = max_level; level >= 0; --level) {
    out << "  { rank=same;";
    for (size_t i = 0; i < a.switches.size(); ++i) {
      if (a.switches[i].level == level && keep[i]) out << " s" << i << ";";
    }
    out << " }\n";
  }
  for (size_t i = 0; i < a.switches.size(); ++i) {
    if (!keep[i]) continue;
    std::string label = DotQuote(a.switches[i].name);
    label.insert(label.size() - 1, absl::StrCat("\\nlevel ", a.switches[i].level));
    out << "  s" << i << " [shape=box, style=filled, fillcolor=\"#dbe8f6\", label=" << label
        << "];\n";
  }
  out << "  { rank=same;";
  for (int h : selected.order) out << " h" << h << ";";
  out << " }\n";
  for (int h : selected.order) {
    out << "  h" << h << " [shape=ellipse, style=filled, fillcolor=\"#f3e6c8\", label="
        << DotQuote(a.hosts[h].name) << "];\n";
  }
  // Height of a node: hosts -1, switches their level. Edges go from the lower end up, so
  // that with rankdir=BT the hosts are at the bottom and the top level on top.
  auto height = [&](int node) {
    const int sw = a.switch_of_node[node];
    return sw >= 0 ? a.switches[sw].level : -1;
  };
  // Parallel cables between the same two vertices become one edge "Nx RATE".
  std::map<std::pair<std::string, std::string>, std::map<double, int>> edges;
  for (const v1::TopologyLink& l : topo.links()) {
    std::string x = vertex(l.a_node()), y = vertex(l.b_node());
    if (x.empty() || y.empty() || x == y) continue;
    const int hx = height(l.a_node()), hy = height(l.b_node());
    if (hy < hx || (hy == hx && y < x)) std::swap(x, y);
    ++edges[{x, y}][l.rate_gbps()];
  }
  for (const auto& [ends, rates] : edges) {
    std::vector<std::string> parts;
    int cables = 0;
    double widest = 0;
    for (const auto& [rate, count] : rates) {
      parts.push_back(count > 1 ? absl::StrCat(count, "x ", RateLabel(rate)) : RateLabel(rate));
      cables += count;
      widest = std::max(widest, rate);
    }
    out << "  " << ends.first << " -> " << ends.second
        << " [label=" << DotQuote(absl::StrJoin(parts, "+")) << ", penwidth=" << std::min(cables, 4)
        << "];\n";
  }
  out << "}\n";
  return out.str();
}

std::string TopologyJson(const v1::GetTopologyResponse& topo) {
  const TopologyAnalysis a = AnalyzeTopology(topo);
  std::ostringstream out;
  JsonWriter w(&out);
  const v1::SnapshotInfo& info = topo.snapshot();
  w.BeginObject();
  w.Key("snapshot");
  w.BeginObject();
  w.Field("id", static_cast<int64_t>(info.id()));
  w.Field("created_unix_ms", static_cast<int64_t>(info.created_unix_ms()));
  w.Field("source_kind", info.source_kind());
  w.Field("source_name", info.source_name());
  w.Field("content_hash", info.content_hash());
  w.Field("forwarding_tables", static_cast<int64_t>(info.num_forwarding_tables()));
  w.EndObject();
  w.Key("switches");
  w.BeginArray();
  for (const SwitchInfo& s : a.switches) {
    const v1::TopologyNode& n = topo.nodes(s.node);
    w.BeginObject();
    w.Field("name", s.name);
    w.Field("guid", n.guid());
    w.Field("description", n.description());
    w.Field("lid", static_cast<int64_t>(n.lid()));
    w.Field("ports", n.num_ports());
    w.Field("level", s.level);
    w.EndObject();
  }
  w.EndArray();
  w.Key("hosts");
  w.BeginArray();
  for (const HostAttachment& h : a.hosts) {
    w.BeginObject();
    w.Field("name", h.name);
    w.Field("switch", h.leaf >= 0 ? a.switches[h.leaf].name : "");
    w.Field("switch_port", h.port);
    w.Field("rate_gbps", h.rate_gbps);
    w.EndObject();
  }
  w.EndArray();
  w.Key("nodes");
  w.BeginArray();
  for (const v1::TopologyNode& n : topo.nodes()) {
    w.BeginObject();
    w.Field("guid", n.guid());
    w.Field("type", n.type());
    w.Field("description", n.description());
    w.Field("lid", static_cast<int64_t>(n.lid()));
    w.Field("host", n.host());
    w.EndObject();
  }
  w.EndArray();
  w.Key("links");
  w.BeginArray();
  for (const v1::TopologyLink& l : topo.links()) {
    w.BeginObject();
    w.Field("a_guid", topo.nodes(l.a_node()).guid());
    w.Field("a_port", l.a_port());
    w.Field("b_guid", topo.nodes(l.b_node()).guid());
    w.Field("b_port", l.b_port());
    w.Field("width_lanes", l.width_lanes());
    w.Field("speed", l.speed());
    w.Field("rate_gbps", l.rate_gbps());
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  out << "\n";
  return out.str();
}

}  // namespace toporr::client::ctl

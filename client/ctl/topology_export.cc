#include "client/ctl/topology_export.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <sstream>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "common/fnv.h"
#include "common/json_writer.h"
#include "common/status_macros.h"

namespace toporr::client::ctl {
namespace {

std::string RateLabel(double gbps) {
  if (gbps <= 0) return "?";
  if (std::fabs(gbps - std::round(gbps)) < 0.05) return absl::StrCat(std::lround(gbps), "G");
  std::ostringstream out;
  out.precision(1);
  out << std::fixed << gbps << "G";
  return out.str();
}

std::string DotQuote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
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

std::string KubernetesLabelValue(const std::string& value) {
  auto alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  };
  bool valid = value.size() <= 63;
  for (char c : value) valid = valid && (alnum(c) || c == '-' || c == '_' || c == '.');
  if (valid && (value.empty() || (alnum(value.front()) && alnum(value.back())))) return value;
  const uint64_t hash = Fnv64a(std::string_view(value.data(), value.size()));
  char hex[24];
  std::snprintf(hex, sizeof(hex), "x%llx", static_cast<unsigned long long>(hash));
  return hex;
}

namespace {

// A Kubernetes node name (an RFC 1123 subdomain): at most 253 lower-case alphanumerics, '-'
// and '.', starting and ending with an alphanumeric.
bool IsNodeName(const std::string& s) {
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (s.empty() || s.size() > 253 || !alnum(s.front()) || !alnum(s.back())) return false;
  for (char c : s) {
    if (!alnum(c) && c != '-' && c != '.') return false;
  }
  return true;
}

}  // namespace

namespace {

// One form of the node labels: the keys of the leaf, level-1 and level-2 domains, and the
// script's description of them.
struct LabelForm {
  const char* keys[3];
  const char* description;
};

constexpr LabelForm kTopographLabels = {
    {"fabric.topograph.run/tier-0", "fabric.topograph.run/tier-1", "fabric.topograph.run/tier-2"},
    "# Kubernetes node labels in NVIDIA topograph's format (1.0), written by toporrctl from\n"
    "# toporr %s.\n"
    "# tier-0: the host's leaf switch; tier-1: its level-1 domain; tier-2: its level-2 domain\n"};
constexpr LabelForm kLegacyLabels = {
    {"network.topology.nvidia.com/leaf", "network.topology.nvidia.com/spine",
     "network.topology.nvidia.com/core"},
    "# Kubernetes node labels in NVIDIA topograph's legacy format, written by toporrctl from\n"
    "# toporr %s.\n"
    "# leaf: the host's leaf switch; spine: its level-1 domain; core: its level-2 domain\n"};

absl::StatusOr<std::string> LabelScript(const v1::GetTopologyResponse& topo,
                                        const std::vector<std::string>& hosts,
                                        const LabelForm& form) {
  const TopologyAnalysis a = AnalyzeTopology(topo);
  ASSIGN_OR_RETURN(const HostSelection selected,
                   SelectHosts(a, hosts, topo.snapshot().id(), /*allow_repeats=*/false));
  const char* const* kKeys = form.keys;
  const std::vector<int> spine = DomainsAt(a, 1), core = DomainsAt(a, 2);
  // Host names as node names: as they are, lower-cased when that makes one, else left out.
  std::vector<std::pair<int, std::string>> nodes;
  std::string notes;
  for (int h : selected.order) {
    const std::string& name = a.hosts[h].name;
    std::string lower = name;
    for (char& c : lower) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    if (IsNodeName(name)) {
      nodes.emplace_back(h, name);
    } else if (IsNodeName(lower)) {
      nodes.emplace_back(h, lower);
      absl::StrAppend(&notes, "# lower-cased: ", name, " -> ", lower, "\n");
    } else {
      std::string shown = name;  // a comment line: no byte may end it
      for (char& c : shown) c = (c < 0x20 || c == 0x7f) ? '?' : c;
      absl::StrAppend(&notes, "# left out (not a Kubernetes node name): ", shown, "\n");
    }
  }
  std::ostringstream out;
  out << "#!/bin/sh\n"
      << absl::StrReplaceAll(form.description, {{"%s", SnapshotLabel(topo)}})
      << "# (switch names; over 63 characters: x + FNV-64a hash). A level the fabric lacks is\n"
      << "# removed. Usage: sh FILE [kubectl options, e.g. --dry-run=client]; KUBECTL\n"
      << "# overrides the command. Host names that are not Kubernetes node names (RFC 1123:\n"
      << "# lower case, digits, '-', '.') are lower-cased when that makes one, else left out.\n"
      << "# A node that cannot be labelled (not in the cluster) does not stop the others: the\n"
      << "# last line says how many were labelled and which failed (exit status 1 then).\n"
      << notes << "labelled=0\nfailed=\"\"\n"
      << "label() {\n"
      << "  node=$1\n"
      << "  shift\n"
      << "  if ${KUBECTL:-kubectl} label node \"$node\" --overwrite \"$@\"; then\n"
      << "    labelled=$((labelled + 1))\n"
      << "  else\n"
      << "    failed=\"$failed $node\"\n"
      << "  fi\n"
      << "}\n";
  for (const auto& [h, node] : nodes) {
    const int leaf = a.hosts[h].leaf;
    const int domains[] = {leaf, spine[leaf], core[leaf]};
    out << "label " << ShellWord(node);
    for (int level = 0; level < 3; ++level) {
      if (domains[level] < 0) {
        out << " " << kKeys[level] << "-";
      } else {
        out << " " << kKeys[level] << "=" << KubernetesLabelValue(a.switches[domains[level]].name);
      }
    }
    out << " \"$@\"\n";
  }
  out << "echo \"toporr: labelled $labelled of " << nodes.size()
      << " nodes${failed:+; failed:$failed}\" >&2\n"
      << "[ -z \"$failed\" ]\n";
  return out.str();
}

}  // namespace

absl::StatusOr<std::string> KubernetesLabels(const v1::GetTopologyResponse& topo,
                                             const std::vector<std::string>& hosts) {
  return LabelScript(topo, hosts, kTopographLabels);
}

absl::StatusOr<std::string> KubernetesLegacyLabels(const v1::GetTopologyResponse& topo,
                                                   const std::vector<std::string>& hosts) {
  return LabelScript(topo, hosts, kLegacyLabels);
}

absl::StatusOr<std::string> KueueTopology(const v1::GetTopologyResponse& topo,
                                          const std::vector<std::string>& hosts) {
  const TopologyAnalysis a = AnalyzeTopology(topo);
  ASSIGN_OR_RETURN(const HostSelection selected,
                   SelectHosts(a, hosts, topo.snapshot().id(), /*allow_repeats=*/false));
  // The tiers the selected hosts have: a level-k domain exists for some host.
  const std::vector<int> spine = DomainsAt(a, 1), core = DomainsAt(a, 2);
  bool has[3] = {!selected.order.empty(), false, false};
  for (int h : selected.order) {
    has[1] = has[1] || spine[a.hosts[h].leaf] >= 0;
    has[2] = has[2] || core[a.hosts[h].leaf] >= 0;
  }
  std::ostringstream out;
  out << "# Kueue's Topology for topology-aware scheduling, written by toporrctl from toporr "
      << SnapshotLabel(topo) << ":\n"
      << "# the fabric's tiers as labelled by `toporrctl export --format k8s-labels`, coarsest\n"
      << "# first, then the node. Reference it from a ResourceFlavor (spec.topologyName).\n"
      << "apiVersion: kueue.x-k8s.io/v1beta2\n"
      << "kind: Topology\n"
      << "metadata:\n"
      << "  name: toporr\n"
      << "spec:\n"
      << "  levels:\n";
  for (int tier = 2; tier >= 0; --tier) {
    if (has[tier]) out << "  - nodeLabel: " << kTopographLabels.keys[tier] << "\n";
  }
  out << "  - nodeLabel: kubernetes.io/hostname\n";
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

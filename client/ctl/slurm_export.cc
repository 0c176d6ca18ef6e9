#include "client/ctl/slurm_export.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>
#include <utility>

#include "absl/strings/str_join.h"
#include "client/ctl/topology_analysis.h"
#include "common/status_macros.h"

namespace toporr::client::ctl {
namespace {

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

}  // namespace

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

}  // namespace toporr::client::ctl

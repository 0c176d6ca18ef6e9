// How toporrctl's topology exports (topology_export.h, slurm_export.h) see a snapshot's
// switches and hosts in the daemon's GetTopology reply, and the pieces the exports share
// (the selection of a job's hosts, the domains above the leaves, the snapshot's label).
// Pure functions of the reply.
//
// How the switches are seen (`AnalyzeTopology`):
//   - a leaf is a switch with a CA of a host cabled to it (level 0); every other switch
//     gets the level of its distance to the nearest leaf over switch-to-switch links;
//     switches no leaf reaches are left out of every export but JSON;
//   - a host hangs off the switch of its first connected HCA port (multi-rail hosts are
//     drawn with every port in `dot`, but Slurm and MPICH get one leaf per host);
//   - switch names are stable across snapshots: from the NodeDescription (Mellanox/NVIDIA
//     "MF0;leaf04:MSX6036/U1" gives "leaf04", anything else its characters outside
//     [A-Za-z0-9_.-] replaced by '_'), or "ib-" + the 16 hex digits of the GUID when the
//     description is empty or shared by another switch. Never a snapshot-local index.
//
// Domains above the leaves: the leaves joined through switches of levels
// 1..k form one level-k domain. Level 1 is the pod (leaves sharing a level-1 switch: the
// whole fabric of a two-level fat tree, one pod of a three-level one), level 2 what the
// level-2 switches join, and so on; identical-looking switches (two spines above the same
// leaves) are one domain, as topograph merges them.
#ifndef TOPORR_CLIENT_CTL_TOPOLOGY_ANALYSIS_H_
#define TOPORR_CLIENT_CTL_TOPOLOGY_ANALYSIS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "toporr/v1/toporr.pb.h"

namespace toporr::client::ctl {

struct HostAttachment {
  std::string name;
  int leaf = -1;  // index into TopologyAnalysis::switches of its leaf switch, -1 if none
  int port = 0;   // the leaf's port its first HCA port is cabled to
  double rate_gbps = 0;
};

struct SwitchInfo {
  int node = -1;  // index into GetTopologyResponse.nodes
  std::string name;
  int level = -1;  // 0 for leaves; -1 when no leaf reaches it
  // Neighbouring switches one level down (indexes into switches), sorted, once each.
  std::vector<int> children;
  std::vector<int> hosts;  // indexes into TopologyAnalysis::hosts hanging off it (leaves)
};

struct TopologyAnalysis {
  std::vector<SwitchInfo> switches;   // in the reply's node order (sorted by GUID)
  std::vector<HostAttachment> hosts;  // in the reply's host order (sorted by name)
  std::vector<int> switch_of_node;    // node index -> switch index, -1 for non-switches
};

TopologyAnalysis AnalyzeTopology(const v1::GetTopologyResponse& topo);

// The switch name of a NodeDescription, or "" when it gives none (see above).
std::string SwitchNameFromDescription(const std::string& description);

// The selected hosts (all when `names` is empty): their indexes in `names` order, and per
// host whether it is selected.
struct HostSelection {
  std::vector<int> order;
  std::vector<bool> chosen;
  std::vector<bool> keep;  // per switch: kept for these hosts (SelectHosts)
};

// The hosts `names` selects (all when empty; a name may repeat only with `allow_repeats`),
// with the switches to keep for them: their leaves and every switch above them (a switch of
// level L is kept when one of its children is). kNotFound for a host not in the snapshot
// (naming `snapshot_id`), kFailedPrecondition for a selected host with no switch.
absl::StatusOr<HostSelection> SelectHosts(const TopologyAnalysis& a,
                                          const std::vector<std::string>& names,
                                          int64_t snapshot_id, bool allow_repeats);

// Union-find over the switches of levels 0..`level`, each switch of level 1..`level` joined
// with its children: the representative of every switch's component, -1 for switches of
// other levels.
std::vector<int> ComponentsUpTo(const TopologyAnalysis& a, int level);

// The level-`level` domain of every switch below that level (see "Domains" above):
// the index of the domain's first switch of that level, -1 when none is above it.
std::vector<int> DomainsAt(const TopologyAnalysis& a, int level);

// The snapshot as the exports' comment lines name it, control characters as '_':
// "snapshot 4 (ibnetdiscover fabric.topo, content 0123456789ab)"
std::string SnapshotLabel(const v1::GetTopologyResponse& topo);

}  // namespace toporr::client::ctl

#endif  // TOPORR_CLIENT_CTL_TOPOLOGY_ANALYSIS_H_

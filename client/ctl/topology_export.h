// Exports of a snapshot's topology (the daemon's GetTopology reply) for the tools around
// toporr: Slurm's topology.conf (tree or block plugin) and topology.yaml, Kubernetes node
// labels in NVIDIA topograph's format, the coordinates file MPICH's topology-aware trees
// read, a Graphviz picture, and JSON. Pure functions of the reply: no I/O, no daemon.
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
//
// Blocks (Slurm topology/block): a base block is the selected hosts of one leaf switch
// (the hosts one switch hop apart). Blocks are listed pod by pod (pods in the order of their
// first leaf, leaves in GUID order), since Slurm aggregates consecutive blocks. BlockSizes
// is B, 2B, 4B, ... (B = the smallest block's host count), up to the first size that covers
// every block, keeping only the sizes whose aggregates (2^k consecutive blocks from a
// multiple of 2^k) each lie within one pod or are made of whole pods: an aggregate never
// splits a pod. In a two-level fat tree (one pod) every power of two is kept.
#ifndef TOPORR_CLIENT_CTL_TOPOLOGY_EXPORT_H_
#define TOPORR_CLIENT_CTL_TOPOLOGY_EXPORT_H_

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

// Slurm topology.conf (topology/tree): one `SwitchName=X Nodes=h1,h2` line per leaf with
// selected hosts and one `SwitchName=Y Switches=a,b` line per upper switch above them,
// lowest level first. `hosts` selects (empty: every host). kNotFound for an unknown host,
// kFailedPrecondition for a selected host with no switch.
absl::StatusOr<std::string> SlurmTopologyConf(const v1::GetTopologyResponse& topo,
                                              const std::vector<std::string>& hosts);

// Slurm topology.conf (topology/block): `BlockName=<leaf> Nodes=h1,h2` per block with
// selected hosts, then `BlockSizes=B,2B,...` (see "Blocks" above). Errors as
// SlurmTopologyConf.
absl::StatusOr<std::string> SlurmBlockConf(const v1::GetTopologyResponse& topo,
                                           const std::vector<std::string>& hosts);

// Slurm topology.yaml (Slurm 25.05 and later): a list of two topologies, "fabric-tree"
// (tree: `switches`, each `switch` with `nodes` or `children`, as in SlurmTopologyConf;
// cluster_default: true) and "fabric-block" (block: `block_sizes` and `blocks`, each `block`
// with `nodes`, as in SlurmBlockConf). Every string is double-quoted; node and switch
// lists are comma-separated, as Slurm's hostlist parser reads them. Errors as
// SlurmTopologyConf.
absl::StatusOr<std::string> SlurmTopologyYaml(const v1::GetTopologyResponse& topo,
                                              const std::vector<std::string>& hosts);

// A label value as NVIDIA topograph writes it: `value` when it is a valid Kubernetes label
// value (at most 63 characters of [A-Za-z0-9_.-], alphanumeric at both ends), else "x"
// followed by the FNV-64a hash of its bytes in lower-case hex without leading zeros
// (topograph hashes values longer than 63 characters this way; toporr also hashes the
// rare switch name that starts or ends with '_', '-' or '.').
std::string KubernetesLabelValue(const std::string& value);

// Kubernetes node labels in NVIDIA topograph's format, as a shell script of one
// `kubectl label node <host> --overwrite KEY=VALUE...` per selected host, where KEY is
// network.topology.nvidia.com/leaf (the host's leaf switch), .../spine (its level-1
// domain) and .../core (its level-2 domain), each valued by the name of the domain's first
// switch of that level in GUID order, through KubernetesLabelValue. A level the fabric
// does not have is removed (`KEY-`), so the script makes the labels equal the snapshot's.
// The script runs ${KUBECTL:-kubectl} and passes its own arguments on (--dry-run=client).
// Errors as SlurmTopologyConf.
absl::StatusOr<std::string> KubernetesLabels(const v1::GetTopologyResponse& topo,
                                             const std::vector<std::string>& hosts);

// MPIR_CVAR_COORDINATES_FILE: a header line, then per rank `RANK: GROUP SWITCH PORT`.
// `ranks` names the host of every rank in rank order (a host may repeat); empty: one rank
// per host, hosts sorted by name. SWITCH is the leaf's index among all leaves sorted by
// GUID; GROUP the leaves' group (leaves sharing a level-1 switch are in one group: one
// group in a two-level fat tree, one per pod in a three-level one), numbered by their
// first leaf; PORT the leaf port the host is cabled to.
absl::StatusOr<std::string> MpichCoordinates(const v1::GetTopologyResponse& topo,
                                             const std::vector<std::string>& ranks);

// A Graphviz `digraph` drawn undirected (edges point up, for the ranking): switches as boxes
// ranked by level (top level on top), hosts as ellipses along the bottom, one edge per pair
// of cabled nodes labelled with the link rate ("2x 32G" for
// parallel cables). `hosts` selects a job's hosts, their leaves and the switches above.
absl::StatusOr<std::string> FabricDot(const v1::GetTopologyResponse& topo,
                                      const std::vector<std::string>& hosts);

// The whole snapshot as one JSON document: snapshot, switches (with name and level),
// hosts (with leaf and port), cas, links.
std::string TopologyJson(const v1::GetTopologyResponse& topo);

}  // namespace toporr::client::ctl

#endif  // TOPORR_CLIENT_CTL_TOPOLOGY_EXPORT_H_

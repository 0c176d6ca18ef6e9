// Exports of a snapshot's topology (the daemon's GetTopology reply) for the tools around
// toporr: Slurm's topology.conf (tree or block plugin) and topology.yaml, Kubernetes node
// labels in NVIDIA topograph's format, the coordinates file MPICH's topology-aware trees
// read, a Graphviz picture, and JSON. Pure functions of the reply: no I/O, no daemon.
//
// How switches and hosts are seen, and the domains above the leaves: topology_analysis.h.
// Slurm's files (topology.conf of the tree and block plugins, topology.yaml): slurm_export.h;
// both are included here.
#ifndef TOPORR_CLIENT_CTL_TOPOLOGY_EXPORT_H_
#define TOPORR_CLIENT_CTL_TOPOLOGY_EXPORT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/ctl/slurm_export.h"
#include "client/ctl/topology_analysis.h"
#include "toporr/v1/toporr.pb.h"

namespace toporr::client::ctl {

// A label value as NVIDIA topograph writes it: `value` when it is a valid Kubernetes label
// value (at most 63 characters of [A-Za-z0-9_.-], alphanumeric at both ends), else "x"
// followed by the FNV-64a hash of its bytes in lower-case hex without leading zeros
// (topograph hashes values longer than 63 characters this way; toporr also hashes the
// rare switch name that starts or ends with '_', '-' or '.').
std::string KubernetesLabelValue(const std::string& value);

// Kubernetes node labels in NVIDIA topograph's format (1.0), as a shell script of one
// `kubectl label node <host> --overwrite KEY=VALUE...` per selected host, where KEY is
// fabric.topograph.run/tier-0 (the host's leaf switch), .../tier-1 (its level-1 domain) and
// .../tier-2 (its level-2 domain), each valued by the name of the domain's first switch of
// that level in GUID order, through KubernetesLabelValue. A level the fabric does not have is
// removed (`KEY-`), so the script makes the labels equal the snapshot's. The script runs
// ${KUBECTL:-kubectl} and passes its own arguments on (--dry-run=client). Host names that are
// not Kubernetes node names are lower-cased when that makes one, else left out (a comment
// says which); a node kubectl cannot label does not stop the others, and the last line says
// how many were labelled. Errors as SlurmTopologyConf.
absl::StatusOr<std::string> KubernetesLabels(const v1::GetTopologyResponse& topo,
                                             const std::vector<std::string>& hosts);

// The same script in topograph's legacy keys: network.topology.nvidia.com/leaf, .../spine
// and .../core for tiers 0, 1 and 2.
absl::StatusOr<std::string> KubernetesLegacyLabels(const v1::GetTopologyResponse& topo,
                                                   const std::vector<std::string>& hosts);

// Kueue's Topology object (kueue.x-k8s.io/v1beta2, named "toporr") for topology-aware
// scheduling: levels from the coarsest tier the selected hosts have to tier 0, in the keys
// KubernetesLabels writes, then kubernetes.io/hostname. Errors as SlurmTopologyConf.
absl::StatusOr<std::string> KueueTopology(const v1::GetTopologyResponse& topo,
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

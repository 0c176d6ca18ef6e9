// Slurm's topology files for a snapshot (the daemon's GetTopology reply): topology.conf of the
// tree and the block plugins and topology.yaml. Pure functions of the reply: no I/O, no
// daemon. Switch levels, names and pods: topology_analysis.h.
//
// Blocks (Slurm topology/block): a base block is the selected hosts of one leaf switch
// (the hosts one switch hop apart). Blocks are listed pod by pod (pods in the order of their
// first leaf, leaves in GUID order), since Slurm aggregates consecutive blocks. BlockSizes
// is B, 2B, 4B, ... (B = the smallest block's host count), up to the first size that covers
// every block, keeping only the sizes whose aggregates (2^k consecutive blocks from a
// multiple of 2^k) each lie within one pod or are made of whole pods: an aggregate never
// splits a pod. In a two-level fat tree (one pod) every power of two is kept.
#ifndef TOPORR_CLIENT_CTL_SLURM_EXPORT_H_
#define TOPORR_CLIENT_CTL_SLURM_EXPORT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "toporr/v1/toporr.pb.h"

namespace toporr::client::ctl {

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

}  // namespace toporr::client::ctl

#endif  // TOPORR_CLIENT_CTL_SLURM_EXPORT_H_

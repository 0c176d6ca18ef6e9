// The files around a job's launch, as `toporrctl plan` and libtoporr read and write them:
// the hostfile naming the job's hosts and slots, the rank -> host list, the placement a
// launcher makes of them, and the files that reproduce a planned order at launch (an Open MPI
// rankfile, a hostfile in rank order for --map-by seq, Slurm's SLURM_HOSTFILE, an MPICH
// machinefile, torchrun's node ranks). Pure text: the callers read and write the files.
#ifndef TOPORR_CLIENT_PLAN_LAUNCH_FILES_H_
#define TOPORR_CLIENT_PLAN_LAUNCH_FILES_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "client/plan/plan.h"
#include "mapping/costs/placement.h"

namespace toporr::client {

// Hosts of a job in hostfile order, with their slot counts.
struct JobHosts {
  std::vector<std::string> names;
  std::vector<int> slots;  // > 0
  int total_slots() const;
};

// Reads an Open MPI hostfile (`node01 slots=4 [max_slots=N]`), a Slurm-style `node01:4`, or
// one host per line (repeats add a slot each). `#` comments and blank lines are ignored;
// a domain suffix is cut (`n1.cluster` -> `n1`). Errors: kInvalidArgument "<file>:<line>: ...".
absl::StatusOr<JobHosts> ParseHostfile(std::string_view text, std::string_view file_name);

// A rank -> host list: one host name per line in rank order (line i names rank i's host;
// `#` comments and blank lines are skipped, a domain suffix is cut). The format of
// `toporrctl plan --ranks` and of libtoporr's TOPORR_HOSTMAP. kInvalidArgument
// "<file>: no ranks" for an empty list.
absl::StatusOr<std::vector<std::string>> ParseRankHosts(std::string_view text,
                                                        std::string_view file_name);

// How a launcher deals ranks over a hostfile's slots (Open MPI --map-by).
enum class MapBy { kCore, kNode };

// Initial placement of `num_ranks` ranks (0 = all slots): kCore fills each host's slots
// before the next host (Open MPI --map-by core / slot); kNode deals ranks round-robin over
// hosts with free slots (--map-by node). kInvalidArgument when there are too few slots.
absl::StatusOr<mapping::Placement> InitialPlacement(const JobHosts& hosts, MapBy map_by,
                                                    int num_ranks, const NodeShape& shape = {});

// Explicit rank -> host list (ParseRankHosts format; names must be in `hosts`).
absl::StatusOr<mapping::Placement> ExplicitPlacement(const JobHosts& hosts, std::string_view text,
                                                     std::string_view file_name,
                                                     const NodeShape& shape = {});

// Open MPI rankfile: "rank <new>=<host> slot=<core>" for every new rank.
std::string Rankfile(const PlanResult& plan, const mapping::Placement& placement,
                     const JobHosts& hosts);
// The same for any order (order[new rank] = old rank), its header comment naming `what`.
std::string Rankfile(const std::vector<int32_t>& order, std::string_view what,
                     const mapping::Placement& placement, const JobHosts& hosts);
// One host per line in new rank order (Open MPI `--map-by seq`, Slurm
// `--distribution=arbitrary` with SLURM_HOSTFILE).
std::string ReorderedHostfile(const PlanResult& plan, const mapping::Placement& placement,
                              const JobHosts& hosts);
std::string ReorderedHostfile(const std::vector<int32_t>& order,
                              const mapping::Placement& placement, const JobHosts& hosts);
// Slurm's SLURM_HOSTFILE for `srun --distribution=arbitrary`: ReorderedHostfile's lines
// (task i runs on line i's host) after one comment line naming `what` (Slurm's hostfile
// reader drops text after '#').
std::string SlurmHostfile(const std::vector<int32_t>& order, std::string_view what,
                          const mapping::Placement& placement, const JobHosts& hosts);

// torchrun's launch of a planned order. torchrun numbers the ranks of a job
// RANK = node_rank * nproc_per_node + local_rank, so it can follow an order only host by host:
// the hosts take node ranks in the order of their first new rank (new rank 0's host is node
// rank 0), and local rank i of a host is the i-th of that host's new ranks.
struct TorchrunLaunch {
  // The file: one comment line naming `what` and the torchrun shape, then "HOST NODE_RANK" for
  // each host in node-rank order.
  std::string text;
  std::vector<std::string> node_hosts;  // index = node rank
  int nproc_per_node = 0;               // ranks on every host
  // True when every host's new ranks are consecutive, so that torchrun's RANK is the new rank
  // (which core a local rank runs on stays the job's own binding). False: torchrun keeps
  // only the hosts' order, by their first new rank.
  bool exact = true;
};

// The ranks each host starts under torchrun (--nproc_per_node, one number for all hosts): the
// ranks per host of `placement`; hosts without a rank are not in the job. kInvalidArgument,
// naming hosts and their counts, when hosts have different numbers of ranks.
absl::StatusOr<int> TorchrunProcsPerNode(const mapping::Placement& placement,
                                         const JobHosts& hosts);

// The node rank of every host for `order` (order[new rank] = old rank), the file's header
// comment naming `what`. TorchrunProcsPerNode's error when the hosts' rank counts differ.
absl::StatusOr<TorchrunLaunch> TorchrunNodeRanks(const std::vector<int32_t>& order,
                                                 std::string_view what,
                                                 const mapping::Placement& placement,
                                                 const JobHosts& hosts);

// MPICH's (Hydra's) machinefile for `mpiexec -f FILE -n N`: after one comment line naming
// `what`, "host:count" for each run of consecutive new ranks on one host, so that rank i runs
// on the host of ReorderedHostfile's line i.
std::string MpichMachinefile(const std::vector<int32_t>& order, std::string_view what,
                             const mapping::Placement& placement, const JobHosts& hosts);

}  // namespace toporr::client

#endif  // TOPORR_CLIENT_PLAN_LAUNCH_FILES_H_

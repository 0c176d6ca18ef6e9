// The reply of `toporrctl plan`: what was planned and how (collective, size, ranks, where the
// costs came from), the predicted time before and after, the new rank order and every
// candidate considered, as text or as JSON (`plan` fields in README.md); with --cart the
// same for a cartesian process grid, with --traffic for a profiled run's traffic.
#ifndef TOPORR_CLIENT_CTL_PLAN_OUTPUT_H_
#define TOPORR_CLIENT_CTL_PLAN_OUTPUT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "client/ctl/output.h"
#include "client/plan/plan.h"
#include "client/profile/traffic_profile.h"
#include "mapping/embedding/graph_embed.h"

namespace toporr::client::ctl {

// The file --launcher wrote and how the job is started from it. JSON, after a plan's other
// fields when there is a launcher: "launcher", "launch_file", "launcher_exact" and, for
// torchrun, "torchrun" {"nnodes", "nproc_per_node", "master_addr", "master_port",
// "node_rank_hosts" (the host of each node rank)}.
struct LaunchReport {
  std::string launcher;  // "torchrun", "srun", "mpirun", "mpiexec"; "" = none
  std::string file;
  // The launcher starts the ranks in the new order; false for torchrun on an order whose hosts'
  // ranks are not consecutive (it then follows the order host by host).
  bool exact = true;
  std::vector<std::string> node_hosts;  // torchrun: the host of each node rank
  int nproc_per_node = 0;               // torchrun: ranks on every host
};

// The port of torchrun's static rendezvous on the host of node rank 0 (torchrun's default).
inline constexpr int kTorchrunMasterPort = 29500;

struct PlanReport {
  std::string collective;  // as given on the command line
  int64_t message_bytes = 0;
  std::vector<std::string> rank_hosts;  // host of each (old) rank, in launch order
  int64_t num_hosts = 0;
  std::string cost_source;      // JobCosts::source
  bool contention = false;      // routes known: link loads are meaningful
  std::string from = "launch";  // the order planned from: "launch" or "leaf-sorted"
  PlanResult plan;
  std::string rankfile_out;  // files written, if any ("" = none)
  std::string hostfile_out;
  std::string slurm_hostfile_out;
  LaunchReport launch;
};

Reply PlanReply(PlanReport report);

// `plan --cart`: the order libtoporr gives MPI_Cart_create(dims, periods, reorder = 1) on the
// job (client/plan/graph_plan.h). JSON: "cart" {"dims", "periods"}, "edge_bytes", "ranks",
// "hosts", "cost_source", "embedder" (the embedding kept: identity, bipartition, greedy,
// scotch), "reordered", "speedup", "before" and "after" {"mapping", "time_ns"}, "new_order"
// (the old rank of each new rank, as for a collective) and "candidates" (every embedder run).
// time_ns is the predicted cost of the grid's exchange: the sum over its directed edges of
// one edge_bytes message each, contention-free.
// What --cart and --traffic report alike: a process graph embedded on the job.
struct GraphPlanJob {
  std::vector<std::string> rank_hosts;  // host of each (old) rank, in launch order
  int64_t num_hosts = 0;
  std::string cost_source;  // JobCosts::source
  mapping::Embedding embedding;
  std::string rankfile_out;  // files written, if any ("" = none)
  std::string hostfile_out;
  std::string slurm_hostfile_out;
  std::string machinefile_out;
  LaunchReport launch;
};

struct CartPlanReport {
  std::vector<int> dims;
  std::vector<bool> periods;
  GraphPlanJob job;
};

Reply CartPlanReply(CartPlanReport report);

// `plan --traffic`: the order of the job's ranks embedding the communication graph of a
// traffic profile (client/profile/traffic_graph.h) onto its hosts. JSON: "traffic" {"profile",
// "p2p_bytes", "rma_bytes", "collective_bytes", "unmodelled_calls", "edges"}, then the
// fields of --cart from "ranks" on ("ranks", "hosts", "cost_source", "embedder",
// "reordered", "speedup", "before", "after", "new_order", "candidates"). time_ns is
// PlanTraffic's prediction (client/plan/graph_plan.h): the profiled traffic sent at once, each rank
// pair's bytes one message, sharing host links (and the fabric's, with routes) — a measure
// that ranks orders, not a forecast of the run's time.
struct TrafficPlanReport {
  std::string profile;  // the file read
  int64_t p2p_bytes = 0, rma_bytes = 0, collective_bytes = 0, unmodelled_calls = 0;
  int64_t edges = 0;
  std::optional<MpiTimeShare> mpi_share;  // the profile's time inside MPI, if it has one
  bool saturated = false;                 // TrafficGraph::saturated
  GraphPlanJob job;
};

Reply TrafficPlanReply(TrafficPlanReport report);

}  // namespace toporr::client::ctl

#endif  // TOPORR_CLIENT_CTL_PLAN_OUTPUT_H_

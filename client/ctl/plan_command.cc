#include "client/ctl/plan_command.h"

#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "client/costs/cost_matrix_codec.h"
#include "client/costs/job_costs.h"
#include "client/ctl/plan_output.h"
#include "client/plan/graph_plan.h"
#include "client/plan/launch_files.h"
#include "client/plan/node_topology.h"
#include "client/plan/plan.h"
#include "client/profile/traffic_graph.h"
#include "client/profile/traffic_profile.h"
#include "collectors/fabric_input.h"
#include "collectors/hwloc_topology.h"
#include "common/output_file.h"
#include "common/status_macros.h"
#include "mapping/prediction/library_rules.h"

namespace toporr::client::ctl {
namespace {

// --cart DIMS[:PERIODS], as MPI_Cart_create takes them.
struct CartArgs {
  std::vector<int> dims;
  std::vector<bool> periods;
};

// The command line of one plan, checked: a collective's (`request`) or a grid's (`cart`).
struct PlanArgs {
  std::string hostfile, ranks_file, rankfile_out, hostfile_out, slurm_hostfile_out, node_xml;
  std::string machinefile_out;
  // --launcher (torchrun, srun, mpirun or mpiexec; "" = none) and the file it starts the job
  // from, --launch-file.
  std::string launcher, launch_file;
  std::string collective;
  std::string traffic;  // --traffic: a profile's path
  mapping::LibraryRules traffic_rules = mapping::LibraryRules::kOpenMpi;
  std::optional<CartArgs> cart;
  MapBy map_by = MapBy::kCore;
  int np = 0;
  // --from leaf-sorted: the job is launched in the leaf-sorted order of the placement
  // (client/plan/plan.h LeafSortedMapping), and toporr plans from there.
  bool from_leaf_sorted = false;
  PlanRequest request;
  CostSourceOptions costs;
};

absl::Status PlanUsage(const absl::Status& status) {
  return UsageError(absl::StrCat("plan: ", status.message()));
}

// "4x4" or "4x4:1x0": dimensions >= 1, periods 0 or 1, one per dimension (default all 0).
absl::StatusOr<CartArgs> ParseCart(std::string_view text) {
  const std::string_view dims = text.substr(0, text.find(':'));
  const std::string_view periods =
      dims.size() < text.size() ? text.substr(dims.size() + 1) : std::string_view();
  auto bad = [&](std::string_view why) {
    return UsageError(absl::StrCat("plan: --cart ", std::string(text), ": ", std::string(why),
                                   " (DIMS[:PERIODS], e.g. 4x4:1x0)"));
  };
  CartArgs cart;
  for (absl::string_view d : absl::StrSplit(absl::string_view(dims.data(), dims.size()), 'x')) {
    int size = 0;
    if (!absl::SimpleAtoi(d, &size) || size < 1) return bad("dimensions must be numbers >= 1");
    cart.dims.push_back(size);
  }
  if (dims.size() == text.size()) {
    cart.periods.assign(cart.dims.size(), false);
    return cart;
  }
  for (absl::string_view p :
       absl::StrSplit(absl::string_view(periods.data(), periods.size()), 'x')) {
    if (p != "0" && p != "1") return bad("periods must be 0 or 1");
    cart.periods.push_back(p == "1");
  }
  if (cart.periods.size() != cart.dims.size()) {
    return bad(absl::StrCat(cart.dims.size(), " dimensions but ", cart.periods.size(), " periods"));
  }
  return cart;
}

absl::StatusOr<PlanArgs> ParsePlanArgs(const CommandArgs& args) {
  std::string format = "ibnetdiscover", map_by = "core", algorithm, size, cart;
  std::string np, root, radix, mpi_library, multilevel, from, cost_model;
  PlanArgs p;
  std::vector<std::string> positional;
  RETURN_IF_ERROR(ParseOptions("plan", args,
                               {{"--hostfile", &p.hostfile},
                                {"--ranks", &p.ranks_file},
                                {"--fabric", &p.costs.fabric_path},
                                {"--format", &format},
                                {"--cost-model", &cost_model},
                                {"--map-by", &map_by},
                                {"--collective", &p.collective},
                                {"--algorithm", &algorithm},
                                {"--size", &size},
                                {"--rankfile", &p.rankfile_out},
                                {"--hostfile-out", &p.hostfile_out},
                                {"--slurm-hostfile", &p.slurm_hostfile_out},
                                {"--machinefile", &p.machinefile_out},
                                {"--launcher", &p.launcher},
                                {"--launch-file", &p.launch_file},
                                {"--traffic", &p.traffic},
                                {"--node-topology", &p.node_xml},
                                {"--np", &np},
                                {"--root", &root},
                                {"--radix", &radix},
                                {"--mpi-library", &mpi_library},
                                {"--multilevel", &multilevel},
                                {"--from", &from},
                                {"--cart", &cart}},
                               &positional));
  if (!positional.empty()) return UsageError("plan: unknown argument " + positional[0]);
  for (auto [text, value, flag] :
       {std::tuple(&np, &p.np, "--np"), std::tuple(&root, &p.request.root, "--root"),
        std::tuple(&radix, &p.request.radix, "--radix")}) {
    if (text->empty()) continue;
    ASSIGN_OR_RETURN(*value, ParseInteger(*text, 0, (1 << 30) - 1, absl::StrCat("plan: ", flag)));
  }
  if (p.hostfile.empty()) return UsageError("plan: --hostfile is required");
  if (map_by != "core" && map_by != "node" && map_by != "slot") {
    return UsageError("plan: --map-by must be core or node");
  }
  p.map_by = map_by == "node" ? MapBy::kNode : MapBy::kCore;
  auto fabric_format = collectors::ParseInputFormat(format);
  if (!fabric_format.ok()) return PlanUsage(fabric_format.status());
  p.costs.fabric_format = *fabric_format;
  if (!cost_model.empty()) {
    if (p.costs.fabric_path.empty()) {
      return UsageError("plan: --cost-model needs --fabric (the daemon applies its own model)");
    }
    ASSIGN_OR_RETURN(mapping::CostModelSettings settings, ReadCostModelFile(cost_model));
    p.costs.cost_model = settings.model;
  }
  if (from == "leaf-sorted") {
    p.from_leaf_sorted = true;
  } else if (!from.empty() && from != "launch") {
    return UsageError("plan: --from must be launch or leaf-sorted");
  }
  if (p.from_leaf_sorted && (!p.traffic.empty() || !cart.empty())) {
    return UsageError("plan: --from leaf-sorted is for --collective");
  }
  if (p.launcher.empty() != p.launch_file.empty()) {
    return UsageError("plan: --launcher and --launch-file go together");
  }
  if (!p.launcher.empty() && p.launcher != "torchrun" && p.launcher != "srun" &&
      p.launcher != "mpirun" && p.launcher != "mpiexec") {
    return UsageError("plan: --launcher must be torchrun, srun, mpirun or mpiexec");
  }
  // mpirun's file is Open MPI's rankfile and mpiexec's MPICH's machinefile: a job planned for
  // one library is not started with the other's file.
  if (p.launcher == "mpirun" && mpi_library == "mpich") {
    return UsageError(
        "plan: --launcher mpirun writes an Open MPI rankfile; for --mpi-library mpich use "
        "--launcher mpiexec (an MPICH machinefile)");
  }
  if (p.launcher == "mpiexec" && (mpi_library == "openmpi" || mpi_library == "smpi-ompi")) {
    return UsageError(
        absl::StrCat("plan: --launcher mpiexec writes an MPICH machinefile; for --mpi-library ",
                     mpi_library, " use --launcher mpirun (an Open MPI rankfile)"));
  }
  if (!p.traffic.empty()) {
    if (!p.collective.empty() || !cart.empty()) {
      return UsageError("plan: --traffic excludes --collective and --cart");
    }
    for (auto [text, flag] : {std::pair(&size, "--size"), std::pair(&algorithm, "--algorithm"),
                              std::pair(&root, "--root"), std::pair(&radix, "--radix"),
                              std::pair(&multilevel, "--multilevel")}) {
      if (!text->empty()) {
        return UsageError(absl::StrCat("plan: ", flag, " is for --collective, not --traffic"));
      }
    }
    if (!mpi_library.empty()) {
      auto rules = mapping::ParseLibraryRules(mpi_library);
      if (!rules.ok()) return PlanUsage(rules.status());
      p.traffic_rules = *rules;
    }
    return p;
  }
  if (!cart.empty()) {
    if (!p.collective.empty()) {
      return UsageError("plan: --cart and --collective exclude each other");
    }
    for (auto [text, flag] :
         {std::pair(&size, "--size"), std::pair(&algorithm, "--algorithm"),
          std::pair(&root, "--root"), std::pair(&radix, "--radix"),
          std::pair(&mpi_library, "--mpi-library"), std::pair(&multilevel, "--multilevel")}) {
      if (!text->empty()) {
        return UsageError(absl::StrCat("plan: ", flag, " is for --collective, not --cart"));
      }
    }
    ASSIGN_OR_RETURN(p.cart, ParseCart(cart));
    return p;
  }
  if (p.collective.empty()) {
    return UsageError("plan: --collective, --cart or --traffic is required");
  }
  if (!p.machinefile_out.empty()) {
    return UsageError("plan: --machinefile is for --cart and --traffic");
  }
  if (size.empty()) return UsageError("plan: --size is required");
  if (p.request.radix < 2) return UsageError("plan: --radix must be >= 2");
  if (multilevel == "candidate") {
    p.request.multilevel = MultilevelChoice::kCandidate;
  } else if (multilevel == "force") {
    p.request.multilevel = MultilevelChoice::kForce;
  } else if (!multilevel.empty()) {
    return UsageError("plan: --multilevel must be candidate or force");
  }
  auto collective = mapping::ParseCollective(p.collective);
  if (!collective.ok()) return PlanUsage(collective.status());
  p.request.collective = *collective;
  if (!algorithm.empty() && algorithm != "auto") {
    auto parsed = mapping::ParseAlgorithm(algorithm);
    if (!parsed.ok()) return PlanUsage(parsed.status());
    p.request.algorithm = *parsed;
  }
  if (!mpi_library.empty()) {
    auto rules = mapping::ParseLibraryRules(mpi_library);
    if (!rules.ok()) return PlanUsage(rules.status());
    if (p.request.algorithm.has_value()) {
      return UsageError("plan: --mpi-library weighs the library's own call: only with auto");
    }
    p.request.library_rules = *rules;
  }
  auto bytes = ParseBytes(size);
  if (!bytes.ok()) return PlanUsage(bytes.status());
  p.request.message_bytes = *bytes;
  p.request.leaf_sorted = true;
  return p;
}

// --node-topology: ranks get the cores of an hwloc XML, intra-node costs its NUMA distances.
absl::Status LoadNodeTopology(const std::string& xml_path, NodeShape* shape,
                              mapping::IntraHostModel* intra) {
  collectors::HwlocTopology::Options options;
  options.source = collectors::HwlocSource::XmlFile(xml_path);
  ASSIGN_OR_RETURN(auto topology, collectors::HwlocTopology::Create(options));
  ASSIGN_OR_RETURN(NodeTopology node, NodeTopologyOf(*topology));
  shape->core_slots = std::move(node.core_slots);
  *intra = node.intra;
  return absl::OkStatus();
}

CostMatrixFetcher DaemonCostMatrix(DaemonClient& daemon) {
  return [&daemon](const std::vector<std::string>& hosts) -> absl::StatusOr<ServedCostMatrix> {
    // Routes ride along up to the daemon's limit for them; larger plans model the host links.
    ASSIGN_OR_RETURN(CostMatrixAnswer answer,
                     FetchCostMatrix(daemon, hosts, 10, hosts.size() <= kMaxRouteMatrixHosts));
    const CostMatrixArrays& m = answer.costs;
    ServedCostMatrix served;
    served.routes = std::move(answer.routes);
    served.routes_missing = answer.routes_missing;
    served.snapshot_id = answer.resp.snapshot_id();
    served.n = m.n;
    served.latency_ns.assign(m.latency_ns.begin(), m.latency_ns.end());
    served.bottleneck_gbps.assign(m.bottleneck_gbps.begin(), m.bottleneck_gbps.end());
    return served;
  };
}

// `text` as the file `path` (nothing when empty), never through a planted link
// (common/output_file.h).
absl::Status WriteOutputFile(const std::string& path, const std::string& text) {
  if (path.empty()) return absl::OkStatus();
  return WriteFileReplacing(path, text);
}

// The file of --launcher for `order` (order[new rank] = old rank) on `placement`, its header
// comment naming `what`, written to --launch-file; what the reply says of it. Nothing without
// --launcher.
absl::StatusOr<LaunchReport> WriteLaunchFile(const PlanArgs& p, const std::vector<int32_t>& order,
                                             std::string_view what,
                                             const mapping::Placement& placement,
                                             const JobHosts& hosts) {
  LaunchReport launch;
  if (p.launcher.empty()) return launch;
  launch.launcher = p.launcher;
  launch.file = p.launch_file;
  std::string text;
  if (p.launcher == "torchrun") {
    ASSIGN_OR_RETURN(TorchrunLaunch torchrun, TorchrunNodeRanks(order, what, placement, hosts));
    text = std::move(torchrun.text);
    launch.exact = torchrun.exact;
    launch.node_hosts = std::move(torchrun.node_hosts);
    launch.nproc_per_node = torchrun.nproc_per_node;
  } else if (p.launcher == "srun") {
    text = SlurmHostfile(order, what, placement, hosts);
  } else if (p.launcher == "mpirun") {
    text = Rankfile(order, what, placement, hosts);
  } else {
    text = MpichMachinefile(order, what, placement, hosts);
  }
  RETURN_IF_ERROR(WriteOutputFile(p.launch_file, text));
  return launch;
}

// `graph` embedded as libtoporr embeds it (client/plan/graph_plan.h: PlanTraffic for `what` ==
// "traffic", PlanGraph for a topology function's graph), on the same placement and costs as a
// collective's plan; the launcher files asked for are written, their header comments naming
// `what`.
absl::StatusOr<GraphPlanJob> PlanGraphForJob(const PlanArgs& p, const JobHosts& hosts,
                                             const mapping::Placement& placement,
                                             const JobCosts& costs,
                                             const mapping::IntraHostModel& intra,
                                             const mapping::CommGraph& graph,
                                             std::string_view what) {
  GraphPlanJob job;
  if (what == "traffic") {
    ASSIGN_OR_RETURN(job.embedding,
                     PlanTraffic(graph, placement, *costs.costs, costs.routes.get(), intra));
  } else {
    ASSIGN_OR_RETURN(job.embedding, PlanGraph(graph, placement, *costs.costs, intra));
  }
  const std::vector<int32_t>& order = job.embedding.mapping;
  RETURN_IF_ERROR(WriteOutputFile(p.rankfile_out, Rankfile(order, what, placement, hosts)));
  RETURN_IF_ERROR(WriteOutputFile(p.hostfile_out, ReorderedHostfile(order, placement, hosts)));
  RETURN_IF_ERROR(
      WriteOutputFile(p.slurm_hostfile_out, SlurmHostfile(order, what, placement, hosts)));
  RETURN_IF_ERROR(
      WriteOutputFile(p.machinefile_out, MpichMachinefile(order, what, placement, hosts)));
  ASSIGN_OR_RETURN(job.launch, WriteLaunchFile(p, order, what, placement, hosts));
  for (const auto& rank : placement.ranks) job.rank_hosts.push_back(hosts.names[rank.host]);
  job.num_hosts = static_cast<int64_t>(hosts.names.size());
  job.cost_source = costs.source;
  job.rankfile_out = p.rankfile_out;
  job.hostfile_out = p.hostfile_out;
  job.slurm_hostfile_out = p.slurm_hostfile_out;
  job.machinefile_out = p.machinefile_out;
  return job;
}

// The profile of --traffic, checked against the job before any cost is fetched: the
// communication graph of its traffic (client/profile/traffic_graph.h). Errors name the file.
absl::StatusOr<TrafficGraph> LoadTrafficGraph(const PlanArgs& p,
                                              const mapping::Placement& placement) {
  ASSIGN_OR_RETURN(std::string text,
                   ReadInputFile(p.traffic, kProfileFileMaxBytes, "traffic profile"));
  ASSIGN_OR_RETURN(TrafficProfile profile, ParseTrafficProfile(text, p.traffic));
  if (profile.ranks != placement.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        p.traffic, ": a profile of ", profile.ranks, " ranks, but the job has ", placement.size(),
        " (--hostfile, --ranks, --np): profile a run of the same size"));
  }
  absl::StatusOr<TrafficGraph> graph = TrafficGraphOf(profile, p.traffic_rules);
  if (!graph.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(p.traffic, ": ", graph.status().message()));
  }
  return graph;
}

absl::StatusOr<Reply> RunPlan(Invocation& inv, const CommandArgs& args) {
  ASSIGN_OR_RETURN(PlanArgs p, ParsePlanArgs(args));
  ASSIGN_OR_RETURN(std::string host_text,
                   ReadInputFile(p.hostfile, kHostListFileMaxBytes, "hostfile"));
  ASSIGN_OR_RETURN(JobHosts hosts, ParseHostfile(host_text, p.hostfile));
  NodeShape shape;
  mapping::IntraHostModel intra;
  if (!p.node_xml.empty()) RETURN_IF_ERROR(LoadNodeTopology(p.node_xml, &shape, &intra));
  mapping::Placement placement;
  if (!p.ranks_file.empty()) {
    ASSIGN_OR_RETURN(std::string ranks_text,
                     ReadInputFile(p.ranks_file, kHostListFileMaxBytes, "rank list"));
    ASSIGN_OR_RETURN(placement, ExplicitPlacement(hosts, ranks_text, p.ranks_file, shape));
  } else {
    ASSIGN_OR_RETURN(placement, InitialPlacement(hosts, p.map_by, p.np, shape));
  }
  if (p.launcher == "torchrun") {  // checked before any cost is fetched
    if (absl::StatusOr<int> per_node = TorchrunProcsPerNode(placement, hosts); !per_node.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("plan --launcher torchrun: ", per_node.status().message()));
    }
  }
  mapping::CommGraph cart_graph;  // checked before any cost is fetched
  if (p.cart.has_value()) {
    absl::StatusOr<mapping::CommGraph> graph =
        CartGraph(p.cart->dims, p.cart->periods, placement.size());
    if (!graph.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("plan --cart: ", graph.status().message()));
    }
    cart_graph = *std::move(graph);
  }
  std::optional<TrafficGraph> traffic;
  if (!p.traffic.empty()) {
    ASSIGN_OR_RETURN(traffic, LoadTrafficGraph(p, placement));
  }
  ASSIGN_OR_RETURN(JobCosts costs, JobCostsFor(p.costs, hosts.names, DaemonCostMatrix(inv.daemon)));
  if (p.cart.has_value()) {
    CartPlanReport report;
    report.dims = p.cart->dims;
    report.periods = p.cart->periods;
    ASSIGN_OR_RETURN(report.job,
                     PlanGraphForJob(p, hosts, placement, costs, intra, cart_graph, "cart"));
    return CartPlanReply(std::move(report));
  }
  if (traffic.has_value()) {
    TrafficPlanReport report;
    report.profile = p.traffic;
    report.p2p_bytes = traffic->p2p_bytes;
    report.rma_bytes = traffic->rma_bytes;
    report.collective_bytes = traffic->collective_bytes;
    report.unmodelled_calls = traffic->unmodelled_calls;
    report.saturated = traffic->saturated;
    report.edges = static_cast<int64_t>(traffic->graph.edges.size());
    report.mpi_share = traffic->mpi_share;
    ASSIGN_OR_RETURN(report.job,
                     PlanGraphForJob(p, hosts, placement, costs, intra, traffic->graph, "traffic"));
    return TrafficPlanReply(std::move(report));
  }

  PlanReport report;
  if (p.from_leaf_sorted) {
    ASSIGN_OR_RETURN(std::vector<int32_t> leaf_sorted, LeafSortedMapping(placement, *costs.costs));
    placement = Reordered(placement, leaf_sorted);
    report.from = "leaf-sorted";
  }
  ASSIGN_OR_RETURN(report.plan,
                   Plan(p.request, placement, *costs.costs, costs.routes.get(), intra));
  RETURN_IF_ERROR(WriteOutputFile(p.rankfile_out, Rankfile(report.plan, placement, hosts)));
  RETURN_IF_ERROR(
      WriteOutputFile(p.hostfile_out, ReorderedHostfile(report.plan, placement, hosts)));
  RETURN_IF_ERROR(
      WriteOutputFile(p.slurm_hostfile_out,
                      SlurmHostfile(report.plan.mapping, report.plan.algorithm, placement, hosts)));
  ASSIGN_OR_RETURN(report.launch, WriteLaunchFile(p, report.plan.mapping, report.plan.algorithm,
                                                  placement, hosts));
  report.collective = p.collective;
  report.message_bytes = p.request.message_bytes;
  for (const auto& rank : placement.ranks) report.rank_hosts.push_back(hosts.names[rank.host]);
  report.num_hosts = static_cast<int64_t>(hosts.names.size());
  report.cost_source = costs.source;
  report.contention = costs.routes != nullptr;
  report.rankfile_out = p.rankfile_out;
  report.hostfile_out = p.hostfile_out;
  report.slurm_hostfile_out = p.slurm_hostfile_out;
  return PlanReply(std::move(report));
}

}  // namespace

std::vector<Command> PlanCommands() {
  return {{"plan", R"(  plan --hostfile FILE --collective C --size BYTES [--algorithm A|auto]
       [--map-by core|node | --ranks FILE] [--np N] [--root R] [--radix K]
       [--mpi-library openmpi|mpich|smpi-ompi]
       [--fabric DUMP [--format ibnetdiscover]] [--node-topology HWLOC.xml]
       [--rankfile OUT] [--hostfile-out OUT] [--slurm-hostfile OUT]
       [--multilevel candidate|force] [--from launch|leaf-sorted] [--cost-model FILE]
       [--launcher torchrun|srun|mpirun|mpiexec --launch-file OUT]
  plan --hostfile FILE --cart DIMS[:PERIODS] [--map-by core|node | --ranks FILE] [--np N]
       [--fabric DUMP [--format ibnetdiscover]] [--node-topology HWLOC.xml]
       [--rankfile OUT] [--hostfile-out OUT] [--slurm-hostfile OUT] [--machinefile OUT]
       [--launcher torchrun|srun|mpirun|mpiexec --launch-file OUT]
  plan --hostfile FILE --traffic PROFILE [--map-by core|node | --ranks FILE] [--np N]
       [--mpi-library openmpi|mpich] [--fabric DUMP [--format ibnetdiscover]]
       [--node-topology HWLOC.xml] [--rankfile OUT] [--hostfile-out OUT]
       [--slurm-hostfile OUT] [--machinefile OUT]
       [--launcher torchrun|srun|mpirun|mpiexec --launch-file OUT]
                       topology-aware rank order for a job: the new order, the predicted
                       time before/after and the maximum link load; writes an Open MPI
                       rankfile, a reordered hostfile (`mpirun --map-by seq`) or Slurm's
                       SLURM_HOSTFILE (`srun --distribution=arbitrary`). Costs come
                       from the daemon, or offline from a fabric dump (which also models link
                       contention). C: allreduce|bcast|allgather|gather|reduce; A: ring,
                       segmented_ring, recursive_doubling, rabenseifner, binomial,
                       binary_tree, split_binary_tree, knomial, chain, pipeline,
                       scatter_allgather, scatter_allgather_ring, bruck, linear, swing,
                       swing_bandwidth (allreduce), bine (bcast).
                       --node-topology: an hwloc XML of the compute nodes (lstopo --of xml);
                       ranks get its cores, intra-node costs its NUMA distances.
                       --mpi-library: with auto, also predict what that MPI library's own
                       rules run on the launch order ("mpi_library") and, for allreduce,
                       bcast and reduce, on the leaf-sorted order; the faster wins unless
                       beaten by 10 % (5 % from 1 MiB), and then the order is kept or
                       becomes the leaf-sorted one (what libtoporr's collectives do).
                       --multilevel: also predict the multi-level (leader) version over the
                       fabric's levels (bcast, reduce, allreduce, gather), as a candidate or
                       forced
                       Every collective plan also predicts the leaf-sorted order, the
                       baseline a site gets for free (Slurm's SwitchAsNodeRank, a by-slot
                       launch on a host list sorted by leaf switch): the launch order's
                       hosts grouped by leaf switch, each host's ranks contiguous, with the
                       library's own call (--mpi-library) or the chosen algorithm.
                       --from leaf-sorted: plan a job launched in that order (its ranks and
                       the files written are of the leaf-sorted launch)
                       --cost-model FILE (with --fabric): the cost_model lines of FILE (a
                       toporrd.conf, or what `calibrate --output` wrote) instead of the
                       InfiniBand HDR constants
                       --cart: instead of a collective, the order libtoporr gives
                       MPI_Cart_create(dims, periods, reorder=1) for these hosts and ranks
                       (its graph embedding, never predicted slower than the launch order):
                       DIMS like 4x4, PERIODS like 1x0 (default all 0); the grid may have
                       fewer nodes than ranks, not more
                       --traffic: instead of a collective, the order for a program's own
                       traffic, recorded in an earlier run of the same size with
                       TOPORR_PROFILE=PROFILE: its point-to-point and one-sided bytes per
                       rank pair plus its collectives as the library's algorithms move them
                       (--mpi-library, default openmpi), judged as sent all at once (a
                       host's ranks share its link); a new order only when predicted at
                       least 2 % faster. --machinefile (--cart and
                       --traffic) writes an MPICH machinefile (`mpiexec -f OUT`)
                       --launcher L --launch-file OUT: the file launcher L starts the job
                       from in the new order, and how: srun (what --slurm-hostfile writes;
                       `SLURM_HOSTFILE=OUT srun --distribution=arbitrary`), mpirun (an Open
                       MPI rankfile; `mpirun --rankfile OUT`), mpiexec (an MPICH
                       machinefile; `mpiexec -f OUT`), torchrun (a comment line, then
                       `HOST NODE_RANK` per host in node-rank order: the hosts in the order
                       of their first new rank; host R runs `torchrun --nnodes N
                       --nproc_per_node P --node_rank R --master_addr HOST0 --master_port
                       29500 ...`, HOST0 the host of node rank 0). torchrun numbers the
                       ranks host after host: every host needs as many ranks, and an order
                       whose hosts' ranks are not consecutive is followed host by host only
                       (the reply says so; JSON "launcher_exact": false). --mpi-library mpich
                       takes mpiexec, openmpi and smpi-ompi take mpirun
)",
           RunPlan}};
}

}  // namespace toporr::client::ctl

#include "client/ctl/plan_output.h"

#include <iomanip>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "client/plan/graph_plan.h"
#include "client/profile/traffic_graph.h"
#include "client/report/decision_report.h"

namespace toporr::client::ctl {
namespace {

// "new rank order" lines: new rank: old rank@host, eight to a line.
void NewOrderText(const std::vector<int32_t>& order, const std::vector<std::string>& rank_hosts,
                  std::ostream& out) {
  out << "new rank order (new rank: old rank@host):\n";
  for (size_t new_rank = 0; new_rank < order.size(); ++new_rank) {
    const int32_t old_rank = order[new_rank];
    out << "  " << new_rank << ": " << old_rank << "@" << rank_hosts[old_rank]
        << ((new_rank + 1) % 8 == 0 || new_rank + 1 == order.size() ? "\n" : "");
  }
}

// The line saying where --slurm-hostfile wrote and how srun uses it (nothing when unused).
void SlurmHostfileText(const std::string& path, size_t ranks, std::ostream& out) {
  if (path.empty()) return;
  out << "Slurm hostfile written to " << path << " (use: SLURM_HOSTFILE=" << path << " srun -n "
      << ranks << " --distribution=arbitrary ...)\n";
}

// The lines saying where --launcher wrote and how the job is started from the file (nothing
// without a launcher); `note` ends the MPI launchers' use line.
void LaunchText(const LaunchReport& l, size_t ranks, std::string_view note, std::ostream& out) {
  if (l.launcher == "srun") {
    out << "srun launch file written to " << l.file << " (use: SLURM_HOSTFILE=" << l.file
        << " srun -n " << ranks << " --distribution=arbitrary ..." << note << ")\n";
  } else if (l.launcher == "mpirun") {
    out << "Open MPI rankfile written to " << l.file << " (use: mpirun --rankfile " << l.file
        << " -np " << ranks << " ..." << note << ")\n";
  } else if (l.launcher == "mpiexec") {
    out << "MPICH machinefile written to " << l.file << " (use: mpiexec -f " << l.file << " -n "
        << ranks << " ..." << note << ")\n";
  } else if (l.launcher == "torchrun" && !l.node_hosts.empty()) {
    out << "torchrun node ranks written to " << l.file << "; each host runs (static rendezvous on "
        << l.node_hosts[0] << "):\n";
    for (size_t node = 0; node < l.node_hosts.size(); ++node) {
      out << "  " << l.node_hosts[node] << ": torchrun --nnodes " << l.node_hosts.size()
          << " --nproc_per_node " << l.nproc_per_node << " --node_rank " << node
          << " --master_addr " << l.node_hosts[0] << " --master_port " << kTorchrunMasterPort
          << " ...\n";
    }
    if (!l.exact) {
      out << "torchrun follows the new order only host by host: some hosts' ranks are not "
             "consecutive in it, and torchrun numbers the ranks host after host (RANK = node "
             "rank * nproc_per_node + local rank), so the hosts are in the order of their first "
             "new rank\n";
    }
  }
}

void LaunchJson(const LaunchReport& l, JsonWriter& w) {
  if (l.launcher.empty()) return;
  w.Field("launcher", l.launcher);
  w.Field("launch_file", l.file);
  w.Field("launcher_exact", l.exact);
  if (l.launcher != "torchrun") return;
  w.Key("torchrun");
  w.BeginObject();
  w.Field("nnodes", static_cast<int64_t>(l.node_hosts.size()));
  w.Field("nproc_per_node", l.nproc_per_node);
  w.Field("master_addr", l.node_hosts.empty() ? std::string() : l.node_hosts[0]);
  w.Field("master_port", kTorchrunMasterPort);
  w.Key("node_rank_hosts");
  w.BeginArray();
  for (const std::string& host : l.node_hosts) w.String(host);
  w.EndArray();
  w.EndObject();
}

double Speedup(const PlanResult& plan) {
  return plan.after.time_ns > 0 ? plan.before.time_ns / plan.after.time_ns : 1;
}

// toporr's choice against the leaf-sorted baseline (1 when it was not predicted).
double SpeedupVsLeafSorted(const PlanResult& plan) {
  return plan.after.time_ns > 0 && !plan.leaf_sorted_mapping.empty()
             ? plan.leaf_sorted.time_ns / plan.after.time_ns
             : 1;
}

void CandidateJson(const PlanCandidate& c, JsonWriter& w) {
  w.BeginObject();
  w.Field("algorithm", c.algorithm);
  w.Field("effective_algorithm", c.effective);
  w.Field("mapping", c.mapping);
  w.Field("time_ns", c.time_ns);
  w.Field("max_link_load", static_cast<int64_t>(c.max_link_load));
  w.Field("hop_bytes", c.hop_bytes);
  w.EndObject();
}

void PlanJson(const PlanReport& r, JsonWriter& w) {
  const PlanResult& plan = r.plan;
  w.BeginObject();
  w.Field("collective", r.collective);
  w.Field("algorithm", plan.algorithm);
  w.Field("message_bytes", r.message_bytes);
  w.Field("ranks", static_cast<int64_t>(r.rank_hosts.size()));
  w.Field("hosts", r.num_hosts);
  w.Field("cost_source", r.cost_source);
  w.Field("reordered", plan.reordered);
  w.Field("speedup", Speedup(plan));
  w.Field("from", r.from);
  w.Key("before");
  CandidateJson(plan.before, w);
  w.Key("after");
  CandidateJson(plan.after, w);
  w.Key("new_order");
  w.BeginArray();
  for (int32_t old_rank : plan.mapping) w.Int(old_rank);
  w.EndArray();
  w.Key("leaf_sorted");  // the free baseline; null when not predicted
  if (plan.leaf_sorted_mapping.empty()) {
    w.Null();
  } else {
    CandidateJson(plan.leaf_sorted, w);
  }
  w.Key("leaf_sorted_order");
  w.BeginArray();
  for (int32_t old_rank : plan.leaf_sorted_mapping) w.Int(old_rank);
  w.EndArray();
  w.Field("speedup_vs_leaf_sorted", SpeedupVsLeafSorted(plan));
  w.Key("candidates");
  w.BeginArray();
  for (const auto& c : plan.candidates) CandidateJson(c, w);
  w.EndArray();
  w.Key("levels");  // of the multi-level version; null when not considered
  if (plan.levels.empty()) {
    w.Null();
  } else {
    w.BeginArray();
    for (const std::string& l : plan.levels) w.String(l);
    w.EndArray();
  }
  w.Key("stages");
  StagesJson(plan.stages, w);
  LaunchJson(r.launch, w);
  w.EndObject();
}

void PlanText(const PlanReport& r, std::ostream& out) {
  const PlanResult& plan = r.plan;
  out << r.collective << " of " << r.message_bytes << " bytes over " << r.rank_hosts.size()
      << " ranks on " << r.num_hosts << " hosts; costs from " << r.cost_source << "\n";
  out << "algorithm: " << plan.algorithm
      << (plan.library_call ? " (its rules run " + plan.after.effective + " at this size" +
                                  (plan.reordered ? ", on the leaf-sorted order)" : ")")
          : plan.after.effective != plan.algorithm
              ? " (Open MPI runs " + plan.after.effective + " at this size)"
              : "")
      << "\n";
  auto load = [&](const PlanCandidate& c) {
    return r.contention ? " (max link load " + std::to_string(c.max_link_load) + ")"
                        : std::string();
  };
  out << "predicted time: before " << Fixed(plan.before.time_ns / 1000, 1) << " us"
      << load(plan.before) << ", after " << Fixed(plan.after.time_ns / 1000, 1) << " us"
      << load(plan.after) << ", speedup " << Fixed(Speedup(plan), 2) << "x"
      << (r.from == "launch" ? "" : " (from the " + r.from + " launch)") << "\n";
  if (!plan.leaf_sorted_mapping.empty()) {
    out << "leaf-sorted order (the free baseline: hosts grouped by leaf switch): "
        << plan.leaf_sorted.algorithm
        << (plan.leaf_sorted.effective != plan.leaf_sorted.algorithm
                ? " (" + plan.leaf_sorted.effective + ")"
                : "")
        << " " << Fixed(plan.leaf_sorted.time_ns / 1000, 1) << " us" << load(plan.leaf_sorted)
        << "; toporr vs leaf-sorted " << Fixed(SpeedupVsLeafSorted(plan), 2) << "x\n";
  }
  if (!plan.reordered) {
    out << "no reordering is predicted to help: keep the current order\n";
  } else {
    NewOrderText(plan.mapping, r.rank_hosts, out);
  }
  out << "candidates:\n";
  for (const auto& c : plan.candidates) {
    out << "  " << std::left << std::setw(24) << c.algorithm << std::setw(16) << c.mapping
        << std::right << std::setw(12) << Fixed(c.time_ns / 1000, 1) << " us"
        << (r.contention ? "  load " + std::to_string(c.max_link_load) : std::string()) << "\n";
  }
  if (!plan.stages.empty()) out << "multi-level stages:\n";
  for (const PlanStage& s : plan.stages) {
    out << "  " << std::left << std::setw(6) << s.level << std::setw(10) << s.collective
        << std::setw(24) << s.algorithm << std::right << s.groups << " group"
        << (s.groups == 1 ? "" : "s") << " of <= " << s.max_members << std::setw(12)
        << Fixed(s.time_ns / 1000, 1) << " us\n";
  }
  if (!r.rankfile_out.empty()) out << "rankfile written to " << r.rankfile_out << "\n";
  if (!r.hostfile_out.empty()) {
    out << "reordered hostfile written to " << r.hostfile_out << " (use: mpirun --hostfile "
        << r.hostfile_out << " --map-by seq ...)\n";
  }
  SlurmHostfileText(r.slurm_hostfile_out, r.rank_hosts.size(), out);
  LaunchText(r.launch, r.rank_hosts.size(), "", out);
}

// "4x4", or for periods "1x0".
template <typename T>
std::string Grid(const std::vector<T>& values) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) {
    out += (i == 0 ? "" : "x") + std::to_string(static_cast<int>(values[i]));
  }
  return out;
}

double CartSpeedup(const mapping::Embedding& e) {
  return e.cost_ns > 0 ? e.identity_cost_ns / e.cost_ns : 1;
}

// The embedders that ran, in the order EmbedGraph weighs them (ties go to the earlier).
std::vector<std::pair<std::string, double>> CartCandidates(const mapping::Embedding& e) {
  std::vector<std::pair<std::string, double>> out = {{"identity", e.identity_cost_ns},
                                                     {"bipartition", e.bipartition_cost_ns}};
  if (e.greedy_cost_ns >= 0) out.emplace_back("greedy", e.greedy_cost_ns);
  if (e.scotch_cost_ns >= 0) out.emplace_back("scotch", e.scotch_cost_ns);
  return out;
}

void MappingCostJson(std::string_view mapping, double time_ns, JsonWriter& w) {
  w.BeginObject();
  w.Field("mapping", mapping);
  w.Field("time_ns", time_ns);
  w.EndObject();
}

// The fields of an embedded graph's plan, from "ranks" to "candidates".
void GraphJobJson(const GraphPlanJob& job, JsonWriter& w) {
  const mapping::Embedding& e = job.embedding;
  const std::string embedder(mapping::EmbedMethodName(e.method));
  w.Field("ranks", static_cast<int64_t>(job.rank_hosts.size()));
  w.Field("hosts", job.num_hosts);
  w.Field("cost_source", job.cost_source);
  w.Field("embedder", embedder);
  w.Field("reordered", e.method != mapping::EmbedMethod::kIdentity);
  w.Field("speedup", CartSpeedup(e));
  w.Key("before");
  MappingCostJson("identity", e.identity_cost_ns, w);
  w.Key("after");
  MappingCostJson(embedder, e.cost_ns, w);
  w.Key("new_order");
  w.BeginArray();
  for (int32_t old_rank : e.mapping) w.Int(old_rank);
  w.EndArray();
  w.Key("candidates");
  w.BeginArray();
  for (const auto& [name, time_ns] : CartCandidates(e)) MappingCostJson(name, time_ns, w);
  w.EndArray();
}

void CartJson(const CartPlanReport& r, JsonWriter& w) {
  w.BeginObject();
  w.Key("cart");
  w.BeginObject();
  w.Key("dims");
  w.BeginArray();
  for (int d : r.dims) w.Int(d);
  w.EndArray();
  w.Key("periods");
  w.BeginArray();
  for (bool p : r.periods) w.Bool(p);
  w.EndArray();
  w.EndObject();
  w.Field("edge_bytes", kBytesPerEdgeUnit);
  GraphJobJson(r.job, w);
  LaunchJson(r.job.launch, w);
  w.EndObject();
}

// The lines of an embedded graph's plan after its first: the predicted cost (`unit` says
// what was summed), the new order or that there is none, the candidates, files written.
void EmbeddingText(const GraphPlanJob& job, std::string_view unit, std::string_view hostfile_note,
                   std::ostream& out) {
  const mapping::Embedding& e = job.embedding;
  out << "predicted cost (" << unit << "): before " << Fixed(e.identity_cost_ns / 1000, 1)
      << " us, after " << Fixed(e.cost_ns / 1000, 1) << " us ("
      << mapping::EmbedMethodName(e.method) << "), speedup " << Fixed(CartSpeedup(e), 2) << "x\n";
  if (e.method == mapping::EmbedMethod::kIdentity) {
    out << "no embedding is predicted to help: keep the current order\n";
  } else {
    NewOrderText(e.mapping, job.rank_hosts, out);
  }
  out << "candidates:";
  const char* separator = " ";
  for (const auto& [name, time_ns] : CartCandidates(e)) {
    out << separator << name << " " << Fixed(time_ns / 1000, 1) << " us";
    separator = ", ";
  }
  out << "\n";
  if (!job.rankfile_out.empty()) out << "rankfile written to " << job.rankfile_out << "\n";
  if (!job.hostfile_out.empty()) {
    out << "reordered hostfile written to " << job.hostfile_out << " (use: mpirun --hostfile "
        << job.hostfile_out << " --map-by seq ..." << hostfile_note << ")\n";
  }
  SlurmHostfileText(job.slurm_hostfile_out, job.rank_hosts.size(), out);
  if (!job.machinefile_out.empty()) {
    out << "MPICH machinefile written to " << job.machinefile_out << " (use: mpiexec -f "
        << job.machinefile_out << " -n " << job.rank_hosts.size() << " ...)\n";
  }
  LaunchText(job.launch, job.rank_hosts.size(), hostfile_note, out);
}

void CartText(const CartPlanReport& r, std::ostream& out) {
  out << "cart " << Grid(r.dims) << " (periods " << Grid(r.periods) << ") over "
      << r.job.rank_hosts.size() << " ranks on " << r.job.num_hosts << " hosts; costs from "
      << r.job.cost_source << "\n";
  EmbeddingText(r.job, absl::StrCat("one ", kBytesPerEdgeUnit, "-byte message per edge"),
                " and MPI_Cart_create with reorder = 0", out);
}

// The run's speedup when the time inside MPI, `share` of it, speeds up by `speedup` and the
// rest not at all (Amdahl): a bound, since part of that time is waiting no order shortens.
double RunTimeSpeedupBound(double share, double speedup) {
  return speedup > 0 ? 1 / ((1 - share) + share / speedup) : 1;
}

void TrafficJson(const TrafficPlanReport& r, JsonWriter& w) {
  w.BeginObject();
  w.Key("traffic");
  w.BeginObject();
  w.Field("profile", r.profile);
  w.Field("p2p_bytes", r.p2p_bytes);
  w.Field("rma_bytes", r.rma_bytes);
  w.Field("collective_bytes", r.collective_bytes);
  w.Field("unmodelled_calls", r.unmodelled_calls);
  w.Field("edges", r.edges);
  w.Field("saturated", r.saturated);
  if (r.mpi_share.has_value()) {
    w.Key("mpi_time_share");
    w.BeginObject();
    w.Field("mean", r.mpi_share->mean);
    w.Field("min", r.mpi_share->min);
    w.Field("max", r.mpi_share->max);
    w.Field("ranks", static_cast<int64_t>(r.mpi_share->ranks));
    w.EndObject();
  }
  w.EndObject();
  GraphJobJson(r.job, w);
  if (r.mpi_share.has_value()) {
    w.Field("run_time_speedup_bound",
            RunTimeSpeedupBound(r.mpi_share->mean, CartSpeedup(r.job.embedding)));
  }
  LaunchJson(r.job.launch, w);
  w.EndObject();
}

void TrafficText(const TrafficPlanReport& r, std::ostream& out) {
  out << "traffic of " << r.profile << " over " << r.job.rank_hosts.size() << " ranks on "
      << r.job.num_hosts << " hosts; costs from " << r.job.cost_source << "\n";
  out << "traffic: " << r.p2p_bytes << " bytes point to point, " << r.rma_bytes << " one-sided, "
      << r.collective_bytes << " in collectives (as the library's algorithms "
      << "move them), " << r.edges << " rank pairs";
  if (r.unmodelled_calls > 0) {
    out << "; " << r.unmodelled_calls << " collective calls on inter-communicators left out";
  }
  out << "\n";
  if (r.saturated) {
    out << "warning: byte counts beyond " << kMaxProfileBytes
        << " were counted as that many: the totals above and the plan's weights are lower "
           "bounds\n";
  }
  if (r.mpi_share.has_value()) {
    const MpiTimeShare& s = *r.mpi_share;
    out << "time inside MPI: " << Fixed(100 * s.mean, 0) << " % of the run (mean over " << s.ranks
        << " ranks, " << Fixed(100 * s.min, 0) << "-" << Fixed(100 * s.max, 0) << " %)\n";
  }
  EmbeddingText(r.job, "the profile's traffic sent at once, sharing links", "", out);
  if (r.mpi_share.has_value() && r.job.embedding.method != mapping::EmbedMethod::kIdentity) {
    out << "run time: at most "
        << Fixed(RunTimeSpeedupBound(r.mpi_share->mean, CartSpeedup(r.job.embedding)), 2)
        << "x faster (the time inside MPI sped up as predicted, the rest unchanged)\n";
  }
}

}  // namespace

Reply PlanReply(PlanReport report) { return ReplyOf(std::move(report), PlanJson, PlanText); }

Reply CartPlanReply(CartPlanReport report) {
  return ReplyOf(std::move(report), CartJson, CartText);
}

Reply TrafficPlanReply(TrafficPlanReport report) {
  return ReplyOf(std::move(report), TrafficJson, TrafficText);
}

}  // namespace toporr::client::ctl

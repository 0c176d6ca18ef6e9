#include "client/ctl/plan_output.h"

#include <iomanip>
#include <ostream>
#include <utility>

#include "client/decision_report.h"

namespace toporr::client::ctl {
namespace {

double Speedup(const PlanResult& plan) {
  return plan.after.time_ns > 0 ? plan.before.time_ns / plan.after.time_ns : 1;
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
  w.Key("before");
  CandidateJson(plan.before, w);
  w.Key("after");
  CandidateJson(plan.after, w);
  w.Key("new_order");
  w.BeginArray();
  for (int32_t old_rank : plan.mapping) w.Int(old_rank);
  w.EndArray();
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
  w.EndObject();
}

void PlanText(const PlanReport& r, std::ostream& out) {
  const PlanResult& plan = r.plan;
  out << r.collective << " of " << r.message_bytes << " bytes over " << r.rank_hosts.size()
      << " ranks on " << r.num_hosts << " hosts; costs from " << r.cost_source << "\n";
  out << "algorithm: " << plan.algorithm
      << (plan.library_call ? " (its rules run " + plan.after.effective + " at this size)"
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
      << load(plan.after) << ", speedup " << Fixed(Speedup(plan), 2) << "x\n";
  if (!plan.reordered) {
    out << "no reordering is predicted to help: keep the current order\n";
  } else {
    out << "new rank order (new rank: old rank@host):\n";
    for (size_t new_rank = 0; new_rank < plan.mapping.size(); ++new_rank) {
      const int32_t old_rank = plan.mapping[new_rank];
      out << "  " << new_rank << ": " << old_rank << "@" << r.rank_hosts[old_rank]
          << ((new_rank + 1) % 8 == 0 || new_rank + 1 == plan.mapping.size() ? "\n" : "");
    }
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
}

}  // namespace

Reply PlanReply(PlanReport report) { return ReplyOf(std::move(report), PlanJson, PlanText); }

}  // namespace toporr::client::ctl

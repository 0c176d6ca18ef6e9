#include "mapping/levels/multilevel.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"

namespace toporr::mapping {
namespace {

constexpr int32_t kWireMagic = 0x4D4C5631;  // "MLV1"

// The stages' levels and collectives in execution order for `c` over `num_levels` levels.
std::vector<std::pair<int, Collective>> StageOrder(Collective c, int num_levels) {
  std::vector<std::pair<int, Collective>> out;
  const int top = num_levels - 1;
  switch (c) {
    case Collective::kBcast:
      for (int k = top; k >= 0; --k) out.push_back({k, Collective::kBcast});
      break;
    case Collective::kReduce:
    case Collective::kGather:
      for (int k = 0; k <= top; ++k) out.push_back({k, c});
      break;
    case Collective::kAllreduce:
      for (int k = 0; k < top; ++k) out.push_back({k, Collective::kReduce});
      out.push_back({top, Collective::kAllreduce});
      for (int k = top - 1; k >= 0; --k) out.push_back({k, Collective::kBcast});
      break;
    default:
      break;
  }
  return out;
}

// A group's folded schedule in global ranks.
using Schedule = std::vector<Step>;

absl::StatusOr<Schedule> GroupSchedule(const PatternSpec& spec,
                                       const std::vector<int32_t>& members) {
  Schedule out;
  absl::Status s = ForEachStep(spec, [&](const Step& step) {
    Step g = step;
    for (Transfer& t : g.transfers) {
      t.src = members[t.src];
      t.dst = members[t.dst];
    }
    out.push_back(std::move(g));
  });
  if (!s.ok()) return s;
  return out;
}

// Linear gather: member i's blocks to the leader, one receive after the other.
Schedule LinearGather(const std::vector<int32_t>& members, const std::vector<int64_t>& blocks,
                      int64_t block_bytes) {
  Schedule out;
  for (size_t i = 1; i < members.size(); ++i) {
    Step step;
    Transfer t;
    t.src = members[i];
    t.dst = members[0];
    t.bytes = t.total_bytes = blocks[members[i]] * block_bytes;
    step.transfers.push_back(t);
    out.push_back(std::move(step));
  }
  return out;
}

// Step t of the result holds step t of every schedule; folded runs stay folded as long as
// every schedule still running is inside one.
Schedule Concurrent(const std::vector<Schedule>& schedules) {
  Schedule out;
  std::vector<size_t> next(schedules.size(), 0);
  std::vector<int64_t> left(schedules.size(), 0);
  for (size_t g = 0; g < schedules.size(); ++g) {
    if (!schedules[g].empty()) left[g] = schedules[g][0].repeat;
  }
  for (;;) {
    int64_t run = 0;
    for (size_t g = 0; g < schedules.size(); ++g) {
      if (next[g] < schedules[g].size()) run = run == 0 ? left[g] : std::min(run, left[g]);
    }
    if (run == 0) return out;
    Step merged;
    merged.repeat = run;
    for (size_t g = 0; g < schedules.size(); ++g) {
      if (next[g] >= schedules[g].size()) continue;
      const Step& s = schedules[g][next[g]];
      for (Transfer t : s.transfers) {
        // A folded step's total spreads evenly over its repetitions.
        t.total_bytes = s.repeat > 1 ? t.total_bytes / s.repeat * run : t.total_bytes;
        merged.transfers.push_back(t);
      }
      left[g] -= run;
      if (left[g] == 0 && ++next[g] < schedules[g].size()) left[g] = schedules[g][next[g]].repeat;
    }
    out.push_back(std::move(merged));
  }
}

Placement SubPlacement(const Placement& all, const std::vector<int32_t>& members) {
  Placement p;
  p.num_hosts = all.num_hosts;
  for (int32_t r : members) p.ranks.push_back(all.ranks[r]);
  return p;
}

}  // namespace

bool MultilevelSupports(Collective c) {
  return c == Collective::kBcast || c == Collective::kReduce || c == Collective::kAllreduce ||
         c == Collective::kGather;
}

RankLevels RankLevelsOf(const HostLevels& levels, const Placement& placement) {
  RankLevels out;
  out.num_ranks = placement.size();
  for (const HostLevel& l : levels.levels) {
    std::vector<int32_t> g(out.num_ranks);
    for (int r = 0; r < out.num_ranks; ++r) g[r] = l.group[placement.ranks[r].host];
    out.group.push_back(std::move(g));
  }
  return out;
}

std::vector<std::vector<int32_t>> StageMembers(const RankLevels& ranks, int level, int root) {
  // Leader of every group of `k`: the root where it belongs, else the lowest rank.
  auto leaders = [&](int k) {
    std::map<int32_t, int32_t> leader;
    for (int r = 0; r < ranks.num_ranks; ++r) leader.emplace(ranks.group[k][r], r);
    if (root >= 0 && root < ranks.num_ranks) leader[ranks.group[k][root]] = root;
    return leader;
  };
  const std::map<int32_t, int32_t> mine = leaders(level);
  std::map<int32_t, std::vector<int32_t>> members;
  for (const auto& [group, leader] : mine) members[group].push_back(leader);
  if (level == 0) {
    for (int r = 0; r < ranks.num_ranks; ++r) {
      if (r != mine.at(ranks.group[0][r])) members[ranks.group[0][r]].push_back(r);
    }
  } else {
    for (const auto& [below, leader] : leaders(level - 1)) {
      const int32_t group = ranks.group[level][leader];
      if (leader != mine.at(group)) members[group].push_back(leader);
    }
  }
  std::vector<std::vector<int32_t>> out;
  for (auto& [group, m] : members) {
    if (m.size() < 2) continue;
    std::sort(m.begin() + 1, m.end());
    out.push_back(std::move(m));
  }
  return out;
}

absl::StatusOr<MultilevelPlan> PlanMultilevel(const MultilevelRequest& request,
                                              const HostLevels& levels,
                                              const PredictInputs& inputs) {
  if (!MultilevelSupports(request.collective)) {
    return absl::InvalidArgumentError(
        absl::StrCat("no multi-level ", std::string(CollectiveName(request.collective))));
  }
  if (inputs.placement == nullptr || inputs.costs == nullptr)
    return absl::InvalidArgumentError("prediction needs a placement and a host cost matrix");
  const Placement& placement = *inputs.placement;
  const int p = placement.size();
  if (request.root < 0 || request.root >= p)
    return absl::InvalidArgumentError(absl::StrCat("root ", request.root, " is not a rank"));
  if (request.bytes < 1) return absl::InvalidArgumentError("multi-level bytes must be >= 1");
  if (levels.levels.empty()) return absl::InvalidArgumentError("no levels");
  for (const HostLevel& l : levels.levels) {
    for (const RankLocation& loc : placement.ranks) {
      if (loc.host < 0 || loc.host >= static_cast<int>(l.group.size()))
        return absl::InvalidArgumentError(
            absl::StrCat("host ", loc.host, " is outside the levels' ", l.group.size()));
    }
  }
  MultilevelPlan plan;
  plan.collective = request.collective;
  plan.root = request.collective == Collective::kAllreduce ? 0 : request.root;
  plan.ranks = RankLevelsOf(levels, placement);
  std::vector<int64_t> blocks(p, 1);  // gather: blocks each rank holds
  for (const auto& [level, collective] : StageOrder(request.collective, levels.num_levels())) {
    Stage stage;
    stage.level = level;
    stage.collective = collective;
    std::vector<Schedule> schedules;
    for (std::vector<int32_t>& members : StageMembers(plan.ranks, level, plan.root)) {
      StageGroup g;
      g.members = std::move(members);
      if (collective == Collective::kGather) {
        g.algorithm = Algorithm::kLinear;
        schedules.push_back(LinearGather(g.members, blocks, request.bytes));
        for (size_t i = 1; i < g.members.size(); ++i) blocks[g.members[0]] += blocks[g.members[i]];
      } else {
        std::vector<Algorithm> candidates = {Algorithm::kBinomial};
        if (collective == Collective::kBcast && !request.bcast_algorithms.empty()) {
          candidates = request.bcast_algorithms;
          DropOwnScatterAllgatherBelowBlock(request.bytes, static_cast<int>(g.members.size()),
                                            &candidates);
          if (candidates.empty()) candidates = {Algorithm::kBinomial};
        }
        if (collective == Collective::kAllreduce) {
          candidates = request.allreduce_algorithms;
          if (candidates.empty()) candidates = {Algorithm::kRecursiveDoubling};
        }
        const Placement sub = SubPlacement(placement, g.members);
        PredictInputs in = inputs;
        in.placement = &sub;
        PatternSpec best_spec;
        double best = -1;
        for (Algorithm a : candidates) {
          PatternSpec spec;
          spec.collective = collective;
          spec.algorithm = a;
          spec.num_ranks = static_cast<int>(g.members.size());
          spec.count = request.bytes;
          spec.radix = request.radix;
          absl::StatusOr<Prediction> pr = PredictCollective(spec, {}, in);
          if (!pr.ok()) return pr.status();
          if (best < 0 || pr->time_ns < best) {
            best = pr->time_ns;
            best_spec = spec;
            g.algorithm = a;
          }
        }
        absl::StatusOr<Schedule> s = GroupSchedule(best_spec, g.members);
        if (!s.ok()) return s.status();
        schedules.push_back(*std::move(s));
      }
      stage.groups.push_back(std::move(g));
    }
    if (stage.groups.empty()) continue;
    absl::StatusOr<Prediction> pr = PredictSteps(Concurrent(schedules), inputs);
    if (!pr.ok()) return pr.status();
    stage.predicted_ns = pr->time_ns;
    plan.predicted_ns += stage.predicted_ns;
    plan.stages.push_back(std::move(stage));
  }
  return plan;
}

std::vector<int32_t> EncodeMultilevel(const MultilevelPlan& plan) {
  std::vector<int32_t> w = {kWireMagic, static_cast<int32_t>(plan.collective), plan.root,
                            plan.ranks.num_ranks, plan.ranks.num_levels()};
  for (const std::vector<int32_t>& g : plan.ranks.group) w.insert(w.end(), g.begin(), g.end());
  w.push_back(static_cast<int32_t>(plan.stages.size()));
  for (const Stage& s : plan.stages) {
    w.push_back(s.level);
    w.push_back(static_cast<int32_t>(s.collective));
    w.push_back(static_cast<int32_t>(s.groups.size()));
    for (const StageGroup& g : s.groups) w.push_back(static_cast<int32_t>(g.algorithm));
  }
  return w;
}

absl::StatusOr<MultilevelPlan> DecodeMultilevel(const std::vector<int32_t>& w) {
  size_t at = 0;
  auto bad = [&](const char* what) {
    return absl::InvalidArgumentError(
        absl::StrCat("multi-level plan: ", what, " at value ", at, " of ", w.size()));
  };
  auto next = [&](int32_t* v) {
    if (at >= w.size()) return false;
    *v = w[at++];
    return true;
  };
  int32_t magic = 0, collective = 0, root = 0, p = 0, num_levels = 0, num_stages = 0;
  if (!next(&magic) || magic != kWireMagic) return bad("not a plan");
  if (!next(&collective) || !next(&root) || !next(&p) || !next(&num_levels))
    return bad("truncated");
  MultilevelPlan plan;
  plan.collective = static_cast<Collective>(collective);
  if (!MultilevelSupports(plan.collective)) return bad("unsupported collective");
  if (p < 1 || root < 0 || root >= p || num_levels < 1) return bad("sizes out of range");
  if (w.size() - at < static_cast<size_t>(p) * num_levels) return bad("truncated levels");
  plan.root = root;
  plan.ranks.num_ranks = p;
  for (int k = 0; k < num_levels; ++k) {
    plan.ranks.group.emplace_back(w.begin() + at, w.begin() + at + p);
    at += p;
    for (int32_t g : plan.ranks.group.back()) {
      if (g < 0 || g >= p) return bad("group id out of range");
    }
  }
  if (!next(&num_stages) || num_stages < 0 || num_stages > 3 * num_levels)
    return bad("stage count");
  for (int i = 0; i < num_stages; ++i) {
    Stage s;
    int32_t level = 0, c = 0, groups = 0;
    if (!next(&level) || !next(&c) || !next(&groups)) return bad("truncated stage");
    if (level < 0 || level >= num_levels) return bad("stage level out of range");
    s.level = level;
    s.collective = static_cast<Collective>(c);
    if (!MultilevelSupports(s.collective)) return bad("stage collective");
    std::vector<std::vector<int32_t>> members = StageMembers(plan.ranks, level, root);
    if (groups != static_cast<int32_t>(members.size())) return bad("stage groups");
    for (std::vector<int32_t>& m : members) {
      int32_t a = 0;
      if (!next(&a) || AlgorithmName(static_cast<Algorithm>(a)) == "unknown")
        return bad("group algorithm");
      s.groups.push_back({std::move(m), static_cast<Algorithm>(a)});
    }
    plan.stages.push_back(std::move(s));
  }
  if (at != w.size()) return bad("trailing values");
  return plan;
}

}  // namespace toporr::mapping

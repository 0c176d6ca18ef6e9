#include "client/plan.h"

#include <algorithm>
#include <memory>
#include <unordered_map>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "common/text_scan.h"
#include "mapping/distance.h"
#include "mapping/host_link_routes.h"
#include "mapping/levels.h"
#include "mapping/multilevel.h"
#include "mapping/predict.h"
#include "mapping/reorder.h"
#include "mapping/select.h"

namespace toporr::client {
namespace {

// Calls fn(line_no, trimmed line without comment) for each non-empty line.
template <typename Fn>
absl::Status ForEachLine(std::string_view text, Fn fn) {
  LineScanner lines(text);
  for (std::string_view line; lines.Next(&line);) {
    if (size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    line = Trim(line);
    if (!line.empty()) RETURN_IF_ERROR(fn(lines.number(), line));
  }
  return absl::OkStatus();
}

bool ParseInt(std::string_view s, int64_t* out) {
  return absl::SimpleAtoi(absl::string_view(s.data(), s.size()), out);
}

bool ParsePositive(std::string_view s, int* out) {
  int64_t v = 0;
  if (!ParseInt(s, &v) || v <= 0 || v > (1 << 30)) return false;
  *out = static_cast<int>(v);
  return true;
}

std::string ShortName(std::string_view host) { return std::string(host.substr(0, host.find('.'))); }

}  // namespace

mapping::RankLocation SlotLocation(int host, int local, const NodeShape& shape) {
  mapping::RankLocation loc;
  if (!shape.core_slots.empty()) {
    loc = shape.core_slots[local % shape.core_slots.size()];
    loc.host = host;
    return loc;
  }
  loc.host = host;
  loc.core = local;
  loc.l3 = local / std::max(1, shape.cores_per_l3);
  loc.numa = loc.l3 / std::max(1, shape.l3_per_numa);
  loc.package = loc.numa / std::max(1, shape.numa_per_package);
  return loc;
}

namespace {

PlanCandidate ToCandidate(const mapping::Candidate& c) {
  PlanCandidate out;
  out.algorithm = std::string(mapping::AlgorithmName(c.algorithm));
  out.effective = std::string(mapping::AlgorithmName(c.effective));
  out.mapping = c.mapping_name;
  out.time_ns = c.prediction.time_ns;
  out.max_link_load = c.prediction.max_link_load;
  out.hop_bytes = c.prediction.hop_bytes;
  return out;
}

// The MPI library's own call on the launch order: its rules' phases predicted one after the
// other (identity mapping).
absl::StatusOr<PlanCandidate> LibraryCandidate(mapping::LibraryRules rules,
                                               const mapping::SelectionRequest& sel,
                                               const mapping::PredictInputs& inputs) {
  ASSIGN_OR_RETURN(mapping::LibraryChoice choice,
                   mapping::LibraryDefault(rules, sel.collective, sel.num_ranks, sel.count,
                                           sel.type_size, sel.root));
  PlanCandidate c;
  c.algorithm = kLibraryCandidate;
  c.effective = choice.name;
  c.mapping = "identity";
  for (const mapping::PatternSpec& phase : choice.phases) {
    ASSIGN_OR_RETURN(mapping::Prediction p, mapping::PredictCollective(phase, {}, inputs));
    c.time_ns += p.time_ns;
    c.max_link_load = std::max(c.max_link_load, p.max_link_load);
    c.hop_bytes += p.hop_bytes;
  }
  return c;
}

// How much faster than the MPI library's own call toporr's choice must be predicted.
double LibraryMargin(int64_t message_bytes) {
  return message_bytes < kLibraryMarginBelowBytes ? kLibraryMargin : kLibraryMarginLarge;
}

// The multi-level candidate (PlanRequest::multilevel) added to `result`, chosen when forced
// or predicted faster than the flat choice (by kMultilevelMargin below
// kMultilevelMarginBelowBytes).
absl::Status AddMultilevel(const PlanRequest& request, const mapping::PredictInputs& inputs,
                           PlanResult* result) {
  const bool forced = request.multilevel == MultilevelChoice::kForce;
  if (!mapping::MultilevelSupports(request.collective)) {
    if (!forced) return absl::OkStatus();
    return absl::InvalidArgumentError(
        absl::StrCat("no multi-level ", std::string(mapping::CollectiveName(request.collective))));
  }
  ASSIGN_OR_RETURN(mapping::HostLevels levels, mapping::DetectLevels(*inputs.costs));
  mapping::MultilevelRequest ml;
  ml.collective = request.collective;
  ml.root = request.root;
  ml.bytes = request.message_bytes;
  ml.radix = request.radix;
  ml.bcast_algorithms = request.multilevel_bcast;
  ml.allreduce_algorithms = request.multilevel_allreduce;
  ASSIGN_OR_RETURN(mapping::MultilevelPlan plan, mapping::PlanMultilevel(ml, levels, inputs));
  PlanCandidate c;
  c.algorithm = c.effective = "multilevel";
  c.mapping = "levels";
  c.time_ns = plan.predicted_ns;
  result->candidates.push_back(c);
  result->levels = levels.names();
  for (const mapping::Stage& stage : plan.stages) {
    PlanStage s;
    s.level = mapping::LevelName(stage.level, levels.num_levels());
    s.collective = std::string(mapping::CollectiveName(stage.collective));
    std::vector<std::string> names;
    for (const mapping::StageGroup& g : stage.groups) {
      std::string name(mapping::AlgorithmName(g.algorithm));
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
      s.max_members = std::max(s.max_members, static_cast<int32_t>(g.members.size()));
    }
    s.algorithm = absl::StrJoin(names, "+");
    s.groups = static_cast<int32_t>(stage.groups.size());
    s.time_ns = stage.predicted_ns;
    result->stages.push_back(std::move(s));
  }
  const double margin =
      request.message_bytes < kMultilevelMarginBelowBytes ? kMultilevelMargin : 1.0;
  // Against the library's own call the multi-level version must also clear its margin.
  const double to_beat = result->library_call
                             ? result->after.time_ns / LibraryMargin(request.message_bytes)
                             : result->after.time_ns;
  if (forced || c.time_ns * margin < to_beat) {
    result->algorithm = c.algorithm;
    result->library_call = false;
    result->after = c;
    result->reordered = false;
    result->mapping = mapping::IdentityMapping(inputs.placement->size());
    result->multilevel = mapping::EncodeMultilevel(plan);
  }
  return absl::OkStatus();
}

}  // namespace

int JobHosts::total_slots() const {
  int n = 0;
  for (int s : slots) n += s;
  return n;
}

absl::StatusOr<JobHosts> ParseHostfile(std::string_view text, std::string_view file_name) {
  JobHosts hosts;
  std::unordered_map<std::string, int> index;
  RETURN_IF_ERROR(ForEachLine(text, [&](int line_no, std::string_view line) -> absl::Status {
    auto where = [&] { return absl::StrCat(std::string(file_name), ":", line_no, ": "); };
    size_t sp = line.find_first_of(" \t");
    std::string_view name = line.substr(0, sp);
    std::string_view rest = sp == std::string_view::npos ? "" : Trim(line.substr(sp));
    int slots = 1;
    bool explicit_slots = false;
    if (size_t colon = name.find(':'); colon != std::string_view::npos) {
      if (!ParsePositive(name.substr(colon + 1), &slots)) {
        return absl::InvalidArgumentError(
            absl::StrCat(where(), "bad slot count in `", std::string(name), "`"));
      }
      name = name.substr(0, colon);
      explicit_slots = true;
    }
    while (!rest.empty()) {
      size_t end = rest.find_first_of(" \t");
      std::string_view word = rest.substr(0, end);
      rest = end == std::string_view::npos ? "" : Trim(rest.substr(end));
      if (word.rfind("slots=", 0) == 0) {
        if (!ParsePositive(word.substr(6), &slots)) {
          return absl::InvalidArgumentError(
              absl::StrCat(where(), "bad `", std::string(word), "` (need slots=N, N > 0)"));
        }
        explicit_slots = true;
      } else if (word.rfind("max_slots=", 0) == 0 || word.rfind("max-slots=", 0) == 0) {
        continue;  // an upper bound for oversubscription; the plan uses `slots`
      } else {
        return absl::InvalidArgumentError(absl::StrCat(where(), "unexpected `", std::string(word),
                                                       "` (expected slots=N or max_slots=N)"));
      }
    }
    if (name.empty()) return absl::InvalidArgumentError(where() + "missing host name");
    std::string host = ShortName(name);
    auto [it, inserted] = index.emplace(host, static_cast<int>(hosts.names.size()));
    if (inserted) {
      hosts.names.push_back(host);
      hosts.slots.push_back(slots);
    } else if (explicit_slots) {
      hosts.slots[it->second] += slots;
    } else {
      hosts.slots[it->second] += 1;
    }
    return absl::OkStatus();
  }));
  if (hosts.names.empty()) {
    return absl::InvalidArgumentError(std::string(file_name) + ": no hosts");
  }
  return hosts;
}

absl::StatusOr<mapping::Placement> InitialPlacement(const JobHosts& hosts, MapBy map_by,
                                                    int num_ranks, const NodeShape& shape) {
  const int total = hosts.total_slots();
  if (num_ranks <= 0) num_ranks = total;
  if (num_ranks > total) {
    return absl::InvalidArgumentError(
        absl::StrCat(num_ranks, " ranks requested but the hostfile has ", total, " slots"));
  }
  mapping::Placement p;
  p.num_hosts = static_cast<int32_t>(hosts.names.size());
  std::vector<int> used(hosts.names.size(), 0);
  if (map_by == MapBy::kCore) {
    for (size_t h = 0; h < hosts.names.size() && p.size() < num_ranks; ++h)
      for (int s = 0; s < hosts.slots[h] && p.size() < num_ranks; ++s)
        p.ranks.push_back(SlotLocation(static_cast<int>(h), used[h]++, shape));
  } else {
    while (p.size() < num_ranks) {
      for (size_t h = 0; h < hosts.names.size() && p.size() < num_ranks; ++h)
        if (used[h] < hosts.slots[h])
          p.ranks.push_back(SlotLocation(static_cast<int>(h), used[h]++, shape));
    }
  }
  return p;
}

absl::StatusOr<std::vector<std::string>> ParseRankHosts(std::string_view text,
                                                        std::string_view file_name) {
  std::vector<std::string> ranks;
  RETURN_IF_ERROR(ForEachLine(text, [&](int, std::string_view line) -> absl::Status {
    ranks.push_back(ShortName(line));
    return absl::OkStatus();
  }));
  if (ranks.empty()) return absl::InvalidArgumentError(std::string(file_name) + ": no ranks");
  return ranks;
}

absl::StatusOr<mapping::Placement> ExplicitPlacement(const JobHosts& hosts, std::string_view text,
                                                     std::string_view file_name,
                                                     const NodeShape& shape) {
  std::unordered_map<std::string, int> index;
  for (size_t h = 0; h < hosts.names.size(); ++h) index[hosts.names[h]] = static_cast<int>(h);
  mapping::Placement p;
  p.num_hosts = static_cast<int32_t>(hosts.names.size());
  std::vector<int> used(hosts.names.size(), 0);
  RETURN_IF_ERROR(ForEachLine(text, [&](int line_no, std::string_view line) -> absl::Status {
    auto it = index.find(ShortName(line));
    if (it == index.end()) {
      return absl::InvalidArgumentError(absl::StrCat(std::string(file_name), ":", line_no,
                                                     ": host `", std::string(line),
                                                     "` is not in the hostfile"));
    }
    p.ranks.push_back(SlotLocation(it->second, used[it->second]++, shape));
    return absl::OkStatus();
  }));
  if (p.ranks.empty()) return absl::InvalidArgumentError(std::string(file_name) + ": no ranks");
  return p;
}

absl::StatusOr<PlanResult> Plan(const PlanRequest& request, const mapping::Placement& placement,
                                const mapping::HostCostMatrix& costs,
                                const mapping::RouteSource* routes,
                                const mapping::IntraHostModel& intra) {
  if (request.message_bytes <= 0) {
    return absl::InvalidArgumentError("message size must be > 0 bytes");
  }
  if (request.root < 0 || request.root >= placement.size()) {
    return absl::InvalidArgumentError(absl::StrCat("root ", request.root, " is not a rank of the ",
                                                   placement.size(), "-rank job"));
  }
  // Without the fabric's routes, at least the hosts' own links are shared (ranks of one host
  // sending out at once), which the cost matrix alone cannot express.
  std::unique_ptr<mapping::RouteSource> host_links;
  if (routes == nullptr) {
    host_links = mapping::HostLinkRoutes(costs);
    routes = host_links.get();
  }
  ASSIGN_OR_RETURN(mapping::RankDistance distance,
                   mapping::RankDistance::Create(placement, costs, intra));
  mapping::SelectionRequest sel;
  sel.collective = request.collective;
  sel.num_ranks = placement.size();
  sel.root = request.root;
  sel.count = request.message_bytes;
  sel.type_size = 1;
  sel.radix = request.radix;
  sel.segment_bytes = request.segment_bytes;
  if (request.algorithm.has_value()) {
    sel.algorithms = {*request.algorithm};
  } else {
    sel.algorithms = request.candidates;  // empty: every algorithm of the collective
  }

  mapping::ReorderOptions ropts;
  ropts.root = request.root;
  ropts.knomial_radix = request.radix;
  const mapping::RankDistance* d = &distance;
  std::vector<mapping::NamedReorder> reorders = {
      {"topology-aware", [d, routes, ropts](const mapping::PatternSpec& spec) {
         auto decision = mapping::ReorderOrIdentity(spec, *d, routes, ropts);
         if (!decision.ok() || !decision->reordered) return std::vector<int>();
         return std::vector<int>(decision->mapping.begin(), decision->mapping.end());
       }}};
  mapping::PredictInputs inputs;
  inputs.placement = &placement;
  inputs.costs = &costs;
  inputs.routes = routes;
  inputs.intra = intra;
  ASSIGN_OR_RETURN(mapping::Selection selection,
                   mapping::SelectAlgorithmAndMapping(sel, reorders, inputs));

  PlanResult result;
  std::optional<PlanCandidate> library;
  if (request.library_rules.has_value() && !request.algorithm.has_value()) {
    ASSIGN_OR_RETURN(library, LibraryCandidate(*request.library_rules, sel, inputs));
    result.candidates.push_back(*library);
  }
  const mapping::Candidate& best = selection.Best();
  for (const auto& c : selection.candidates) {
    result.candidates.push_back(ToCandidate(c));
    if (c.algorithm == best.algorithm && c.mapping_name == "identity") {
      result.before = result.candidates.back();
    }
  }
  if (library.has_value() &&
      library->time_ns <= best.prediction.time_ns * LibraryMargin(request.message_bytes)) {
    // The library's own call, weighed first, wins ties and predicted gains within its
    // margin: toporr keeps the order and runs it.
    result.algorithm = kLibraryCandidate;
    result.library_call = true;
    result.before = result.after = *library;
    result.mapping = mapping::IdentityMapping(placement.size());
  } else {
    result.algorithm = std::string(mapping::AlgorithmName(best.algorithm));
    result.after = ToCandidate(best);
    result.reordered = !selection.best_mapping.empty();
    if (result.reordered) {
      result.mapping.assign(selection.best_mapping.begin(), selection.best_mapping.end());
    } else {
      result.mapping = mapping::IdentityMapping(placement.size());
    }
  }
  if (request.multilevel != MultilevelChoice::kOff) {
    RETURN_IF_ERROR(AddMultilevel(request, inputs, &result));
  }
  return result;
}

std::string Rankfile(const PlanResult& plan, const mapping::Placement& placement,
                     const JobHosts& hosts) {
  return Rankfile(plan.mapping, plan.algorithm, placement, hosts);
}

std::string Rankfile(const std::vector<int32_t>& order, std::string_view what,
                     const mapping::Placement& placement, const JobHosts& hosts) {
  std::string out = absl::StrCat("# toporr plan: ", std::string(what), ", new rank -> slot\n");
  for (size_t r = 0; r < order.size(); ++r) {
    const mapping::RankLocation& loc = placement.ranks[order[r]];
    absl::StrAppend(&out, "rank ", r, "=", hosts.names[loc.host], " slot=", loc.core, "\n");
  }
  return out;
}

std::string ReorderedHostfile(const PlanResult& plan, const mapping::Placement& placement,
                              const JobHosts& hosts) {
  return ReorderedHostfile(plan.mapping, placement, hosts);
}

std::string ReorderedHostfile(const std::vector<int32_t>& order,
                              const mapping::Placement& placement, const JobHosts& hosts) {
  std::string out;
  for (int32_t slot : order) {
    absl::StrAppend(&out, hosts.names[placement.ranks[slot].host], "\n");
  }
  return out;
}

std::string SlurmHostfile(const std::vector<int32_t>& order, std::string_view what,
                          const mapping::Placement& placement, const JobHosts& hosts) {
  return absl::StrCat("# toporr plan: ", std::string(what), ", host of each new rank (srun -n ",
                      order.size(), " --distribution=arbitrary, SLURM_HOSTFILE)\n",
                      ReorderedHostfile(order, placement, hosts));
}

absl::StatusOr<int64_t> ParseBytes(std::string_view text) {
  int64_t mult = 1;
  std::string_view digits = text;
  if (!digits.empty()) {
    switch (digits.back()) {
      case 'k':
      case 'K':
        mult = int64_t{1} << 10;
        break;
      case 'm':
      case 'M':
        mult = int64_t{1} << 20;
        break;
      case 'g':
      case 'G':
        mult = int64_t{1} << 30;
        break;
      default:
        break;
    }
    if (mult != 1) digits.remove_suffix(1);
  }
  int64_t v = 0;
  if (!ParseInt(digits, &v) || v <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad size `", std::string(text), "` (bytes, or with K/M/G suffix)"));
  }
  return v * mult;
}

}  // namespace toporr::client

#include "client/plan/plan.h"

#include <algorithm>
#include <memory>
#include <optional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "mapping/costs/distance.h"
#include "mapping/levels/levels.h"
#include "mapping/levels/multilevel.h"
#include "mapping/prediction/host_link_routes.h"
#include "mapping/prediction/predict.h"
#include "mapping/prediction/select.h"
#include "mapping/reorder/reorder.h"

namespace toporr::client {

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

// The MPI library's own call on the launch order in `mapping` (empty: the launch order
// itself): its rules' phases predicted one after the other.
absl::StatusOr<PlanCandidate> LibraryCandidate(mapping::LibraryRules rules,
                                               const mapping::SelectionRequest& sel,
                                               const mapping::PredictInputs& inputs,
                                               const std::vector<int>& mapping = {}) {
  ASSIGN_OR_RETURN(mapping::LibraryChoice choice,
                   mapping::LibraryDefault(rules, sel.collective, sel.num_ranks, sel.count,
                                           sel.type_size, sel.root));
  PlanCandidate c;
  c.algorithm = kLibraryCandidate;
  c.effective = choice.name;
  c.mapping = "identity";
  for (const mapping::PatternSpec& phase : choice.phases) {
    ASSIGN_OR_RETURN(mapping::Prediction p, mapping::PredictCollective(phase, mapping, inputs));
    c.time_ns += p.time_ns;
    c.max_link_load = std::max(c.max_link_load, p.max_link_load);
    c.hop_bytes += p.hop_bytes;
  }
  return c;
}

// Whether `collective`'s result is the same on any order of the ranks (for the commutative
// operations toporr takes over): the MPI library's call may then run on a reordered
// communicator. Allgather and gather place blocks by rank.
bool ResultIndependentOfOrder(mapping::Collective collective) {
  return collective == mapping::Collective::kAllreduce ||
         collective == mapping::Collective::kBcast || collective == mapping::Collective::kReduce;
}

// How much faster than the MPI library's own call toporr's choice must be predicted.
double LibraryMargin(int64_t message_bytes) {
  return message_bytes < kLibraryMarginBelowBytes ? kLibraryMargin : kLibraryMarginLarge;
}

// The job's fabric levels, detected on the first call and kept in *cache for the next (the
// multi-level candidate and the leaf-sorted baseline read the same ones).
absl::StatusOr<const mapping::HostLevels*> LevelsOf(const mapping::HostCostMatrix& costs,
                                                    std::optional<mapping::HostLevels>* cache) {
  if (!cache->has_value()) {
    ASSIGN_OR_RETURN(mapping::HostLevels levels, mapping::DetectLevels(costs));
    *cache = std::move(levels);
  }
  return &**cache;
}

// LeafSortedMapping on leaf groups `leaf` (per host) already found.
std::vector<int32_t> LeafSortedOver(const mapping::Placement& placement,
                                    const std::vector<int32_t>& leaf) {
  // Leaves, then hosts, in the order of their first rank; each host's ranks in launch order.
  std::vector<int32_t> leaf_order;
  std::vector<std::vector<int32_t>> hosts_of_leaf(leaf.size()), ranks_of(leaf.size());
  for (int32_t r = 0; r < placement.size(); ++r) {
    const int h = placement.ranks[r].host;
    if (ranks_of[h].empty()) {
      if (hosts_of_leaf[leaf[h]].empty()) leaf_order.push_back(leaf[h]);
      hosts_of_leaf[leaf[h]].push_back(h);
    }
    ranks_of[h].push_back(r);
  }
  std::vector<int32_t> out;
  out.reserve(placement.size());
  for (int32_t l : leaf_order) {
    for (int32_t h : hosts_of_leaf[l]) {
      out.insert(out.end(), ranks_of[h].begin(), ranks_of[h].end());
    }
  }
  return out;
}

// LeafSortedMapping, its levels from *levels_cache (detected there if not yet).
absl::StatusOr<std::vector<int32_t>> LeafSorted(const mapping::Placement& placement,
                                                const mapping::HostCostMatrix& costs,
                                                std::optional<mapping::HostLevels>* levels_cache) {
  const int num_hosts = costs.num_hosts();
  for (const mapping::RankLocation& r : placement.ranks) {
    if (r.host < 0 || r.host >= num_hosts) {
      return absl::InvalidArgumentError(
          absl::StrCat("host ", r.host, " is outside the ", num_hosts, "-host cost matrix"));
    }
  }
  if (num_hosts <= 1) return LeafSortedOver(placement, std::vector<int32_t>(num_hosts, 0));
  ASSIGN_OR_RETURN(const mapping::HostLevels* levels, LevelsOf(costs, levels_cache));
  // The "leaf" level: the closest above "host" (one group when there is none).
  return LeafSortedOver(placement, levels->levels[std::min(1, levels->num_levels() - 1)].group);
}

// The multi-level candidate (PlanRequest::multilevel) added to `result`, chosen when forced
// or predicted faster than the flat choice (by kMultilevelMargin below
// kMultilevelMarginBelowBytes).
absl::Status AddMultilevel(const PlanRequest& request, const mapping::PredictInputs& inputs,
                           std::optional<mapping::HostLevels>* levels_cache, PlanResult* result) {
  const bool forced = request.multilevel == MultilevelChoice::kForce;
  if (!mapping::MultilevelSupports(request.collective)) {
    if (!forced) return absl::OkStatus();
    return absl::InvalidArgumentError(
        absl::StrCat("no multi-level ", std::string(mapping::CollectiveName(request.collective))));
  }
  ASSIGN_OR_RETURN(const mapping::HostLevels* found, LevelsOf(*inputs.costs, levels_cache));
  const mapping::HostLevels& levels = *found;
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
  std::optional<mapping::HostLevels> levels;
  std::optional<PlanCandidate> library;
  // The library's call on the leaf-sorted order, when weighed and that order is another.
  std::optional<PlanCandidate> library_sorted;
  std::vector<int32_t> sorted;
  if (request.library_rules.has_value() && !request.algorithm.has_value()) {
    ASSIGN_OR_RETURN(library, LibraryCandidate(*request.library_rules, sel, inputs));
    result.candidates.push_back(*library);
    if (ResultIndependentOfOrder(request.collective) && costs.num_hosts() <= kLeafSortedMaxHosts) {
      ASSIGN_OR_RETURN(sorted, LeafSorted(placement, costs, &levels));
      if (sorted != mapping::IdentityMapping(placement.size())) {
        ASSIGN_OR_RETURN(library_sorted,
                         LibraryCandidate(*request.library_rules, sel, inputs,
                                          std::vector<int>(sorted.begin(), sorted.end())));
        library_sorted->mapping = "leaf-sorted";
        result.candidates.push_back(*library_sorted);
      }
    }
  }
  const mapping::Candidate& best = selection.Best();
  for (const auto& c : selection.candidates) {
    result.candidates.push_back(ToCandidate(c));
    if (c.algorithm == best.algorithm && c.mapping_name == "identity") {
      result.before = result.candidates.back();
    }
  }
  // The library's call on the leaf-sorted order replaces it on the launch order when
  // predicted strictly faster: the same implementation on two orders, which the model
  // compares far better than two implementations.
  const bool sorted_library =
      library_sorted.has_value() && library_sorted->time_ns < library->time_ns;
  const PlanCandidate* library_best = sorted_library        ? &*library_sorted
                                      : library.has_value() ? &*library
                                                            : nullptr;
  if (sorted_library) result.library_mapping = sorted;
  if (library_best != nullptr &&
      library_best->time_ns <= best.prediction.time_ns * LibraryMargin(request.message_bytes)) {
    // The library's own call, weighed first, wins ties and predicted gains within its
    // margin: toporr runs it, on the leaf-sorted order where that is predicted faster.
    result.algorithm = kLibraryCandidate;
    result.library_call = true;
    result.before = *library;
    result.after = *library_best;
    result.reordered = sorted_library;
    result.mapping = sorted_library ? sorted : mapping::IdentityMapping(placement.size());
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
    RETURN_IF_ERROR(AddMultilevel(request, inputs, &levels, &result));
  }
  if (!request.leaf_sorted) return result;
  if (sorted.empty()) {
    ASSIGN_OR_RETURN(sorted, LeafSorted(placement, costs, &levels));
  }
  result.leaf_sorted_mapping = sorted;
  const std::vector<int> leaf_sorted(sorted.begin(), sorted.end());
  if (library_sorted.has_value()) {
    result.leaf_sorted = *library_sorted;
  } else if (library.has_value()) {
    ASSIGN_OR_RETURN(result.leaf_sorted,
                     LibraryCandidate(*request.library_rules, sel, inputs, leaf_sorted));
  } else {
    ASSIGN_OR_RETURN(
        mapping::Prediction p,
        mapping::PredictCollective(mapping::SpecFor(sel, best.algorithm), leaf_sorted, inputs));
    result.leaf_sorted = ToCandidate(best);
    result.leaf_sorted.time_ns = p.time_ns;
    result.leaf_sorted.max_link_load = p.max_link_load;
    result.leaf_sorted.hop_bytes = p.hop_bytes;
  }
  result.leaf_sorted.mapping = "leaf-sorted";
  return result;
}

absl::StatusOr<std::vector<int32_t>> LeafSortedMapping(const mapping::Placement& placement,
                                                       const mapping::HostCostMatrix& costs) {
  std::optional<mapping::HostLevels> levels;
  return LeafSorted(placement, costs, &levels);
}

mapping::Placement Reordered(const mapping::Placement& placement,
                             const std::vector<int32_t>& mapping) {
  mapping::Placement out = placement;
  for (size_t i = 0; i < mapping.size(); ++i) out.ranks[i] = placement.ranks[mapping[i]];
  return out;
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
  if (!absl::SimpleAtoi(absl::string_view(digits.data(), digits.size()), &v) || v <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad size `", std::string(text), "` (bytes, or with K/M/G suffix)"));
  }
  return v * mult;
}

}  // namespace toporr::client

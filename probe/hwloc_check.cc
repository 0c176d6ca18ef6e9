#include "probe/hwloc_check.h"

#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "mapping/levels/measured_levels.h"
#include "probe/analysis.h"

namespace toporr::probe {

using collectors::PlogpHwlocCheck;
using collectors::PlogpHwlocComparison;
using collectors::PlogpProbe;

namespace {

struct HwlocLevel {
  const char* name;   // as in probe.json
  const char* words;  // as in a sentence
  int32_t collectors::PlogpHwloc::*id;
};

constexpr HwlocLevel kLevels[] = {
    {"package", "packages", &collectors::PlogpHwloc::package},
    {"l3", "L3 caches", &collectors::PlogpHwloc::l3},
};

std::string Ari(double ari) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f", ari);
  return buf;
}

PlogpHwlocCheck Verdict(std::string verdict, std::string detail,
                        std::vector<PlogpHwlocComparison> comparisons = {}) {
  if (detail.size() > collectors::kMaxPlogpDetailBytes) {
    detail.resize(collectors::kMaxPlogpDetailBytes);
  }
  return {std::move(verdict), std::move(detail), std::move(comparisons)};
}

}  // namespace

PlogpHwlocCheck CheckAgainstHwloc(const PlogpProbe& p) {
  const size_t n = p.ranks.size();
  for (size_t r = 0; r < n; ++r) {
    if (!p.ranks[r].hwloc.has_value()) {
      return Verdict("unknown", absl::StrCat("rank ", r, " has no hwloc location"));
    }
  }
  const int host_k = HostRankLevel(p);
  if (host_k < 0) {
    return Verdict("unknown",
                   "no measured rank level is the host partition, so none lies inside hosts");
  }
  // Candidates: level 1 .. host (level 0 alone when every rank is alone on its host).
  const int first = host_k == 0 ? 0 : 1;
  std::vector<PlogpHwlocComparison> comparisons;
  std::vector<std::vector<int32_t>> known;  // the known hwloc partitions
  std::vector<const HwlocLevel*> splitting;
  std::vector<std::string> unknown;
  for (const HwlocLevel& level : kLevels) {
    std::map<std::pair<int, int32_t>, int32_t> ids;  // (host, hwloc id) -> group
    std::vector<int32_t> group(n);
    bool all_known = true;
    for (size_t r = 0; r < n && all_known; ++r) {
      const int32_t id = (*p.ranks[r].hwloc).*level.id;
      all_known = id >= 0;
      auto key = std::make_pair(p.HostOf(static_cast<int>(r)), id);
      group[r] = ids.emplace(key, static_cast<int32_t>(ids.size())).first->second;
    }
    if (!all_known) {
      unknown.push_back(level.words);
      continue;
    }
    PlogpHwlocComparison c{level.name, static_cast<int32_t>(ids.size()), "", -2};
    for (int k = first; k <= host_k; ++k) {
      absl::StatusOr<double> ari = mapping::AdjustedRandIndex(p.rank_levels[k].group, group);
      if (ari.ok() && *ari > c.ari) {
        c.ari = *ari;
        c.measured = p.rank_levels[k].name;
      }
    }
    if (ids.size() > p.hosts.size()) splitting.push_back(&level);
    known.push_back(std::move(group));
    comparisons.push_back(std::move(c));
  }
  if (known.empty()) {
    return Verdict("unknown", absl::StrCat("hwloc ", absl::StrJoin(unknown, " and "),
                                           " not known for every rank (unbound ranks span them)"));
  }
  const std::string not_known =
      unknown.empty() ? "" : absl::StrCat(" (", absl::StrJoin(unknown, " and "), " not known)");
  if (splitting.empty()) {
    if (host_k <= 1) {
      return Verdict(
          "nothing_to_detect",
          absl::StrCat("hwloc shows one package and one L3 per host for these ranks", not_known,
                       ": nothing to detect between core and host, and none measured"),
          std::move(comparisons));
    }
    return Verdict("mismatch",
                   absl::StrCat("measured level ", p.rank_levels[1].name,
                                " between rank and host, but hwloc shows one package and one L3 "
                                "per host for these ranks",
                                not_known),
                   std::move(comparisons));
  }
  // Every splitting hwloc level must be a measured level inside hosts ...
  for (const HwlocLevel* level : splitting) {
    for (const PlogpHwlocComparison& c : comparisons) {
      if (c.hwloc != level->name) continue;
      if (c.ari < 1.0 || c.measured == "host") {
        return Verdict("mismatch",
                       absl::StrCat("hwloc ", level->words, " (", c.groups,
                                    " groups) not measured (closest: ", c.measured, ", ARI ",
                                    Ari(c.ari), ")", not_known),
                       std::move(comparisons));
      }
    }
  }
  // ... and every measured level inside hosts a known hwloc level.
  for (int k = 1; k < host_k; ++k) {
    double best = -2;
    for (const std::vector<int32_t>& group : known) {
      absl::StatusOr<double> ari = mapping::AdjustedRandIndex(p.rank_levels[k].group, group);
      if (ari.ok() && *ari > best) best = *ari;
    }
    if (best < 1.0) {
      return Verdict("mismatch",
                     absl::StrCat("measured level ", p.rank_levels[k].name,
                                  " is neither hwloc's packages nor its L3 caches (best ARI ",
                                  Ari(best), ")", not_known),
                     std::move(comparisons));
    }
  }
  std::vector<std::string> matched;
  for (const PlogpHwlocComparison& c : comparisons) {
    matched.push_back(absl::StrCat(c.measured, " = hwloc ", c.hwloc, " (", c.groups, " groups)"));
  }
  return Verdict("match", absl::StrCat(absl::StrJoin(matched, ", "), not_known),
                 std::move(comparisons));
}

}  // namespace toporr::probe

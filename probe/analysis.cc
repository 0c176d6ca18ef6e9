#include "probe/analysis.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "mapping/levels/levels.h"
#include "probe/stats.h"

namespace toporr::probe {

using collectors::PlogpLevel;
using collectors::PlogpProbe;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

PlogpLevel ToLevel(const mapping::MeasuredLevel& l) {
  PlogpLevel out;
  out.group = l.group;
  out.num_groups = l.num_groups;
  out.cut_ns = l.cut;
  out.separation = l.separation;
  return out;
}

std::vector<int32_t> HostPartition(const PlogpProbe& p) {
  std::vector<int32_t> g(p.ranks.size());
  for (size_t r = 0; r < p.ranks.size(); ++r) g[r] = p.HostOf(static_cast<int>(r));
  return g;
}

}  // namespace

std::vector<double> RankDistances(const PlogpProbe& p) {
  const size_t n = p.ranks.size();
  std::vector<double> d(n * n, 0);
  for (const auto& q : p.pairs) {
    if (q.a < 0 || q.b < 0 || static_cast<size_t>(q.a) >= n || static_cast<size_t>(q.b) >= n)
      continue;
    d[q.a * n + q.b] = d[q.b * n + q.a] = q.distance_ns();
  }
  return d;
}

int HostRankLevel(const PlogpProbe& p) {
  const std::vector<int32_t> hosts = HostPartition(p);
  for (size_t k = 0; k < p.rank_levels.size(); ++k) {
    auto ari = mapping::AdjustedRandIndex(p.rank_levels[k].group, hosts);
    if (ari.ok() && *ari == 1.0) return static_cast<int>(k);
  }
  return -1;
}

absl::Status AnalyzeProbe(PlogpProbe* p, const mapping::MeasuredLevelOptions& options) {
  const int n = static_cast<int>(p->ranks.size());
  const int num_hosts = static_cast<int>(p->hosts.size());
  if (n == 0 || num_hosts == 0) return absl::InvalidArgumentError("a probe of no ranks");
  for (const auto& q : p->pairs) {
    if (q.a < 0 || q.b >= n || q.a >= q.b) {
      return absl::InvalidArgumentError(absl::StrCat("pair ", q.a, " ", q.b, " out of range"));
    }
  }
  // Rank levels.
  ASSIGN_OR_RETURN(mapping::MeasuredLevels ranks,
                   mapping::ClusterMeasuredDistances(RankDistances(*p), options));
  p->rank_levels.clear();
  for (const auto& l : ranks.levels) p->rank_levels.push_back(ToLevel(l));
  const int host_k = HostRankLevel(*p);
  const int num_rank_levels = static_cast<int>(p->rank_levels.size());
  for (int k = 0; k < num_rank_levels; ++k) {
    std::string& name = p->rank_levels[k].name;
    if (host_k < 0) {
      name = k == 0 ? "rank" : k == num_rank_levels - 1 ? "top" : absl::StrCat("level", k);
    } else if (k == host_k) {
      name = "host";
    } else if (k == 0) {
      name = "rank";
    } else if (k < host_k) {
      name = host_k == 2 ? "socket" : absl::StrCat("intra", k);
    } else {
      name = mapping::LevelName(k - host_k, num_rank_levels - host_k);
    }
  }
  // Host levels over the best rank pair of each host pair.
  const int64_t largest = p->sizes.empty() ? 0 : p->sizes.back();
  std::vector<double> hd(static_cast<size_t>(num_hosts) * num_hosts, kInf);
  std::vector<double> hgap(hd.size(), kInf);
  std::vector<int> host_of(n);
  for (int r = 0; r < n; ++r) host_of[r] = p->HostOf(r);
  for (const auto& q : p->pairs) {
    const int x = host_of[q.a], y = host_of[q.b];
    if (x == y || x < 0 || y < 0) continue;
    const double d = q.distance_ns();
    if (d > 0) {
      hd[x * num_hosts + y] = hd[y * num_hosts + x] = std::min(hd[x * num_hosts + y], d);
    }
    if (!q.gap_ns.empty() && q.gap_ns.back() > 0) {
      double& g = hgap[x * num_hosts + y];
      g = hgap[y * num_hosts + x] = std::min(g, q.gap_ns.back());
    }
  }
  for (int h = 0; h < num_hosts; ++h) hd[h * num_hosts + h] = 0;
  ASSIGN_OR_RETURN(mapping::MeasuredLevels hosts, mapping::ClusterMeasuredDistances(hd, options));
  p->host_levels.clear();
  const int num_host_levels = static_cast<int>(hosts.levels.size());
  for (int k = 0; k < num_host_levels; ++k) {
    PlogpLevel level = ToLevel(hosts.levels[k]);
    level.name = mapping::LevelName(k, num_host_levels);
    if (k > 0) {
      std::vector<double> lat, gbps;
      const auto& below = p->host_levels[k - 1].group;
      for (int x = 0; x < num_hosts; ++x) {
        for (int y = x + 1; y < num_hosts; ++y) {
          if (below[x] == below[y] || level.group[x] != level.group[y]) continue;
          const double d = hd[x * num_hosts + y];
          if (d > 0 && d < kInf) lat.push_back(d);
          const double g = hgap[x * num_hosts + y];
          if (largest > 0 && g > 0 && g < kInf) gbps.push_back(8.0 * largest / g);
        }
      }
      level.latency_ns = Median(lat);
      level.gbps = Median(gbps);
    }
    p->host_levels.push_back(std::move(level));
  }
  return absl::OkStatus();
}

}  // namespace toporr::probe

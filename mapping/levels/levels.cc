#include "mapping/levels/levels.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "mapping/levels/union_find.h"

namespace toporr::mapping {
namespace {

struct Distance {
  double alpha = 0, beta = 0;
};

Distance Between(const HostCostMatrix& c, int a, int b) {
  return {std::max(c.AlphaNs(a, b), c.AlphaNs(b, a)), std::max(c.BetaNs(a, b), c.BetaNs(b, a))};
}

bool Finite(const Distance& d) { return std::isfinite(d.alpha) && std::isfinite(d.beta); }

bool Close(double x, double y, double tolerance) {
  return std::fabs(x - y) <= tolerance * std::max(std::fabs(x), std::fabs(y));
}

// The distinct classes of the finite distances, ordered by the reference time; empty when
// there are more than kMaxClasses.
std::vector<Distance> Classes(const HostCostMatrix& c, const LevelOptions& o) {
  std::vector<Distance> classes;
  const int n = c.num_hosts();
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      const Distance d = Between(c, a, b);
      if (!Finite(d)) continue;
      const bool known = std::any_of(classes.begin(), classes.end(), [&](const Distance& k) {
        return Close(k.alpha, d.alpha, o.tolerance) && Close(k.beta, d.beta, o.tolerance);
      });
      if (known) continue;
      if (static_cast<int>(classes.size()) == kMaxClasses) return {};
      classes.push_back(d);
    }
  }
  const double m = static_cast<double>(o.reference_bytes);
  std::sort(classes.begin(), classes.end(), [m](const Distance& x, const Distance& y) {
    return x.alpha + m * x.beta < y.alpha + m * y.beta;
  });
  return classes;
}

// Groups numbered by their lowest host.
HostLevel LevelOf(UnionFind& uf, int n) {
  HostLevel level;
  level.group = uf.Labels(&level.num_groups);
  return level;
}

}  // namespace

std::string LevelName(int k, int num_levels) {
  if (k == 0) return "host";
  if (k == num_levels - 1) return "top";
  if (k == 1) return "leaf";
  if (k == 2) return "pod";
  return absl::StrCat("level", k);
}

std::vector<std::string> HostLevels::names() const {
  std::vector<std::string> out;
  for (const HostLevel& l : levels) out.push_back(l.name);
  return out;
}

absl::StatusOr<HostLevels> DetectLevels(const HostCostMatrix& costs, const LevelOptions& options) {
  const int n = costs.num_hosts();
  if (n < 1) return absl::InvalidArgumentError("levels of an empty host cost matrix");
  if (options.reference_bytes <= 0 || !(options.tolerance >= 0 && options.tolerance < 0.5)) {
    return absl::InvalidArgumentError(
        absl::StrCat("level options: reference_bytes ", options.reference_bytes,
                     " must be > 0 and tolerance ", options.tolerance, " in [0, 0.5)"));
  }
  HostLevels out;
  UnionFind uf(n);
  out.levels.push_back(LevelOf(uf, n));  // host: every host alone
  const std::vector<Distance> classes = Classes(costs, options);
  const double m = static_cast<double>(options.reference_bytes);
  const double tol = options.tolerance;
  auto within = [&](const Distance& d, const Distance& k) {
    return Finite(d) && (d.alpha + m * d.beta <= k.alpha + m * k.beta ||
                         (Close(d.alpha, k.alpha, tol) && Close(d.beta, k.beta, tol)));
  };
  for (const Distance& k : classes) {
    if (out.levels.back().num_groups == 1) break;
    bool merged = false;
    for (int a = 0; a < n; ++a) {
      for (int b = a + 1; b < n; ++b) {
        if (uf.Find(a) != uf.Find(b) && within(Between(costs, a, b), k)) merged |= uf.Union(a, b);
      }
    }
    if (!merged) continue;
    HostLevel level = LevelOf(uf, n);
    level.alpha_ns = k.alpha;
    level.beta_ns = k.beta;
    for (int a = 0; a < n && level.exact; ++a) {
      for (int b = a + 1; b < n && level.exact; ++b) {
        if (level.group[a] == level.group[b] && !within(Between(costs, a, b), k)) {
          level.exact = false;
        }
      }
    }
    out.levels.push_back(std::move(level));
  }
  if (out.levels.back().num_groups > 1) {  // unreachable pairs, or too many classes
    HostLevel top;
    top.group.assign(n, 0);
    top.num_groups = 1;
    top.alpha_ns = top.beta_ns = std::numeric_limits<double>::infinity();
    top.exact = false;
    out.levels.push_back(std::move(top));
  }
  for (int k = 0; k < out.num_levels(); ++k) out.levels[k].name = LevelName(k, out.num_levels());
  return out;
}

}  // namespace toporr::mapping

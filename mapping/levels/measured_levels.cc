#include "mapping/levels/measured_levels.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>

#include "absl/strings/str_cat.h"
#include "mapping/levels/union_find.h"

namespace toporr::mapping {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

bool Measured(double d) { return std::isfinite(d) && d > 0; }

struct Edge {
  double log_d;
  int a, b;
};

MeasuredLevel Partition(UnionFind& uf, int n) {
  MeasuredLevel level;
  level.group = uf.Labels(&level.num_groups);
  return level;
}

void Separation(const std::vector<double>& folded, int n, MeasuredLevel* level) {
  level->max_within = 0;
  level->min_between = kInf;
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      const double d = folded[a * n + b];
      if (!Measured(d)) continue;
      if (level->group[a] == level->group[b]) {
        level->max_within = std::max(level->max_within, d);
      } else {
        level->min_between = std::min(level->min_between, d);
      }
    }
  }
  level->separation = level->max_within > 0 ? level->min_between / level->max_within : kInf;
  level->exact = level->separation > 1;
}

}  // namespace

absl::StatusOr<MeasuredLevels> ClusterMeasuredDistances(const std::vector<double>& distance,
                                                        const MeasuredLevelOptions& options) {
  const int n = static_cast<int>(std::lround(std::sqrt(static_cast<double>(distance.size()))));
  if (n < 1 || static_cast<size_t>(n) * n != distance.size()) {
    return absl::InvalidArgumentError(absl::StrCat("measured distances: ", distance.size(),
                                                   " entries is not an n x n matrix (n >= 1)"));
  }
  if (!(options.resolution > 0 && options.resolution < 1) || options.max_levels < 1) {
    return absl::InvalidArgumentError(absl::StrCat("measured level options: resolution ",
                                                   options.resolution, " must be in (0, 1) and ",
                                                   "max_levels ", options.max_levels, " >= 1"));
  }
  std::vector<double> folded(distance.size(), kInf);
  std::vector<Edge> edges;
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      double x = distance[a * n + b], y = distance[b * n + a];
      double d = kInf;
      if (Measured(x)) d = x;
      if (Measured(y)) d = std::min(d, y);
      folded[a * n + b] = folded[b * n + a] = d;
      if (Measured(d)) edges.push_back({std::log(d), a, b});
    }
  }
  std::sort(edges.begin(), edges.end(), [](const Edge& x, const Edge& y) {
    return std::tie(x.log_d, x.a, x.b) < std::tie(y.log_d, y.a, y.b);
  });
  // The spanning forest: the single-linkage merge heights.
  std::vector<Edge> tree;
  {
    UnionFind uf(n);
    for (const Edge& e : edges)
      if (uf.Union(e.a, e.b)) tree.push_back(e);
  }
  MeasuredLevels out;
  UnionFind uf(n);
  {
    MeasuredLevel alone = Partition(uf, n);
    Separation(folded, n, &alone);
    out.levels.push_back(std::move(alone));
  }
  const int m = static_cast<int>(tree.size());
  std::vector<double> cuts;  // log-distance thresholds, ascending
  if (m > 0) {
    std::vector<double> h(m);
    for (int i = 0; i < m; ++i) h[i] = tree[i].log_d;
    // Gaps between consecutive merge heights, and the scale range they are compared over.
    const double floor_gap = std::log1p(options.resolution);
    const double range = h[m - 1] - h[0];
    std::vector<std::pair<double, int>> gaps;  // (gap, index of the height above it)
    for (int i = 1; i < m; ++i)
      if (h[i] - h[i - 1] > floor_gap) gaps.push_back({h[i] - h[i - 1], i});
    std::sort(gaps.begin(), gaps.end(), [](const auto& x, const auto& y) {
      return x.first > y.first || (x.first == y.first && x.second < y.second);
    });
    // j boundaries (the j largest gaps) persist for scales eps in [gap_{j+1}, gap_j): a gap is
    // a boundary when it exceeds eps. Persistence is that interval's length in log(eps).
    const int max_j = std::min<int>(gaps.size(), options.max_levels - 1);
    int best_j = 0;
    double best = -kInf;
    for (int j = 0; j <= max_j; ++j) {
      const double upper = j == 0 ? range : gaps[j - 1].first;
      const double lower = j < static_cast<int>(gaps.size()) ? gaps[j].first : floor_gap;
      const double persistence = upper > 0 && lower > 0 ? std::log(upper / lower) : 0;
      out.persistence.push_back(persistence);
      if (persistence > best + 1e-12) {
        best = persistence;
        best_j = j;
      }
    }
    out.chosen_classes = best_j + 1;
    std::vector<int> firsts;
    for (int j = 0; j < best_j; ++j) firsts.push_back(gaps[j].second);
    std::sort(firsts.begin(), firsts.end());
    for (int first : firsts) cuts.push_back(0.5 * (h[first - 1] + h[first]));
  }
  size_t next = 0;
  for (double cut : cuts) {
    bool merged = false;
    for (; next < tree.size() && tree[next].log_d < cut; ++next)
      merged |= uf.Union(tree[next].a, tree[next].b);
    if (!merged) continue;
    MeasuredLevel level = Partition(uf, n);
    level.cut = std::exp(cut);
    Separation(folded, n, &level);
    out.levels.push_back(std::move(level));
  }
  if (out.levels.back().num_groups > 1) {
    double top_cut = 0;
    for (; next < tree.size(); ++next) {
      uf.Union(tree[next].a, tree[next].b);
      top_cut = std::exp(tree[next].log_d);
    }
    MeasuredLevel top = Partition(uf, n);
    top.cut = top_cut;
    if (top.num_groups > 1) {  // unmeasured pairs: the measured part, then a top of all
      if (top.num_groups < out.levels.back().num_groups) {
        Separation(folded, n, &top);
        out.levels.push_back(top);
      }
      top.group.assign(n, 0);
      top.num_groups = 1;
      top.cut = kInf;
    }
    Separation(folded, n, &top);
    out.levels.push_back(std::move(top));
  }
  return out;
}

absl::StatusOr<double> AdjustedRandIndex(const std::vector<int32_t>& x,
                                         const std::vector<int32_t>& y) {
  if (x.size() != y.size()) {
    return absl::InvalidArgumentError(absl::StrCat("adjusted Rand index of partitions of ",
                                                   x.size(), " and ", y.size(), " elements"));
  }
  const size_t n = x.size();
  auto dense = [](const std::vector<int32_t>& v) {
    std::vector<int32_t> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    std::vector<int32_t> out(v.size());
    for (size_t i = 0; i < v.size(); ++i)
      out[i] = std::lower_bound(sorted.begin(), sorted.end(), v[i]) - sorted.begin();
    return std::make_pair(out, static_cast<int>(sorted.size()));
  };
  auto [a, ka] = dense(x);
  auto [b, kb] = dense(y);
  std::vector<double> table(static_cast<size_t>(ka) * kb, 0), rows(ka, 0), cols(kb, 0);
  for (size_t i = 0; i < n; ++i) {
    table[a[i] * kb + b[i]] += 1;
    rows[a[i]] += 1;
    cols[b[i]] += 1;
  }
  auto pairs = [](double c) { return c * (c - 1) / 2; };
  double index = 0, sum_rows = 0, sum_cols = 0;
  for (double t : table) index += pairs(t);
  for (double r : rows) sum_rows += pairs(r);
  for (double c : cols) sum_cols += pairs(c);
  const double total = pairs(static_cast<double>(n));
  const double expected = total > 0 ? sum_rows * sum_cols / total : 0;
  const double max_index = 0.5 * (sum_rows + sum_cols);
  if (max_index == expected) return 1.0;  // both trivial the same way (all alone / one group)
  return (index - expected) / (max_index - expected);
}

}  // namespace toporr::mapping

#include "mapping/costs/hierarchical_cost_matrix.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace toporr::mapping {
namespace {

absl::Status CheckCost(const char* what, int i, int j, double v) {
  if (!std::isfinite(v) || v < 0) {
    return absl::InvalidArgumentError(absl::StrCat("hierarchical cost matrix: ", what, "(", i, ",",
                                                   j, ") = ", v, " is negative or not finite"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<HierarchicalCostMatrix>> HierarchicalCostMatrix::Create(
    Options options) {
  const int g = options.num_groups;
  if (g < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("hierarchical cost matrix: num_groups ", g, " is negative"));
  }
  for (size_t h = 0; h < options.host_group.size(); ++h) {
    if (options.host_group[h] < 0 || options.host_group[h] >= g) {
      return absl::InvalidArgumentError(absl::StrCat("hierarchical cost matrix: host ", h,
                                                     " has group ", options.host_group[h],
                                                     ", expected 0..", g - 1));
    }
  }
  const size_t cells = static_cast<size_t>(g) * g;
  if (options.group_alpha_ns.size() != cells || options.group_beta_ns.size() != cells) {
    return absl::InvalidArgumentError(absl::StrCat(
        "hierarchical cost matrix: expected ", cells, " group alpha and beta values for ", g,
        " groups, got ", options.group_alpha_ns.size(), " and ", options.group_beta_ns.size()));
  }
  for (int i = 0; i < g; ++i) {
    for (int j = 0; j < g; ++j) {
      const size_t k = static_cast<size_t>(i) * g + j;
      absl::Status s = CheckCost("group alpha", i, j, options.group_alpha_ns[k]);
      if (s.ok()) s = CheckCost("group beta", i, j, options.group_beta_ns[k]);
      if (!s.ok()) return s;
      if (i == j && (options.group_alpha_ns[k] != 0 || options.group_beta_ns[k] != 0)) {
        return absl::InvalidArgumentError(
            absl::StrCat("hierarchical cost matrix: group (", i, ",", i,
                         ") is non-zero; put same-group costs in intra_group_alpha_ns/beta_ns"));
      }
    }
  }
  absl::Status s = CheckCost("intra-group alpha", -1, -1, options.intra_group_alpha_ns);
  if (s.ok()) s = CheckCost("intra-group beta", -1, -1, options.intra_group_beta_ns);
  if (!s.ok()) return s;
  return std::unique_ptr<HierarchicalCostMatrix>(new HierarchicalCostMatrix(std::move(options)));
}

HierarchicalCostMatrix::HierarchicalCostMatrix(Options o) : o_(std::move(o)) {
  // Palette of the distinct (alpha, beta) pairs, keyed by their exact bits.
  constexpr size_t kMaxPalette = 1 << 16;
  std::map<std::pair<double, double>, uint16_t> ids;
  std::vector<uint16_t> index(o_.group_alpha_ns.size());
  for (size_t k = 0; k < index.size(); ++k) {
    auto [it, inserted] = ids.emplace(std::pair(o_.group_alpha_ns[k], o_.group_beta_ns[k]),
                                      static_cast<uint16_t>(ids.size()));
    if (inserted && ids.size() > kMaxPalette) return;  // too varied: keep the doubles
    index[k] = it->second;
  }
  palette_.resize(ids.size());
  for (const auto& [pair, id] : ids) palette_[id] = pair;
  pair_index_ = std::move(index);
  std::vector<double>().swap(o_.group_alpha_ns);
  std::vector<double>().swap(o_.group_beta_ns);
}

size_t HierarchicalCostMatrix::size_bytes() const {
  return sizeof(*this) + o_.host_group.capacity() * sizeof(int32_t) +
         (o_.group_alpha_ns.capacity() + o_.group_beta_ns.capacity()) * sizeof(double) +
         palette_.capacity() * sizeof(palette_[0]) + pair_index_.capacity() * sizeof(uint16_t);
}

absl::StatusOr<std::unique_ptr<HierarchicalCostMatrix>> CompressToHierarchical(
    const HostCostMatrix& matrix, const std::vector<int32_t>& host_group) {
  const int n = matrix.num_hosts();
  if (static_cast<int>(host_group.size()) != n) {
    return absl::InvalidArgumentError(
        absl::StrCat("compress: ", host_group.size(), " group ids for ", n, " hosts"));
  }
  int32_t g = 0;
  for (int h = 0; h < n; ++h) {
    if (host_group[h] < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("compress: host ", h, " has negative group ", host_group[h]));
    }
    g = std::max(g, host_group[h] + 1);
  }
  HierarchicalCostMatrix::Options o;
  o.host_group = host_group;
  o.num_groups = g;
  const size_t cells = static_cast<size_t>(g) * g;
  o.group_alpha_ns.assign(cells, 0);
  o.group_beta_ns.assign(cells, 0);
  // First host pair seen for every group pair (and for "same group"): its cost is the
  // reference all other pairs must equal.
  std::vector<std::pair<int, int>> witness(cells, {-1, -1});
  std::pair<int, int> intra_witness{-1, -1};
  for (int a = 0; a < n; ++a) {
    for (int b = 0; b < n; ++b) {
      if (a == b) continue;
      const int ga = host_group[a], gb = host_group[b];
      const double alpha = matrix.AlphaNs(a, b), beta = matrix.BetaNs(a, b);
      double* ref_alpha;
      double* ref_beta;
      std::pair<int, int>* w;
      if (ga == gb) {
        ref_alpha = &o.intra_group_alpha_ns;
        ref_beta = &o.intra_group_beta_ns;
        w = &intra_witness;
      } else {
        const size_t k = static_cast<size_t>(ga) * g + gb;
        ref_alpha = &o.group_alpha_ns[k];
        ref_beta = &o.group_beta_ns[k];
        w = &witness[k];
      }
      if (w->first < 0) {
        *w = {a, b};
        *ref_alpha = alpha;
        *ref_beta = beta;
      } else if (alpha != *ref_alpha || beta != *ref_beta) {
        return absl::FailedPreconditionError(absl::StrCat(
            "compress: hosts of a group are not equivalent: cost(", a, ",", b, ") = (", alpha,
            " ns, ", beta, " ns/B) but cost(", w->first, ",", w->second, ") = (", *ref_alpha,
            " ns, ", *ref_beta, " ns/B) with groups (", ga, ",", gb, ")"));
      }
    }
  }
  return HierarchicalCostMatrix::Create(std::move(o));
}

absl::StatusOr<std::unique_ptr<HierarchicalCostMatrix>> FatTreeCostMatrix(const FatTreeShape& s) {
  if (s.num_hosts < 0 || s.hosts_per_leaf <= 0 || s.leaves_per_pod <= 0 || !(s.gbps > 0) ||
      !(s.core_gbps > 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("fat tree: need num_hosts >= 0, positive hosts_per_leaf, leaves_per_pod and "
                     "bandwidths; got ",
                     s.num_hosts, " hosts, ", s.hosts_per_leaf, " per leaf, ", s.leaves_per_pod,
                     " leaves per pod, ", s.gbps, "/", s.core_gbps, " Gb/s"));
  }
  HierarchicalCostMatrix::Options o;
  o.num_groups = (s.num_hosts + s.hosts_per_leaf - 1) / s.hosts_per_leaf;
  o.host_group.resize(s.num_hosts);
  for (int h = 0; h < s.num_hosts; ++h) o.host_group[h] = h / s.hosts_per_leaf;
  const size_t g = o.num_groups;
  o.group_alpha_ns.assign(g * g, 0);
  o.group_beta_ns.assign(g * g, 0);
  for (size_t a = 0; a < g; ++a) {
    for (size_t b = 0; b < g; ++b) {
      if (a == b) continue;
      const bool same_pod = a / s.leaves_per_pod == b / s.leaves_per_pod;
      o.group_alpha_ns[a * g + b] = s.nic_ns + s.switch_ns * (same_pod ? 3 : 5);
      o.group_beta_ns[a * g + b] = 8.0 / (same_pod ? s.gbps : s.core_gbps);
    }
  }
  o.intra_group_alpha_ns = s.nic_ns + s.switch_ns;
  o.intra_group_beta_ns = 8.0 / s.gbps;
  return HierarchicalCostMatrix::Create(std::move(o));
}

}  // namespace toporr::mapping

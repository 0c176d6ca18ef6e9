#include "client/ctl/probe_validation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <set>

#include "absl/strings/str_cat.h"

namespace toporr::client::ctl {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::vector<double> Ranks(const std::vector<double>& v) {
  std::vector<size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> rank(v.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    for (size_t k = i; k <= j; ++k) rank[order[k]] = 0.5 * (i + j);
    i = j + 1;
  }
  return rank;
}

}  // namespace

double MedianOf(std::vector<double> v) {
  if (v.empty()) return 0;
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  if (v.size() % 2) return v[mid];
  return 0.5 * (v[mid] + *std::max_element(v.begin(), v.begin() + mid));
}

std::vector<std::string> MissingHosts(const collectors::PlogpProbe& probe,
                                      const std::vector<std::string>& hosts) {
  const std::set<std::string> known(hosts.begin(), hosts.end());
  std::vector<std::string> missing;
  for (const std::string& h : probe.hosts)
    if (!known.count(h)) missing.push_back(h);
  return missing;
}

HostPairTimes BestHostPairTimes(const collectors::PlogpProbe& probe,
                                const std::vector<std::string>& hosts) {
  HostPairTimes out;
  out.n = static_cast<int>(hosts.size());
  out.sizes = probe.sizes.size();
  out.ns.assign(static_cast<size_t>(out.n) * out.n * out.sizes, kInf);
  std::map<std::string, int> index;
  for (size_t i = 0; i < hosts.size(); ++i) index[hosts[i]] = static_cast<int>(i);
  std::vector<int> host_of(probe.ranks.size(), -1);
  for (size_t r = 0; r < probe.ranks.size(); ++r) {
    auto it = index.find(probe.ranks[r].host);
    if (it != index.end()) host_of[r] = it->second;
  }
  for (const auto& q : probe.pairs) {
    const int a = host_of[q.a], b = host_of[q.b];
    if (a < 0 || b < 0 || a == b) continue;
    const size_t first = (static_cast<size_t>(std::min(a, b)) * out.n + std::max(a, b)) * out.sizes;
    for (size_t k = 0; k < out.sizes && k < q.rtt_ns.size(); ++k) {
      if (q.rtt_ns[k] > 0 && std::isfinite(q.rtt_ns[k])) {
        out.ns[first + k] = std::min(out.ns[first + k], q.rtt_ns[k] / 2);
      }
    }
  }
  return out;
}

double Spearman(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size() || x.size() < 2) return 0;
  const std::vector<double> rx = Ranks(x), ry = Ranks(y);
  const double mx = std::accumulate(rx.begin(), rx.end(), 0.0) / rx.size();
  const double my = std::accumulate(ry.begin(), ry.end(), 0.0) / ry.size();
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < rx.size(); ++i) {
    sxy += (rx[i] - mx) * (ry[i] - my);
    sxx += (rx[i] - mx) * (rx[i] - mx);
    syy += (ry[i] - my) * (ry[i] - my);
  }
  return sxx > 0 && syy > 0 ? sxy / std::sqrt(sxx * syy) : 0;
}

absl::StatusOr<Validation> ValidateProbe(const ValidationInput& in) {
  const collectors::PlogpProbe& p = *in.probe;
  Validation out;
  out.bytes = in.bytes < 0 && !p.sizes.empty() ? p.sizes.back() : in.bytes;
  const auto size_it = std::find(p.sizes.begin(), p.sizes.end(), out.bytes);
  if (size_it == p.sizes.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("validate: the probe did not measure ", out.bytes, " bytes"));
  }
  const size_t k = size_it - p.sizes.begin();
  out.hosts = in.hosts;
  out.missing = MissingHosts(p, in.hosts);
  const int n = static_cast<int>(in.hosts.size());
  if (n < 2) {
    return absl::InvalidArgumentError(absl::StrCat("validate: ", n, " of the probe's ",
                                                   p.hosts.size(), " hosts are in the model; ",
                                                   "at least 2 are needed"));
  }
  const HostPairTimes measured = BestHostPairTimes(p, in.hosts);
  std::vector<double> ratios;
  for (int x = 0; x < n; ++x) {
    for (int y = x + 1; y < n; ++y) {
      const double m = measured.At(x, y, k);
      const double model = in.model->TimeNs(x, y, out.bytes);
      if (!std::isfinite(m) || !(model > 0) || !std::isfinite(model)) continue;
      out.pairs.push_back({x, y, m, model, m / model});
      ratios.push_back(m / model);
    }
  }
  if (out.pairs.empty()) {
    return absl::InvalidArgumentError("validate: no measured pair of hosts the model knows");
  }
  out.scale = MedianOf(ratios);
  std::vector<double> xs, ys;
  for (auto& c : out.pairs) {
    c.ratio /= out.scale;
    xs.push_back(c.measured_ns);
    ys.push_back(c.model_ns);
  }
  out.spearman = Spearman(xs, ys);
  std::stable_sort(out.pairs.begin(), out.pairs.end(),
                   [](const PairComparison& a, const PairComparison& b) {
                     return std::fabs(std::log(a.ratio)) > std::fabs(std::log(b.ratio));
                   });
  if (in.routes != nullptr) {
    std::map<int, std::vector<double>> crossing;
    std::vector<int32_t> route;
    for (const auto& c : out.pairs) {
      std::vector<int32_t> both;
      in.routes->Route(c.x, c.y, &route);
      both = route;
      in.routes->Route(c.y, c.x, &route);
      both.insert(both.end(), route.begin(), route.end());
      std::sort(both.begin(), both.end());
      both.erase(std::unique(both.begin(), both.end()), both.end());
      for (int32_t l : both) crossing[l].push_back(c.ratio);
    }
    for (auto& [link, r] : crossing) {
      SuspectLink s;
      s.directed_link = link;
      s.name = in.link_name ? in.link_name(link) : absl::StrCat("link ", link);
      s.pairs = static_cast<int>(r.size());
      s.median_ratio = MedianOf(r);
      s.mean_ratio = std::accumulate(r.begin(), r.end(), 0.0) / r.size();
      out.suspects.push_back(std::move(s));
    }
    std::stable_sort(
        out.suspects.begin(), out.suspects.end(),
        [](const SuspectLink& a, const SuspectLink& b) { return a.median_ratio > b.median_ratio; });
    if (out.suspects.size() > 10) out.suspects.resize(10);
  }
  return out;
}

}  // namespace toporr::client::ctl

#include "client/ctl/cost_model_fit.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "absl/strings/str_cat.h"
#include "client/ctl/probe_validation.h"
#include "common/status_macros.h"
#include "mapping/costs/cost_model.h"

namespace toporr::client::ctl {
namespace {

constexpr double kWithin = 0.25;

// `v` to 4 significant digits: what a fit from a noisy probe can claim, and short lines.
double FourDigits(double v) {
  if (!(v > 0)) return v;
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.4g", v);
  return std::strtod(buf, nullptr);
}

// One host pair as measured: t[k] per probe size k (+inf where not measured).
struct MeasuredPair {
  int x = 0, y = 0;
  std::vector<double> t;
  double latency_ns = 0;   // a
  double ns_per_byte = 0;  // b
};

// Least-squares slope and intercept of ys over xs (n >= 2, xs not all equal).
void Line(const std::vector<double>& xs, const std::vector<double>& ys, double* slope,
          double* intercept) {
  const double n = static_cast<double>(xs.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    sx += xs[i];
    sy += ys[i];
    sxx += xs[i] * xs[i];
    sxy += xs[i] * ys[i];
  }
  const double d = n * sxx - sx * sx;
  *slope = d != 0 ? (n * sxy - sx * sy) / d : 0;
  *intercept = (sy - *slope * sx) / n;
}

// The share of points within kWithin of the model `costs` (alpha + m * beta).
int CountWithin(const std::vector<MeasuredPair>& pairs, const std::vector<int64_t>& sizes,
                const std::vector<mapping::HostPairCost>& costs, int n) {
  int within = 0;
  for (const MeasuredPair& p : pairs) {
    const mapping::HostPairCost& c = costs[static_cast<size_t>(p.x) * n + p.y];
    for (size_t k = 0; k < sizes.size(); ++k) {
      if (!std::isfinite(p.t[k]) || !(p.t[k] > 0)) continue;
      const double model = c.alpha_ns + static_cast<double>(sizes[k]) * c.beta_ns_per_byte;
      within += std::fabs(model / p.t[k] - 1) <= kWithin;
    }
  }
  return within;
}

}  // namespace

absl::StatusOr<CostModelFit> FitCostModel(const CostModelFitInput& in) {
  const collectors::PlogpProbe& probe = *in.probe;
  CostModelFit out;
  out.kind = in.kind;
  mapping::CostModelSettings preset;
  if (absl::Status s = mapping::ApplyCostModelSetting("cost_model", in.kind, &preset); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("calibrate: ", s.message()));
  }
  out.before = preset.model;
  out.sizes = probe.sizes;
  if (out.sizes.size() < 2 || out.sizes.front() == out.sizes.back()) {
    return absl::InvalidArgumentError(
        "calibrate: the probe measured fewer than 2 message sizes; rates need at least two "
        "(toporr-probe --sizes 0,65536,1048576)");
  }
  out.hosts = in.hosts;
  out.missing = MissingHosts(probe, in.hosts);
  const int n = static_cast<int>(in.hosts.size());
  const size_t nk = out.sizes.size();
  const HostPairTimes best = BestHostPairTimes(probe, in.hosts);
  std::vector<MeasuredPair> pairs;
  for (int x = 0; x < n; ++x) {
    for (int y = x + 1; y < n; ++y) {
      MeasuredPair p;
      p.x = x;
      p.y = y;
      for (size_t k = 0; k < nk; ++k) p.t.push_back(best.At(x, y, k));
      std::vector<double> ms, ts;
      for (size_t k = 0; k < nk; ++k) {
        if (std::isfinite(p.t[k])) {
          ms.push_back(static_cast<double>(out.sizes[k]));
          ts.push_back(p.t[k]);
        }
      }
      if (ms.size() < 2 || ms.front() == ms.back()) continue;
      double intercept = 0;
      Line(ms, ts, &p.ns_per_byte, &intercept);
      p.ns_per_byte = std::max(p.ns_per_byte, 0.0);
      p.latency_ns = std::max(0.0, ts.front() - ms.front() * p.ns_per_byte);
      pairs.push_back(std::move(p));
    }
  }
  if (pairs.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("calibrate: no pair of different hosts the model knows was measured at two "
                     "sizes (",
                     n, " of the probe's ", probe.hosts.size(), " hosts are in the model)"));
  }
  out.pairs = static_cast<int>(pairs.size());

  ASSIGN_OR_RETURN(const std::vector<mapping::HostPairCost> before, in.costs(out.before));
  // The fabric's own rates: the preset's costs unless the preset scales them.
  std::vector<mapping::HostPairCost> fabric = before;
  if (mapping::ScalesRates(out.before)) {
    mapping::CostModelOptions nominal = out.before;
    nominal.host_rate_scale = nominal.switch_rate_scale = 1;
    ASSIGN_OR_RETURN(fabric, in.costs(nominal));
  }
  auto cost = [&](const std::vector<mapping::HostPairCost>& m, const MeasuredPair& p) {
    return m[static_cast<size_t>(p.x) * n + p.y];
  };

  // Latency: a = c0 + c1 * switches.
  std::vector<double> hops, lat;
  std::vector<double> one_switch_scale, other_scale;
  for (const MeasuredPair& p : pairs) {
    const mapping::HostPairCost c = cost(fabric, p);
    hops.push_back(c.hops);
    lat.push_back(p.latency_ns);
    if (p.ns_per_byte > 0 && c.bottleneck_gbps > 0) {
      (c.hops == 1 ? one_switch_scale : other_scale)
          .push_back(8.0 / p.ns_per_byte / c.bottleneck_gbps);
    }
  }
  double c1 = out.before.switch_latency_ns + out.before.link_latency_ns, c0 = 0;
  if (*std::min_element(hops.begin(), hops.end()) != *std::max_element(hops.begin(), hops.end())) {
    double intercept = 0;
    Line(hops, lat, &c1, &intercept);
    c1 = std::max(c1, out.before.link_latency_ns);
  }
  for (size_t i = 0; i < hops.size(); ++i) c0 += lat[i] - c1 * hops[i];
  c0 /= static_cast<double>(hops.size());
  out.after = out.before;
  out.after.switch_latency_ns = std::round(std::max(0.0, c1 - out.before.link_latency_ns));
  out.after.per_message_ns =
      std::round(std::max(0.0, c0 - out.before.nic_latency_ns - out.before.link_latency_ns));
  // Rates.
  if (one_switch_scale.empty()) one_switch_scale = other_scale;
  if (!one_switch_scale.empty()) {
    out.after.host_rate_scale = FourDigits(std::clamp(MedianOf(one_switch_scale), 1e-6, 1000.0));
    out.after.switch_rate_scale = out.after.host_rate_scale;
  }
  ASSIGN_OR_RETURN(const std::vector<mapping::HostPairCost> after, in.costs(out.after));

  std::map<int, std::vector<const MeasuredPair*>> by_class;
  for (const MeasuredPair& p : pairs) by_class[cost(fabric, p).hops].push_back(&p);
  for (const auto& [switches, members] : by_class) {
    SwitchClassFit f;
    f.switches = switches;
    f.pairs = static_cast<int>(members.size());
    std::vector<double> m_lat, b_lat, a_lat, f_gbps, m_gbps, a_gbps;
    for (const MeasuredPair* p : members) {
      m_lat.push_back(p->latency_ns);
      b_lat.push_back(cost(before, *p).latency_ns);
      a_lat.push_back(cost(after, *p).latency_ns);
      f_gbps.push_back(cost(fabric, *p).bottleneck_gbps);
      if (p->ns_per_byte > 0) m_gbps.push_back(8.0 / p->ns_per_byte);
      a_gbps.push_back(cost(after, *p).bottleneck_gbps);
    }
    f.measured_latency_ns = MedianOf(m_lat);
    f.before_latency_ns = MedianOf(b_lat);
    f.after_latency_ns = MedianOf(a_lat);
    f.fabric_gbps = MedianOf(f_gbps);
    f.measured_gbps = MedianOf(m_gbps);
    f.after_gbps = MedianOf(a_gbps);
    out.classes.push_back(f);
  }
  for (const MeasuredPair& p : pairs) {
    for (double t : p.t) out.points += std::isfinite(t) && t > 0;
  }
  out.within_before = CountWithin(pairs, out.sizes, before, n);
  out.within_after = CountWithin(pairs, out.sizes, after, n);
  return out;
}

}  // namespace toporr::client::ctl

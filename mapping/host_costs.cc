#include "mapping/host_costs.h"

#include <limits>
#include <map>
#include <string>
#include <utility>

namespace toporr::mapping {

absl::StatusOr<std::unique_ptr<HostCosts>> HostCosts::Create(const collectors::Fabric& fabric,
                                                             CostModelOptions options) {
  absl::StatusOr<HostGraph> graph = HostGraph::Build(fabric);
  if (!graph.ok()) return graph.status();
  std::unique_ptr<HostCosts> costs(new HostCosts(*std::move(graph), options));
  costs->graph_.AttachmentTables(&costs->att_hops_, &costs->att_wide_, /*toward=*/nullptr);
  return costs;
}

HostCosts::HostCosts(HostGraph graph, CostModelOptions options)
    : graph_(std::move(graph)), options_(options) {}

HostPairCost MakePairCost(int32_t switches, double gbps, const CostModelOptions& model) {
  HostPairCost cost;
  if (switches < 0) {
    constexpr double kInf = std::numeric_limits<double>::infinity();
    cost.hops = -1;
    cost.latency_ns = cost.alpha_ns = cost.beta_ns_per_byte = kInf;
    return cost;
  }
  cost.hops = switches;
  cost.bottleneck_gbps = gbps;
  cost.latency_ns = model.nic_latency_ns + model.switch_latency_ns * switches +
                    model.link_latency_ns * (switches + 1);
  cost.alpha_ns = cost.latency_ns;
  cost.beta_ns_per_byte = gbps > 0 ? 8.0 / gbps : 0.0;
  return cost;
}

HostPairCost HostCosts::FromChoice(const HostGraph::PairChoice& c) const {
  return MakePairCost(c.hops, c.hops < 0 ? 0.0 : graph_.rate(c.rank), options_);
}

HostPairCost HostCosts::Cost(int a, int b) const {
  const int n = num_hosts();
  if (a < 0 || a >= n || b < 0 || b >= n) return FromChoice(HostGraph::PairChoice{});
  if (a == b) return HostPairCost{};
  return FromChoice(graph_.Choose(a, b, att_hops_.data(), att_wide_.data()));
}

void HostCosts::Matrix(const std::vector<int>& hosts, std::vector<HostPairCost>* out) const {
  // Hosts that hang off the same switch ports-wise (same ChoiceKey) share a row: compute one
  // cost per pair of classes (a job of 1000 hosts on 30 leaves has ~30 classes), then copy.
  const size_t n = hosts.size();
  const int num = num_hosts();
  std::map<std::vector<uint32_t>, int32_t> class_of_key;
  std::vector<int32_t> cls(n);
  std::vector<int> rep;  // representative host per class, -1 for an invalid index
  std::vector<uint32_t> key;
  for (size_t i = 0; i < n; ++i) {
    const int h = hosts[i];
    if (h >= 0 && h < num) graph_.ChoiceKey(h, &key);
    if (h < 0 || h >= num || key.empty()) {
      cls[i] = static_cast<int32_t>(rep.size());
      rep.push_back(h >= 0 && h < num ? h : -1);
      continue;
    }
    auto [it, added] = class_of_key.emplace(key, static_cast<int32_t>(rep.size()));
    if (added) rep.push_back(h);
    cls[i] = it->second;
  }
  const size_t k = rep.size();
  std::vector<HostPairCost> table(k * k);
  for (size_t x = 0; x < k; ++x) {
    for (size_t y = 0; y < k; ++y) {
      // x == y stands for two distinct hosts of one class (the diagonal is handled below).
      table[x * k + y] = rep[x] < 0 || rep[y] < 0
                             ? FromChoice(HostGraph::PairChoice{})
                             : FromChoice(graph_.Choose(rep[x], rep[y], att_hops_.data(),
                                                        att_wide_.data()));
    }
  }
  out->resize(n * n);
  HostPairCost* o = out->data();
  for (size_t i = 0; i < n; ++i) {
    const HostPairCost* row = table.data() + static_cast<size_t>(cls[i]) * k;
    for (size_t j = 0; j < n; ++j) {
      *o++ = hosts[i] == hosts[j] && rep[cls[i]] >= 0 ? HostPairCost{} : row[cls[j]];
    }
  }
}

absl::StatusOr<HostPath> HostCosts::Path(int a, int b) const {
  const int n = num_hosts();
  if (a < 0 || a >= n || b < 0 || b >= n) {
    return absl::InvalidArgumentError("host index out of range: (" + std::to_string(a) + ", " +
                                      std::to_string(b) + "); the fabric has " +
                                      std::to_string(n) + " hosts");
  }
  HostPath path;
  path.src_host = a;
  path.dst_host = b;
  if (a == b) return path;
  const HostGraph::PairChoice c = graph_.Choose(a, b, att_hops_.data(), att_wide_.data());
  if (c.hops < 0) {
    return absl::NotFoundError("no path between hosts " + std::to_string(a) + " and " +
                               std::to_string(b) + " (disconnected fabric or uncabled host)");
  }
  HostGraph::Toward toward;
  if (c.direct < 0) graph_.ComputeToward(graph_.attachment(c.dst).sw, &toward);
  graph_.Walk(c, &toward, &path.hops, /*links=*/nullptr);
  path.cost = FromChoice(c);
  return path;
}

}  // namespace toporr::mapping

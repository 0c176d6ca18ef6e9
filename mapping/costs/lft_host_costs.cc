#include "mapping/costs/lft_host_costs.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace toporr::mapping {

absl::StatusOr<std::unique_ptr<LftHostCosts>> LftHostCosts::Create(const fabric::Fabric& fabric,
                                                                   fabric::ForwardingTables tables,
                                                                   CostModelOptions model,
                                                                   LftRoutesOptions options) {
  ASSIGN_OR_RETURN(auto routes, LftRoutes::Create(fabric, std::move(tables), options));
  return std::unique_ptr<LftHostCosts>(new LftHostCosts(std::move(routes), model));
}

LftHostCosts::LftHostCosts(std::unique_ptr<LftRoutes> routes, CostModelOptions model)
    : routes_(std::move(routes)), model_(model) {
  const fabric::Fabric& f = routes_->fabric();
  attachment_.resize(routes_->num_hosts());
  for (int h = 0; h < routes_->num_hosts(); ++h) {
    const PortRef port = routes_->HostPort(h);
    if (port.node < 0) continue;
    const fabric::Port* p = f.nodes[port.node].FindPort(port.port);
    if (p == nullptr || p->link < 0) continue;
    const fabric::LinkEnd& peer = f.Peer(p->link, {port.node, port.port});
    if (f.nodes[peer.node].type != fabric::NodeType::kSwitch) continue;
    const fabric::Link& l = f.links[p->link];
    attachment_[h].switch_node = peer.node;
    attachment_[h].gbps = routes_->link_gbps(2 * p->link + (l.a.node == port.node ? 0 : 1));
  }
  table_ = routes_->BuildSwitchRouteTable();
}

bool LftHostCosts::FromSwitch(int32_t sw, int b, int32_t* switches, double* gbps) const {
  const int32_t row = sw >= 0 ? table_.row_of_node[sw] : -1;
  if (row < 0 || b < 0 || b >= table_.num_hosts) return false;
  const size_t cell = static_cast<size_t>(row) * table_.num_hosts + b;
  if (table_.switches[cell] == LftRoutes::SwitchRouteTable::kNoRoute) return false;
  *switches = table_.switches[cell];
  *gbps = table_.rates[table_.rate[cell]];
  return true;
}

HostPairCost LftHostCosts::Cost(int a, int b) const {
  const int n = num_hosts();
  if (a < 0 || a >= n || b < 0 || b >= n) return MakePairCost(-1, 0, model_);
  if (a == b) return HostPairCost{};
  if (attachment_[a].switch_node >= 0) {
    int32_t switches;
    double gbps;
    if (!FromSwitch(attachment_[a].switch_node, b, &switches, &gbps)) {
      return MakePairCost(-1, 0, model_);
    }
    return MakePairCost(switches, std::min(attachment_[a].gbps, gbps), model_);
  }
  absl::StatusOr<LftRoute> r = routes_->HostRoute(a, b);
  if (!r.ok()) return MakePairCost(-1, 0, model_);
  return MakePairCost(r->switches, r->bottleneck_gbps, model_);
}

void LftHostCosts::Matrix(const std::vector<int>& hosts, std::vector<HostPairCost>* out) const {
  const size_t n = hosts.size();
  out->assign(n * n, HostPairCost{});
  const int num = num_hosts();
  // Rows grouped by the switch their host hangs off: the route from that switch to a column
  // host is the same for all of them (forwarding depends on the switch and the destination
  // LID only); the row host's own cable is folded in afterwards.
  std::unordered_map<int32_t, std::vector<size_t>> rows_by_switch;
  for (size_t i = 0; i < n; ++i) {
    const int a = hosts[i];
    if (a >= 0 && a < num && attachment_[a].switch_node >= 0) {
      rows_by_switch[attachment_[a].switch_node].push_back(i);
    } else {
      for (size_t j = 0; j < n; ++j) (*out)[i * n + j] = Cost(a, hosts[j]);
    }
  }
  for (const auto& [sw, rows] : rows_by_switch) {
    for (size_t j = 0; j < n; ++j) {
      const int b = hosts[j];
      int32_t switches = -1;
      double gbps = 0;
      const bool routed = FromSwitch(sw, b, &switches, &gbps);
      for (size_t i : rows) {
        const int a = hosts[i];
        HostPairCost& c = (*out)[i * n + j];
        if (a == b) {
          c = HostPairCost{};
        } else if (!routed) {
          c = MakePairCost(-1, 0, model_);
        } else {
          c = MakePairCost(switches, std::min(attachment_[a].gbps, gbps), model_);
        }
      }
    }
  }
}

absl::Status LftHostCosts::MatrixCompactRows(const std::vector<int>& hosts,
                                             CompactRowSet* out) const {
  const size_t n = hosts.size();
  const int num = num_hosts();
  out->n = n;
  out->row_of.assign(n, -1);
  out->diagonal.clear();
  out->hops.clear();
  out->rate_index.clear();
  CompactRates palette(&out->rates_gbps);
  auto put = [&](size_t k, int32_t switches, double gbps) -> absl::Status {
    uint8_t h = kCompactUnreachable, r = 0;
    if (switches >= 0) {
      if (switches > kCompactMaxHops) return CompactTooManyHops(switches);
      const int index = palette.Index(gbps);
      if (index < 0) return CompactTooManyRates();
      h = static_cast<uint8_t>(switches);
      r = static_cast<uint8_t>(index);
    }
    out->hops[k] = static_cast<char>(h);
    out->rate_index[k] = static_cast<char>(r);
    return absl::OkStatus();
  };
  // As in Matrix, rows grouped by the switch their host hangs off, and here also by the
  // rate of that cable: rows of one group differ only on the diagonal. Ordered maps keep
  // the palette order deterministic.
  std::map<int32_t, std::map<double, std::vector<size_t>>> groups;
  std::vector<char> seen(static_cast<size_t>(num), 0);
  for (size_t i = 0; i < n; ++i) {
    const int a = hosts[i];
    if (a < 0 || a >= num) {
      const size_t r = static_cast<size_t>(out->row_of[i] = out->AddRow(kCompactUnreachable));
      for (size_t j = 0; j < n; ++j) RETURN_IF_ERROR(put(r * n + j, -1, 0));
      continue;
    }
    if (seen[a]++) {
      return absl::InvalidArgumentError(absl::StrCat("host index ", a, " is listed twice"));
    }
    if (attachment_[a].switch_node >= 0) {
      groups[attachment_[a].switch_node][attachment_[a].gbps].push_back(i);
      continue;
    }
    const size_t r = static_cast<size_t>(out->row_of[i] = out->AddRow(0));
    for (size_t j = 0; j < n; ++j) {
      if (j == i) continue;  // the diagonal: CopyRow writes it
      const HostPairCost c = Cost(a, hosts[j]);
      RETURN_IF_ERROR(put(r * n + j, c.hops, c.bottleneck_gbps));
    }
  }
  for (const auto& [sw, by_rate] : groups) {
    std::vector<size_t> first_byte;  // per rate group: where its stored row starts
    for (const auto& [att_gbps, rows] : by_rate) {
      const int32_t r = out->AddRow(0);
      for (size_t i : rows) out->row_of[i] = r;
      first_byte.push_back(static_cast<size_t>(r) * n);
    }
    for (size_t j = 0; j < n; ++j) {
      const int b = hosts[j];
      int32_t switches = -1;
      double gbps = 0;
      const bool routed = FromSwitch(sw, b, &switches, &gbps);
      size_t g = 0;
      for (const auto& [att_gbps, rows] : by_rate) {
        const size_t k = first_byte[g++] + j;
        RETURN_IF_ERROR(routed ? put(k, switches, std::min(att_gbps, gbps)) : put(k, -1, 0));
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<HostPath> LftHostCosts::Path(int a, int b) const {
  const int n = num_hosts();
  if (a < 0 || a >= n || b < 0 || b >= n) {
    return absl::InvalidArgumentError(
        absl::StrCat("host index out of range: ", a, ", ", b, " (", n, " hosts)"));
  }
  HostPath path;
  path.src_host = a;
  path.dst_host = b;
  if (a == b) return path;
  ASSIGN_OR_RETURN(LftRoute r, routes_->HostRoute(a, b));
  path.hops = std::move(r.hops);
  path.cost = MakePairCost(r.switches, r.bottleneck_gbps, model_);
  return path;
}

}  // namespace toporr::mapping

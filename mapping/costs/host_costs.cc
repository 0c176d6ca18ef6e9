#include "mapping/costs/host_costs.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <utility>

namespace toporr::mapping {

absl::StatusOr<std::unique_ptr<HostCosts>> HostCosts::Create(const fabric::Fabric& fabric,
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
  cost.latency_ns = model.nic_latency_ns + model.per_message_ns +
                    model.switch_latency_ns * switches + model.link_latency_ns * (switches + 1);
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

HostGraph::PairChoice HostCosts::ChooseRep(int a, int b) const {
  return a < 0 || b < 0 ? HostGraph::PairChoice{}
                        : graph_.Choose(a, b, att_hops_.data(), att_wide_.data());
}

void HostCosts::Classes(const std::vector<int>& hosts, std::vector<int32_t>* cls,
                        std::vector<int>* rep) const {
  // Hosts that hang off the same switch ports (same ChoiceKey) have the same cost to every
  // other host: a job of 1000 hosts on 30 leaves has ~30 classes.
  const size_t n = hosts.size();
  const int num = num_hosts();
  std::map<std::vector<uint32_t>, int32_t> class_of_key;
  cls->resize(n);
  rep->clear();
  std::vector<uint32_t> key;
  for (size_t i = 0; i < n; ++i) {
    const int h = hosts[i];
    if (h >= 0 && h < num) graph_.ChoiceKey(h, &key);
    if (h < 0 || h >= num || key.empty()) {
      (*cls)[i] = static_cast<int32_t>(rep->size());
      rep->push_back(h >= 0 && h < num ? h : -1);
      continue;
    }
    auto [it, added] = class_of_key.emplace(key, static_cast<int32_t>(rep->size()));
    if (added) rep->push_back(h);
    (*cls)[i] = it->second;
  }
}

void HostCosts::Matrix(const std::vector<int>& hosts, std::vector<HostPairCost>* out) const {
  // One cost per pair of classes, then copied.
  const size_t n = hosts.size();
  std::vector<int32_t> cls;
  std::vector<int> rep;
  Classes(hosts, &cls, &rep);
  const size_t k = rep.size();
  std::vector<HostPairCost> table(k * k);
  for (size_t x = 0; x < k; ++x) {
    for (size_t y = 0; y < k; ++y) {
      // x == y stands for two distinct hosts of one class (the diagonal is handled below).
      table[x * k + y] = FromChoice(ChooseRep(rep[x], rep[y]));
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

absl::Status HostCosts::MatrixCompactRows(const std::vector<int>& hosts, CompactRowSet* out) const {
  const size_t n = hosts.size();
  std::vector<int32_t> cls;
  std::vector<int> rep;
  Classes(hosts, &cls, &rep);
  const size_t k = rep.size();
  // A repeated valid host would need a zero cost off the diagonal.
  std::vector<char> seen(static_cast<size_t>(num_hosts()), 0);
  for (size_t i = 0; i < n; ++i) {
    if (rep[cls[i]] < 0) continue;
    if (seen[hosts[i]]++) {
      return absl::InvalidArgumentError("host index " + std::to_string(hosts[i]) +
                                        " is listed twice");
    }
  }
  // Class x class table of (hops byte, rate index), the whole square: Choose breaks ties
  // source-major, so it need not be symmetric. Palette indices are cached per rate rank.
  CompactRates palette(&out->rates_gbps);
  std::vector<int16_t> index_of_rank;
  std::vector<uint8_t> table_hops(k * k), table_rate(k * k);
  // Classes of single-attachment hosts (the usual case) are filled from the attachment
  // tables directly; the result equals Choose's (see HostGraph::SingleAttachment).
  const int na = graph_.num_attachment_switches();
  std::vector<int> att(k, -1);
  std::vector<uint16_t> att_rank(k, 0);
  for (size_t x = 0; x < k; ++x) {
    if (rep[x] < 0 || !graph_.SingleAttachment(rep[x], &att[x], &att_rank[x])) att[x] = -1;
  }
  for (size_t x = 0; x < k; ++x) {
    for (size_t y = 0; y < k; ++y) {
      HostGraph::PairChoice c;
      if (att[x] >= 0 && att[y] >= 0) {
        const size_t cell = static_cast<size_t>(att[x]) * na + att[y];
        const int32_t links = att_hops_[cell];
        if (links >= 0) {
          c.hops = links + 1;
          c.rank = std::min({att_rank[x], att_rank[y], att_wide_[cell]});
        }
      } else {
        c = ChooseRep(rep[x], rep[y]);
      }
      uint8_t h = kCompactUnreachable, r = 0;
      if (c.hops >= 0) {
        if (c.hops > kCompactMaxHops) return CompactTooManyHops(c.hops);
        if (c.rank >= index_of_rank.size()) index_of_rank.resize(c.rank + 1, -1);
        if (index_of_rank[c.rank] < 0) {
          const int index = palette.Index(graph_.rate(c.rank));
          if (index < 0) return CompactTooManyRates();
          index_of_rank[c.rank] = static_cast<int16_t>(index);
        }
        h = static_cast<uint8_t>(c.hops);
        r = static_cast<uint8_t>(index_of_rank[c.rank]);
      }
      table_hops[x * k + y] = h;
      table_rate[x * k + y] = r;
    }
  }
  // One stored row per class, gathered from the class's table row; its entries for the
  // other members of the class are table[x][x], their cost to each other.
  out->n = n;
  out->row_of.assign(n, -1);
  out->diagonal.clear();
  out->hops.clear();
  out->rate_index.clear();
  out->hops.reserve(k * n);
  out->rate_index.reserve(k * n);
  std::vector<int32_t> row_of_class(k, -1);
  for (size_t i = 0; i < n; ++i) {
    const size_t x = static_cast<size_t>(cls[i]);
    if (row_of_class[x] < 0) {
      const int32_t r = out->AddRow(rep[x] >= 0 ? 0 : kCompactUnreachable);
      char* row_hops = &out->hops[static_cast<size_t>(r) * n];
      char* row_rate = &out->rate_index[static_cast<size_t>(r) * n];
      const uint8_t* th = table_hops.data() + x * k;
      const uint8_t* tr = table_rate.data() + x * k;
      for (size_t j = 0; j < n; ++j) {
        row_hops[j] = static_cast<char>(th[cls[j]]);
        row_rate[j] = static_cast<char>(tr[cls[j]]);
      }
      row_of_class[x] = r;
    }
    out->row_of[i] = row_of_class[x];
  }
  return absl::OkStatus();
}

int32_t CompactRowSet::AddRow(uint8_t diagonal_hops) {
  diagonal.push_back(diagonal_hops);
  hops.resize(hops.size() + n, '\0');
  rate_index.resize(rate_index.size() + n, '\0');
  return static_cast<int32_t>(diagonal.size()) - 1;
}

void CompactRowSet::CopyRow(size_t i, char* hops_out, char* rate_out) const {
  const size_t r = static_cast<size_t>(row_of[i]);
  std::memcpy(hops_out, hops.data() + r * n, n);
  std::memcpy(rate_out, rate_index.data() + r * n, n);
  hops_out[i] = static_cast<char>(diagonal[r]);
  rate_out[i] = 0;
}

absl::Status PairCosts::MatrixCompact(const std::vector<int>& hosts, std::string* hops,
                                      std::string* rate_index,
                                      std::vector<double>* rates_gbps) const {
  CompactRowSet rows;
  absl::Status s = MatrixCompactRows(hosts, &rows);
  if (!s.ok()) return s;
  // Appended row by row (no zero-fill of n*n bytes first), then each row's diagonal.
  const size_t n = rows.n;
  hops->clear();
  rate_index->clear();
  hops->reserve(n * n);
  rate_index->reserve(n * n);
  for (size_t i = 0; i < n; ++i) {
    const size_t r = static_cast<size_t>(rows.row_of[i]);
    hops->append(rows.hops, r * n, n);
    rate_index->append(rows.rate_index, r * n, n);
    (*hops)[i * n + i] = static_cast<char>(rows.diagonal[r]);
    (*rate_index)[i * n + i] = 0;
  }
  *rates_gbps = std::move(rows.rates_gbps);
  return absl::OkStatus();
}

absl::Status CompactTooManyHops(int32_t hops) {
  return absl::OutOfRangeError("a path crosses " + std::to_string(hops) +
                               " switches; the compact matrix holds at most " +
                               std::to_string(kCompactMaxHops));
}

absl::Status CompactTooManyRates() {
  return absl::OutOfRangeError("the pairs have more than " + std::to_string(kCompactMaxRates) +
                               " distinct bottleneck rates; the compact matrix holds at most " +
                               std::to_string(kCompactMaxRates));
}

absl::StatusOr<HostPath> HostCosts::Path(int a, int b) const {
  const int n = num_hosts();
  if (a < 0 || a >= n || b < 0 || b >= n) {
    return absl::InvalidArgumentError("host index out of range: (" + std::to_string(a) + ", " +
                                      std::to_string(b) + "); the fabric has " + std::to_string(n) +
                                      " hosts");
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

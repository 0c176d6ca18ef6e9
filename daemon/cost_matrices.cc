#include "daemon/cost_matrices.h"

#include <memory>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "mapping/costs/quantized_costs.h"

namespace toporr::daemon {
namespace {

// The CompactCosts fields besides the bytes: the rates palette and the latency model.
void SetPaletteAndModel(const std::vector<double>& rates, const mapping::CostModelOptions& model,
                        v1::CompactCosts* out) {
  out->mutable_rates_gbps()->Reserve(static_cast<int>(rates.size()));
  for (double r : rates) out->add_rates_gbps(static_cast<float>(r));
  // The wire's constant term is the model's: NICs and the per-message software cost.
  out->set_nic_latency_ns(model.nic_latency_ns + model.per_message_ns);
  out->set_switch_latency_ns(model.switch_latency_ns);
  out->set_link_latency_ns(model.link_latency_ns);
}

// The matrix written straight into the response's byte fields. kOutOfRange when it does
// not fit the compact form (the caller sends CostArrays instead).
absl::Status FillCompact(const mapping::PairCosts& costs, const std::vector<int>& hosts,
                         v1::CompactCosts* out) {
  std::vector<double> rates;
  RETURN_IF_ERROR(
      costs.MatrixCompact(hosts, out->mutable_hops(), out->mutable_rate_index(), &rates));
  SetPaletteAndModel(rates, costs.cost_model(), out);
  return absl::OkStatus();
}

// kFailedPrecondition naming the first pair (i, j), i != j, of rows x cols whose cost is
// unknown (`unreachable(i, j)`): a reply with unknown entries is never a success. With
// forwarding tables that cannot happen (BuildPairCosts); with shortest paths it means the
// fabric is not connected between those hosts.
template <typename Unreachable>
absl::Status RequireRoutes(const Serving& s, const std::vector<int>& rows,
                           const std::vector<int>& cols, Unreachable unreachable) {
  for (size_t i = 0; i < rows.size(); ++i) {
    for (size_t j = 0; j < cols.size(); ++j) {
      if (rows[i] == cols[j] || !unreachable(i, j)) continue;
      return absl::FailedPreconditionError(
          absl::StrCat("no route between '", s.fabric.hosts[rows[i]].name, "' and '",
                       s.fabric.hosts[cols[j]].name, "' in snapshot ", s.info.id,
                       " (the fabric is not connected there; see `toporrctl path`)"));
    }
  }
  return absl::OkStatus();
}

void StartRow(const Serving& s, v1::GetCostRowResponse* resp) {
  resp->set_snapshot_id(s.info.id);
  resp->set_route_kind(RouteKindOf(s));
}

absl::Status FillRowArrays(const Serving& s, int self, const std::vector<int>& cols,
                           v1::GetCostRowResponse* resp) {
  v1::CostArrays* costs = resp->mutable_costs();
  costs->mutable_hops()->Reserve(cols.size());
  costs->mutable_bottleneck_gbps()->Reserve(cols.size());
  costs->mutable_latency_ns()->Reserve(cols.size());
  for (int c : cols) AppendCost(s.costs->Cost(self, c), costs);
  return RequireRoutes(s, {self}, cols, [&](size_t, size_t j) { return costs->hops(j) < 0; });
}

}  // namespace

void AppendCost(const mapping::HostPairCost& c, v1::CostArrays* out) {
  out->add_hops(c.hops);
  out->add_bottleneck_gbps(static_cast<float>(c.bottleneck_gbps));
  out->add_latency_ns(static_cast<float>(c.latency_ns));
}

v1::RouteKind RouteKindOf(const Serving& s) {
  if (s.source_format == collectors::InputFormat::kPlogp) {
    return v1::MEASURED;
  }
  return s.costs->route_kind() == mapping::PairCosts::RouteKind::kForwardingTables
             ? v1::FORWARDING_TABLES
             : v1::SHORTEST_PATH;
}

absl::Status FillCostMatrix(const Serving& s, const std::vector<int>& hosts,
                            const v1::GetCostMatrixRequest& req, MatrixCache* cache,
                            v1::GetCostMatrixResponse* resp) {
  if (req.compact() && cache != nullptr) {
    if (auto hit = cache->Find(req, s.info.id)) {
      *resp = *hit;
      return absl::OkStatus();
    }
  }
  resp->set_snapshot_id(s.info.id);
  resp->set_route_kind(RouteKindOf(s));
  *resp->mutable_hosts() = req.hosts();
  if (req.compact()) {
    absl::Status compact = FillCompact(*s.costs, hosts, resp->mutable_compact());
    if (compact.ok()) {
      const std::string& hops = resp->compact().hops();
      const size_t n = hosts.size();
      RETURN_IF_ERROR(RequireRoutes(s, hosts, hosts, [&](size_t i, size_t j) {
        return static_cast<uint8_t>(hops[i * n + j]) == mapping::kCompactUnreachable;
      }));
      if (cache != nullptr) {
        cache->Insert(req, s.info.id, std::make_shared<const v1::GetCostMatrixResponse>(*resp));
      }
      return absl::OkStatus();
    }
    if (compact.code() != absl::StatusCode::kOutOfRange) return compact;
    resp->clear_compact();
    resp->set_compact_fallback(std::string(compact.message()));
  }
  std::vector<mapping::HostPairCost> matrix;
  s.costs->Matrix(hosts, &matrix);
  RETURN_IF_ERROR(RequireRoutes(
      s, hosts, hosts, [&](size_t i, size_t j) { return matrix[i * hosts.size() + j].hops < 0; }));
  v1::CostArrays* costs = resp->mutable_costs();
  costs->mutable_hops()->Reserve(matrix.size());
  costs->mutable_bottleneck_gbps()->Reserve(matrix.size());
  costs->mutable_latency_ns()->Reserve(matrix.size());
  for (const auto& c : matrix) AppendCost(c, costs);
  return absl::OkStatus();
}

void FillRouteTable(const Serving& s, const std::vector<int>& rows, const std::vector<int>& cols,
                    v1::RouteTable* out, std::string* missing) {
  out->Clear();
  if (s.routes == nullptr) {
    *missing = absl::StrCat("snapshot ", s.info.id,
                            " has no forwarding tables: ingest the subnet manager's (`toporrctl "
                            "ingest --format lft`) to model link contention");
    return;
  }
  std::vector<int32_t> route;
  std::unordered_map<int32_t, int> named;
  out->mutable_offsets()->Reserve(static_cast<int>(rows.size() * cols.size() + 1));
  out->add_offsets(0);
  for (int a : rows) {
    for (int b : cols) {
      if (a == b) {
        route.clear();
      } else {
        s.routes->Route(a, b, &route);
      }
      for (int32_t link : route) {
        out->add_links(static_cast<uint32_t>(link));
        if (named.emplace(link, 0).second) {
          out->add_link_ids(static_cast<uint32_t>(link));
          out->add_link_gbps(static_cast<float>(s.routes->link_gbps(link)));
        }
      }
      out->add_offsets(static_cast<uint64_t>(out->links_size()));
    }
  }
}

absl::Status FillCostRow(const Serving& s, int self, const std::vector<int>& cols,
                         bool compact_requested, v1::GetCostRowResponse* resp) {
  StartRow(s, resp);
  resp->set_host_column(-1);
  resp->mutable_hosts()->Reserve(static_cast<int>(cols.size()));
  for (size_t j = 0; j < cols.size(); ++j) {
    resp->add_hosts(s.fabric.hosts[cols[j]].name);
    if (cols[j] == self && resp->host_column() < 0) resp->set_host_column(static_cast<int>(j));
  }
  RETURN_IF_ERROR(FillRowArrays(s, self, cols, resp));
  if (compact_requested) {
    resp->set_compact_fallback(
        "compact rows are served for registered host lists (RegisterHostList, host_list)");
  }
  return absl::OkStatus();
}

absl::Status FillListedCostRow(const Serving& s, int self, const HostLists::View& view,
                               bool compact, v1::GetCostRowResponse* resp) {
  StartRow(s, resp);
  const int32_t column = view.list->column_of[self];
  resp->set_host_column(column);
  if (compact) {
    if (column < 0) {
      resp->set_compact_fallback("host '" + s.fabric.hosts[self].name +
                                 "' is not one of the host list's hosts");
    } else if (view.rows->status.ok()) {
      const mapping::CompactRowSet& rows = view.rows->rows;
      v1::CompactCosts* out = resp->mutable_compact();
      out->mutable_hops()->resize(rows.n);
      out->mutable_rate_index()->resize(rows.n);
      rows.CopyRow(static_cast<size_t>(column), out->mutable_hops()->data(),
                   out->mutable_rate_index()->data());
      SetPaletteAndModel(rows.rates_gbps, s.costs->cost_model(), out);
      const std::string& hops = out->hops();
      return RequireRoutes(s, {self}, view.list->hosts, [&](size_t, size_t j) {
        return static_cast<uint8_t>(hops[j]) == mapping::kCompactUnreachable;
      });
    } else if (view.rows->status.code() == absl::StatusCode::kOutOfRange) {
      resp->set_compact_fallback(std::string(view.rows->status.message()));
    } else {
      return view.rows->status;
    }
  }
  return FillRowArrays(s, self, view.list->hosts, resp);
}

absl::Status FillQuantizedCostMatrix(const Serving& s, const std::vector<int>& hosts,
                                     int64_t reference_bytes,
                                     v1::GetQuantizedCostMatrixResponse* resp) {
  std::vector<mapping::HostPairCost> matrix;
  s.costs->Matrix(hosts, &matrix);
  RETURN_IF_ERROR(RequireRoutes(
      s, hosts, hosts, [&](size_t i, size_t j) { return matrix[i * hosts.size() + j].hops < 0; }));
  const int64_t ref = reference_bytes > 0 ? reference_bytes : 65536;
  mapping::QuantizeOptions qopts;
  qopts.reference_bytes = ref;
  double ns_per_unit = 0;
  *resp->mutable_values() = PackLittleEndian(mapping::QuantizeCosts(matrix, qopts, &ns_per_unit));
  resp->set_snapshot_id(s.info.id);
  resp->set_ns_per_unit(ns_per_unit);
  resp->set_reference_bytes(ref);
  resp->set_route_kind(RouteKindOf(s));
  return absl::OkStatus();
}

std::string PackLittleEndian(const std::vector<uint16_t>& values) {
  std::string bytes(values.size() * 2, '\0');
  for (size_t i = 0; i < values.size(); ++i) {
    bytes[2 * i] = static_cast<char>(values[i] & 0xff);
    bytes[2 * i + 1] = static_cast<char>(values[i] >> 8);
  }
  return bytes;
}

}  // namespace toporr::daemon

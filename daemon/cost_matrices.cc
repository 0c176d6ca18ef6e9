#include "daemon/cost_matrices.h"

#include <memory>

#include "common/status_macros.h"
#include "mapping/quantized_costs.h"

namespace toporr::daemon {
namespace {

// The matrix written straight into the response's byte fields. kOutOfRange when it does
// not fit the compact form (the caller sends CostArrays instead).
absl::Status FillCompact(const mapping::PairCosts& costs, const std::vector<int>& hosts,
                         v1::CompactCosts* out) {
  std::vector<double> rates;
  RETURN_IF_ERROR(
      costs.MatrixCompact(hosts, out->mutable_hops(), out->mutable_rate_index(), &rates));
  out->mutable_rates_gbps()->Reserve(static_cast<int>(rates.size()));
  for (double r : rates) out->add_rates_gbps(static_cast<float>(r));
  const mapping::CostModelOptions& model = costs.cost_model();
  out->set_nic_latency_ns(model.nic_latency_ns);
  out->set_switch_latency_ns(model.switch_latency_ns);
  out->set_link_latency_ns(model.link_latency_ns);
  return absl::OkStatus();
}

}  // namespace

void AppendCost(const mapping::HostPairCost& c, v1::CostArrays* out) {
  out->add_hops(c.hops);
  out->add_bottleneck_gbps(static_cast<float>(c.bottleneck_gbps));
  out->add_latency_ns(static_cast<float>(c.latency_ns));
}

v1::RouteKind RouteKindOf(const Serving& s) {
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
  v1::CostArrays* costs = resp->mutable_costs();
  costs->mutable_hops()->Reserve(matrix.size());
  costs->mutable_bottleneck_gbps()->Reserve(matrix.size());
  costs->mutable_latency_ns()->Reserve(matrix.size());
  for (const auto& c : matrix) AppendCost(c, costs);
  return absl::OkStatus();
}

void FillQuantizedCostMatrix(const Serving& s, const std::vector<int>& hosts,
                             int64_t reference_bytes, v1::GetQuantizedCostMatrixResponse* resp) {
  std::vector<mapping::HostPairCost> matrix;
  s.costs->Matrix(hosts, &matrix);
  const int64_t ref = reference_bytes > 0 ? reference_bytes : 65536;
  mapping::QuantizeOptions qopts;
  qopts.reference_bytes = ref;
  double ns_per_unit = 0;
  *resp->mutable_values() = PackLittleEndian(mapping::QuantizeCosts(matrix, qopts, &ns_per_unit));
  resp->set_snapshot_id(s.info.id);
  resp->set_ns_per_unit(ns_per_unit);
  resp->set_reference_bytes(ref);
  resp->set_route_kind(RouteKindOf(s));
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

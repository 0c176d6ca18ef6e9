#include "client/costs/cost_matrix_codec.h"

#include <cmath>
#include <limits>
#include <string>
#include <unordered_map>

#include "absl/strings/str_cat.h"

namespace toporr::client {
namespace {

constexpr uint8_t kUnreachable = 255;

absl::Status BadSize(const char* field, size_t got, size_t want) {
  return absl::DataLossError(
      absl::StrCat("cost matrix reply: ", field, " has ", got, " elements, expected ", want));
}

absl::Status FromArrays(const v1::CostArrays& c, size_t nn, CostMatrixArrays& out) {
  if (static_cast<size_t>(c.hops_size()) != nn) return BadSize("hops", c.hops_size(), nn);
  if (static_cast<size_t>(c.bottleneck_gbps_size()) != nn) {
    return BadSize("bottleneck_gbps", c.bottleneck_gbps_size(), nn);
  }
  if (static_cast<size_t>(c.latency_ns_size()) != nn) {
    return BadSize("latency_ns", c.latency_ns_size(), nn);
  }
  out.hops.assign(c.hops().begin(), c.hops().end());
  out.bottleneck_gbps.assign(c.bottleneck_gbps().begin(), c.bottleneck_gbps().end());
  out.latency_ns.assign(c.latency_ns().begin(), c.latency_ns().end());
  return absl::OkStatus();
}

// What decoding compact entries needs besides their bytes, per possible byte value.
struct CompactTables {
  // Latency depends on the hop count alone: one evaluation per value, in the daemon's
  // order, rounded to float as CostArrays are.
  float latency[256];
  // Per rate index: the rate, or NaN for an index outside the palette.
  float gbps[256];

  explicit CompactTables(const v1::CompactCosts& c) {
    for (int h = 0; h < kUnreachable; ++h) {
      latency[h] = static_cast<float>(c.nic_latency_ns() + c.switch_latency_ns() * h +
                                      c.link_latency_ns() * (h + 1));
    }
    latency[kUnreachable] = std::numeric_limits<float>::infinity();
    for (int r = 0; r < 256; ++r) {
      gbps[r] = r < c.rates_gbps_size() ? c.rates_gbps(r) : std::numeric_limits<float>::quiet_NaN();
    }
  }
};

// Decodes n compact entries (one row) into the output arrays; entry `diagonal` (n or more:
// none) is the all-zero cost unless unreachable. Branch-free (the unreachable value is a
// select). False when a reachable entry off the diagonal has a rate index outside the
// palette.
template <typename Real>
bool DecodeCompactRow(const CompactTables& t, const uint8_t* hops, const uint8_t* rate, size_t n,
                      size_t diagonal, int32_t* out_hops, Real* out_gbps, Real* out_latency) {
  bool bad = false;
  for (size_t j = 0; j < n; ++j) {
    const uint8_t h = hops[j];
    const bool reachable = h != kUnreachable;
    const float g = t.gbps[rate[j]];
    bad |= reachable && j != diagonal && g != g;
    out_hops[j] = reachable ? h : -1;
    out_gbps[j] = reachable ? g : 0.0f;
    out_latency[j] = t.latency[h];
  }
  if (diagonal < n && hops[diagonal] != kUnreachable) {
    out_hops[diagonal] = 0;
    out_gbps[diagonal] = 0;
    out_latency[diagonal] = 0;
  }
  return !bad;
}

absl::Status FromCompact(const v1::CompactCosts& c, size_t n, CostMatrixArrays& out) {
  const size_t nn = n * n;
  if (c.hops().size() != nn) return BadSize("compact hops", c.hops().size(), nn);
  if (c.rate_index().size() != nn) return BadSize("compact rate_index", c.rate_index().size(), nn);
  const CompactTables tables(c);
  const auto* hops = reinterpret_cast<const uint8_t*>(c.hops().data());
  const auto* rate = reinterpret_cast<const uint8_t*>(c.rate_index().data());
  out.hops.resize(nn);
  out.bottleneck_gbps.resize(nn);
  out.latency_ns.resize(nn);
  for (size_t i = 0; i < n; ++i) {
    if (!DecodeCompactRow(tables, hops + i * n, rate + i * n, n, i, out.hops.data() + i * n,
                          out.bottleneck_gbps.data() + i * n, out.latency_ns.data() + i * n)) {
      return absl::DataLossError(absl::StrCat("cost matrix reply: row ", i,
                                              " has a rate_index "
                                              "outside the ",
                                              c.rates_gbps_size(), " rates of the palette"));
    }
  }
  return absl::OkStatus();
}

bool FiniteNonNegative(double v) { return std::isfinite(v) && v >= 0; }

absl::Status RowError(const v1::GetCostRowResponse& r, const std::string& what) {
  return absl::DataLossError(
      absl::StrCat("cost row of '", r.host(), "' (snapshot ", r.snapshot_id(), "): ", what));
}

absl::Status RowFromCompact(const v1::GetCostRowResponse& r, CostRowArrays& out) {
  const v1::CompactCosts& c = r.compact();
  const size_t n = static_cast<size_t>(out.n);
  if (c.hops().size() != n || c.rate_index().size() != n) {
    return RowError(r, absl::StrCat("compact hops / rate_index have ", c.hops().size(), " / ",
                                    c.rate_index().size(), " bytes, expected ", n));
  }
  for (int k = 0; k < c.rates_gbps_size(); ++k) {
    if (!FiniteNonNegative(c.rates_gbps(k))) {
      return RowError(r, absl::StrCat("palette rate ", k, " is ", c.rates_gbps(k), " Gb/s"));
    }
  }
  for (double v : {c.nic_latency_ns(), c.switch_latency_ns(), c.link_latency_ns()}) {
    if (!FiniteNonNegative(v)) return RowError(r, absl::StrCat("a latency constant is ", v, " ns"));
  }
  if (r.host_column() < -1 || r.host_column() >= out.n) {
    return RowError(
        r, absl::StrCat("host_column ", r.host_column(), " is outside the ", n, " columns"));
  }
  const auto* hops = reinterpret_cast<const uint8_t*>(c.hops().data());
  const auto* rate = reinterpret_cast<const uint8_t*>(c.rate_index().data());
  const size_t self = r.host_column() < 0 ? n : static_cast<size_t>(r.host_column());
  if (self < n && (hops[self] != 0 || rate[self] != 0)) {
    return RowError(r, absl::StrCat("its own column ", self, " is not zero"));
  }
  out.hops.resize(n);
  out.bottleneck_gbps.resize(n);
  out.latency_ns.resize(n);
  if (!DecodeCompactRow(CompactTables(c), hops, rate, n, self, out.hops.data(),
                        out.bottleneck_gbps.data(), out.latency_ns.data())) {
    for (size_t j = 0; j < n; ++j) {
      if (j != self && hops[j] != kUnreachable && rate[j] >= c.rates_gbps_size()) {
        return RowError(r, absl::StrCat("column ", j, " has rate_index ", rate[j],
                                        " outside the palette of ", c.rates_gbps_size()));
      }
    }
    return RowError(r, "a rate_index is outside the palette");
  }
  return absl::OkStatus();
}

absl::Status RowFromArrays(const v1::GetCostRowResponse& r, CostRowArrays& out) {
  const v1::CostArrays& c = r.costs();
  const int n = out.n;
  if (c.hops_size() != n || c.bottleneck_gbps_size() != n || c.latency_ns_size() != n) {
    return RowError(r, absl::StrCat("hops / bottleneck_gbps / latency_ns have ", c.hops_size(),
                                    " / ", c.bottleneck_gbps_size(), " / ", c.latency_ns_size(),
                                    " elements, expected ", n));
  }
  for (int j = 0; j < n; ++j) {
    if (!FiniteNonNegative(c.bottleneck_gbps(j)) ||
        (c.hops(j) >= 0 && !FiniteNonNegative(c.latency_ns(j)))) {
      return RowError(r, absl::StrCat("column ", j, " has bottleneck ", c.bottleneck_gbps(j),
                                      " Gb/s, latency ", c.latency_ns(j), " ns"));
    }
  }
  out.hops.assign(c.hops().begin(), c.hops().end());
  out.bottleneck_gbps.assign(c.bottleneck_gbps().begin(), c.bottleneck_gbps().end());
  out.latency_ns.assign(c.latency_ns().begin(), c.latency_ns().end());
  return absl::OkStatus();
}

}  // namespace

absl::Status DecodeCostMatrix(const v1::GetCostMatrixResponse& response, CostMatrixArrays* out) {
  out->n = response.hosts_size();
  const size_t n = static_cast<size_t>(out->n);
  if (response.has_compact()) return FromCompact(response.compact(), n, *out);
  return FromArrays(response.costs(), n * n, *out);
}

absl::StatusOr<CostRowArrays> DecodeCostRow(const v1::GetCostRowResponse& response,
                                            int expected_n) {
  if (expected_n < 1) {
    return absl::InvalidArgumentError(absl::StrCat("expected_n is ", expected_n, "; at least 1"));
  }
  CostRowArrays out;
  out.snapshot_id = response.snapshot_id();
  out.n = expected_n;
  if (response.hosts_size() > 0 && response.hosts_size() != expected_n) {
    return RowError(response, absl::StrCat("the reply names ", response.hosts_size(),
                                           " columns, expected ", expected_n));
  }
  absl::Status decoded =
      response.has_compact() ? RowFromCompact(response, out) : RowFromArrays(response, out);
  if (!decoded.ok()) return decoded;
  for (int j = 0; j < expected_n; ++j) {
    if (out.hops[j] < 0) {
      return RowError(
          response, absl::StrCat("column ", j,
                                 response.hosts_size() > 0 ? " ('" + response.hosts(j) + "')" : "",
                                 " is unreachable (partitioned fabric or uncabled host)"));
    }
  }
  return out;
}

absl::StatusOr<CostMatrixArrays> DecodeCostMatrix(const v1::GetCostMatrixResponse& response) {
  CostMatrixArrays out;
  absl::Status s = DecodeCostMatrix(response, &out);
  if (!s.ok()) return s;
  return out;
}

absl::StatusOr<std::vector<mapping::RouteRow>> DecodeRouteRows(const v1::RouteTable& table,
                                                               int num_rows, int num_cols) {
  const size_t rows = static_cast<size_t>(num_rows), cols = static_cast<size_t>(num_cols);
  if (static_cast<size_t>(table.offsets_size()) != rows * cols + 1 || table.offsets(0) != 0 ||
      table.offsets(table.offsets_size() - 1) != static_cast<uint64_t>(table.links_size()) ||
      table.link_ids_size() != table.link_gbps_size()) {
    return absl::DataLossError(absl::StrCat("route table of ", table.offsets_size(), " offsets, ",
                                            table.links_size(), " links and ",
                                            table.link_ids_size(), "/", table.link_gbps_size(),
                                            " link rates for ", rows, " x ", cols, " routes"));
  }
  std::unordered_map<uint32_t, float> rate;
  for (int k = 0; k < table.link_ids_size(); ++k) rate[table.link_ids(k)] = table.link_gbps(k);
  std::vector<mapping::RouteRow> out(rows);
  for (size_t i = 0; i < rows; ++i) {
    mapping::RouteRow& row = out[i];
    const uint64_t base = table.offsets(i * cols);
    std::unordered_map<uint32_t, bool> named;
    for (size_t j = 0; j <= cols; ++j) {
      const uint64_t at = table.offsets(i * cols + j);
      if (at < base || at > static_cast<uint64_t>(table.links_size())) {
        return absl::DataLossError(absl::StrCat("route table offsets decrease in row ", i));
      }
      row.offsets.push_back(static_cast<uint32_t>(at - base));
    }
    row.links.assign(table.links().begin() + base,
                     table.links().begin() + table.offsets((i + 1) * cols));
    for (uint32_t link : row.links) {
      if (!named.emplace(link, true).second) continue;
      auto r = rate.find(link);
      if (r == rate.end()) {
        return absl::DataLossError(absl::StrCat("route table: link ", link, " has no rate"));
      }
      row.link_ids.push_back(link);
      row.link_gbps.push_back(r->second);
    }
  }
  return out;
}

}  // namespace toporr::client

#include "client/cost_matrix_codec.h"

#include <limits>

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

absl::Status FromCompact(const v1::CompactCosts& c, size_t n, CostMatrixArrays& out) {
  const size_t nn = n * n;
  if (c.hops().size() != nn) return BadSize("compact hops", c.hops().size(), nn);
  if (c.rate_index().size() != nn) return BadSize("compact rate_index", c.rate_index().size(), nn);
  // Latency depends on the hop count alone: one evaluation per value, in the daemon's order.
  float latency[256];
  for (int h = 0; h < kUnreachable; ++h) {
    latency[h] = static_cast<float>(c.nic_latency_ns() + c.switch_latency_ns() * h +
                                    c.link_latency_ns() * (h + 1));
  }
  latency[kUnreachable] = std::numeric_limits<float>::infinity();
  // Per rate index: the rate, or NaN for an index outside the palette (checked per row).
  float gbps[256];
  for (int r = 0; r < 256; ++r) {
    gbps[r] = r < c.rates_gbps_size() ? c.rates_gbps(r) : std::numeric_limits<float>::quiet_NaN();
  }
  const auto* hops = reinterpret_cast<const uint8_t*>(c.hops().data());
  const auto* rate = reinterpret_cast<const uint8_t*>(c.rate_index().data());
  out.hops.resize(nn);
  out.bottleneck_gbps.resize(nn);
  out.latency_ns.resize(nn);
  // Branch-free rows (the unreachable value is a select), then the diagonal.
  for (size_t i = 0; i < n; ++i) {
    const uint8_t* hr = hops + i * n;
    const uint8_t* rr = rate + i * n;
    int32_t* oh = out.hops.data() + i * n;
    float* ob = out.bottleneck_gbps.data() + i * n;
    float* ol = out.latency_ns.data() + i * n;
    bool bad = false;
    for (size_t j = 0; j < n; ++j) {
      const uint8_t h = hr[j];
      const bool reachable = h != kUnreachable;
      const float g = gbps[rr[j]];
      bad |= reachable && j != i && g != g;
      oh[j] = reachable ? h : -1;
      ob[j] = reachable ? g : 0.0f;
      ol[j] = latency[h];
    }
    if (bad) {
      return absl::DataLossError(absl::StrCat("cost matrix reply: row ", i,
                                              " has a rate_index "
                                              "outside the ",
                                              c.rates_gbps_size(), " rates of the palette"));
    }
    if (hr[i] != kUnreachable) {
      oh[i] = 0;
      ob[i] = 0;
      ol[i] = 0;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status DecodeCostMatrix(const v1::GetCostMatrixResponse& response, CostMatrixArrays* out) {
  out->n = response.hosts_size();
  const size_t n = static_cast<size_t>(out->n);
  if (response.has_compact()) return FromCompact(response.compact(), n, *out);
  return FromArrays(response.costs(), n * n, *out);
}

absl::StatusOr<CostMatrixArrays> DecodeCostMatrix(const v1::GetCostMatrixResponse& response) {
  CostMatrixArrays out;
  absl::Status s = DecodeCostMatrix(response, &out);
  if (!s.ok()) return s;
  return out;
}

absl::StatusOr<CostRowArrays> DecodeCostRow(const v1::GetCostRowResponse& resp, int expected_n) {
  // TEMPORARY (replaced by the daemon branch's decoder at merge).
  CostRowArrays out;
  out.snapshot_id = resp.snapshot_id();
  out.n = expected_n;
  const v1::CompactCosts& c = resp.compact();
  const size_t n = static_cast<size_t>(expected_n);
  if (c.hops().size() != n || c.rate_index().size() != n) {
    return absl::DataLossError("cost row reply: wrong size");
  }
  for (size_t j = 0; j < n; ++j) {
    const uint8_t h = static_cast<uint8_t>(c.hops()[j]);
    const uint8_t r = static_cast<uint8_t>(c.rate_index()[j]);
    if (h == kUnreachable || r >= c.rates_gbps_size()) {
      return absl::DataLossError("cost row reply: bad entry");
    }
    out.hops.push_back(h);
    out.bottleneck_gbps.push_back(c.rates_gbps(r));
    out.latency_ns.push_back(static_cast<float>(c.nic_latency_ns() + c.switch_latency_ns() * h +
                                                c.link_latency_ns() * (h + 1)));
  }
  return out;
}

}  // namespace toporr::client

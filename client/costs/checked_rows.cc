// Every row source's rows are checked before a decision uses them (row_source.h
// CheckCostValues): a NaN, infinite, negative or absurd cost is refused, naming the column.
#include <cmath>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "client/costs/row_source.h"

namespace toporr::client {
namespace {

class CheckedRowSource final : public RowSource {
 public:
  explicit CheckedRowSource(std::unique_ptr<RowSource> inner) : inner_(std::move(inner)) {}

  std::string_view kind() const override { return inner_->kind(); }

  absl::StatusOr<HostListTicket> Prepare(const std::vector<std::string>& hosts) override {
    return inner_->Prepare(hosts);
  }

  absl::StatusOr<CostRow> Row(const HostListTicket& ticket, const std::vector<std::string>& hosts,
                              int host_index, bool with_routes) override {
    absl::StatusOr<CostRow> row = inner_->Row(ticket, hosts, host_index, with_routes);
    if (row.ok()) {
      if (absl::Status s = CheckCostValues(*row, hosts, host_index); !s.ok()) return s;
    }
    return row;
  }

 private:
  std::unique_ptr<RowSource> inner_;
};

}  // namespace

absl::Status CheckCostValues(const CostRow& row, const std::vector<std::string>& hosts,
                             int host_index) {
  const size_t n = hosts.size();
  if (row.values.size() != 2 * n) return absl::OkStatus();  // the caller refuses the shape
  for (size_t j = 0; j < 2 * n; ++j) {
    const double v = row.values[j];
    const bool latency = j < n;
    const double max = latency ? kMaxLatencyNs : kMaxBottleneckGbps;
    if (std::isfinite(v) && v >= 0 && v <= max) continue;
    const size_t col = latency ? j : j - n;
    return absl::DataLossError(absl::StrCat(
        "the row of ", hosts[host_index], ": ", latency ? "latency_ns" : "bottleneck_gbps", " to ",
        hosts[col], " is ", std::isnan(v) ? "NaN" : absl::StrCat(v), ", not a cost (finite, 0..",
        max, latency ? " ns" : " Gb/s", "); not using these costs"));
  }
  return absl::OkStatus();
}

std::unique_ptr<RowSource> WithCostChecks(std::unique_ptr<RowSource> source) {
  return std::make_unique<CheckedRowSource>(std::move(source));
}

}  // namespace toporr::client

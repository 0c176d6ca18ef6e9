#include "mapping/routes/fabric_routes.h"

#include <string>
#include <utility>

namespace toporr::mapping {

absl::StatusOr<std::unique_ptr<FabricRoutes>> FabricRoutes::Create(const fabric::Fabric& fabric,
                                                                   FabricRoutesOptions options) {
  absl::StatusOr<HostGraph> graph = HostGraph::Build(fabric);
  if (!graph.ok()) return graph.status();
  std::unique_ptr<FabricRoutes> routes(new FabricRoutes(*std::move(graph), options));
  routes->graph_.AttachmentTables(&routes->att_hops_, &routes->att_wide_, &routes->toward_);
  return routes;
}

FabricRoutes::FabricRoutes(HostGraph graph, FabricRoutesOptions options)
    : graph_(std::move(graph)), options_(options) {}

double FabricRoutes::link_gbps(int directed_link) const {
  const double r = graph_.directed_link_rate(directed_link);
  return r > 0 ? r : options_.gbps_when_no_rate_known;
}

bool FabricRoutes::Connected(int a, int b) const {
  const int n = num_hosts();
  if (a < 0 || a >= n || b < 0 || b >= n || a == b) return false;
  return graph_.Choose(a, b, att_hops_.data(), att_wide_.data()).hops >= 0;
}

void FabricRoutes::Route(int a, int b, std::vector<int32_t>* directed_links) const {
  directed_links->clear();
  const int n = num_hosts();
  if (a < 0 || a >= n || b < 0 || b >= n || a == b) return;
  const HostGraph::PairChoice c = graph_.Choose(a, b, att_hops_.data(), att_wide_.data());
  if (c.hops < 0) return;
  const HostGraph::Toward* toward = c.direct < 0 ? &toward_[graph_.attachment(c.dst).att] : nullptr;
  graph_.Walk(c, toward, /*hops=*/nullptr, directed_links);
}

absl::StatusOr<std::unique_ptr<RouteSource>> FabricRoutes::ForJob(
    const std::vector<int>& fabric_hosts) const {
  const int n = num_hosts();
  std::vector<bool> seen(n, false);
  for (int h : fabric_hosts) {
    if (h < 0 || h >= n) {
      return absl::InvalidArgumentError("job host " + std::to_string(h) +
                                        " is not a fabric host index (0.." + std::to_string(n - 1) +
                                        ")");
    }
    if (seen[h]) {
      return absl::InvalidArgumentError("fabric host " + std::to_string(h) +
                                        " appears twice in the job's host list");
    }
    seen[h] = true;
  }
  for (size_t i = 0; i < fabric_hosts.size(); ++i) {
    for (size_t j = i + 1; j < fabric_hosts.size(); ++j) {
      if (!Connected(fabric_hosts[i], fabric_hosts[j])) {
        return absl::FailedPreconditionError("fabric hosts " + std::to_string(fabric_hosts[i]) +
                                             " and " + std::to_string(fabric_hosts[j]) +
                                             " are not connected by the fabric");
      }
    }
  }
  return JobView(*this, fabric_hosts);
}

}  // namespace toporr::mapping

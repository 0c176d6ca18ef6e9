#include "mapping/prediction/host_link_routes.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace toporr::mapping {
namespace {

constexpr int kSampledPeers = 64;

class HostLinks : public RouteSource {
 public:
  explicit HostLinks(std::vector<double> gbps) : gbps_(std::move(gbps)) {}
  int num_directed_links() const override { return 2 * static_cast<int>(gbps_.size()); }
  double link_gbps(int directed_link) const override { return gbps_[directed_link / 2]; }
  void Route(int host_a, int host_b, std::vector<int32_t>* directed_links) const override {
    directed_links->clear();
    if (host_a == host_b) return;
    directed_links->push_back(2 * host_a);
    directed_links->push_back(2 * host_b + 1);
  }

 private:
  std::vector<double> gbps_;  // per host
};

}  // namespace

std::unique_ptr<RouteSource> HostLinkRoutes(const HostCostMatrix& costs) {
  const int n = costs.num_hosts();
  std::vector<double> gbps(n, 0);
  for (int a = 0; a < n; ++a) {
    for (int k = 1; k <= std::min(kSampledPeers, n - 1); ++k) {
      const int b = (a + k) % n;
      const double beta = std::max(costs.BetaNs(a, b), costs.BetaNs(b, a));
      if (beta > 0) gbps[a] = std::max(gbps[a], 8.0 / beta);
    }
    if (gbps[a] <= 0) gbps[a] = 1e9;  // a lone host (or free links): never the bottleneck
  }
  return std::make_unique<HostLinks>(std::move(gbps));
}

}  // namespace toporr::mapping

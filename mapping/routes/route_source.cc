#include "mapping/routes/route_source.h"

#include <utility>

namespace toporr::mapping {
namespace {

class JobRoutes final : public RouteSource {
 public:
  JobRoutes(const RouteSource& fabric_wide, std::vector<int> hosts)
      : fabric_wide_(fabric_wide), hosts_(std::move(hosts)) {}
  int num_directed_links() const override { return fabric_wide_.num_directed_links(); }
  double link_gbps(int directed_link) const override {
    return fabric_wide_.link_gbps(directed_link);
  }
  void Route(int a, int b, std::vector<int32_t>* directed_links) const override {
    fabric_wide_.Route(hosts_[a], hosts_[b], directed_links);
  }

 private:
  const RouteSource& fabric_wide_;
  std::vector<int> hosts_;
};

}  // namespace

std::unique_ptr<RouteSource> JobView(const RouteSource& fabric_wide, std::vector<int> hosts) {
  return std::make_unique<JobRoutes>(fabric_wide, std::move(hosts));
}

}  // namespace toporr::mapping

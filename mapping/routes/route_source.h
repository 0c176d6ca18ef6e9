// Routes between the hosts of a job, as the contention-aware predictor
// (mapping/prediction/predict.h) consumes them.
//
// A route is the ordered list of DIRECTED links a message from host a to host b crosses:
// the HCA->switch cable, the switch->switch links, and the switch->HCA cable. Directed links
// are numbered 0..num_directed_links()-1; a physical (full-duplex) cable is two directed
// links, one per direction, because traffic a->b and b->a does not contend. Hosts are indexed
// 0..n-1 over the job's explicit host list, the same list Placement::ranks[r].host and the
// HostCostMatrix use.
//
// Contract for implementations (mapping/routes/fabric_routes.h builds one from the fabric graph):
//   - Route(a, a, out) leaves `out` empty: intra-host traffic never touches the fabric.
//   - Route(a, b, out) for a != b appends at least one link; the route is deterministic
//     (the same call returns the same links), as the LFTs make it on a real fabric.
//   - Route clears `out` first; callers reuse one vector to avoid allocation.
//   - link_gbps(l) > 0 is the data rate of directed link l in Gb/s.
//   - Immutable after construction; all methods are safe to call from several threads.
// The number of switches a route crosses is links.size() - 1 for host-to-host routes.
#ifndef TOPORR_MAPPING_ROUTES_ROUTE_SOURCE_H_
#define TOPORR_MAPPING_ROUTES_ROUTE_SOURCE_H_

#include <cstdint>
#include <memory>
#include <vector>

namespace toporr::mapping {

class RouteSource {
 public:
  virtual ~RouteSource() = default;

  // Number of directed links; link ids are 0..num_directed_links()-1.
  virtual int num_directed_links() const = 0;
  // Data rate of one directed link in Gb/s (> 0).
  virtual double link_gbps(int directed_link) const = 0;
  // Clears `directed_links` and fills it with the links from host_a to host_b, in order.
  virtual void Route(int host_a, int host_b, std::vector<int32_t>* directed_links) const = 0;
};

// A job's view of a fabric-wide RouteSource: job host i is host `hosts[i]` of `fabric_wide`,
// so Route(a, b) takes job indices 0..hosts.size()-1; directed links and their rates are
// fabric_wide's, unchanged. Refers to `fabric_wide`, which must outlive the view; as
// thread-safe as `fabric_wide`. Does not check `hosts`: what makes a host list routable
// differs by source (FabricRoutes needs connected hosts, LftRoutes hosts with a LID), so
// their ForJob checks it before calling this.
std::unique_ptr<RouteSource> JobView(const RouteSource& fabric_wide, std::vector<int> hosts);

}  // namespace toporr::mapping

#endif  // TOPORR_MAPPING_ROUTES_ROUTE_SOURCE_H_

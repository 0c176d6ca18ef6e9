// Directed-link routes between fabric hosts, built from the fabric graph (no LFTs): the
// RouteSource (route_source.h) the contention-aware predictor consumes when no forwarding tables
// are known.
//
// The route of a pair is exactly the path HostCosts::Path reports (host_graph.h: best port
// pair, then destination-based widest-shortest next hops, ties spread by destination port
// like D-mod-k), as directed links. Directed link id = 2 * link_index + (traversed from Link::a to
// Link::b ? 0 : 1), link_index into Fabric::links.
//
// FabricRoutes indexes hosts over ALL fabric hosts (Fabric::hosts). A job's view, indexed over
// its explicit host list as route_source.h requires, comes from ForJob.
//
// Cost: Create runs one widest-shortest search per switch with host ports (A of them) and
// keeps its result: O(A * (S + L)) time, A * S * 12 bytes. A route is then a walk of at most
// diameter steps, each scanning the ports of one switch. Immutable; const methods are thread-safe.
#ifndef TOPORR_MAPPING_ROUTES_FABRIC_ROUTES_H_
#define TOPORR_MAPPING_ROUTES_FABRIC_ROUTES_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "fabric/fabric.h"
#include "mapping/routes/host_graph.h"
#include "mapping/routes/route_source.h"

namespace toporr::mapping {

struct FabricRoutesOptions {
  // route_source.h promises link_gbps > 0. Links of unknown rate count as the slowest known rate
  // (as in mapping/costs/host_costs.h); when NO link of the fabric has a known rate, every link
  // gets this rate (4x EDR), so contention counts still compare correctly (all links equal).
  double gbps_when_no_rate_known = 100.0;
};

class FabricRoutes final : public RouteSource {
 public:
  // kInvalidArgument when the fabric is inconsistent. Copies what it needs.
  static absl::StatusOr<std::unique_ptr<FabricRoutes>> Create(const fabric::Fabric& fabric,
                                                              FabricRoutesOptions options = {});

  int num_hosts() const { return graph_.num_hosts(); }
  // 2 * Fabric::links.size().
  int num_directed_links() const override { return 2 * graph_.num_links(); }
  // Effective data rate in Gb/s (> 0), the same for both directions of a cable.
  double link_gbps(int directed_link) const override;
  // Fabric host indices. Clears `directed_links`, then fills it with the route: the source
  // HCA cable, switch-to-switch links, the destination HCA cable (one link for hosts cabled
  // back to back). Left empty when a == b, when an index is out of range, and when the hosts
  // are not connected (HostCosts::Cost(a, b).hops < 0); ForJob rules the last two out.
  void Route(int host_a, int host_b, std::vector<int32_t>* directed_links) const override;
  // True when a != b are valid and connected.
  bool Connected(int host_a, int host_b) const;

  // A RouteSource over a job's host list (job host i = fabric host fabric_hosts[i]) that
  // keeps a pointer to this FabricRoutes, which must outlive it. kInvalidArgument for an index
  // out of range or a repeated host; kFailedPrecondition when two of the hosts are not
  // connected (their routes would be empty, which route_source.h does not allow). O(n^2) check.
  absl::StatusOr<std::unique_ptr<RouteSource>> ForJob(const std::vector<int>& fabric_hosts) const;

 private:
  FabricRoutes(HostGraph graph, FabricRoutesOptions options);

  HostGraph graph_;
  FabricRoutesOptions options_;
  std::vector<int32_t> att_hops_;
  std::vector<uint16_t> att_wide_;
  std::vector<HostGraph::Toward> toward_;  // by attachment switch
};

}  // namespace toporr::mapping

#endif  // TOPORR_MAPPING_ROUTES_FABRIC_ROUTES_H_

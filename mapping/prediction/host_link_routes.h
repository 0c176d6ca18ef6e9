// Routes that model only the hosts' own links, for when the fabric's routes are unknown
// (libtoporr and `toporrctl plan` on the daemon's or a file's host costs).
//
// Every host has two directed links, its HCA's send and receive directions, and a message
// from host a to host b crosses a's send link and b's receive link. So the predictor
// (predict.h) charges the ranks of one host that talk to other hosts at the same time for
// sharing their host's link, which a cost matrix alone (C = 1 per transfer) cannot express;
// switch-to-switch links are taken as never shared (a full-bisection fabric). A host's link
// rate is the fastest bottleneck rate (8 / BetaNs) among its pairs with up to 64 other hosts
// (the bottleneck of a pair can only be slower than either host's link, so this is the HCA
// rate as soon as one sampled pair is limited by it alone). O(64 n) to build.
#ifndef TOPORR_MAPPING_PREDICTION_HOST_LINK_ROUTES_H_
#define TOPORR_MAPPING_PREDICTION_HOST_LINK_ROUTES_H_

#include <memory>

#include "mapping/costs/cost_matrix.h"
#include "mapping/routes/route_source.h"

namespace toporr::mapping {

// Directed link 2h is host h's send direction, 2h + 1 its receive direction.
std::unique_ptr<RouteSource> HostLinkRoutes(const HostCostMatrix& costs);

}  // namespace toporr::mapping

#endif  // TOPORR_MAPPING_PREDICTION_HOST_LINK_ROUTES_H_

// Host costs (and, from a fabric, routes) over a job's own host list, in the form the
// mapping engine consumes. Two sources: a parsed fabric dump (offline; routes included, so
// link contention is modelled) or the daemon's cost matrix (no routes).
#ifndef TOPORR_CLIENT_JOB_COSTS_H_
#define TOPORR_CLIENT_JOB_COSTS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "fabric/fabric.h"
#include "mapping/cost_matrix.h"
#include "mapping/fabric_routes.h"
#include "mapping/routes.h"

namespace toporr::client {

struct JobCosts {
  std::unique_ptr<mapping::FabricRoutes> fabric_routes;  // owns what `routes` views
  std::unique_ptr<mapping::HostCostMatrix> costs;        // indexed like the job's host list
  std::unique_ptr<mapping::RouteSource> routes;          // null when unknown
};

// kNotFound naming the first job host that is not a fabric host.
absl::StatusOr<JobCosts> JobCostsFromFabric(const fabric::Fabric& fabric,
                                            const std::vector<std::string>& job_hosts);

// From a row-major n x n (alpha ns, Gb/s) matrix as served by the daemon; beta = 8 / Gb/s.
absl::StatusOr<JobCosts> JobCostsFromMatrix(int n, const std::vector<double>& latency_ns,
                                            const std::vector<double>& bottleneck_gbps);

}  // namespace toporr::client

#endif  // TOPORR_CLIENT_JOB_COSTS_H_

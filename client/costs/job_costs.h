// Host costs (and, from a fabric, routes) over a job's own host list, in the form the
// mapping engine consumes. Two sources: a parsed fabric dump (offline; routes included, so
// link contention is modelled) or the daemon's cost matrix (no routes). JobCostsFor() makes
// that choice; the daemon is reached through an injected fetcher, so this library needs no
// gRPC and serves toporrctl and the MPI library alike.
#ifndef TOPORR_CLIENT_COSTS_JOB_COSTS_H_
#define TOPORR_CLIENT_COSTS_JOB_COSTS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "collectors/fabric_input.h"
#include "fabric/fabric.h"
#include "mapping/costs/cost_matrix.h"
#include "mapping/costs/host_costs.h"
#include "mapping/routes/fabric_routes.h"
#include "mapping/routes/route_source.h"

namespace toporr::client {

struct JobCosts {
  std::unique_ptr<const fabric::Fabric> fabric;          // offline only; what routes are over
  std::unique_ptr<mapping::FabricRoutes> fabric_routes;  // owns what `routes` views
  std::unique_ptr<mapping::HostCostMatrix> costs;        // indexed like the job's host list
  std::unique_ptr<mapping::RouteSource> routes;          // null when unknown
  // Where the costs came from, for people: "fabric fabric.topo (routes modelled)" or
  // "toporrd snapshot 3 (no routes: contention not modelled)".
  std::string source;
};

// The daemon's cost matrix over a host list: row-major n x n, latency in ns and bottleneck
// rate in Gb/s, as served by snapshot `snapshot_id`.
struct ServedCostMatrix {
  int64_t snapshot_id = 0;
  int n = 0;
  std::vector<double> latency_ns;
  std::vector<double> bottleneck_gbps;
  // Along the snapshot's forwarding tables, over the same host list; null when the snapshot
  // has none (`routes_missing` says why).
  std::unique_ptr<mapping::RouteSource> routes;
  std::string routes_missing;
};

// Asks the daemon for the matrix over `hosts`; its errors are passed on unchanged.
using CostMatrixFetcher =
    std::function<absl::StatusOr<ServedCostMatrix>(const std::vector<std::string>& hosts)>;

struct CostSourceOptions {
  // A fabric dump to read offline (routes included, so contention is modelled). Empty: ask
  // the daemon.
  std::string fabric_path;
  collectors::InputFormat fabric_format = collectors::InputFormat::kIbnetdiscover;
  // The cost model applied to the dump (mapping/costs/cost_model.h), as toporrd applies its
  // configured one to the snapshots it serves. Not used for the daemon's answers.
  mapping::CostModelOptions cost_model;
};

// Costs over `job_hosts` from the fabric dump of `source`, else from `fetch_matrix` (then it
// must be set). kNotFound when the dump cannot be read or a job host is not in the fabric;
// the dump's own parse errors name its file and line.
absl::StatusOr<JobCosts> JobCostsFor(const CostSourceOptions& source,
                                     const std::vector<std::string>& job_hosts,
                                     const CostMatrixFetcher& fetch_matrix);

// kNotFound naming the first job host that is not a fabric host. `fabric` is taken as the
// model sees it: its rates already scaled (mapping::ScaledFabric) when the model scales them.
absl::StatusOr<JobCosts> JobCostsFromFabric(const fabric::Fabric& fabric,
                                            const std::vector<std::string>& job_hosts,
                                            const mapping::CostModelOptions& model = {});

// From a row-major n x n (alpha ns, Gb/s) matrix as served by the daemon; beta = 8 / Gb/s.
absl::StatusOr<JobCosts> JobCostsFromMatrix(int n, const std::vector<double>& latency_ns,
                                            const std::vector<double>& bottleneck_gbps);

}  // namespace toporr::client

#endif  // TOPORR_CLIENT_COSTS_JOB_COSTS_H_

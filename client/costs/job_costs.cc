#include "client/costs/job_costs.h"

#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "mapping/costs/cost_model.h"
#include "mapping/costs/dense_cost_matrix.h"
#include "mapping/costs/host_costs.h"

namespace toporr::client {

absl::StatusOr<JobCosts> JobCostsFromFabric(const fabric::Fabric& fabric,
                                            const std::vector<std::string>& job_hosts,
                                            const mapping::CostModelOptions& model) {
  std::vector<int> ids;
  ids.reserve(job_hosts.size());
  for (const std::string& name : job_hosts) {
    int h = fabric.FindHost(name);
    if (h < 0) {
      return absl::NotFoundError(absl::StrCat("job host '", name, "' is not in the fabric (",
                                              fabric.hosts.size(), " hosts)"));
    }
    ids.push_back(h);
  }
  ASSIGN_OR_RETURN(auto host_costs, mapping::HostCosts::Create(fabric, model));
  std::vector<mapping::HostPairCost> matrix;
  host_costs->Matrix(ids, &matrix);
  const int n = static_cast<int>(ids.size());
  std::vector<double> alpha(matrix.size()), beta(matrix.size());
  for (size_t k = 0; k < matrix.size(); ++k) {
    alpha[k] = matrix[k].alpha_ns;
    beta[k] = matrix[k].beta_ns_per_byte;
  }
  JobCosts out;
  ASSIGN_OR_RETURN(out.costs,
                   mapping::DenseCostMatrix::Create(n, std::move(alpha), std::move(beta)));
  ASSIGN_OR_RETURN(out.fabric_routes, mapping::FabricRoutes::Create(fabric));
  ASSIGN_OR_RETURN(out.routes, out.fabric_routes->ForJob(ids));
  return out;
}

absl::StatusOr<JobCosts> JobCostsFromMatrix(int n, const std::vector<double>& latency_ns,
                                            const std::vector<double>& bottleneck_gbps) {
  const size_t nn = static_cast<size_t>(n) * n;
  if (latency_ns.size() != nn || bottleneck_gbps.size() != nn) {
    return absl::InvalidArgumentError(
        absl::StrCat("cost matrix has ", latency_ns.size(), " entries, expected ", nn));
  }
  std::vector<double> beta(nn, 0.0);
  for (size_t k = 0; k < nn; ++k) {
    beta[k] = bottleneck_gbps[k] > 0 ? 8.0 / bottleneck_gbps[k] : 0.0;
  }
  JobCosts out;
  ASSIGN_OR_RETURN(out.costs, mapping::DenseCostMatrix::Create(n, latency_ns, std::move(beta)));
  return out;
}

namespace {

absl::StatusOr<JobCosts> JobCostsFromDump(const CostSourceOptions& source,
                                          const std::vector<std::string>& job_hosts) {
  std::ifstream in(source.fabric_path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(source.fabric_path, ": cannot open"));
  std::stringstream content;
  content << in.rdbuf();
  const std::string text = content.str();
  const size_t slash = source.fabric_path.rfind('/');
  collectors::FabricInput input;
  input.format = source.fabric_format;
  input.source_name =
      slash == std::string::npos ? source.fabric_path : source.fabric_path.substr(slash + 1);
  input.content = text;
  ASSIGN_OR_RETURN(fabric::Fabric parsed, collectors::ParseFabricInput(input));
  auto fabric = std::make_unique<const fabric::Fabric>(
      mapping::ScalesRates(source.cost_model) ? mapping::ScaledFabric(parsed, source.cost_model)
                                              : std::move(parsed));
  ASSIGN_OR_RETURN(JobCosts out, JobCostsFromFabric(*fabric, job_hosts, source.cost_model));
  out.fabric = std::move(fabric);
  out.source = absl::StrCat("fabric ", input.source_name, " (routes modelled)");
  return out;
}

}  // namespace

absl::StatusOr<JobCosts> JobCostsFor(const CostSourceOptions& source,
                                     const std::vector<std::string>& job_hosts,
                                     const CostMatrixFetcher& fetch_matrix) {
  if (!source.fabric_path.empty()) return JobCostsFromDump(source, job_hosts);
  if (!fetch_matrix) {
    return absl::FailedPreconditionError("no fabric dump given and no daemon to ask for costs");
  }
  ASSIGN_OR_RETURN(ServedCostMatrix m, fetch_matrix(job_hosts));
  ASSIGN_OR_RETURN(JobCosts out, JobCostsFromMatrix(m.n, m.latency_ns, m.bottleneck_gbps));
  if (m.routes != nullptr) {
    out.routes = std::move(m.routes);
    out.source = absl::StrCat("toporrd snapshot ", m.snapshot_id,
                              " (routes of its forwarding tables modelled)");
  } else {
    out.source =
        absl::StrCat("toporrd snapshot ", m.snapshot_id, " (no routes: contention not modelled)");
  }
  return out;
}

}  // namespace toporr::client

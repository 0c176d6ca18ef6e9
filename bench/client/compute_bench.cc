// libtoporr's compute step (rank 0 after the rows are gathered): client::Plan of a 1 MiB
// recursive-doubling allreduce over the job's host costs, at 1,024 and 16,384 hosts with one rank
// per host, and the process's memory.
//
// Inputs are synthetic (mapping::FatTreeCostMatrix: leaves of 32 hosts, pods of 16 leaves,
// 2:1 taper at the core) with the ranks listed in a scattered host order, the fragmented
// allocation a scheduler hands out. Two cost forms:
//   Dense  the rows as libtoporr gathers them today (client::RowCostMatrix over 2 n floats
//          per host: 8 n^2 bytes), built only up to 4,096 hosts;
//   Hier   the compressed form (mapping::HierarchicalCostMatrix: host -> leaf group, group x
//          group costs), O(n + g^2).
// Run each case in its own process for its peak RSS (bench/client/run_compute_bench.sh):
//   compute_bench --benchmark_filter='Plan/Dense/1024$'
// Counters: peak_rss_mb (whole process), costs_mb (the cost form alone), gain = predicted
// before / after.
#include <memory>
#include <vector>

#include "bench/measure.h"
#include "benchmark/benchmark.h"
#include "client/plan/job_layout.h"
#include "client/plan/plan.h"
#include "mapping/costs/hierarchical_cost_matrix.h"

namespace toporr::bench {
namespace {

std::unique_ptr<mapping::HierarchicalCostMatrix> Fabric(int hosts) {
  mapping::FatTreeShape shape;
  shape.num_hosts = hosts;
  shape.core_gbps = 50;
  return *mapping::FatTreeCostMatrix(shape);
}

// One rank per host, host order scattered across leaves (stride 37, coprime to the sizes).
mapping::Placement Scattered(int hosts) {
  std::vector<std::string> rank_hosts(hosts);
  for (int r = 0; r < hosts; ++r) rank_hosts[r] = "h" + std::to_string((r * 37L) % hosts);
  client::JobLayout layout = client::LayoutFromRankHosts(rank_hosts);
  mapping::Placement p = client::JobPlacement(layout, {});
  // The layout numbers hosts by first appearance; map them back to fabric host ids.
  for (int r = 0; r < hosts; ++r) p.ranks[r].host = static_cast<int32_t>((r * 37L) % hosts);
  return p;
}

void RunPlan(benchmark::State& state, const mapping::HostCostMatrix& costs, double costs_mb) {
  const int hosts = costs.num_hosts();
  mapping::Placement placement = Scattered(hosts);
  client::PlanRequest request;
  request.collective = mapping::Collective::kAllreduce;
  request.algorithm = mapping::Algorithm::kRecursiveDoubling;
  request.message_bytes = 1 << 20;
  double gain = 0;
  for (auto _ : state) {
    absl::StatusOr<client::PlanResult> r = client::Plan(request, placement, costs, nullptr);
    if (!r.ok()) {
      state.SkipWithError(r.status().ToString().c_str());
      return;
    }
    gain = r->before.time_ns / r->after.time_ns;
    benchmark::DoNotOptimize(r->mapping.data());
  }
  state.counters["gain"] = gain;
  state.counters["costs_mb"] = costs_mb;
  state.counters["peak_rss_mb"] = PeakRssMb();
}

void BM_PlanDense(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  std::unique_ptr<mapping::HierarchicalCostMatrix> fabric = Fabric(n);
  std::vector<float> window(static_cast<size_t>(2) * n * n);  // the gathered rows
  std::vector<const float*> rows(n);
  for (int a = 0; a < n; ++a) {
    float* row = window.data() + static_cast<size_t>(2) * n * a;
    for (int b = 0; b < n; ++b) {
      row[b] = static_cast<float>(fabric->AlphaNs(a, b));
      row[n + b] = a == b ? 0.0f : static_cast<float>(8.0 / fabric->BetaNs(a, b));
    }
    rows[a] = row;
  }
  client::RowCostMatrix costs(n, rows);
  RunPlan(state, costs, window.size() * sizeof(float) / 1048576.0);
}
BENCHMARK(BM_PlanDense)->Name("Plan/Dense")->Arg(1024)->Arg(4096)->Unit(benchmark::kMillisecond);

void BM_PlanHier(benchmark::State& state) {
  std::unique_ptr<mapping::HierarchicalCostMatrix> fabric =
      Fabric(static_cast<int>(state.range(0)));
  RunPlan(state, *fabric, fabric->size_bytes() / 1048576.0);
}
BENCHMARK(BM_PlanHier)->Name("Plan/Hier")->Arg(1024)->Arg(16384)->Unit(benchmark::kMillisecond);

// The same process doing nothing: its peak RSS is what the binary and its libraries cost,
// to subtract from the cases above.
void BM_Baseline(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(state.iterations());
  state.counters["peak_rss_mb"] = PeakRssMb();
}
BENCHMARK(BM_Baseline)->Name("Baseline");

}  // namespace
}  // namespace toporr::bench

BENCHMARK_MAIN();

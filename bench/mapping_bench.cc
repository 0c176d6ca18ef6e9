// Speed of the mapping layer at cluster scale, on synthetic fat trees
// (mapping/testing/test_fabrics.h; no input files). Timings are measured here; the unit tests
// assert no wall-clock limits.
//
//   mapping_bench [benchmark flags]
//
// Fabric: 20 pods x 16 edges x 32 hosts = 10,240 hosts on 960 switches (16 aggs per pod, 20
// cores per agg), all HDR 4x; the prediction runs on a 1,024-host one (2 pods, 2 cores per
// agg), 32 ranks per host.
//   BM_HostCostsCreate            HostCosts::Create (widest-shortest search per edge switch);
//   BM_HostCostsMatrix/<hosts>    HostCosts::Matrix for 1,000 hosts (every 10th) into an
//                                 allocated vector;
//   BM_MatrixStoreBaseline/<hosts>  baseline: writing the same number of HostPairCost values
//                                 (std::fill), i.e. what the output alone costs;
//   BM_FabricRoutesCreate         FabricRoutes::Create;
//   BM_FabricRoutesRoute          FabricRoutes::Route over 1,024 x 1,024 host pairs;
//   BM_PredictRing32k/<routes>    PredictCollective, allreduce ring, 32,768 ranks round-robin
//                                 over 1,024 hosts, 64 MiB; routes=1 with link contention
//                                 (FabricRoutes), routes=0 without: the same-run baseline.
// Counter peak_rss_MB: getrusage, process so far.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <vector>

#include "bench/measure.h"
#include "benchmark/benchmark.h"
#include "fabric/fabric.h"
#include "mapping/costs/host_costs.h"
#include "mapping/costs/placement.h"
#include "mapping/prediction/predict.h"
#include "mapping/routes/fabric_routes.h"
#include "mapping/schedules/pattern.h"
#include "mapping/testing/test_fabrics.h"

namespace toporr::mapping {
namespace {

const fabric::Fabric& Fabric10k() {
  static const fabric::Fabric* f = new fabric::Fabric(testing::MakeFatTree3(
      /*pods=*/20, /*edges=*/16, /*aggs=*/16, /*hosts_per_edge=*/32, /*cores_per_agg=*/20));
  return *f;
}

template <typename T>
T* OrDie(absl::StatusOr<std::unique_ptr<T>> r) {
  if (!r.ok()) {
    std::fprintf(stderr, "mapping_bench: %s\n", r.status().ToString().c_str());
    std::exit(1);
  }
  return r->release();
}

const HostCosts& Costs10k() {
  static const HostCosts* c = OrDie(HostCosts::Create(Fabric10k()));
  return *c;
}

void Finish(benchmark::State& state) { state.counters["peak_rss_MB"] = bench::PeakRssMb(); }

void BM_HostCostsCreate(benchmark::State& state) {
  const fabric::Fabric& f = Fabric10k();
  (void)bench::TimeEachLap(state, [&] { return HostCosts::Create(f); });
  state.counters["hosts"] = static_cast<double>(f.hosts.size());
  Finish(state);
}
BENCHMARK(BM_HostCostsCreate)->Unit(benchmark::kMillisecond);

std::vector<int> EveryTenthHost(int n) {
  std::vector<int> hosts;
  for (int i = 0; i < n; ++i) hosts.push_back((i * 10) % 10240);
  return hosts;
}

void BM_HostCostsMatrix(benchmark::State& state) {
  const HostCosts& costs = Costs10k();
  const std::vector<int> hosts = EveryTenthHost(static_cast<int>(state.range(0)));
  std::vector<HostPairCost> m;
  costs.Matrix(hosts, &m);  // allocate once, as the daemon's steady state would
  for (auto _ : state) {
    costs.Matrix(hosts, &m);
    benchmark::DoNotOptimize(m.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(m.size()));
  Finish(state);
}
BENCHMARK(BM_HostCostsMatrix)->ArgName("hosts")->Arg(1000)->Unit(benchmark::kMillisecond);

void BM_MatrixStoreBaseline(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  std::vector<HostPairCost> m(n * n);
  HostPairCost value;
  for (auto _ : state) {
    value.hops += 1;  // a new value each lap, so the stores cannot be elided
    std::fill(m.begin(), m.end(), value);
    benchmark::DoNotOptimize(m.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(m.size()));
  Finish(state);
}
BENCHMARK(BM_MatrixStoreBaseline)->ArgName("hosts")->Arg(1000)->Unit(benchmark::kMillisecond);

void BM_FabricRoutesCreate(benchmark::State& state) {
  const fabric::Fabric& f = Fabric10k();
  (void)bench::TimeEachLap(state, [&] { return FabricRoutes::Create(f); });
  Finish(state);
}
BENCHMARK(BM_FabricRoutesCreate)->Unit(benchmark::kMillisecond);

void BM_FabricRoutesRoute(benchmark::State& state) {
  static const FabricRoutes* routes = OrDie(FabricRoutes::Create(Fabric10k()));
  std::vector<int32_t> r;
  int64_t links = 0, pairs = 0;
  for (auto _ : state) {
    for (int a = 0; a < 10240; a += 10) {
      for (int b = 0; b < 10240; b += 10) {
        routes->Route(a, b, &r);
        links += static_cast<int64_t>(r.size());
        ++pairs;
      }
    }
  }
  benchmark::DoNotOptimize(links);
  state.SetItemsProcessed(pairs);
  Finish(state);
}
BENCHMARK(BM_FabricRoutesRoute)->Unit(benchmark::kMillisecond);

void BM_PredictRing32k(benchmark::State& state) {
  static const fabric::Fabric* fabric = new fabric::Fabric(testing::MakeFatTree3(
      /*pods=*/2, /*edges=*/16, /*aggs=*/16, /*hosts_per_edge=*/32, /*cores_per_agg=*/2));
  static const HostCosts* costs = OrDie(HostCosts::Create(*fabric));
  static const FabricRoutes* routes = OrDie(FabricRoutes::Create(*fabric));
  const Placement placement = RoundRobinPlacement(costs->num_hosts(), 32);
  PatternSpec spec;
  spec.collective = Collective::kAllreduce;
  spec.algorithm = Algorithm::kRing;
  spec.num_ranks = placement.size();
  spec.count = int64_t{1} << 26;
  PredictInputs in;
  in.placement = &placement;
  in.costs = costs;
  in.routes = state.range(0) != 0 ? routes : nullptr;
  double max_load = 0;
  for (auto _ : state) {
    absl::StatusOr<Prediction> p = PredictCollective(spec, {}, in);
    if (!p.ok()) {
      state.SkipWithError(p.status().ToString().c_str());
      break;
    }
    max_load = static_cast<double>(p->max_link_load);
  }
  state.counters["ranks"] = spec.num_ranks;
  state.counters["max_link_load"] = max_load;
  Finish(state);
}
BENCHMARK(BM_PredictRing32k)->ArgName("routes")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace toporr::mapping

BENCHMARK_MAIN();

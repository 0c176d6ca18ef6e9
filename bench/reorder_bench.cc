// Reordering and graph-embedding speed on large fat-tree jobs.
//
// Jobs: P ranks, 32 per host ("--map-by core" block placement for the collective
// heuristics, "--map-by node" round robin for graph embedding so identity is poor), hosts
// on a three-level fat tree with leaf groups of 32 hosts and pods of 16 leaves, held as a
// HierarchicalCostMatrix. Baselines in the same run: building the identity mapping and a
// plain permutation copy. Counters: cost_vs_identity = predicted GraphCostNs of the result
// divided by that of the identity mapping (graph embedding only). Graph embedding:
// embed/bipartition (ours, EmbedBipartition), embed/greedy_refineN (EmbedGreedy with N swap
// passes), embed/scotch (EmbedScotch; up to 32,768 ranks). Their CPU column is the whole
// process's CPU time, since Scotch 7 works in helper threads too; compare CPU, not wall
// time, when other jobs share the machine.
//
//   bazel --output_base=... run -c opt //bench:reorder_bench -- --benchmark_min_time=0.2
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "mapping/distance.h"
#include "mapping/graph_embed.h"
#include "mapping/hierarchical_cost_matrix.h"
#include "mapping/placement.h"
#include "mapping/reorder.h"

namespace toporr::mapping {
namespace {

constexpr int kRanksPerHost = 32;

struct Job {
  Placement placement;
  std::unique_ptr<HierarchicalCostMatrix> hosts;
  std::unique_ptr<RankDistance> distance;
};

// Jobs are built once per (size, placement kind) and shared by all benchmarks.
const Job& GetJob(int p, bool round_robin) {
  static auto* jobs = new std::map<std::pair<int, bool>, std::unique_ptr<Job>>();
  auto& slot = (*jobs)[{p, round_robin}];
  if (slot == nullptr) {
    slot = std::make_unique<Job>();
    const int num_hosts = p / kRanksPerHost;
    slot->placement = round_robin ? RoundRobinPlacement(num_hosts, kRanksPerHost)
                                  : BlockPlacement(num_hosts, kRanksPerHost);
    FatTreeShape shape;
    shape.num_hosts = num_hosts;
    shape.hosts_per_leaf = 32;
    shape.leaves_per_pod = 16;
    shape.core_gbps = 50;
    slot->hosts = FatTreeCostMatrix(shape).value();
    slot->distance =
        std::make_unique<RankDistance>(RankDistance::Create(slot->placement, *slot->hosts).value());
  }
  return *slot;
}

// A 3-D torus with P = 2^k ranks, dimensions as equal as possible; 4 KiB halo messages
// (latency-bound, where placement matters most).
CommGraph TorusGraph(int p) {
  int k = 0;
  while ((1 << k) < p) ++k;
  std::vector<int> dims = {1 << (k - 2 * (k / 3)), 1 << (k / 3), 1 << (k / 3)};
  return CartesianGraph(dims, {true, true, true}, 4 << 10).value();
}

void BM_Identity(benchmark::State& state) {
  const int p = static_cast<int>(state.range(0));
  Mapping source = IdentityMapping(p);
  for (auto _ : state) {
    Mapping m = IdentityMapping(p);
    Mapping copy = source;
    benchmark::DoNotOptimize(m.data());
    benchmark::DoNotOptimize(copy.data());
  }
  state.SetItemsProcessed(state.iterations() * p);
}

void BM_Reorder(benchmark::State& state, Heuristic h) {
  const int p = static_cast<int>(state.range(0));
  const Job& job = GetJob(p, /*round_robin=*/false);
  ReorderOptions o;
  o.root = p / 3;
  for (auto _ : state) {
    auto m = Reorder(h, *job.distance, o);
    if (!m.ok()) state.SkipWithError(std::string(m.status().message()).c_str());
    benchmark::DoNotOptimize(m->data());
  }
  state.SetItemsProcessed(state.iterations() * p);
}

void BM_Embed(benchmark::State& state, EmbedMethod method, int refinement_passes) {
  const int p = static_cast<int>(state.range(0));
  const Job& job = GetJob(p, /*round_robin=*/true);
  const CommGraph graph = TorusGraph(p);
  EmbedOptions options;
  options.refinement_passes = refinement_passes;
  Mapping m;
  for (auto _ : state) {
    auto r = method == EmbedMethod::kScotch        ? EmbedScotch(*job.distance, graph)
             : method == EmbedMethod::kBipartition ? EmbedBipartition(*job.distance, graph, options)
                                                   : EmbedGreedy(*job.distance, graph, options);
    if (!r.ok()) {
      state.SkipWithError(std::string(r.status().message()).c_str());
      break;
    }
    m = *std::move(r);
  }
  if (!m.empty()) {
    const double identity = GraphCostNs(*job.distance, graph, IdentityMapping(p));
    state.counters["cost_vs_identity"] = GraphCostNs(*job.distance, graph, m) / identity;
    state.counters["cost_ms"] = GraphCostNs(*job.distance, graph, m) / 1e6;
  }
  state.SetItemsProcessed(state.iterations() * p);
}

constexpr Heuristic kHeuristics[] = {
    Heuristic::kRing,          Heuristic::kRecursiveDoublingAllgather,
    Heuristic::kRecursiveDoublingAllreduce, Heuristic::kRabenseifner,
    Heuristic::kBinomialBcast, Heuristic::kBinaryTreeBcast,
    Heuristic::kKnomialBcast,  Heuristic::kScatterAllgather,
    Heuristic::kBinomialGather};
constexpr int kSizes[] = {1024, 32768, 262144, 1048576};
// Scotch on the 2^18- and 2^20-vertex torus takes minutes and gigabytes; capped here.
constexpr int kMaxScotchSize = 32768;
constexpr int kMaxGreedyEmbedSize = 262144;

void RegisterAll() {
  for (int p : kSizes) {
    benchmark::RegisterBenchmark(("identity_and_copy/" + std::to_string(p)).c_str(), BM_Identity)
        ->Arg(p)
        ->Unit(benchmark::kMillisecond);
    for (Heuristic h : kHeuristics) {
      benchmark::RegisterBenchmark(
          ("reorder/" + std::string(HeuristicName(h)) + "/" + std::to_string(p)).c_str(),
          BM_Reorder, h)
          ->Arg(p)
          ->Unit(benchmark::kMillisecond);
    }
    if (p <= kMaxGreedyEmbedSize) {
      for (int passes : {0, 1, 2}) {
        benchmark::RegisterBenchmark(
            ("embed/greedy_refine" + std::to_string(passes) + "/" + std::to_string(p)).c_str(),
            BM_Embed, EmbedMethod::kGreedy, passes)
            ->Arg(p)
            ->MeasureProcessCPUTime()
            ->Unit(benchmark::kMillisecond);
      }
      benchmark::RegisterBenchmark(("embed/bipartition/" + std::to_string(p)).c_str(), BM_Embed,
                                   EmbedMethod::kBipartition, 0)
          ->Arg(p)
          ->MeasureProcessCPUTime()
          ->Unit(benchmark::kMillisecond);
    }
    if (p <= kMaxScotchSize) {
      benchmark::RegisterBenchmark(("embed/scotch/" + std::to_string(p)).c_str(), BM_Embed,
                                   EmbedMethod::kScotch, 0)
          ->Arg(p)
          ->MeasureProcessCPUTime()
          ->Unit(benchmark::kMillisecond);
    }
  }
}

}  // namespace
}  // namespace toporr::mapping

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  toporr::mapping::RegisterAll();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

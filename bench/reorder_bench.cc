// Reordering and graph-embedding speed on large fat-tree jobs.
//
// Jobs: P ranks, 32 per host ("--map-by core" block placement for the collective
// heuristics, "--map-by node" round robin for graph embedding so identity is poor), hosts
// on a three-level fat tree with leaf groups of 32 hosts and pods of 16 leaves, held as a
// HierarchicalCostMatrix. Baselines in the same run: building the identity mapping and a
// plain permutation copy (identity_and_copy/P).
//
// Collective heuristics against Scotch on the same inputs:
//   reorder/<heuristic>/P   the heuristic (reorder.h Reorder) at P = 1,024 .. 1,048,576;
//   scotch/<heuristic>/P    EmbedScotch of the SAME job and of the communication graph of
//                           the heuristic's collective (pattern.h CommunicationGraph of the
//                           spec in SpecFor, total bytes per ordered pair); P <= 32,768
//                           only: beyond that Scotch takes minutes per call (and gigabytes).
// Counters: pred_vs_identity = PredictCollective time (predict.h) of the mapping divided by
// that of the identity mapping, for the same spec; below 1 is a predicted speed-up, above 1
// a slow-down (ReorderOrIdentity would then keep the identity). identity_pred_us is the
// identity's predicted time. The prediction is contention-free (no RouteSource: the
// synthetic fat tree has no routes), i.e. per step the slowest alpha + m * beta transfer.
// It is computed once per (heuristic, P), outside the timed loop, at every size:
// predict_cpu_ms is what that one PredictCollective call cost. At most P log2 P transfers
// (recursive doubling allgather and scatter_allgather) keep it short enough at every size
// run here, so there is no size cap. The specs pin algorithms Open MPI would not replace (SpecFor
// checks HeuristicFor(spec) == heuristic).
//
// Graph embedding: embed/bipartition (ours, EmbedBipartition), embed/greedy_refineN
// (EmbedGreedy with N swap passes), embed/scotch (EmbedScotch; up to 32,768 ranks) on a 3-D
// torus; cost_vs_identity = predicted GraphCostNs of the result divided by that of the
// identity mapping.
//
// CPU columns: embed/* and scotch/* report the whole process's CPU time, since Scotch 7
// works in helper threads too; compare CPU, not wall time, when other jobs share the
// machine.
//
//   bazel --output_base=... run -c opt //bench:reorder_bench -- --benchmark_min_time=0.05
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "benchmark/benchmark.h"
#include "mapping/costs/distance.h"
#include "mapping/costs/hierarchical_cost_matrix.h"
#include "mapping/costs/placement.h"
#include "mapping/embedding/graph_embed.h"
#include "mapping/prediction/predict.h"
#include "mapping/reorder/graph_reorder.h"
#include "mapping/reorder/heuristics.h"
#include "mapping/reorder/placer.h"
#include "mapping/reorder/reorder.h"
#include "mapping/schedules/pattern.h"

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

void Skip(benchmark::State& state, const absl::Status& status) {
  state.SkipWithError(std::string(status.message()).c_str());
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

// The collective each heuristic is made for, with message sizes where the heuristic's
// algorithm is what Open MPI runs: ring, Rabenseifner and scatter_allgather need
// count >= P (2^21 elements cover P = 2^20), recursive doubling and the trees use small or
// medium messages. Elements are 8 bytes; rooted collectives use the heuristic's root, P / 3.
struct HeuristicCollective {
  Heuristic heuristic;
  Collective collective;
  Algorithm algorithm;
  int64_t count;  // PatternSpec::count (per rank for allgather and gather)
};
constexpr HeuristicCollective kCollectives[] = {
    // allreduce ring, 16 MiB
    {Heuristic::kRing, Collective::kAllreduce, Algorithm::kRing, 1 << 21},
    // 128 B per rank
    {Heuristic::kRecursiveDoublingAllgather, Collective::kAllgather, Algorithm::kRecursiveDoubling,
     16},
    // 8 KiB
    {Heuristic::kRecursiveDoublingAllreduce, Collective::kAllreduce, Algorithm::kRecursiveDoubling,
     1024},
    // 16 MiB
    {Heuristic::kRabenseifner, Collective::kAllreduce, Algorithm::kRabenseifner, 1 << 21},
    // bcasts of 64 KiB; k-nomial with Open MPI's default radix 4
    {Heuristic::kBinomialBcast, Collective::kBcast, Algorithm::kBinomial, 8192},
    {Heuristic::kBinaryTreeBcast, Collective::kBcast, Algorithm::kBinaryTree, 8192},
    {Heuristic::kKnomialBcast, Collective::kBcast, Algorithm::kKnomial, 8192},
    // 16 MiB
    {Heuristic::kScatterAllgather, Collective::kBcast, Algorithm::kScatterAllgather, 1 << 21},
    // 1 KiB per rank
    {Heuristic::kBinomialGather, Collective::kGather, Algorithm::kBinomial, 128},
};

// Trees and rings are unsegmented. kInternal when the table above does not lead
// HeuristicFor back to `h` (e.g. an Open MPI fallback kicked in).
absl::StatusOr<PatternSpec> SpecFor(Heuristic h, int p) {
  PatternSpec s;
  s.num_ranks = p;
  s.type_size = 8;
  bool found = false;
  for (const HeuristicCollective& c : kCollectives) {
    if (c.heuristic != h) continue;
    s.collective = c.collective;
    s.algorithm = c.algorithm;
    s.count = c.count;
    found = true;
  }
  if (!found) {
    return absl::InternalError("SpecFor: no collective for heuristic " +
                               std::string(HeuristicName(h)));
  }
  const bool rooted = s.collective == Collective::kBcast || s.collective == Collective::kGather ||
                      s.collective == Collective::kReduce;
  s.root = rooted ? p / 3 : 0;
  absl::StatusOr<Heuristic> check = HeuristicFor(s);
  if (!check.ok()) return check.status();
  if (*check != h) {
    return absl::InternalError("SpecFor(" + std::string(HeuristicName(h)) + ", " +
                               std::to_string(p) + ") maps to heuristic " +
                               std::string(HeuristicName(*check)));
  }
  return s;
}

ReorderOptions HeuristicOptions(int p) {
  ReorderOptions o;
  o.root = p / 3;  // rootless patterns seed from it and keep it in place too
  return o;
}

absl::StatusOr<double> PredictedNs(const Job& job, const PatternSpec& spec,
                                   const Mapping& mapping) {
  PredictInputs in;
  in.placement = &job.placement;
  in.costs = job.hosts.get();
  in.intra = job.distance->intra();
  absl::StatusOr<Prediction> r = PredictCollective(spec, mapping, in);
  if (!r.ok()) return r.status();
  return r->time_ns;
}

// Identity predictions per (heuristic, P), shared by reorder/* and scotch/*.
absl::StatusOr<double> IdentityPredictedNs(Heuristic h, const Job& job, const PatternSpec& spec) {
  static auto* cache = new std::map<std::pair<Heuristic, int>, double>();
  auto it = cache->find({h, spec.num_ranks});
  if (it != cache->end()) return it->second;
  absl::StatusOr<double> t = PredictedNs(job, spec, IdentityMapping(spec.num_ranks));
  if (t.ok()) (*cache)[{h, spec.num_ranks}] = *t;
  return t;
}

// Sets pred_vs_identity and identity_pred_us, or fails the benchmark.
void SetPredictionCounters(benchmark::State& state, Heuristic h, const Job& job,
                           const PatternSpec& spec, double mapping_ns) {
  absl::StatusOr<double> identity = IdentityPredictedNs(h, job, spec);
  if (!identity.ok()) {
    Skip(state, identity.status());
    return;
  }
  state.counters["pred_vs_identity"] = mapping_ns / *identity;
  state.counters["identity_pred_us"] = *identity / 1e3;
}

void BM_Reorder(benchmark::State& state, Heuristic h) {
  const int p = static_cast<int>(state.range(0));
  const Job& job = GetJob(p, /*round_robin=*/false);
  const ReorderOptions o = HeuristicOptions(p);
  Mapping m;
  for (auto _ : state) {
    auto r = Reorder(h, *job.distance, o);
    if (!r.ok()) {
      Skip(state, r.status());
      return;
    }
    benchmark::DoNotOptimize(r->data());
    m = *std::move(r);
  }
  state.SetItemsProcessed(state.iterations() * p);
  // The benchmark function runs several times while the library sizes the loop; the
  // heuristic is deterministic, so its prediction is computed once and cached as
  // {predicted ns, CPU ms that PredictCollective call took}.
  static auto* cache = new std::map<std::pair<Heuristic, int>, std::pair<double, double>>();
  absl::StatusOr<PatternSpec> spec = SpecFor(h, p);
  if (!spec.ok()) {
    Skip(state, spec.status());
    return;
  }
  auto it = cache->find({h, p});
  if (it == cache->end()) {
    const std::clock_t start = std::clock();
    absl::StatusOr<double> t = PredictedNs(job, *spec, m);
    const double cpu_ms = 1e3 * static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
    if (!t.ok()) {
      Skip(state, t.status());
      return;
    }
    it = cache->emplace(std::make_pair(h, p), std::make_pair(*t, cpu_ms)).first;
  }
  state.counters["predict_cpu_ms"] = it->second.second;
  SetPredictionCounters(state, h, job, *spec, it->second.first);
}

// ReorderTreeSpread (nearest host or round-robin), same job as BM_Reorder.
void BM_TreeSpread(benchmark::State& state, Heuristic h, bool nearest) {
  const int p = static_cast<int>(state.range(0));
  const Job& job = GetJob(p, /*round_robin=*/false);
  const ReorderOptions o = HeuristicOptions(p);
  for (auto _ : state) {
    auto r = ReorderTreeSpread(h, *job.distance, o, nearest);
    if (!r.ok()) {
      Skip(state, r.status());
      return;
    }
    benchmark::DoNotOptimize(r->data());
  }
  state.SetItemsProcessed(state.iterations() * p);
}

// Scotch on the communication graph of the heuristic's collective, same job as BM_Reorder.
void BM_ScotchPattern(benchmark::State& state, Heuristic h) {
  const int p = static_cast<int>(state.range(0));
  const Job& job = GetJob(p, /*round_robin=*/false);
  absl::StatusOr<PatternSpec> spec = SpecFor(h, p);
  if (!spec.ok()) {
    Skip(state, spec.status());
    return;
  }
  absl::StatusOr<std::vector<WeightedEdge>> edges = CommunicationGraph(*spec);
  if (!edges.ok()) {
    Skip(state, edges.status());
    return;
  }
  CommGraph graph{p, {}};
  graph.edges.reserve(edges->size());
  for (const WeightedEdge& e : *edges) graph.edges.push_back({e.src, e.dst, e.bytes});
  Mapping m;
  for (auto _ : state) {
    auto r = EmbedScotch(*job.distance, graph);
    if (!r.ok()) {
      Skip(state, r.status());
      return;
    }
    m = *std::move(r);
  }
  state.SetItemsProcessed(state.iterations() * p);
  state.counters["graph_edges"] = static_cast<double>(graph.edges.size());
  absl::StatusOr<double> t = PredictedNs(job, *spec, m);
  if (!t.ok()) {
    Skip(state, t.status());
    return;
  }
  SetPredictionCounters(state, h, job, *spec, *t);
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
      Skip(state, r.status());
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

constexpr int kSizes[] = {1024, 32768, 262144, 1048576};
// Scotch on 2^18- and 2^20-vertex graphs (torus or collective patterns) takes minutes and
// gigabytes per call; capped here.
constexpr int kMaxScotchSize = 32768;
constexpr int kMaxGreedyEmbedSize = 262144;

void RegisterAll() {
  for (int p : kSizes) {
    benchmark::RegisterBenchmark(("identity_and_copy/" + std::to_string(p)).c_str(), BM_Identity)
        ->Arg(p)
        ->Unit(benchmark::kMillisecond);
    for (const HeuristicCollective& c : kCollectives) {
      const Heuristic h = c.heuristic;
      benchmark::RegisterBenchmark(
          ("reorder/" + std::string(HeuristicName(h)) + "/" + std::to_string(p)).c_str(),
          BM_Reorder, h)
          ->Arg(p)
          ->Unit(benchmark::kMillisecond);
    }
    // The nearest spread is quadratic in hosts: up to kSpreadNearestMaxHosts (p / 32 here).
    for (bool nearest : {false, true}) {
      if (nearest && p / kRanksPerHost > 4 * kSpreadNearestMaxHosts) continue;
      benchmark::RegisterBenchmark((std::string("spread/binomial_bcast/") +
                                    (nearest ? "nearest/" : "round_robin/") + std::to_string(p))
                                       .c_str(),
                                   BM_TreeSpread, Heuristic::kBinomialBcast, nearest)
          ->Arg(p)
          ->Unit(benchmark::kMillisecond);
    }
    if (p <= kMaxScotchSize) {
      for (const HeuristicCollective& c : kCollectives) {
        const Heuristic h = c.heuristic;
        benchmark::RegisterBenchmark(
            ("scotch/" + std::string(HeuristicName(h)) + "/" + std::to_string(p)).c_str(),
            BM_ScotchPattern, h)
            ->Arg(p)
            ->MeasureProcessCPUTime()
            ->Unit(benchmark::kMillisecond);
      }
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

// Ingest speed on a real ibnetdiscover dump (made by ibsim + opensm + ibnetdiscover; see
// bench/run_ingest_bench.sh, which generates the 10,240-host fat tree and runs this).
//
//   ingest_bench [benchmark flags] DUMP        DUMP = an ibnetdiscover topology file
//
// Benchmarks, all on the same text held in memory:
//   BM_LineScan   baseline: split the text into lines and touch every byte (memchr + a sum),
//                 i.e. how fast the machine reads the dump at all;
//   BM_Parse      ParseIbnetdiscover + AssignHosts (the daemon's parse step);
//   BM_Ingest     parse + AssignHosts + Store::Open on a fresh SQLite file in a temp dir +
//                 Store::Ingest (the whole path from text to a durable snapshot).
// Counters: MB/s over the dump, nodes/links/hosts of the result, and peak_rss_MB (getrusage
// ru_maxrss of the process so far; the benchmarks run in the order above, so BM_Parse's value
// covers the scan and the parse, BM_Ingest's everything).
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "bench/measure.h"
#include "benchmark/benchmark.h"
#include "collectors/hosts.h"
#include "collectors/ibnetdiscover.h"
#include "db/store.h"
#include "fabric/fabric.h"

namespace toporr {
namespace {

std::string* g_dump = nullptr;  // the dump's text, read once in main
std::string* g_dump_name = nullptr;

fabric::Fabric ParseOrDie(benchmark::State& state) {
  collectors::IbnetdiscoverOptions opts;
  opts.file_name = *g_dump_name;
  absl::StatusOr<fabric::Fabric> fabric = collectors::ParseIbnetdiscover(*g_dump, opts);
  if (!fabric.ok()) {
    state.SkipWithError(fabric.status().ToString().c_str());
    return {};
  }
  absl::Status st = collectors::AssignHosts(collectors::HostRule{}, {}, &*fabric);
  if (!st.ok()) state.SkipWithError(st.ToString().c_str());
  return *std::move(fabric);
}

void SetCounters(benchmark::State& state, const fabric::Fabric& f) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(g_dump->size()));
  state.counters["nodes"] = static_cast<double>(f.nodes.size());
  state.counters["links"] = static_cast<double>(f.links.size());
  state.counters["hosts"] = static_cast<double>(f.hosts.size());
  state.counters["peak_rss_MB"] = bench::PeakRssMb();
}

void BM_LineScan(benchmark::State& state) {
  const std::string_view text = *g_dump;
  for (auto _ : state) benchmark::DoNotOptimize(bench::LineScan(text));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(text.size()));
  state.counters["peak_rss_MB"] = bench::PeakRssMb();
}
BENCHMARK(BM_LineScan)->Unit(benchmark::kMillisecond);

void BM_Parse(benchmark::State& state) {
  fabric::Fabric last;
  for (auto _ : state) {
    fabric::Fabric f = ParseOrDie(state);
    benchmark::DoNotOptimize(f.links.data());
    state.PauseTiming();  // keep the previous result's destruction out of the next lap
    last = std::move(f);
    state.ResumeTiming();
  }
  SetCounters(state, last);
}
BENCHMARK(BM_Parse)->Unit(benchmark::kMillisecond);

void BM_Ingest(benchmark::State& state) {
  char tmpl[] = "/tmp/toporr-ingest-bench.XXXXXX";
  const char* dir = mkdtemp(tmpl);
  if (dir == nullptr) {
    state.SkipWithError("mkdtemp failed");
    return;
  }
  const std::string path = std::string(dir) + "/toporr.db";
  fabric::Fabric last;
  for (auto _ : state) {
    fabric::Fabric f = ParseOrDie(state);
    db::StoreOptions options;
    options.path = path;
    absl::StatusOr<std::unique_ptr<db::Store>> store = db::Store::Open(options);
    if (!store.ok()) {
      state.SkipWithError(store.status().ToString().c_str());
      break;
    }
    absl::StatusOr<db::IngestResult> r = (*store)->Ingest(f, "ibnetdiscover", *g_dump_name);
    if (!r.ok() || !r->created) {
      state.SkipWithError(r.ok() ? "ingest created no snapshot" : r.status().ToString().c_str());
      break;
    }
    state.PauseTiming();  // closing and deleting the file is not part of an ingest
    store->reset();
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
      std::remove((path + suffix).c_str());
    }
    last = std::move(f);
    state.ResumeTiming();
  }
  rmdir(dir);
  SetCounters(state, last);
}
BENCHMARK(BM_Ingest)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace toporr

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (argc != 2) {
    std::fprintf(stderr,
                 "usage: %s [--benchmark_...] IBNETDISCOVER_DUMP\n"
                 "(bench/run_ingest_bench.sh generates the 10,240-host dump and runs this)\n",
                 argv[0]);
    return 2;
  }
  toporr::g_dump = new std::string(toporr::bench::ReadFileOrExit(argv[1]));
  toporr::g_dump_name = new std::string(argv[1]);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

// At scale: the steps from the real tools' dumps to routes, on a fat tree that
// bench/run_scale_bench.sh generated with ibsim + OpenSM + ibnetdiscover + dump_fts.
//
//   scale_bench [benchmark flags] DIR      DIR = an output directory of run_ibsim.sh with
//                                          ibnetdiscover.txt, opensm-lfts.dump, dump_fts.txt
//
// Benchmarks (inputs are read lazily on first use, so a process filtered to one benchmark
// holds only what that step needs and its peak_rss_MB is that step's peak):
//   BM_LineScan/<file>        baseline: memchr line split touching every byte of the file;
//   BM_ParseIbnetdiscover     ParseIbnetdiscover + AssignHosts (MB/s of the dump);
//   BM_ParseLfts/<file>       ParseForwardingTables of opensm-lfts.dump or dump_fts.txt
//                             (MB/s; target >= 150 MB/s; compare with BM_LineScan/<file>);
//   BM_StoreIngest            Store::Open on a fresh SQLite file + Ingest of fabric + LFTs;
//   BM_StoreIngestUnchanged   Ingest of the same content again (hash only, no write);
//   BM_StoreLoad              LoadFabric + LoadForwardingTables of the stored snapshot;
//   BM_LftRoutesCreate/<check>  LftRoutes::Create; check=1 walks every host pair once
//                             (the default, what the daemon does), check=0 only indexes;
//   BM_RouteWalkLft           LftRoutes::Route over a fixed sample of 65,536 host pairs
//                             (items = routes);
//   BM_RouteWalkGraph         baseline: FabricRoutes::Route (widest-shortest paths over the
//                             graph, no tables) over the same pairs.
//   BM_DiffFabrics/<what>     DiffFabrics of the fabric against a copy: what=0 topology only,
//                             1 with LFTs and one changed entry, 2 with LFTs and one host
//                             unplugged (every LID walked: the worst case).
// Counters: MB/s (bytes_per_second), items_per_second for routes, input_MB (text held),
// peak_rss_MB (getrusage, process so far) and rss_MB (resident now; the LFT dump's text is
// freed once its tables are cached for the store and route benchmarks).
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bench/measure.h"
#include "benchmark/benchmark.h"
#include "collectors/forwarding_tables.h"
#include "collectors/hosts.h"
#include "collectors/ibnetdiscover.h"
#include "db/store.h"
#include "fabric/fabric.h"
#include "fabric/fabric_diff.h"
#include "mapping/routes/fabric_routes.h"
#include "mapping/routes/lft_routes.h"

namespace toporr::bench {
namespace {

std::string* g_dir = nullptr;

// Input files, each read on first use and kept until DropInput.
std::vector<std::pair<std::string, std::string>>& InputCache() {
  static auto* cache = new std::vector<std::pair<std::string, std::string>>();
  return *cache;
}
const std::string& Input(const std::string& name) {
  for (const auto& [n, text] : InputCache()) {
    if (n == name) return text;
  }
  InputCache().emplace_back(name, ReadFileOrExit(*g_dir + "/" + name));
  return InputCache().back().second;
}
// Frees a text once what was parsed from it is cached, so that later benchmarks' rss_MB
// counts only what they hold (their peak_rss_MB still includes the text).
void DropInput(const std::string& name) {
  auto& cache = InputCache();
  for (auto it = cache.begin(); it != cache.end(); ++it) {
    if (it->first == name) {
      cache.erase(it);
      return;
    }
  }
}

const fabric::Fabric& ParsedFabric() {
  static const fabric::Fabric* fabric = [] {
    collectors::IbnetdiscoverOptions opts;
    opts.file_name = "ibnetdiscover.txt";
    absl::StatusOr<fabric::Fabric> f =
        collectors::ParseIbnetdiscover(Input("ibnetdiscover.txt"), opts);
    absl::Status st =
        f.ok() ? collectors::AssignHosts(collectors::HostRule{}, {}, &*f) : f.status();
    if (!st.ok()) {
      std::fprintf(stderr, "scale_bench: %s\n", st.ToString().c_str());
      std::exit(1);
    }
    return new fabric::Fabric(*std::move(f));
  }();
  return *fabric;
}

const fabric::ForwardingTables& ParsedTables() {
  static const fabric::ForwardingTables* tables = [] {
    absl::StatusOr<fabric::ForwardingTables> t =
        collectors::ParseForwardingTables(Input("opensm-lfts.dump"), {"opensm-lfts.dump"});
    if (!t.ok()) {
      std::fprintf(stderr, "scale_bench: %s\n", t.status().ToString().c_str());
      std::exit(1);
    }
    DropInput("opensm-lfts.dump");
    return new fabric::ForwardingTables(*std::move(t));
  }();
  return *tables;
}

const mapping::LftRoutes& BuiltLftRoutes() {
  static const mapping::LftRoutes* routes = [] {
    auto r = mapping::LftRoutes::Create(ParsedFabric(), ParsedTables());
    if (!r.ok()) {
      std::fprintf(stderr, "scale_bench: %s\n", r.status().ToString().c_str());
      std::exit(1);
    }
    return r->release();
  }();
  return *routes;
}

void Finish(benchmark::State& state, size_t bytes_per_iteration, double input_bytes) {
  if (bytes_per_iteration > 0) {
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                            static_cast<int64_t>(bytes_per_iteration));
  }
  state.counters["input_MB"] = input_bytes / 1e6;
  state.counters["peak_rss_MB"] = PeakRssMb();
  state.counters["rss_MB"] = CurrentRssMb();
}

const char* const kTextFiles[] = {"ibnetdiscover.txt", "opensm-lfts.dump", "dump_fts.txt"};

void BM_LineScan(benchmark::State& state) {
  const std::string& text = Input(kTextFiles[state.range(0)]);
  for (auto _ : state) benchmark::DoNotOptimize(LineScan(text));
  state.SetLabel(kTextFiles[state.range(0)]);
  Finish(state, text.size(), text.size());
}
BENCHMARK(BM_LineScan)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);

void BM_ParseIbnetdiscover(benchmark::State& state) {
  const std::string& text = Input("ibnetdiscover.txt");
  collectors::IbnetdiscoverOptions opts;
  opts.file_name = "ibnetdiscover.txt";
  absl::StatusOr<fabric::Fabric> last = TimeEachLap(state, [&] {
    absl::StatusOr<fabric::Fabric> f = collectors::ParseIbnetdiscover(text, opts);
    absl::Status st =
        f.ok() ? collectors::AssignHosts(collectors::HostRule{}, {}, &*f) : f.status();
    if (!st.ok()) return absl::StatusOr<fabric::Fabric>(st);
    return f;
  });
  state.counters["hosts"] = last.ok() ? static_cast<double>(last->hosts.size()) : 0;
  Finish(state, text.size(), text.size());
}
BENCHMARK(BM_ParseIbnetdiscover)->Unit(benchmark::kMillisecond);

void BM_ParseLfts(benchmark::State& state) {
  const char* name = kTextFiles[state.range(0)];
  const std::string& text = Input(name);
  absl::StatusOr<fabric::ForwardingTables> last =
      TimeEachLap(state, [&] { return collectors::ParseForwardingTables(text, {name}); });
  state.SetLabel(name);
  state.counters["tables_MB"] = last.ok() ? static_cast<double>(last->MemoryBytes()) / 1e6 : 0;
  state.counters["switches"] = last.ok() ? static_cast<double>(last->switches().size()) : 0;
  Finish(state, text.size(), text.size());
}
BENCHMARK(BM_ParseLfts)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

// A fresh temporary directory for SQLite files, removed with its files on destruction.
class TempDb {
 public:
  TempDb() {
    char tmpl[] = "/tmp/toporr-scale-bench.XXXXXX";
    if (mkdtemp(tmpl) != nullptr) dir_ = tmpl;
  }
  ~TempDb() {
    Remove();
    if (!dir_.empty()) rmdir(dir_.c_str());
  }
  bool ok() const { return !dir_.empty(); }
  std::string path() const { return dir_ + "/toporr.db"; }
  void Remove() const {
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
      std::remove((path() + suffix).c_str());
    }
  }

 private:
  std::string dir_;
};

absl::StatusOr<std::unique_ptr<db::Store>> OpenStore(const TempDb& db) {
  db::StoreOptions options;
  options.path = db.path();
  return db::Store::Open(options);
}

void BM_StoreIngest(benchmark::State& state) {
  const fabric::Fabric& fabric = ParsedFabric();
  const fabric::ForwardingTables& tables = ParsedTables();
  TempDb db;
  if (!db.ok()) {
    state.SkipWithError("mkdtemp failed");
    return;
  }
  for (auto _ : state) {
    auto store = OpenStore(db);
    if (!store.ok()) {
      state.SkipWithError(store.status().ToString().c_str());
      break;
    }
    absl::StatusOr<db::IngestResult> r =
        (*store)->Ingest(fabric, &tables, "ibnetdiscover", "scale_bench");
    if (!r.ok() || !r->created) {
      state.SkipWithError(r.ok() ? "ingest created no snapshot" : r.status().ToString().c_str());
      break;
    }
    state.PauseTiming();  // closing and deleting the file is not part of an ingest
    store->reset();
    db.Remove();
    state.ResumeTiming();
  }
  Finish(state, 0, 0);
}
BENCHMARK(BM_StoreIngest)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_StoreIngestUnchanged(benchmark::State& state) {
  const fabric::Fabric& fabric = ParsedFabric();
  const fabric::ForwardingTables& tables = ParsedTables();
  TempDb db;
  auto store = OpenStore(db);
  if (!db.ok() || !store.ok() ||
      !(*store)->Ingest(fabric, &tables, "ibnetdiscover", "scale_bench").ok()) {
    state.SkipWithError("cannot prepare the store");
    return;
  }
  for (auto _ : state) {
    absl::StatusOr<db::IngestResult> r =
        (*store)->Ingest(fabric, &tables, "ibnetdiscover", "scale_bench");
    if (!r.ok() || r->created) {
      state.SkipWithError(r.ok() ? "unchanged content made a snapshot"
                                 : r.status().ToString().c_str());
      break;
    }
  }
  Finish(state, 0, 0);
}
BENCHMARK(BM_StoreIngestUnchanged)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_StoreLoad(benchmark::State& state) {
  TempDb db;
  auto store = OpenStore(db);
  absl::StatusOr<db::IngestResult> ingested =
      store.ok() ? (*store)->Ingest(ParsedFabric(), &ParsedTables(), "ibnetdiscover", "bench")
                 : store.status();
  if (!db.ok() || !ingested.ok()) {
    state.SkipWithError("cannot prepare the store");
    return;
  }
  for (auto _ : state) {
    absl::StatusOr<fabric::Fabric> f = (*store)->LoadFabric(ingested->snapshot.id);
    auto t = (*store)->LoadForwardingTables(ingested->snapshot.id);
    if (!f.ok() || !t.ok()) {
      state.SkipWithError("load failed");
      break;
    }
    benchmark::DoNotOptimize(f->links.data());
  }
  Finish(state, 0, 0);
}
BENCHMARK(BM_StoreLoad)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_LftRoutesCreate(benchmark::State& state) {
  const fabric::Fabric& fabric = ParsedFabric();
  const fabric::ForwardingTables& tables = ParsedTables();
  mapping::LftRoutesOptions options;
  options.check_routes = state.range(0) != 0;
  fabric::ForwardingTables copy;  // Create takes the tables by value: copy them untimed
  (void)TimeEachLap(
      state, [&] { return mapping::LftRoutes::Create(fabric, std::move(copy), options); },
      [&] { copy = tables; });
  state.counters["hosts"] = static_cast<double>(fabric.hosts.size());
  Finish(state, 0, 0);
}
BENCHMARK(BM_LftRoutesCreate)->ArgName("check")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// Host pairs (a, b), a != b, spread over the whole fabric: a stride through all sources and
// a coprime stride through destinations, so the sample crosses leaves, pods and the core.
std::vector<std::pair<int, int>> SamplePairs(int hosts, int count) {
  std::vector<std::pair<int, int>> pairs;
  if (hosts < 2) return pairs;
  pairs.reserve(count);
  for (int k = 0; static_cast<int>(pairs.size()) < count; ++k) {
    const int a = static_cast<int>((int64_t{k} * 7919) % hosts);
    const int b = static_cast<int>((int64_t{k} * 104729 + 1) % hosts);
    if (a != b) pairs.emplace_back(a, b);
  }
  return pairs;
}

void RouteWalk(benchmark::State& state, const mapping::RouteSource& routes, int hosts) {
  const std::vector<std::pair<int, int>> pairs = SamplePairs(hosts, 1 << 16);
  std::vector<int32_t> links;
  int64_t total_links = 0;
  for (auto _ : state) {
    for (const auto& [a, b] : pairs) {
      routes.Route(a, b, &links);
      total_links += static_cast<int64_t>(links.size());
    }
  }
  benchmark::DoNotOptimize(total_links);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(pairs.size()));
  state.counters["links_per_route"] =
      static_cast<double>(total_links) /
      static_cast<double>(std::max<int64_t>(1, state.iterations() * pairs.size()));
  Finish(state, 0, 0);
}

void BM_RouteWalkLft(benchmark::State& state) {
  const mapping::LftRoutes& routes = BuiltLftRoutes();
  RouteWalk(state, routes, routes.num_hosts());
}
BENCHMARK(BM_RouteWalkLft)->Unit(benchmark::kMicrosecond);

void BM_RouteWalkGraph(benchmark::State& state) {
  static const mapping::FabricRoutes* routes = [] {
    auto r = mapping::FabricRoutes::Create(ParsedFabric());
    if (!r.ok()) {
      std::fprintf(stderr, "scale_bench: %s\n", r.status().ToString().c_str());
      std::exit(1);
    }
    return r->release();
  }();
  RouteWalk(state, *routes, static_cast<int>(ParsedFabric().hosts.size()));
}
BENCHMARK(BM_RouteWalkGraph)->Unit(benchmark::kMicrosecond);

// DiffFabrics between the dumped fabric (with its LFTs) and a copy: `what` 0 = topology
// only (no tables) of identical fabrics, 1 = with the LFTs and one changed entry (a core
// switch sends the first host's LID down another port), 2 = with the LFTs and the first
// host's cable unplugged (every LID becomes a candidate and is walked from every leaf: the
// worst case). run_scale_bench.sh reports it against BM_ParseIbnetdiscover of the same run
// (the cost of reading the same fabric at all).
void BM_DiffFabrics(benchmark::State& state) {
  const fabric::Fabric& a = ParsedFabric();
  const fabric::ForwardingTables& tables_a = ParsedTables();
  fabric::Fabric b = a;
  fabric::ForwardingTables tables_b = tables_a;
  const int what = static_cast<int>(state.range(0));
  const fabric::Host& first = b.hosts.front();
  fabric::Node& host_ca = b.nodes[first.cas.front()];
  fabric::Port& host_port = host_ca.ports.front();
  if (what == 1) {
    // A switch that forwards to the host by a port other than its lowest: move it.
    for (const fabric::SwitchForwardingTable& t : tables_b.switches()) {
      const uint8_t port = t.OutPort(host_port.lid);
      if (port != fabric::ForwardingTables::kUnsetPort && port > 1) {
        if (!tables_b.SetOutPort(t.guid, host_port.lid, port - 1).ok()) {
          state.SkipWithError("cannot change an LFT entry");
          return;
        }
        break;
      }
    }
  } else if (what == 2) {
    const fabric::Link& cable = b.links[host_port.link];
    const fabric::LinkEnd far = cable.a.node == first.cas.front() ? cable.b : cable.a;
    b.nodes[far.node].FindPort(far.port)->link = -1;
    host_port.link = -1;
  }
  fabric::DiffOptions options;
  size_t changes = 0;
  for (auto _ : state) {
    const fabric::FabricDiff d = what == 0
                                     ? fabric::DiffFabrics(a, nullptr, b, nullptr, options)
                                     : fabric::DiffFabrics(a, &tables_a, b, &tables_b, options);
    changes = d.route_changes.size() + d.hosts_moved.size();
  }
  state.counters["changes"] = static_cast<double>(changes);
  Finish(state, 0, 0);
}
BENCHMARK(BM_DiffFabrics)->ArgName("what")->DenseRange(0, 2)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace toporr::bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (argc != 2) {
    std::fprintf(stderr,
                 "usage: %s [--benchmark_...] DIR\n"
                 "DIR: output of collectors/sim/run_ibsim.sh with ibnetdiscover.txt, "
                 "opensm-lfts.dump, dump_fts.txt (bench/run_scale_bench.sh makes them)\n",
                 argv[0]);
    return 2;
  }
  toporr::bench::g_dir = new std::string(argv[1]);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

// Latency of a 1,000-host cost matrix served by a RUNNING toporrd (target: p99 < 5 ms), and
// where that time goes.
//
//   daemon_matrix_bench [benchmark flags] DUMP [HOSTS]
//
// DUMP is an ibnetdiscover topology file (bench/run_daemon_matrix_bench.sh uses the
// 10,240-host fat tree of bench/run_ingest_bench.sh); HOSTS is the matrix size (default 1000,
// every (total / HOSTS)-th host of the fabric). main() starts a real toporrd (built binary,
// runfiles) on a temporary database and Unix socket, ingests DUMP with the real toporrctl,
// then runs, in this order:
//   BM_GetSnapshot            baseline: the smallest RPC round trip over the same channel;
//   BM_GetCostRow             GetCostRow: one host against the HOSTS (what libtoporr asks);
//   BM_GetCostMatrix          GetCostMatrix(HOSTS) round trip (client deserialisation
//                             included);
//   BM_GetCostMatrixWideWindow  the same on a channel with a 64 MiB HTTP/2 receive window and
//                             16 MiB frames (client settings; the daemon is unchanged);
//   BM_GetCostMatrixCompact   GetCostMatrix(HOSTS, compact = true): 2 bytes per pair
//                             (CompactCosts), decoded by the client into the arrays
//                             (client/costs/cost_matrix_codec.h) INSIDE the timed lap;
//   BM_GetQuantizedCostMatrix the uint16 form of the same matrix, for comparison;
// and the server's steps replayed in this process on the same fabric, so that
// RPC - (fill + response + serialise + parse) is what the transport adds:
//   BM_StepMatrixFill         HostCosts::Matrix(HOSTS) (what the server computes);
//   BM_StepFillResponse       the matrix into a GetCostMatrixResponse (packed arrays; the
//                             same three adds per pair as daemon/cost_matrices.cc);
//   BM_StepSerialize          SerializeToString of that response;
//   BM_StepParse              ParseFromString of those bytes (what the client does);
//   BM_StepCompactFill        PairCosts::MatrixCompact(HOSTS) into a fresh response's byte
//                             fields (the whole server-side work of the compact form);
//   BM_StepCompactSerialize / BM_StepCompactParse / BM_StepCompactDecode  the same steps
//                             for the compact response, and DecodeCostMatrix;
//   BM_StepSocketTransfer     those bytes through a Unix socket between two threads: the
//                             floor of any transport.
// RPC benchmarks report p50_ms / p99_ms over their timed laps (one lap = one RPC),
// response_MB and server_cpu_ms (the daemon's CPU time per RPC, from /proc/<pid>/stat); every
// benchmark reports peak_rss_MB of THIS process (the daemon's peak RSS is printed at exit from
// /proc/<pid>/status VmHWM).
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_daemon.h"
#include "bench/measure.h"
#include "benchmark/benchmark.h"
#include "client/costs/cost_matrix_codec.h"
#include "collectors/hosts.h"
#include "collectors/ibnetdiscover.h"
#include "fabric/fabric.h"
#include "grpcpp/grpcpp.h"
#include "mapping/costs/host_costs.h"
#include "toporr/v1/toporr.grpc.pb.h"

namespace toporr::bench {
namespace {

namespace v1 = ::toporr::v1;

struct Setup {
  std::unique_ptr<v1::Topology::Stub> stub;
  // A second channel whose HTTP/2 receive window and frame size are large (client-side
  // settings only), to show how much of the matrix RPC is flow control.
  std::unique_ptr<v1::Topology::Stub> wide_stub;
  fabric::Fabric fabric;          // the dump parsed in this process
  std::vector<int> host_indices;  // the matrix's hosts, indices into fabric.hosts
  v1::GetCostMatrixRequest matrix_request;
  v1::GetCostMatrixRequest compact_request;  // the same hosts, compact = true
  v1::GetQuantizedCostMatrixRequest quantized_request;
  pid_t daemon_pid = -1;
};
Setup* g = nullptr;

// Calls `method` of `stub` with `request` once per lap (30 s deadline) and reports latency
// percentiles, the response size and the daemon's CPU time per lap (its whole process, gRPC
// threads included). `use` runs on each successful response inside the timed lap (what the
// client must do before it can use the answer, e.g. decode it) and names what is wrong with
// it, or returns an empty string.
template <typename Req, typename Resp, typename Use>
void RpcLatency(benchmark::State& state, v1::Topology::Stub* stub,
                grpc::Status (v1::Topology::Stub::*method)(grpc::ClientContext*, const Req&, Resp*),
                const Req& request, Use use) {
  std::vector<double> ms;
  size_t bytes = 0;
  const double server_cpu_start = ProcessCpuMs(g->daemon_pid);
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    Resp response;
    const grpc::Status st = (stub->*method)(&ctx, request, &response);
    const std::string wrong = st.ok() ? use(response) : st.error_message();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count());
    if (!wrong.empty()) {
      state.SkipWithError(wrong.c_str());
      break;
    }
    bytes = response.ByteSizeLong();
  }
  state.counters["server_cpu_ms"] =
      (ProcessCpuMs(g->daemon_pid) - server_cpu_start) / static_cast<double>(ms.size());
  state.counters["p50_ms"] = Percentile(ms.data(), ms.data() + ms.size(), 0.50);
  state.counters["p99_ms"] = Percentile(ms.data(), ms.data() + ms.size(), 0.99);
  state.counters["response_MB"] = static_cast<double>(bytes) / 1e6;
  state.counters["peak_rss_MB"] = PeakRssMb();
}

// An n x n matrix has n^2 elements in each array.
std::string CheckMatrix(const v1::GetCostMatrixResponse& r) {
  const int n = g->matrix_request.hosts_size();
  return r.costs().hops_size() == n * n ? "" : "matrix of the wrong size";
}

void BM_GetSnapshot(benchmark::State& state) {
  RpcLatency(state, g->stub.get(), &v1::Topology::Stub::GetSnapshot, v1::GetSnapshotRequest(),
             [](const v1::GetSnapshotResponse&) { return std::string(); });
}
BENCHMARK(BM_GetSnapshot)->Unit(benchmark::kMicrosecond)->UseRealTime();

// Laps of the large RPCs: fixed, so that p99 is a real percentile (the second slowest of
// 200) rather than the maximum of the few laps a time-based run would make.
constexpr int kMatrixLaps = 200;

// What the client library really asks for (DESIGN.md, client step 2): one host's row
// against the job's hosts.
void BM_GetCostRow(benchmark::State& state) {
  v1::GetCostRowRequest request;
  request.set_host(g->matrix_request.hosts(0));
  *request.mutable_hosts() = g->matrix_request.hosts();
  RpcLatency(state, g->stub.get(), &v1::Topology::Stub::GetCostRow, request,
             [](const v1::GetCostRowResponse& r) {
               return r.costs().hops_size() == g->matrix_request.hosts_size()
                          ? std::string()
                          : std::string("row of the wrong size");
             });
}
BENCHMARK(BM_GetCostRow)->Iterations(kMatrixLaps)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_GetCostMatrix(benchmark::State& state) {
  RpcLatency(state, g->stub.get(), &v1::Topology::Stub::GetCostMatrix, g->matrix_request,
             CheckMatrix);
}
BENCHMARK(BM_GetCostMatrix)->Iterations(kMatrixLaps)->Unit(benchmark::kMillisecond)->UseRealTime();

// The compact form, decoded into the arrays a client uses (inside the lap), as a client
// that fetches repeatedly does: into arrays it keeps.
void BM_GetCostMatrixCompact(benchmark::State& state) {
  static client::CostMatrixArrays* const m = new client::CostMatrixArrays;
  RpcLatency(state, g->stub.get(), &v1::Topology::Stub::GetCostMatrix, g->compact_request,
             [](const v1::GetCostMatrixResponse& r) {
               if (!r.has_compact()) return "no compact form: " + r.compact_fallback();
               absl::Status s = client::DecodeCostMatrix(r, m);
               if (!s.ok()) return std::string(s.message());
               benchmark::DoNotOptimize(m->latency_ns.data());
               const size_t n = g->matrix_request.hosts_size();
               return m->hops.size() == n * n ? std::string() : std::string("wrong size");
             });
}
BENCHMARK(BM_GetCostMatrixCompact)
    ->Iterations(kMatrixLaps)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_GetCostMatrixWideWindow(benchmark::State& state) {
  RpcLatency(state, g->wide_stub.get(), &v1::Topology::Stub::GetCostMatrix, g->matrix_request,
             CheckMatrix);
}
BENCHMARK(BM_GetCostMatrixWideWindow)
    ->Iterations(kMatrixLaps)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_GetQuantizedCostMatrix(benchmark::State& state) {
  RpcLatency(state, g->stub.get(), &v1::Topology::Stub::GetQuantizedCostMatrix,
             g->quantized_request,
             [](const v1::GetQuantizedCostMatrixResponse&) { return std::string(); });
}
BENCHMARK(BM_GetQuantizedCostMatrix)
    ->Iterations(kMatrixLaps)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

const mapping::HostCosts& LocalCosts() {
  static const mapping::HostCosts* costs = [] {
    auto c = mapping::HostCosts::Create(g->fabric);
    if (!c.ok()) {
      std::fprintf(stderr, "daemon_matrix_bench: %s\n", c.status().ToString().c_str());
      std::exit(1);
    }
    return c->release();
  }();
  return *costs;
}

void BM_StepMatrixFill(benchmark::State& state) {
  const mapping::HostCosts& costs = LocalCosts();
  std::vector<mapping::HostPairCost> m;
  for (auto _ : state) {
    costs.Matrix(g->host_indices, &m);  // a fresh vector per request, as in the server
    benchmark::DoNotOptimize(m.data());
    state.PauseTiming();
    m = {};
    state.ResumeTiming();
  }
  state.counters["peak_rss_MB"] = PeakRssMb();
}
BENCHMARK(BM_StepMatrixFill)->Unit(benchmark::kMillisecond);

v1::GetCostMatrixResponse FillResponse(const std::vector<mapping::HostPairCost>& matrix) {
  v1::GetCostMatrixResponse resp;
  resp.set_snapshot_id(1);
  resp.set_route_kind(v1::SHORTEST_PATH);
  *resp.mutable_hosts() = g->matrix_request.hosts();
  v1::CostArrays* costs = resp.mutable_costs();
  costs->mutable_hops()->Reserve(static_cast<int>(matrix.size()));
  costs->mutable_bottleneck_gbps()->Reserve(static_cast<int>(matrix.size()));
  costs->mutable_latency_ns()->Reserve(static_cast<int>(matrix.size()));
  for (const mapping::HostPairCost& c : matrix) {
    costs->add_hops(c.hops);
    costs->add_bottleneck_gbps(static_cast<float>(c.bottleneck_gbps));
    costs->add_latency_ns(static_cast<float>(c.latency_ns));
  }
  return resp;
}

const std::vector<mapping::HostPairCost>& LocalMatrix() {
  static const auto* m = [] {
    auto* out = new std::vector<mapping::HostPairCost>();
    LocalCosts().Matrix(g->host_indices, out);
    return out;
  }();
  return *m;
}

void BM_StepFillResponse(benchmark::State& state) {
  const std::vector<mapping::HostPairCost>& m = LocalMatrix();
  for (auto _ : state) {
    v1::GetCostMatrixResponse resp = FillResponse(m);
    benchmark::DoNotOptimize(resp.costs().hops_size());
    state.PauseTiming();
    resp.Clear();
    state.ResumeTiming();
  }
  state.counters["peak_rss_MB"] = PeakRssMb();
}
BENCHMARK(BM_StepFillResponse)->Unit(benchmark::kMillisecond);

void BM_StepSerialize(benchmark::State& state) {
  const v1::GetCostMatrixResponse resp = FillResponse(LocalMatrix());
  std::string bytes;
  for (auto _ : state) {
    bytes.clear();
    resp.SerializeToString(&bytes);
    benchmark::DoNotOptimize(bytes.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(bytes.size()));
  state.counters["response_MB"] = static_cast<double>(bytes.size()) / 1e6;
  state.counters["peak_rss_MB"] = PeakRssMb();
}
BENCHMARK(BM_StepSerialize)->Unit(benchmark::kMillisecond);

void BM_StepParse(benchmark::State& state) {
  const std::string bytes = FillResponse(LocalMatrix()).SerializeAsString();
  for (auto _ : state) {
    v1::GetCostMatrixResponse resp;
    if (!resp.ParseFromString(bytes)) {
      state.SkipWithError("cannot parse the response");
      break;
    }
    benchmark::DoNotOptimize(resp.costs().hops_size());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(bytes.size()));
  state.counters["peak_rss_MB"] = PeakRssMb();
}
BENCHMARK(BM_StepParse)->Unit(benchmark::kMillisecond);

// What the daemon does for a compact request, into a fresh response each time.
v1::GetCostMatrixResponse FillCompactResponse() {
  v1::GetCostMatrixResponse resp;
  resp.set_snapshot_id(1);
  resp.set_route_kind(v1::SHORTEST_PATH);
  *resp.mutable_hosts() = g->matrix_request.hosts();
  v1::CompactCosts* c = resp.mutable_compact();
  std::vector<double> rates;
  const absl::Status st = LocalCosts().MatrixCompact(g->host_indices, c->mutable_hops(),
                                                     c->mutable_rate_index(), &rates);
  if (!st.ok()) {
    std::fprintf(stderr, "daemon_matrix_bench: %s\n", st.ToString().c_str());
    std::exit(1);
  }
  for (double r : rates) c->add_rates_gbps(static_cast<float>(r));
  const mapping::CostModelOptions& model = LocalCosts().cost_model();
  c->set_nic_latency_ns(model.nic_latency_ns);
  c->set_switch_latency_ns(model.switch_latency_ns);
  c->set_link_latency_ns(model.link_latency_ns);
  return resp;
}

void BM_StepCompactFill(benchmark::State& state) {
  for (auto _ : state) {
    v1::GetCostMatrixResponse resp = FillCompactResponse();
    benchmark::DoNotOptimize(resp.compact().hops().data());
  }
  state.counters["peak_rss_MB"] = PeakRssMb();
}
BENCHMARK(BM_StepCompactFill)->Unit(benchmark::kMillisecond);

void BM_StepCompactSerialize(benchmark::State& state) {
  const v1::GetCostMatrixResponse resp = FillCompactResponse();
  std::string bytes;
  for (auto _ : state) {
    bytes.clear();
    resp.SerializeToString(&bytes);
    benchmark::DoNotOptimize(bytes.data());
  }
  state.counters["response_MB"] = static_cast<double>(bytes.size()) / 1e6;
}
BENCHMARK(BM_StepCompactSerialize)->Unit(benchmark::kMillisecond);

void BM_StepCompactParse(benchmark::State& state) {
  const std::string bytes = FillCompactResponse().SerializeAsString();
  for (auto _ : state) {
    v1::GetCostMatrixResponse resp;
    if (!resp.ParseFromString(bytes)) {
      state.SkipWithError("cannot parse the response");
      break;
    }
    benchmark::DoNotOptimize(resp.compact().hops().data());
  }
}
BENCHMARK(BM_StepCompactParse)->Unit(benchmark::kMillisecond);

void BM_StepCompactDecode(benchmark::State& state) {
  const v1::GetCostMatrixResponse resp = FillCompactResponse();
  client::CostMatrixArrays arrays;
  client::CostMatrixArrays* m = &arrays;
  for (auto _ : state) {
    if (absl::Status s = client::DecodeCostMatrix(resp, m); !s.ok()) {
      state.SkipWithError(std::string(s.message()).c_str());
      break;
    }
    benchmark::DoNotOptimize(m->latency_ns.data());
  }
}
BENCHMARK(BM_StepCompactDecode)->Unit(benchmark::kMillisecond);

// Lower bound of the transfer: the serialised response through a Unix stream socket from a
// writer thread to a reader (no gRPC framing, HTTP/2 flow control or extra copies).
void BM_StepSocketTransfer(benchmark::State& state) {
  const std::string bytes = FillResponse(LocalMatrix()).SerializeAsString();
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) {
    state.SkipWithError("socketpair failed");
    return;
  }
  std::string received(bytes.size(), '\0');
  for (auto _ : state) {
    std::thread writer([&] {
      for (size_t sent = 0; sent < bytes.size();) {
        const ssize_t n = write(fds[0], bytes.data() + sent, bytes.size() - sent);
        if (n <= 0) return;
        sent += static_cast<size_t>(n);
      }
    });
    size_t got = 0;
    while (got < bytes.size()) {
      const ssize_t n = read(fds[1], received.data() + got, received.size() - got);
      if (n <= 0) break;
      got += static_cast<size_t>(n);
    }
    writer.join();
    if (got != bytes.size()) {
      state.SkipWithError("short transfer");
      break;
    }
  }
  close(fds[0]);
  close(fds[1]);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(bytes.size()));
  state.counters["peak_rss_MB"] = PeakRssMb();
}
BENCHMARK(BM_StepSocketTransfer)->Unit(benchmark::kMillisecond)->UseRealTime();

int Run(const std::string& dump_path, int num_hosts) {
  // The fabric as the daemon will see it, for host names and the in-process steps.
  collectors::IbnetdiscoverOptions opts;
  opts.file_name = dump_path;
  absl::StatusOr<fabric::Fabric> fabric =
      collectors::ParseIbnetdiscover(ReadFileOrExit(dump_path), opts);
  absl::Status st =
      fabric.ok() ? collectors::AssignHosts(collectors::HostRule{}, {}, &*fabric) : fabric.status();
  if (!st.ok()) {
    std::fprintf(stderr, "daemon_matrix_bench: %s\n", st.ToString().c_str());
    return 1;
  }
  const int total = static_cast<int>(fabric->hosts.size());
  if (num_hosts < 1 || num_hosts > total) {
    std::fprintf(stderr, "daemon_matrix_bench: HOSTS must be 1..%d\n", total);
    return 2;
  }
  g = new Setup;
  g->fabric = *std::move(fabric);
  for (int i = 0; i < num_hosts; ++i) {
    const int h = static_cast<int>(int64_t{i} * total / num_hosts);
    g->host_indices.push_back(h);
    g->matrix_request.add_hosts(g->fabric.hosts[h].name);
  }
  *g->quantized_request.mutable_hosts() = g->matrix_request.hosts();
  g->compact_request = g->matrix_request;
  g->compact_request.set_compact(true);

  std::unique_ptr<BenchDaemon> daemon = BenchDaemon::Start("daemon_matrix_bench", dump_path);
  if (daemon == nullptr) return 1;
  g->daemon_pid = daemon->pid();
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(-1);
  g->stub = v1::Topology::NewStub(grpc::CreateCustomChannel(
      "unix:" + daemon->socket_path(), grpc::InsecureChannelCredentials(), args));
  args.SetInt(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES, 64 << 20);
  args.SetInt(GRPC_ARG_HTTP2_MAX_FRAME_SIZE, (1 << 24) - 1);
  args.SetInt(GRPC_ARG_HTTP2_BDP_PROBE, 0);
  g->wide_stub = v1::Topology::NewStub(grpc::CreateCustomChannel(
      "unix:" + daemon->socket_path(), grpc::InsecureChannelCredentials(), args));
  benchmark::RunSpecifiedBenchmarks();
  g->stub.reset();
  g->wide_stub.reset();
  return daemon->Stop();
}

}  // namespace
}  // namespace toporr::bench

int main(int argc, char** argv) {
  return toporr::bench::DaemonBenchMain(argc, argv, "1000", 1000, toporr::bench::Run);
}

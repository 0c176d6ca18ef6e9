// A job start as libtoporr makes it, against a RUNNING toporrd (target: every leader's row
// served within 1 s of the burst's start):
//
//   leader_rows_bench [benchmark flags] DUMP [HOSTS]
//
// DUMP is an ibnetdiscover topology file (bench/run_leader_rows_bench.sh makes a 10,000-host
// fat tree with the real tools); HOSTS (default: every host of the fabric) is the job. main()
// starts a real toporrd (bench/bench_daemon.h), ingests DUMP with the real toporrctl, takes
// the job's hosts from ListHosts, and registers them once (rank 0's RegisterHostList). Then,
// in this order:
//   BM_RegisterHostList        RegisterHostList of the HOSTS names again (one lap = one RPC:
//                              names resolved, token hashed, list stored);
//   BM_GetStatsBurst           baseline: HOSTS concurrent GetStats (the cheapest RPC);
//   BM_LeaderRowsColdBurst     HOSTS concurrent compact GetCostRow by token, one per host, the
//                              first after the registration: it includes the daemon's
//                              one-time build of the list's compact rows;
//   BM_LeaderRowsBurst         the same burst again (rows built: what every later burst and
//                              every other leader of the same wave costs).
// A burst issues every request at once through asynchronous stubs on kChannels channels
// (separate connections, connected beforehand, as each leader's would be) and drains the
// replies on one thread, checking each (compact, n bytes, the leader's own column); a sample
// of rows is then decoded with client::DecodeCostRow outside the timing. Counters per
// burst benchmark: p50_ms / p99_ms of the single requests (issue to reply, over all laps),
// wall_ms (first issue to last reply, mean of the laps), max_wall_ms, server_cpu_ms (the
// daemon's CPU per burst) and response_KB (one reply).
#include <algorithm>
#include <atomic>
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
#include "grpcpp/grpcpp.h"
#include "toporr/v1/toporr.grpc.pb.h"

namespace toporr::bench {
namespace {

namespace v1 = ::toporr::v1;
using Clock = std::chrono::steady_clock;

constexpr int kChannels = 8;
constexpr int kSampleRows = 16;  // rows decoded after each burst
constexpr int kBurstLaps = 3;

struct Setup {
  std::vector<std::unique_ptr<v1::Topology::Stub>> stubs;  // one per channel
  v1::RegisterHostListRequest job;                         // the job's hosts, in order
  std::string token;
  int64_t snapshot_id = 0;
  pid_t daemon_pid = -1;
};
Setup* g = nullptr;

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

// One burst: requests[i] sent on channel i % kChannels, all at once; `check(i, reply)` runs
// on each reply as it arrives (on the draining thread) and names what is wrong with it, or
// returns an empty string.
struct BurstResult {
  std::vector<double> latency_ms;  // per request, issue to reply
  double wall_ms = 0;
  size_t reply_bytes = 0;  // of the last reply
  std::string error;       // the first failure
};

template <typename Req, typename Resp, typename Check>
BurstResult Burst(std::unique_ptr<grpc::ClientAsyncResponseReader<Resp>> (
                      v1::Topology::Stub::*prepare)(grpc::ClientContext*, const Req&,
                                                    grpc::CompletionQueue*),
                  const std::vector<Req>& requests, Check check) {
  struct Call {
    grpc::ClientContext ctx;
    Resp reply;
    grpc::Status status;
    std::unique_ptr<grpc::ClientAsyncResponseReader<Resp>> reader;
    Clock::time_point start;
  };
  const size_t n = requests.size();
  std::vector<std::unique_ptr<Call>> calls(n);
  for (auto& c : calls) c = std::make_unique<Call>();
  BurstResult out;
  out.latency_ms.resize(n);
  grpc::CompletionQueue cq;
  // Replies are drained (and freed) while requests are still being issued.
  std::thread drain([&] {
    void* tag = nullptr;
    bool ok = false;
    for (size_t done = 0; done < n && cq.Next(&tag, &ok); ++done) {
      const size_t i = reinterpret_cast<size_t>(tag);
      Call& c = *calls[i];
      out.latency_ms[i] = Ms(Clock::now() - c.start);
      std::string wrong = !ok             ? "completion queue failure"
                          : c.status.ok() ? check(i, c.reply)
                                          : c.status.error_message();
      if (!wrong.empty() && out.error.empty())
        out.error = "request " + std::to_string(i) + ": " + wrong;
      out.reply_bytes = c.reply.ByteSizeLong();
      calls[i].reset();
    }
  });
  const Clock::time_point t0 = Clock::now();
  for (size_t i = 0; i < n; ++i) {
    Call& c = *calls[i];
    c.ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
    c.start = Clock::now();
    c.reader = (g->stubs[i % g->stubs.size()].get()->*prepare)(&c.ctx, requests[i], &cq);
    c.reader->StartCall();
    c.reader->Finish(&c.reply, &c.status, reinterpret_cast<void*>(i));
  }
  drain.join();
  out.wall_ms = Ms(Clock::now() - t0);
  cq.Shutdown();
  void* tag;
  bool ok;
  while (cq.Next(&tag, &ok)) {
  }
  return out;
}

// Runs `burst()` once per lap and reports the counters of the header comment.
template <typename RunBurst>
void BurstLaps(benchmark::State& state, RunBurst burst) {
  std::vector<double> latency;
  double wall_sum = 0, wall_max = 0;
  size_t reply_bytes = 0;
  const double cpu0 = ProcessCpuMs(g->daemon_pid);
  int laps = 0;
  for (auto _ : state) {
    BurstResult r = burst();
    if (!r.error.empty()) {
      state.SkipWithError(r.error.c_str());
      break;
    }
    latency.insert(latency.end(), r.latency_ms.begin(), r.latency_ms.end());
    wall_sum += r.wall_ms;
    wall_max = std::max(wall_max, r.wall_ms);
    reply_bytes = r.reply_bytes;
    ++laps;
  }
  if (laps == 0) return;
  state.counters["p50_ms"] = Percentile(latency.data(), latency.data() + latency.size(), 0.50);
  state.counters["p99_ms"] = Percentile(latency.data(), latency.data() + latency.size(), 0.99);
  state.counters["wall_ms"] = wall_sum / laps;
  state.counters["max_wall_ms"] = wall_max;
  state.counters["server_cpu_ms"] = (ProcessCpuMs(g->daemon_pid) - cpu0) / laps;
  state.counters["response_KB"] = static_cast<double>(reply_bytes) / 1e3;
  state.counters["requests"] = static_cast<double>(g->job.hosts_size());
}

void BM_RegisterHostList(benchmark::State& state) {
  std::vector<double> ms;
  for (auto _ : state) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
    v1::RegisterHostListResponse reply;
    const Clock::time_point t0 = Clock::now();
    const grpc::Status st = g->stubs[0]->RegisterHostList(&ctx, g->job, &reply);
    ms.push_back(Ms(Clock::now() - t0));
    if (!st.ok() || reply.host_list() != g->token) {
      state.SkipWithError(st.ok() ? "another token" : st.error_message().c_str());
      break;
    }
  }
  state.counters["p50_ms"] = Percentile(ms.data(), ms.data() + ms.size(), 0.50);
  state.counters["request_KB"] = static_cast<double>(g->job.ByteSizeLong()) / 1e3;
}
BENCHMARK(BM_RegisterHostList)->Iterations(5)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_GetStatsBurst(benchmark::State& state) {
  const std::vector<v1::GetStatsRequest> requests(g->job.hosts_size());
  BurstLaps(state, [&] {
    return Burst(&v1::Topology::Stub::PrepareAsyncGetStats, requests,
                 [](size_t, const v1::GetStatsResponse& r) {
                   return r.snapshot_id() == g->snapshot_id ? std::string()
                                                            : std::string("another snapshot");
                 });
  });
}
BENCHMARK(BM_GetStatsBurst)->Iterations(kBurstLaps)->Unit(benchmark::kMillisecond)->UseRealTime();

// Every leader's compact row by token; a sample decoded (outside the timing) must be a
// valid row of n columns.
BurstResult LeaderRows() {
  const int n = g->job.hosts_size();
  std::vector<v1::GetCostRowRequest> requests(n);
  for (int i = 0; i < n; ++i) {
    requests[i].set_host(g->job.hosts(i));
    requests[i].set_host_list(g->token);
    requests[i].set_compact(true);
  }
  const int stride = std::max(1, n / kSampleRows);
  std::vector<v1::GetCostRowResponse> samples(n / stride + 1);
  BurstResult r =
      Burst(&v1::Topology::Stub::PrepareAsyncGetCostRow, requests,
            [&](size_t i, const v1::GetCostRowResponse& row) -> std::string {
              if (!row.has_compact()) return "no compact row: " + row.compact_fallback();
              if (row.compact().hops().size() != static_cast<size_t>(n) ||
                  row.host_column() != static_cast<int>(i) || row.snapshot_id() != g->snapshot_id) {
                return "not the leader's row of the job";
              }
              if (i % stride == 0) samples[i / stride] = row;
              return "";
            });
  for (size_t k = 0; r.error.empty() && k * stride < static_cast<size_t>(n); ++k) {
    absl::StatusOr<client::CostRowArrays> row = client::DecodeCostRow(samples[k], n);
    if (!row.ok()) r.error = std::string(row.status().message());
  }
  return r;
}

void BM_LeaderRowsColdBurst(benchmark::State& state) { BurstLaps(state, LeaderRows); }
BENCHMARK(BM_LeaderRowsColdBurst)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_LeaderRowsBurst(benchmark::State& state) { BurstLaps(state, LeaderRows); }
BENCHMARK(BM_LeaderRowsBurst)->Iterations(kBurstLaps)->Unit(benchmark::kMillisecond)->UseRealTime();

int Run(const std::string& dump_path, int num_hosts) {
  std::unique_ptr<BenchDaemon> daemon = BenchDaemon::Start("leader_rows_bench", dump_path);
  if (daemon == nullptr) return 1;
  g = new Setup;
  g->daemon_pid = daemon->pid();
  for (int c = 0; c < kChannels; ++c) {
    grpc::ChannelArguments args;
    args.SetInt("toporr.bench.channel", c);  // distinct arguments: a connection of its own
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    g->stubs.push_back(v1::Topology::NewStub(grpc::CreateCustomChannel(
        "unix:" + daemon->socket_path(), grpc::InsecureChannelCredentials(), args)));
  }
  // Connected before any timing (GetStats on every channel), and the job's hosts.
  v1::ListHostsResponse hosts;
  for (auto& stub : g->stubs) {
    grpc::ClientContext ctx;
    v1::GetStatsResponse stats;
    if (grpc::Status st = stub->GetStats(&ctx, v1::GetStatsRequest(), &stats); !st.ok()) {
      std::fprintf(stderr, "leader_rows_bench: GetStats: %s\n", st.error_message().c_str());
      return 1;
    }
  }
  grpc::ClientContext list_ctx;
  if (grpc::Status st = g->stubs[0]->ListHosts(&list_ctx, v1::ListHostsRequest(), &hosts);
      !st.ok()) {
    std::fprintf(stderr, "leader_rows_bench: ListHosts: %s\n", st.error_message().c_str());
    return 1;
  }
  if (num_hosts <= 0) num_hosts = hosts.hosts_size();
  if (num_hosts > hosts.hosts_size()) {
    std::fprintf(stderr, "leader_rows_bench: HOSTS must be 1..%d\n", hosts.hosts_size());
    return 2;
  }
  for (int i = 0; i < num_hosts; ++i) g->job.add_hosts(hosts.hosts(i).name());
  grpc::ClientContext reg_ctx;
  v1::RegisterHostListResponse reg;
  const Clock::time_point t0 = Clock::now();
  if (grpc::Status st = g->stubs[0]->RegisterHostList(&reg_ctx, g->job, &reg); !st.ok()) {
    std::fprintf(stderr, "leader_rows_bench: RegisterHostList: %s\n", st.error_message().c_str());
    return 1;
  }
  std::fprintf(stderr, "leader_rows_bench: %d hosts registered as %s (snapshot %lld) in %.1f ms\n",
               num_hosts, reg.host_list().c_str(), static_cast<long long>(reg.snapshot_id()),
               Ms(Clock::now() - t0));
  g->token = reg.host_list();
  g->snapshot_id = reg.snapshot_id();
  benchmark::RunSpecifiedBenchmarks();
  g->stubs.clear();
  return daemon->Stop();
}

}  // namespace
}  // namespace toporr::bench

int main(int argc, char** argv) {
  return toporr::bench::DaemonBenchMain(argc, argv, "all", 0, toporr::bench::Run);
}

#include "bench/bench_daemon.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

#include "benchmark/benchmark.h"

namespace toporr::bench {

int DaemonBenchMain(int argc, char** argv, const char* hosts_usage, int default_hosts,
                    int (*run)(const std::string& dump_path, int num_hosts)) {
  benchmark::Initialize(&argc, argv);
  if (argc != 2 && argc != 3) {
    std::fprintf(stderr, "usage: %s [--benchmark_...] IBNETDISCOVER_DUMP [HOSTS=%s]\n", argv[0],
                 hosts_usage);
    return 2;
  }
  if (std::getenv("TEST_SRCDIR") == nullptr) {
    const char* runfiles = std::getenv("RUNFILES_DIR");
    const std::string dir = runfiles ? runfiles : std::string(argv[0]) + ".runfiles";
    setenv("TEST_SRCDIR", dir.c_str(), 1);
    setenv("TEST_WORKSPACE", "toporr", 1);
  }
  const int rc = run(argv[1], argc == 3 ? std::atoi(argv[2]) : default_hosts);
  benchmark::Shutdown();
  return rc;
}

double ProcessCpuMs(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t paren = stat.rfind(')');  // the command name may contain spaces
  if (paren == std::string::npos) return -1;
  std::istringstream fields(stat.substr(paren + 2));
  std::string skip;
  for (int i = 3; i < 14; ++i) fields >> skip;  // state .. cmajflt (fields 3-13)
  double utime = 0, stime = 0;                  // fields 14 and 15, in clock ticks
  fields >> utime >> stime;
  return (utime + stime) * 1000.0 / static_cast<double>(sysconf(_SC_CLK_TCK));
}

double ProcessPeakRssMb(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string key;
  while (in >> key) {
    if (key == "VmHWM:") {
      double kib = 0;
      in >> kib;
      return kib / 1024.0;
    }
    in.ignore(1 << 12, '\n');
  }
  return -1;
}

BenchDaemon::BenchDaemon(std::string name, std::string dir)
    : name_(std::move(name)), dir_(std::move(dir)) {
  daemon_ = std::make_unique<testing::DaemonProcess>(dir_ + "/toporr.db", socket_path());
}

std::unique_ptr<BenchDaemon> BenchDaemon::Start(const std::string& name,
                                                const std::string& dump_path) {
  char tmpl[] = "/tmp/toporr-daemon-bench.XXXXXX";
  if (mkdtemp(tmpl) == nullptr) {
    std::perror("mkdtemp");
    return nullptr;
  }
  std::unique_ptr<BenchDaemon> d(new BenchDaemon(name, tmpl));
  const char* me = name.c_str();
  if (!d->daemon_->Start()) {
    std::fprintf(stderr, "%s: toporrd did not start:\n%s\n", me, d->daemon_->log().c_str());
    return nullptr;
  }
  const auto t0 = std::chrono::steady_clock::now();
  testing::RunResult ingest = d->daemon_->Ctl({"ingest", "--format", "ibnetdiscover", dump_path});
  if (ingest.exit_code != 0) {
    std::fprintf(stderr, "%s: toporrctl ingest failed (%d): %s%s\n", me, ingest.exit_code,
                 ingest.out.c_str(), ingest.err.c_str());
    return nullptr;
  }
  std::fprintf(stderr, "%s: toporrctl ingest of %s took %.2f s\n", me, dump_path.c_str(),
               std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  if (const char* lfts = std::getenv("TOPORR_BENCH_LFTS"); lfts != nullptr && *lfts) {
    const auto l0 = std::chrono::steady_clock::now();
    testing::RunResult r = d->daemon_->Ctl({"--timeout", "600", "ingest", "--format", "lft", lfts});
    if (r.exit_code != 0) {
      std::fprintf(stderr, "%s: LFT ingest failed (%d): %s%s\n", me, r.exit_code, r.out.c_str(),
                   r.err.c_str());
      return nullptr;
    }
    std::fprintf(stderr, "%s: LFT ingest of %s took %.2f s: %s", me, lfts,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - l0).count(),
                 r.out.c_str());
  }
  return d;
}

int BenchDaemon::Stop() {
  if (!daemon_->running()) return 0;
  std::fprintf(stderr, "%s: toporrd peak RSS %.1f MB\n", name_.c_str(),
               ProcessPeakRssMb(daemon_->pid()));
  if (daemon_->Stop() == 0) return 0;
  std::fprintf(stderr, "toporrd log:\n%s\n", daemon_->log().c_str());
  return 1;
}

BenchDaemon::~BenchDaemon() {
  daemon_.reset();  // stops it if still running
  for (const char* f :
       {"/toporr.db", "/toporr.db-wal", "/toporr.db-shm", "/toporrd.sock", "/toporrd.sock.log"}) {
    std::remove((dir_ + f).c_str());
  }
  rmdir(dir_.c_str());
}

}  // namespace toporr::bench

// A real toporrd for the benchmarks that time it over gRPC (daemon_matrix_bench,
// leader_rows_bench): the built binaries found in the benchmark's runfiles, a temporary
// database and Unix socket, a fabric dump ingested with the real toporrctl, and the
// daemon's own CPU time and peak memory read from /proc.
#ifndef TOPORR_BENCH_BENCH_DAEMON_H_
#define TOPORR_BENCH_BENCH_DAEMON_H_

#include <sys/types.h>

#include <memory>
#include <string>

#include "daemon/testing/subprocess.h"

namespace toporr::bench {

// The main() of a daemon benchmark run as `NAME [benchmark flags] DUMP [HOSTS]`: Google
// Benchmark's flags, the runfiles (under `bazel run` a cc_binary gets RUNFILES_DIR or
// nothing; the DaemonProcess helper finds toporrd / toporrctl through TEST_SRCDIR +
// TEST_WORKSPACE, as in a test), then `run(DUMP, HOSTS)`, HOSTS being `default_hosts` when
// absent (`hosts_usage` says what that is). Returns the exit status.
int DaemonBenchMain(int argc, char** argv, const char* hosts_usage, int default_hosts,
                    int (*run)(const std::string& dump_path, int num_hosts));

// CPU time (user + system) the process `pid` has used so far, in ms; -1 when unreadable.
double ProcessCpuMs(pid_t pid);
// Peak resident memory of process `pid` (VmHWM), in MB; -1 when unreadable.
double ProcessPeakRssMb(pid_t pid);

class BenchDaemon {
 public:
  // Starts toporrd and ingests `dump_path` (ibnetdiscover), then, with $TOPORR_BENCH_LFTS
  // naming an LFT dump of the same fabric (dump_fts or opensm-lfts.dump), its forwarding
  // tables, so that costs follow them. Progress and errors go to stderr as "`name`: ...";
  // null on error. Needs the runfiles DaemonBenchMain points at.
  static std::unique_ptr<BenchDaemon> Start(const std::string& name, const std::string& dump_path);
  // Stops the daemon if still running and removes its files.
  ~BenchDaemon();

  std::string socket_path() const { return dir_ + "/toporrd.sock"; }
  pid_t pid() const { return daemon_->pid(); }
  // SIGTERM; 0 when toporrd exits cleanly, else 1 (its log printed). Close the benchmark's
  // channels first: an open connection holds the shutdown for its grace period.
  int Stop();

 private:
  BenchDaemon(std::string name, std::string dir);

  std::string name_, dir_;
  std::unique_ptr<testing::DaemonProcess> daemon_;
};

}  // namespace toporr::bench

#endif  // TOPORR_BENCH_BENCH_DAEMON_H_

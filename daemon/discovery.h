// Live fabric discovery on a schedule. The daemon does not talk to the fabric itself: a
// collector does one sweep (collectors/discover_main.cc: libibnetdisc sweep + LFT reads
// through libibmad) and hands back the fabric in ibnetdiscover format and the LFTs in
// dump_fts format, which the daemon ingests like any other source. A sweep whose result
// equals the current snapshot (same content hash) makes no new snapshot.
//
// The collector is reached one of two ways (DiscoveryOptions::command):
//   - a child process: toporrd runs `toporr-discover` (or the configured command) with
//     toporrd's own privileges, which must include the umad devices (toporrd run as root);
//   - the live-discovery helper: toporrd, running as an unprivileged user with no device
//     access, asks `toporr-discover --serve` over a Unix socket (daemon/remote_sweep.h),
//     which systemd starts per request with the umad devices (toporr-discover.socket).
// Either way the MAD traffic stays out of the daemon's process, and admins can run the same
// collector by hand.
#ifndef TOPORR_DAEMON_DISCOVERY_H_
#define TOPORR_DAEMON_DISCOVERY_H_

#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "collectors/sweep_protocol.h"
#include "daemon/fabric_state.h"
#include "daemon/rpc_stats.h"

namespace toporr::daemon {

struct DiscoveryOptions {
  // How sweeps reach the collector:
  //   - argv prefix of a command toporrd runs, e.g. {"/usr/local/sbin/toporr-discover",
  //     "--ca", "mlx5_0"}; toporrd appends the output files and the probe pause;
  //   - one word "unix:PATH": the live-discovery helper listening on PATH (the helper's own
  //     options are on its command line, in its unit);
  //   - empty: DefaultSweepCommand(geteuid()).
  std::vector<std::string> command;
  // Seconds between sweeps; 0 disables the schedule (sweeps only on request).
  int interval_s = 0;
  // Pause between LFT block reads (microseconds) so the sweep does not flood the fabric.
  int probe_pause_us = 200;
  // A sweep that takes longer is killed and reported as failed.
  int timeout_s = 600;
  // Counts sweeps and their ingests (format "discovery") when not null; must outlive the
  // sweeper.
  RpcStats* stats = nullptr;
};

// The collector when none is configured: `toporr-discover` next to the running toporrd binary
// when `euid` is 0 (it can open the umad devices itself), else the helper at
// kDiscoveryHelperSocket ({"unix:/run/toporr-discover.sock"}).
std::vector<std::string> DefaultSweepCommand(uid_t euid);

// Thread-safe; sweeps are serialised.
class DiscoverySweeper {
 public:
  DiscoverySweeper(DiscoveryOptions options, FabricState* state);
  ~DiscoverySweeper();  // stops the schedule and waits for a running sweep

  // Runs one sweep now. kUnavailable when it fails (with the child's last stderr lines, or the
  // helper's message), kInvalidArgument for a "unix:PATH" command with more words;
  // a fabric that lost too many hosts is refused unless `allow_shrink` (FabricState). The
  // scheduled sweeps never allow it: an admin confirms a shrunk fabric.
  absl::StatusOr<IngestOutcome> SweepNow(bool allow_shrink = false);

  // Starts the periodic schedule (no-op when interval_s == 0).
  void Start();

  // argv used for sweeps, after defaults were resolved (for logs and errors); {"unix:PATH"}
  // for the helper.
  const std::vector<std::string>& command() const { return command_; }

 private:
  void Loop();
  absl::StatusOr<IngestOutcome> SweepLocked(bool allow_shrink);
  // One sweep by the configured collector: the child process's output files, or the
  // helper's reply. kUnavailable "fabric sweep failed: ..." naming the collector.
  absl::StatusOr<collectors::SweepResult> RunChild();
  absl::StatusOr<collectors::SweepResult> AskHelper(const std::string& socket_path);

  const DiscoveryOptions options_;
  FabricState* const state_;
  std::vector<std::string> command_;
  std::mutex sweep_mu_;
  std::mutex loop_mu_;
  std::condition_variable loop_cv_;
  bool stopping_ = false;            // guarded by loop_mu_
  std::atomic<bool> cancel_{false};  // set at destruction: kills a running collector
  std::thread thread_;
};

// One log line for a sweep's outcome: "sweep (<trigger>): new snapshot 7 (...)", warnings
// on lines of their own.
void LogSweep(const std::string& trigger, const absl::StatusOr<IngestOutcome>& out);

// Runs argv with a timeout, capturing stderr. Exit code, or kDeadlineExceeded when it ran
// too long, kCancelled when `*cancel` became true (the child is killed either way),
// kUnavailable when it cannot be started.
absl::StatusOr<int> RunCommand(const std::vector<std::string>& argv, int timeout_s,
                               std::string* stderr_tail, const std::atomic<bool>* cancel = nullptr);

}  // namespace toporr::daemon

#endif  // TOPORR_DAEMON_DISCOVERY_H_

// Live fabric discovery on a schedule. The daemon does not talk to the fabric itself: it
// runs the privileged one-shot collector `toporr-discover` (collectors/discover_main.cc,
// libibnetdisc sweep + LFT reads through libibmad), reads back the fabric in ibnetdiscover
// format and the LFTs in dump_fts format, and ingests them like any other source. A sweep
// whose result equals the current snapshot (same content hash) makes no new snapshot.
//
// Keeping the MAD traffic in a child process isolates the daemon from libibumad state and
// lets admins run the same collector by hand.
#ifndef TOPORR_DAEMON_DISCOVERY_H_
#define TOPORR_DAEMON_DISCOVERY_H_

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "daemon/fabric_state.h"
#include "daemon/rpc_stats.h"

namespace toporr::daemon {

struct DiscoveryOptions {
  // argv prefix of the collector, e.g. {"/usr/local/sbin/toporr-discover", "--ca", "mlx5_0"}.
  // Empty: `toporr-discover` next to the running toporrd binary.
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

// Thread-safe; sweeps are serialised.
class DiscoverySweeper {
 public:
  DiscoverySweeper(DiscoveryOptions options, FabricState* state);
  ~DiscoverySweeper();  // stops the schedule and waits for a running sweep

  // Runs one sweep now. kUnavailable (with the collector's last stderr lines) when it fails;
  // a fabric that lost too many hosts is refused unless `allow_shrink` (FabricState). The
  // scheduled sweeps never allow it: an admin confirms a shrunk fabric.
  absl::StatusOr<IngestOutcome> SweepNow(bool allow_shrink = false);

  // Starts the periodic schedule (no-op when interval_s == 0).
  void Start();

  // argv used for sweeps, after defaults were resolved (for logs and errors).
  const std::vector<std::string>& command() const { return command_; }

 private:
  void Loop();
  absl::StatusOr<IngestOutcome> SweepLocked(bool allow_shrink);

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

// Runs argv with a timeout, capturing stderr. Exit code, or kDeadlineExceeded when it ran
// too long, kCancelled when `*cancel` became true (the child is killed either way),
// kUnavailable when it cannot be started.
// One log line for a sweep's outcome: "sweep (<trigger>): new snapshot 7 (...)", warnings
// on lines of their own.
void LogSweep(const std::string& trigger, const absl::StatusOr<IngestOutcome>& out);

absl::StatusOr<int> RunCommand(const std::vector<std::string>& argv, int timeout_s,
                               std::string* stderr_tail, const std::atomic<bool>* cancel = nullptr);

}  // namespace toporr::daemon

#endif  // TOPORR_DAEMON_DISCOVERY_H_

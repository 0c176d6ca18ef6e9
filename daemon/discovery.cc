#include "daemon/discovery.h"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "collectors/fabric_input.h"
#include "common/logging.h"
#include "common/status_macros.h"
#include "common/subprocess.h"
#include "daemon/remote_sweep.h"

namespace toporr::daemon {
namespace {

std::string DefaultCollector() {
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n > 0) {
    self[n] = '\0';
    std::string dir(self);
    dir = dir.substr(0, dir.rfind('/'));
    for (const std::string& candidate :
         {dir + "/toporr-discover", dir + "/../collectors/toporr-discover"}) {
      if (access(candidate.c_str(), X_OK) == 0) return candidate;
    }
  }
  return "toporr-discover";  // from PATH
}

constexpr char kHelperPrefix[] = "unix:";

absl::StatusOr<std::string> ReadWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::UnavailableError(path + ": the collector wrote no output");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

absl::StatusOr<int> RunCommand(const std::vector<std::string>& argv, int timeout_s,
                               std::string* stderr_tail, const std::atomic<bool>* cancel) {
  int err_fd = OutputTempFile();
  if (err_fd < 0) return absl::UnavailableError("mkstemp failed");
  SpawnOptions spawn;
  spawn.stderr_fd = err_fd;
  absl::StatusOr<pid_t> pid = Spawn(argv, spawn);
  if (!pid.ok()) {
    close(err_fd);
    return pid.status();
  }
  const WaitResult waited = WaitOrKill(*pid, std::chrono::seconds(timeout_s), cancel);
  std::string err = ReadAndClose(err_fd);
  if (err.size() > 2000) err = "..." + err.substr(err.size() - 2000);
  while (!err.empty() && err.back() == '\n') err.pop_back();
  if (stderr_tail) *stderr_tail = err;
  if (waited.cancelled) {
    return absl::CancelledError(absl::StrCat(argv[0], " stopped: shutting down"));
  }
  if (waited.timed_out) {
    return absl::DeadlineExceededError(
        absl::StrCat(argv[0], " did not finish within ", timeout_s, " s and was killed"));
  }
  return waited.exit_code;
}

std::vector<std::string> DefaultSweepCommand(uid_t euid) {
  if (euid == 0) return {DefaultCollector()};
  return {absl::StrCat(kHelperPrefix, kDiscoveryHelperSocket)};
}

DiscoverySweeper::DiscoverySweeper(DiscoveryOptions options, FabricState* state)
    : options_(std::move(options)), state_(state), command_(options_.command) {
  if (command_.empty()) command_ = DefaultSweepCommand(geteuid());
}

DiscoverySweeper::~DiscoverySweeper() {
  cancel_ = true;
  {
    std::lock_guard<std::mutex> l(loop_mu_);
    stopping_ = true;
  }
  loop_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

absl::StatusOr<IngestOutcome> DiscoverySweeper::SweepNow(bool allow_shrink) {
  std::lock_guard<std::mutex> l(sweep_mu_);
  const absl::Time start = absl::Now();
  absl::StatusOr<IngestOutcome> out = SweepLocked(allow_shrink);
  const std::string result = !out.ok() ? "failed" : out->created ? "created" : "unchanged";
  if (options_.stats != nullptr) {
    options_.stats->RecordSweep(result);
    options_.stats->RecordIngest("discovery", out.ok() ? result : "refused", absl::Now() - start);
  }
  return out;
}

absl::StatusOr<collectors::SweepResult> DiscoverySweeper::RunChild() {
  char tmpl[] = "/tmp/toporr-sweep.XXXXXX";
  if (mkdtemp(tmpl) == nullptr) return absl::UnavailableError("mkdtemp failed");
  const std::string dir = tmpl;
  const std::string fabric_path = dir + "/fabric.ibnetdiscover";
  const std::string lft_path = dir + "/fabric.dump_fts";
  std::vector<std::string> argv = command_;
  argv.insert(argv.end(), {"--format", "ibnetdiscover", "--output", fabric_path, "--lfts", lft_path,
                           "--probe-pause-us", std::to_string(options_.probe_pause_us)});
  std::string err;
  absl::StatusOr<int> rc = RunCommand(argv, options_.timeout_s, &err, &cancel_);
  auto cleanup = [&] {
    unlink(fabric_path.c_str());
    unlink(lft_path.c_str());
    rmdir(dir.c_str());
  };
  if (!rc.ok() || *rc != 0) {
    cleanup();
    const std::string what =
        rc.ok() ? absl::StrCat("exited with ", *rc) : std::string(rc.status().message());
    return absl::UnavailableError(absl::StrCat("fabric sweep failed: ", absl::StrJoin(argv, " "),
                                               " ", what, err.empty() ? "" : ": " + err));
  }
  absl::StatusOr<std::string> topo = ReadWhole(fabric_path);
  absl::StatusOr<std::string> lfts = ReadWhole(lft_path);
  cleanup();
  if (!topo.ok()) return topo.status();
  if (!lfts.ok()) return lfts.status();
  collectors::SweepResult result;
  result.topology = *std::move(topo);
  result.forwarding_tables = *std::move(lfts);
  return result;
}

absl::StatusOr<collectors::SweepResult> DiscoverySweeper::AskHelper(
    const std::string& socket_path) {
  if (command_.size() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("fabric sweep failed: discovery_command '", absl::StrJoin(command_, " "),
                     "': unix:PATH takes no arguments (the helper's options belong on its "
                     "command line, in toporr-discover@.service)"));
  }
  collectors::SweepRequest request;
  request.probe_pause_us = options_.probe_pause_us;
  absl::StatusOr<collectors::SweepResult> result =
      RequestSweep(socket_path, request, absl::Seconds(options_.timeout_s), &cancel_);
  if (!result.ok()) {
    return absl::UnavailableError(absl::StrCat("fabric sweep failed: ", result.status().message()));
  }
  return result;
}

absl::StatusOr<IngestOutcome> DiscoverySweeper::SweepLocked(bool allow_shrink) {
  const std::string& first = command_.front();
  absl::StatusOr<collectors::SweepResult> swept =
      first.rfind(kHelperPrefix, 0) == 0 ? AskHelper(first.substr(sizeof(kHelperPrefix) - 1))
                                         : RunChild();
  if (!swept.ok()) return swept.status();
  collectors::FabricInput input;
  input.source_name = "toporr-discover";
  input.content = swept->topology;
  ASSIGN_OR_RETURN(fabric::Fabric fabric, collectors::ParseFabricInput(input));
  ASSIGN_OR_RETURN(
      fabric::ForwardingTables tables,
      collectors::ParseForwardingTablesInput(collectors::InputFormat::kLft, "toporr-discover LFTs",
                                             swept->forwarding_tables));
  IngestMode mode;
  mode.allow_shrink = allow_shrink;
  return state_->IngestFabric(std::move(fabric), &tables, "libibnetdisc", "toporr-discover", mode);
}

void LogSweep(const std::string& trigger, const absl::StatusOr<IngestOutcome>& out) {
  if (!out.ok()) {
    TOPORR_LOG(WARNING) << "sweep (" << trigger << "): " << out.status().message();
    return;
  }
  if (out->created) {
    TOPORR_LOG(INFO) << "sweep (" << trigger << "): new snapshot " << out->snapshot.id << " ("
                     << out->snapshot.num_hosts << " hosts, " << out->snapshot.num_switches
                     << " switches)";
  } else {
    TOPORR_LOG(INFO) << "sweep (" << trigger << "): fabric unchanged, snapshot "
                     << out->snapshot.id;
  }
  for (const auto& w : out->warnings) TOPORR_LOG(WARNING) << "sweep: " << w;
}

void DiscoverySweeper::Start() {
  if (options_.interval_s <= 0 || thread_.joinable()) return;
  thread_ = std::thread([this] { Loop(); });
}

void DiscoverySweeper::Loop() {
  while (true) {
    absl::StatusOr<IngestOutcome> out = SweepNow();
    LogSweep("scheduled", out);
    std::unique_lock<std::mutex> l(loop_mu_);
    if (loop_cv_.wait_for(l, std::chrono::seconds(options_.interval_s),
                          [this] { return stopping_; })) {
      return;
    }
  }
}

}  // namespace toporr::daemon

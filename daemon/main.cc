// toporrd: the toporr topology daemon. This file reads the flags and the configuration file,
// handles the signals and runs the daemon's Server (daemon/server.h). See README.md and
// deploy/toporrd.service.
#include <signal.h>
#include <sys/stat.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <utility>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/logging.h"
#include "daemon/config.h"
#include "daemon/server.h"

ABSL_FLAG(std::string, config, "/etc/toporr/toporrd.conf",
          "Configuration file (`key = value`); the default path is skipped if absent, an "
          "empty value skips it always. Flags below override it.");
ABSL_FLAG(std::string, db, "",
          "SQLite database path (default from config: "
          "/var/lib/toporr/toporr.db)");
ABSL_FLAG(std::string, socket, "", "Unix socket path (default /run/toporr/toporrd.sock)");
ABSL_FLAG(std::string, listen, "", "Optional HOST:PORT TCP listener for read RPCs");
ABSL_FLAG(std::string, metrics_listen, "",
          "Optional HOST:PORT HTTP listener for Prometheus (GET /metrics)");
ABSL_FLAG(std::string, metrics_textfile_dir, "",
          "Optional node_exporter textfile directory (toporrd.prom written atomically)");
ABSL_FLAG(std::string, admin_group, "", "Group allowed to call admin RPCs (default toporr-admin)");
ABSL_FLAG(int, keep_snapshots, 0, "Snapshots kept in the database (default 20)");
ABSL_FLAG(std::string, host_map, "", "GUID -> host map file applied to every ingest");
ABSL_FLAG(int, discovery_interval_s, -1,
          "Seconds between live fabric sweeps (0 = only on `toporrctl discover`; default from "
          "config: 0)");
ABSL_FLAG(std::string, discovery_command, "",
          "Collector command line for live sweeps (space-separated), or unix:PATH for the "
          "live-discovery helper (default: toporr-discover next to toporrd as root, else "
          "unix:/run/toporr-discover.sock)");

namespace toporr::daemon {
namespace {

// The configuration file (--config) under the flags that override it.
absl::Status Configure(DaemonConfig* config) {
  const std::string config_path = absl::GetFlag(FLAGS_config);
  if (!config_path.empty()) {  // --config= (empty) skips the file entirely
    absl::Status s = LoadConfigFile(config_path, config);
    const bool explicit_config = config_path != "/etc/toporr/toporrd.conf";
    if (!s.ok() && (explicit_config || s.code() != absl::StatusCode::kNotFound)) return s;
  }
  if (!absl::GetFlag(FLAGS_db).empty()) config->db_path = absl::GetFlag(FLAGS_db);
  if (!absl::GetFlag(FLAGS_socket).empty()) config->socket_path = absl::GetFlag(FLAGS_socket);
  if (!absl::GetFlag(FLAGS_listen).empty()) config->listen_address = absl::GetFlag(FLAGS_listen);
  if (!absl::GetFlag(FLAGS_metrics_listen).empty())
    config->metrics_listen = absl::GetFlag(FLAGS_metrics_listen);
  if (!absl::GetFlag(FLAGS_metrics_textfile_dir).empty())
    config->metrics_textfile_dir = absl::GetFlag(FLAGS_metrics_textfile_dir);
  if (!absl::GetFlag(FLAGS_admin_group).empty())
    config->admin_group = absl::GetFlag(FLAGS_admin_group);
  if (absl::GetFlag(FLAGS_keep_snapshots) > 0)
    config->keep_snapshots = absl::GetFlag(FLAGS_keep_snapshots);
  if (!absl::GetFlag(FLAGS_host_map).empty()) config->host_map_path = absl::GetFlag(FLAGS_host_map);
  if (absl::GetFlag(FLAGS_discovery_interval_s) >= 0)
    config->discovery_interval_s = absl::GetFlag(FLAGS_discovery_interval_s);
  if (!absl::GetFlag(FLAGS_discovery_command).empty())
    config->discovery_command = absl::GetFlag(FLAGS_discovery_command);
  return absl::OkStatus();
}

// Exit status: 0 after SIGTERM or SIGINT, 2 when the configuration does not allow the daemon
// to run, 1 when it cannot open its database or listen.
int Run() {
  umask(027);  // the database and the textfile are modeled explicitly; nothing else is public
  ServerOptions options;
  if (absl::Status s = Configure(&options.config); !s.ok()) {
    TOPORR_LOG(ERROR) << "configuration: " << s.message();
    return 2;
  }
  options.reload_config = Configure;
#ifdef TOPORR_TEST_HOOKS
  // Only in //daemon:toporrd_test_hooks (tests): SIGKILL at a named ingest point. The shipped
  // toporrd has no such hook.
  if (const char* crash = std::getenv("TOPORR_TEST_CRASH_POINT")) options.crash_point = crash;
#endif
  auto server = Server::Create(std::move(options));
  if (!server.ok()) {
    TOPORR_LOG(ERROR) << server.status().message();
    return 2;
  }

  // Block the shutdown and reload signals before any thread starts; the serving loop waits
  // for them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);
  if (absl::Status s = (*server)->Start(); !s.ok()) {
    TOPORR_LOG(ERROR) << s.message();
    return 1;
  }

  // The serving loop: signals, and the server's upkeep (status, textfile, watchdog) between
  // them.
  const timespec tick = absl::ToTimespec((*server)->maintain_interval());
  while (true) {
    const int sig = sigtimedwait(&signals, nullptr, &tick);
    if (sig == SIGHUP) {
      (*server)->Reload();
    } else if (sig == SIGTERM || sig == SIGINT) {
      TOPORR_LOG(INFO) << "signal " << sig << ": shutting down";
      break;
    }
    (*server)->Maintain();
  }
  (*server)->Shutdown();
  return 0;
}

}  // namespace
}  // namespace toporr::daemon

int main(int argc, char** argv) {
  // Debian's Abseil checks every absl::Mutex acquisition (gRPC's included) for lock-order
  // cycles, which costs several microseconds per RPC under load; toporrd's locks are
  // checked by its tests' thread annotations instead.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  absl::SetProgramUsageMessage(
      "toporr topology daemon.\n  toporrd [--config FILE] [--db PATH] [--socket PATH] "
      "[--listen HOST:PORT]");
  absl::ParseCommandLine(argc, argv);
  return toporr::daemon::Run();
}

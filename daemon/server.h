// toporrd as an object: the SQLite store and its serving snapshot, the two gRPC servers (the
// read server for readers, the admin server for admins), the Unix-socket listener that hands
// each connection to one of them by the caller's credentials, the optional TCP listener
// (plain or TLS) on the read server, the optional Prometheus endpoint and textfile, live
// discovery, and what the service manager is told (sd_notify: readiness, status, watchdog).
//
// The toporrd binary (daemon/main.cc) parses its flags, reads the configuration file, handles
// the signals and drives one Server; tests start one in their own process
// (daemon/testing/server_fixture.h).
//
//   ASSIGN_OR_RETURN(std::unique_ptr<Server> server, Server::Create(options));
//   RETURN_IF_ERROR(server->Start());
//   while (/* not asked to stop */) {
//     // wait for a signal at most server->maintain_interval(); on SIGHUP: server->Reload();
//     server->Maintain();
//   }
//   server->Shutdown();
//
// Thread-safety: Start() is called once, before any other method. After it, Reload(),
// Maintain() and Shutdown() may be called from any thread; they run one at a time.
#ifndef TOPORR_DAEMON_SERVER_H_
#define TOPORR_DAEMON_SERVER_H_

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/net_address.h"
#include "daemon/config.h"
#include "daemon/service_notifier.h"

namespace grpc {
class ServerCredentials;
}  // namespace grpc

namespace toporr::daemon {

struct ServerOptions {
  // The configuration in force: toporrd's configuration file under its command-line flags,
  // or what a test sets. Paths are used as given (relative ones against the working
  // directory).
  DaemonConfig config;
  // Reads the configuration again for Reload(), into a default DaemonConfig. toporrd: the
  // configuration file under the same flags. An error is logged and the running
  // configuration kept. Empty: Reload() applies `config` again (reading its host map file
  // anew).
  std::function<absl::Status(DaemonConfig* config)> reload_config;
  // Tests only: the process SIGKILLs itself at this named point of an ingest's transaction
  // (db::StoreOptions::crash_point). Only //daemon:toporrd_test_hooks sets it; empty in the
  // shipped toporrd.
  std::string crash_point;
};

class Server {
 public:
  // Checks what the configuration names, without opening the database or any socket: the
  // database and socket paths are not symbolic links (kFailedPrecondition), the TCP
  // listener's TLS settings and files (daemon/tcp_credentials.h; the message starts with
  // "configuration: "), the host map file reads and parses (the message starts with
  // "host map: "), listen_allowed_networks parses (kInvalidArgument). toporrd exits 2 on
  // these errors: the configuration must change before the daemon can run. Reads
  // $NOTIFY_SOCKET and the watchdog settings (daemon/service_notifier.h).
  static absl::StatusOr<std::unique_ptr<Server>> Create(ServerOptions options);

  // Without Shutdown(): stops what Start() started, without telling the service manager.
  ~Server();

  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Opens the database (exclusively: one database, one daemon) and loads its current
  // snapshot, then serves: the Unix socket (created mode 0666, group admin_group), the TCP
  // listener and the metrics endpoint when configured, scheduled discovery when
  // discovery_interval_s > 0. Health answers SERVING once a snapshot is loaded. Logs what it
  // serves and tells the service manager READY=1. Errors (toporrd exits 1 on them): the
  // database cannot be opened ("cannot open <db_path>: ...", the store's code), its modes
  // cannot be set, a listener cannot bind (kUnavailable "cannot start the gRPC server..."
  // for the TCP listener, PeerListener's and MetricsHttpServer's errors for the others);
  // what was started is stopped again. kFailedPrecondition when called twice.
  absl::Status Start();

  // The serving loop's upkeep, due at least every maintain_interval(): STATUS= to the
  // service manager when the served snapshot changed, the metrics textfile when
  // metrics_interval_s has passed (the first at the first call), and the watchdog keep-alive
  // when the watchdog is on and the read server answers its own health check within 5 s
  // (else an error is logged and no keep-alive sent, so that systemd restarts a daemon
  // whose gRPC threads are stuck). No-op unless serving (Start() succeeded, no Shutdown()).
  void Maintain();
  // One second, or less when the watchdog wants keep-alives more often.
  absl::Duration maintain_interval() const { return maintain_interval_; }

  // SIGHUP: reads the configuration again (ServerOptions::reload_config) and applies what
  // can change without a restart: the host map (for the ingests that follow; the served
  // snapshot stays) and the admin group. A configuration or host map that does not read is
  // logged and the running one kept. Logs what was applied and names the changed settings
  // that need a restart (paths, listeners, TLS, discovery, max_host_lists_per_peer).
  // Tells the service manager RELOADING=1, then READY=1. No-op unless serving.
  void Reload();

  // Stops serving: tells the service manager STOPPING=1, stops accepting (the socket file
  // is removed), stops the metrics endpoint, and shuts both gRPC servers down, giving calls
  // in flight 5 s. Logs "stopped". The database stays open until the Server is destroyed.
  // No-op unless Start() succeeded, and when called again.
  void Shutdown();

  const DaemonConfig& config() const { return options_.config; }

 private:
  // What Start() builds (daemon/server.cc).
  struct Parts;

  Server(ServerOptions options, std::shared_ptr<grpc::ServerCredentials> tcp_credentials,
         std::string host_map, std::vector<IpPrefix> allowed_networks);

  // Reload() without the service manager's messages.
  void ApplyReload() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const ServerOptions options_;
  // Checked by Create(), used by Start().
  std::shared_ptr<grpc::ServerCredentials> tcp_credentials_;
  std::string host_map_;
  std::vector<IpPrefix> allowed_networks_;
  // Who may call admin RPCs over the Unix socket (besides uid 0 and the daemon's own uid);
  // read by the listener's thread, changed by Reload().
  std::atomic<gid_t> admin_gid_;

  absl::Mutex mu_;
  ServiceNotifier notifier_ ABSL_GUARDED_BY(mu_);
  absl::Duration maintain_interval_;  // set at construction
  std::unique_ptr<Parts> parts_ ABSL_GUARDED_BY(mu_);
  bool started_ ABSL_GUARDED_BY(mu_) = false;
  // From a successful Start() to Shutdown().
  bool serving_ ABSL_GUARDED_BY(mu_) = false;
  // The snapshot the last STATUS= named (0: none), and when the textfile is next due.
  int64_t status_snapshot_ ABSL_GUARDED_BY(mu_) = 0;
  absl::Time next_textfile_ ABSL_GUARDED_BY(mu_);
};

}  // namespace toporr::daemon

#endif  // TOPORR_DAEMON_SERVER_H_

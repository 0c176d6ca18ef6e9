// toporrd: the toporr topology daemon. See README.md and deploy/toporrd.service.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "common/logging.h"
#include "daemon/config.h"
#include "daemon/discovery.h"
#include "daemon/fabric_state.h"
#include "daemon/grpc_services.h"
#include "daemon/peer_listener.h"
#include "grpcpp/ext/health_check_service_server_builder_option.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/health_check_service_interface.h"
#include "grpcpp/server_posix.h"

ABSL_FLAG(std::string, config, "/etc/toporr/toporrd.conf",
          "Configuration file (`key = value`); the default path is skipped if absent, an "
          "empty value skips it always. Flags below override it.");
ABSL_FLAG(std::string, db, "",
          "SQLite database path (default from config: "
          "/var/lib/toporr/toporr.db)");
ABSL_FLAG(std::string, socket, "", "Unix socket path (default /run/toporr/toporrd.sock)");
ABSL_FLAG(std::string, listen, "", "Optional HOST:PORT TCP listener for read RPCs");
ABSL_FLAG(std::string, admin_group, "", "Group allowed to call admin RPCs (default toporr-admin)");
ABSL_FLAG(int, keep_snapshots, 0, "Snapshots kept in the database (default 20)");
ABSL_FLAG(std::string, host_map, "", "GUID -> host map file applied to every ingest");
ABSL_FLAG(int, discovery_interval_s, -1,
          "Seconds between live fabric sweeps (0 = only on `toporrctl discover`; default from "
          "config: 0)");
ABSL_FLAG(std::string, discovery_command, "",
          "Collector command line for live sweeps (space-separated; default: toporr-discover "
          "next to toporrd)");

namespace toporr::daemon {
namespace {

absl::Status ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(path + ": cannot open");
  std::stringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return absl::OkStatus();
}

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

std::unique_ptr<grpc::Server> BuildServer(grpc::Service* topology, grpc::Service* admin,
                                          const DaemonConfig& config,
                                          const std::string& tcp_address) {
  grpc::ServerBuilder builder;
  builder.RegisterService(topology);
  builder.RegisterService(admin);
  builder.SetMaxReceiveMessageSize(
      static_cast<int>(std::min<int64_t>(config.max_ingest_bytes + (1 << 20), INT32_MAX)));
  builder.SetMaxSendMessageSize(-1);
  if (!tcp_address.empty()) {
    builder.AddListeningPort(tcp_address, grpc::InsecureServerCredentials());
  }
  return builder.BuildAndStart();
}

int Run() {
  DaemonConfig config;
  if (absl::Status s = Configure(&config); !s.ok()) {
    TOPORR_LOG(ERROR) << "configuration: " << s.message();
    return 2;
  }

  // Block the shutdown signals before any thread starts; the main thread waits for them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  FabricStateOptions options;
  options.store.path = config.db_path;
  options.store.keep_snapshots = config.keep_snapshots;
  if (const char* crash = std::getenv("TOPORR_TEST_CRASH_POINT")) {
    options.store.crash_point = crash;  // tests only: SIGKILL at a named ingest point
  }
  if (!config.host_map_path.empty()) {
    if (absl::Status s = ReadFile(config.host_map_path, &options.default_host_map); !s.ok()) {
      TOPORR_LOG(ERROR) << "host map: " << s.message();
      return 2;
    }
    options.default_host_map_name = config.host_map_path;
  }
  auto state = FabricState::Create(options);
  if (!state.ok()) {
    TOPORR_LOG(ERROR) << "cannot open " << config.db_path << ": " << state.status().message();
    return 1;
  }
  if (auto current = (*state)->Current()) {
    TOPORR_LOG(INFO) << "serving snapshot " << current->info.id << " (" << current->info.source_kind
                     << " " << current->info.source_name << ", " << current->fabric.hosts.size()
                     << " hosts)";
  } else {
    TOPORR_LOG(INFO) << "database " << config.db_path
                     << " has no snapshot yet; waiting for `toporrctl ingest`";
  }

  DiscoveryOptions discovery;
  for (auto word : absl::StrSplit(config.discovery_command, ' ', absl::SkipEmpty())) {
    discovery.command.emplace_back(word);
  }
  discovery.interval_s = config.discovery_interval_s;
  discovery.probe_pause_us = config.discovery_probe_pause_us;
  discovery.timeout_s = config.discovery_timeout_s;
  DiscoverySweeper sweeper(discovery, state->get());

  grpc::EnableDefaultHealthCheckService(true);
  // Identical compact matrix requests (every leader of a job launch) share one computation.
  MatrixCache matrix_cache(8);
  // Jobs' host lists (RegisterHostList), and the request counters (GetStats) of both servers.
  HostLists host_lists;
  RpcStats stats;
  TopologyService topology(state->get(), &matrix_cache, &host_lists, &stats);
  const gid_t admin_gid = LookupGroup(config.admin_group);
  AdminService read_admin(state->get(), &sweeper, /*privileged=*/false,
                          "admin RPCs need uid 0 or membership of group '" + config.admin_group +
                              "', over the Unix socket",
                          config.max_ingest_bytes, &stats);
  AdminService admin(state->get(), &sweeper, /*privileged=*/true, "", config.max_ingest_bytes,
                     &stats);
  TopologyService admin_topology(state->get(), &matrix_cache, &host_lists, &stats);
  std::unique_ptr<grpc::Server> read_server =
      BuildServer(&topology, &read_admin, config, config.listen_address);
  std::unique_ptr<grpc::Server> admin_server = BuildServer(&admin_topology, &admin, config, "");
  if (!read_server || !admin_server) {
    TOPORR_LOG(ERROR) << "cannot start gRPC server"
                      << (config.listen_address.empty()
                              ? ""
                              : " (listen " + config.listen_address + ")");
    return 1;
  }

  const uid_t self = geteuid();
  auto listener = PeerListener::Start(config.socket_path, [&](int fd, const PeerCredentials& peer) {
    grpc::AddInsecureChannelFromFd(
        IsAdminPeer(peer, self, admin_gid) ? admin_server.get() : read_server.get(), fd);
  });
  if (!listener.ok()) {
    TOPORR_LOG(ERROR) << listener.status().message();
    return 1;
  }
  if (config.discovery_interval_s > 0) {
    TOPORR_LOG(INFO) << "live discovery every " << config.discovery_interval_s << " s with "
                     << sweeper.command()[0];
    sweeper.Start();
  }
  TOPORR_LOG(INFO) << "toporrd serving on unix:" << config.socket_path
                   << (config.listen_address.empty() ? "" : " and " + config.listen_address)
                   << ", database " << config.db_path;

  while (true) {
    int sig = 0;
    sigwait(&signals, &sig);
    if (sig == SIGHUP) {
      TOPORR_LOG(INFO) << "SIGHUP ignored (restart the service to reload the configuration)";
      continue;
    }
    TOPORR_LOG(INFO) << "signal " << sig << ": shutting down";
    break;
  }
  listener->reset();  // stop accepting, remove the socket file
  const auto deadline = std::chrono::system_clock::now() + std::chrono::seconds(5);
  read_server->Shutdown(deadline);
  admin_server->Shutdown(deadline);
  TOPORR_LOG(INFO) << "stopped";
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

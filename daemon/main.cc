// toporrd: the toporr topology daemon. See README.md and deploy/toporrd.service.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "collectors/hosts.h"
#include "common/key_value_file.h"
#include "common/logging.h"
#include "common/net_address.h"
#include "common/status_macros.h"
#include "daemon/client_identity.h"
#include "daemon/config.h"
#include "daemon/discovery.h"
#include "daemon/fabric_state.h"
#include "daemon/file_modes.h"
#include "daemon/grpc_services.h"
#include "daemon/metrics_http.h"
#include "daemon/metrics_text.h"
#include "daemon/peer_book.h"
#include "daemon/peer_listener.h"
#include "daemon/service_notifier.h"
#include "daemon/work_queue.h"
#include "grpc/health/v1/health.grpc.pb.h"
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
          "Collector command line for live sweeps (space-separated; default: toporr-discover "
          "next to toporrd)");

namespace toporr::daemon {
namespace {

// The host map file, read as a regular file (ReadRegularFile, like every file the
// configuration names: a directory would read as empty) and checked as an ingest would parse
// it (collectors/hosts.h ParseHostMap), so that a malformed map is refused at start and on
// SIGHUP rather than by every ingest.
absl::Status ReadHostMap(const std::string& path, std::string* out) {
  RETURN_IF_ERROR(ReadRegularFile(path, out));
  return collectors::ParseHostMap(*out, path).status();
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

// The TCP listener's credentials: TLS when a certificate is configured (client certificates
// requested and verified against tls_client_ca_path when set: mutual TLS for admin RPCs),
// plain only when allowed (listen_insecure, or a loopback address).
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> TcpCredentials(
    const DaemonConfig& config) {
  if (config.tls_cert_path.empty() != config.tls_key_path.empty()) {
    return absl::InvalidArgumentError("tls_cert_path and tls_key_path go together");
  }
  if (config.tls_cert_path.empty()) {
    if (!config.tls_client_ca_path.empty() || !config.tls_admin_clients.empty()) {
      return absl::InvalidArgumentError(
          "tls_client_ca_path / tls_admin_clients need tls_cert_path and tls_key_path");
    }
    if (!config.listen_insecure && !IsLoopbackAddress(config.listen_address)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "listen_address ", config.listen_address,
          " without TLS: set tls_cert_path and tls_key_path, or listen_insecure = true to "
          "serve read RPCs in plain TCP"));
    }
    return grpc::InsecureServerCredentials();
  }
  grpc::SslServerCredentialsOptions::PemKeyCertPair pair;
  RETURN_IF_ERROR(ReadRegularFile(config.tls_key_path, &pair.private_key));
  RETURN_IF_ERROR(ReadRegularFile(config.tls_cert_path, &pair.cert_chain));
  grpc::SslServerCredentialsOptions ssl(GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  if (!config.tls_client_ca_path.empty()) {
    RETURN_IF_ERROR(ReadRegularFile(config.tls_client_ca_path, &ssl.pem_root_certs));
    // Read RPCs stay open to clients without a certificate; one that presents a certificate
    // must present a valid one.
    ssl.client_certificate_request = GRPC_SSL_REQUEST_CLIENT_CERTIFICATE_AND_VERIFY;
  } else if (!config.tls_admin_clients.empty()) {
    return absl::InvalidArgumentError("tls_admin_clients needs tls_client_ca_path");
  }
  RETURN_IF_ERROR(CheckServerTlsFiles(config.tls_cert_path, pair.cert_chain, config.tls_key_path,
                                      pair.private_key, config.tls_client_ca_path,
                                      ssl.pem_root_certs));
  ssl.pem_key_cert_pairs.push_back(std::move(pair));
  return grpc::SslServerCredentials(ssl);
}

// The limits of one of the daemon's two servers.
struct ServerLimits {
  // The largest request message; gRPC refuses a larger one with RESOURCE_EXHAUSTED.
  int64_t max_receive_bytes = INT32_MAX;
  // The readers' server: its gRPC memory quota and requests in flight per connection
  // (0: none).
  int64_t memory_quota_bytes = 0;
  int max_streams_per_connection = 0;
};

std::unique_ptr<grpc::Server> BuildServer(grpc::Service* topology, grpc::Service* admin,
                                          const DaemonConfig& config, const ServerLimits& limits,
                                          std::shared_ptr<grpc::ServerCredentials> tcp) {
  grpc::ServerBuilder builder;
  if (limits.memory_quota_bytes > 0) {
    grpc::ResourceQuota quota("toporrd-readers");
    quota.Resize(limits.memory_quota_bytes);
    builder.SetResourceQuota(quota);
  }
  if (limits.max_streams_per_connection > 0) {
    builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, limits.max_streams_per_connection);
    // No bandwidth-delay probes: under a flood of large requests over one connection they
    // made gRPC answer other connections' light reads up to 10x later (measured by
    // //daemon:limits_test, p99 of GetSnapshot 0.56 ms without them vs 3.6 ms with them).
    // Readers' requests are small; the default 64 KiB window suffices.
    builder.AddChannelArgument(GRPC_ARG_HTTP2_BDP_PROBE, 0);
  }
  builder.RegisterService(topology);
  builder.RegisterService(admin);
  builder.SetMaxReceiveMessageSize(
      static_cast<int>(std::min<int64_t>(limits.max_receive_bytes, INT32_MAX)));
  builder.SetMaxSendMessageSize(-1);
  // gRPC sets SO_REUSEPORT by default: a second toporrd on the same port would start and the
  // kernel would split the queries between two fabrics. Without it, the bind fails.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  if (tcp != nullptr) builder.AddListeningPort(config.listen_address, tcp);
  return builder.BuildAndStart();
}

// "snapshot 7 (ibnetdiscover fabric.topo, 16 hosts)" or why there is none.
std::string SnapshotStatus(const FabricState& state) {
  auto current = state.Current();
  if (current == nullptr) return "no snapshot yet: waiting for `toporrctl ingest` or discovery";
  return absl::StrCat("serving snapshot ", current->info.id, " (", current->info.source_kind, " ",
                      current->info.source_name, ", ", current->fabric.hosts.size(), " hosts)");
}

// The health of both servers: "" (the whole daemon) and toporr.v1.Topology answer SERVING
// only while a snapshot is loaded (before, no query can be answered); toporr.v1.Admin serves
// as soon as the sockets listen (it is how the first snapshot arrives).
void SetHealth(grpc::Server* server, bool has_snapshot) {
  grpc::HealthCheckServiceInterface* health = server->GetHealthCheckService();
  if (health == nullptr) return;
  health->SetServingStatus("", has_snapshot);
  health->SetServingStatus("toporr.v1.Topology", has_snapshot);
  health->SetServingStatus("toporr.v1.Admin", true);
}

// True when the read server answers a health check over its in-process channel within 5 s:
// the serving loop sends the watchdog keep-alive only then, so a daemon whose gRPC threads
// are stuck is restarted by systemd.
bool ServerAnswers(grpc::Server* server) {
  grpc::ChannelArguments args;
  auto stub = grpc::health::v1::Health::NewStub(server->InProcessChannel(args));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  grpc::health::v1::HealthCheckRequest request;
  request.set_service("toporr.v1.Admin");
  grpc::health::v1::HealthCheckResponse response;
  return stub->Check(&context, request, &response).ok();
}

// The settings a SIGHUP applies without a restart: the host map and the admin group. Others
// (paths, listeners, TLS, discovery) need `systemctl restart toporrd`; a reload that changes
// them says so.
struct Reloadable {
  std::atomic<gid_t> admin_gid{static_cast<gid_t>(-1)};
  // Called with the configuration a reload applied (the admin group's name in refusals).
  std::function<void(const DaemonConfig&)> applied;
};

// Why a caller may not call admin RPCs, naming the admin group in force.
std::string AdminDenial(const std::string& admin_group) {
  return "admin RPCs need uid 0 or membership of group '" + admin_group +
         "' over the Unix socket, or over TCP a client certificate listed in "
         "tls_admin_clients";
}

void Reload(const DaemonConfig& running, FabricState* state, Reloadable* live) {
  DaemonConfig next;
  if (absl::Status s = Configure(&next); !s.ok()) {
    TOPORR_LOG(ERROR) << "reload: configuration: " << s.message() << "; keeping the old one";
    return;
  }
  std::string host_map;
  if (!next.host_map_path.empty()) {
    if (absl::Status s = ReadHostMap(next.host_map_path, &host_map); !s.ok()) {
      TOPORR_LOG(ERROR) << "reload: host map: " << s.message() << "; keeping the old one";
      return;
    }
  }
  state->SetDefaultHostMap(host_map, next.host_map_path.empty() ? "host map" : next.host_map_path);
  live->admin_gid = LookupGroup(next.admin_group);
  if (live->applied) live->applied(next);
  std::vector<std::string> restart;
  if (next.db_path != running.db_path) restart.push_back("db_path");
  if (next.socket_path != running.socket_path) restart.push_back("socket_path");
  if (next.listen_address != running.listen_address) restart.push_back("listen_address");
  if (next.listen_allowed_networks != running.listen_allowed_networks) {
    restart.push_back("listen_allowed_networks");
  }
  if (next.tls_cert_path != running.tls_cert_path || next.tls_key_path != running.tls_key_path ||
      next.tls_client_ca_path != running.tls_client_ca_path ||
      next.tls_admin_clients != running.tls_admin_clients) {
    restart.push_back("tls_*");
  }
  if (next.metrics_listen != running.metrics_listen) restart.push_back("metrics_listen");
  if (next.max_host_lists_per_peer != running.max_host_lists_per_peer) {
    restart.push_back("max_host_lists_per_peer");
  }
  if (next.discovery_interval_s != running.discovery_interval_s ||
      next.discovery_command != running.discovery_command) {
    restart.push_back("discovery_*");
  }
  TOPORR_LOG(INFO) << "reload: host map "
                   << (next.host_map_path.empty() ? "(none)" : next.host_map_path)
                   << ", admin group " << next.admin_group << " applied; " << SnapshotStatus(*state)
                   << (restart.empty() ? ""
                                       : "; changed settings that need a restart: " +
                                             absl::StrJoin(restart, ", "));
}

int Run() {
  umask(027);  // the database and the textfile are modeled explicitly; nothing else is public
  DaemonConfig config;
  if (absl::Status s = Configure(&config); !s.ok()) {
    TOPORR_LOG(ERROR) << "configuration: " << s.message();
    return 2;
  }
  for (const auto& [path, what] :
       {std::pair{config.db_path, "database"}, std::pair{config.socket_path, "socket path"}}) {
    if (absl::Status s = RefuseSymlink(path, what); !s.ok()) {
      TOPORR_LOG(ERROR) << s.message();
      return 2;
    }
  }
  std::shared_ptr<grpc::ServerCredentials> tcp_credentials;
  if (!config.listen_address.empty()) {
    auto credentials = TcpCredentials(config);
    if (!credentials.ok()) {
      TOPORR_LOG(ERROR) << "configuration: " << credentials.status().message();
      return 2;
    }
    tcp_credentials = *credentials;
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
  ServiceNotifier notifier;
  const int64_t started_unix_ms = absl::ToUnixMillis(absl::Now());

  FabricStateOptions options;
  options.store.path = config.db_path;
  options.store.keep_snapshots = config.keep_snapshots;
  options.store.exclusive = true;  // one database, one daemon
  options.max_host_loss = config.max_host_loss_percent / 100.0;
#ifdef TOPORR_TEST_HOOKS
  // Only in //daemon:toporrd_test_hooks (tests): SIGKILL at a named ingest point. The shipped
  // toporrd has no such hook.
  if (const char* crash = std::getenv("TOPORR_TEST_CRASH_POINT")) {
    options.store.crash_point = crash;
  }
#endif
  if (!config.host_map_path.empty()) {
    if (absl::Status s = ReadHostMap(config.host_map_path, &options.default_host_map); !s.ok()) {
      TOPORR_LOG(ERROR) << "host map: " << s.message();
      return 2;
    }
    options.default_host_map_name = config.host_map_path;
  }
  notifier.Status("loading " + config.db_path);
  auto state = FabricState::Create(options);
  if (!state.ok()) {
    TOPORR_LOG(ERROR) << "cannot open " << config.db_path << ": " << state.status().message();
    return 1;
  }
  if (absl::Status s = SecureDatabaseFiles(config.db_path); !s.ok()) {
    TOPORR_LOG(ERROR) << s.message();
    return 1;
  }
  if (auto current = (*state)->Current()) {
    TOPORR_LOG(INFO) << "serving snapshot " << current->info.id << " (" << current->info.source_kind
                     << " " << current->info.source_name << ", " << current->fabric.hosts.size()
                     << " hosts)";
  } else {
    TOPORR_LOG(INFO) << "database " << config.db_path
                     << " has no snapshot yet; health is NOT_SERVING until `toporrctl ingest`";
  }

  // Request counters of both servers and the discovery sweeps (GetStats, metrics).
  RpcStats stats;
  DiscoveryOptions discovery;
  for (auto word : absl::StrSplit(config.discovery_command, ' ', absl::SkipEmpty())) {
    discovery.command.emplace_back(word);
  }
  discovery.interval_s = config.discovery_interval_s;
  discovery.probe_pause_us = config.discovery_probe_pause_us;
  discovery.timeout_s = config.discovery_timeout_s;
  discovery.stats = &stats;
  DiscoverySweeper sweeper(discovery, state->get());

  grpc::EnableDefaultHealthCheckService(true);
  // Identical compact matrix requests (every leader of a job launch) share one computation.
  MatrixCache matrix_cache(8);
  // Jobs' host lists (RegisterHostList), bounded per caller: who calls is told by the
  // Unix-socket listener's credentials (uid) or the TCP peer.
  HostListsOptions host_list_options;
  host_list_options.max_lists_per_peer = config.max_host_lists_per_peer;
  HostLists host_lists(host_list_options);
  PeerBook peers;
  MetricsSources metrics{state->get(), &host_lists, &matrix_cache, &stats, started_unix_ms};
  TopologyService topology(state->get(), &matrix_cache, &host_lists, &stats);
  topology.set_metrics(&metrics);
  topology.set_peer_book(&peers);
  const std::string heavy =
      absl::StrCat("large reads (cost matrices or topologies of ", config.heavy_request_hosts,
                   " hosts or more; ", "max_heavy_requests = ", config.max_heavy_requests, ")");
  RequestLimiter read_heavy(config.max_heavy_requests, heavy);
  RequestLimiter admin_heavy(config.max_heavy_requests, heavy);
  topology.set_heavy_limit(&read_heavy, config.heavy_request_hosts);
  // Matrices, topologies and host lists run on threads of their own at nice 10, off gRPC's
  // threads that read requests and answer the light reads: heavy ones and two more at once
  // per server (the queue is declared before the servers, which wait for its work on
  // shutdown).
  constexpr int kWorkQueueNice = 10;
  WorkQueue read_work(config.max_heavy_requests + 2, kWorkQueueNice);
  WorkQueue admin_work(config.max_heavy_requests + 2, kWorkQueueNice);
  topology.set_work_queue(&read_work);
  // Checked when the configuration was parsed.
  NetworkFilter networks(ParseIpPrefixList(config.listen_allowed_networks).value(), &stats);
  topology.set_network_filter(&networks);
  Reloadable live;
  live.admin_gid = LookupGroup(config.admin_group);
  AdminService read_admin(state->get(), &sweeper, /*privileged=*/false,
                          AdminDenial(config.admin_group), config.max_ingest_bytes, &stats);
  live.applied = [&read_admin](const DaemonConfig& next) {
    read_admin.set_denial_reason(AdminDenial(next.admin_group));
  };
  read_admin.set_peer_describer([&peers](const std::string& p) { return peers.Describe(p); });
  read_admin.set_tls_admin_clients(
      absl::StrSplit(config.tls_admin_clients, ',', absl::SkipWhitespace()));
  read_admin.set_network_filter(&networks);
  // Readers (non-admin Unix connections, TCP) send small requests: their server refuses
  // larger messages unread, and admin methods before their request is read.
  ReadServerAdminService read_server_admin(&read_admin);
  AdminService admin(state->get(), &sweeper, /*privileged=*/true, "", config.max_ingest_bytes,
                     &stats);
  // Streamed ingests arrive in an unlinked file beside the database (same disk, same
  // permissions), never in /run or /tmp, which are often in memory.
  const std::string spool_dir = config.db_path.find('/') == std::string::npos
                                    ? "."
                                    : config.db_path.substr(0, config.db_path.rfind('/') + 1);
  admin.set_spool_dir(spool_dir);
  read_admin.set_spool_dir(spool_dir);
  TopologyService admin_topology(state->get(), &matrix_cache, &host_lists, &stats);
  admin_topology.set_metrics(&metrics);
  admin_topology.set_peer_book(&peers);
  admin_topology.set_heavy_limit(&admin_heavy, config.heavy_request_hosts);
  admin_topology.set_work_queue(&admin_work);
  ServerLimits read_limits;
  read_limits.max_receive_bytes = config.max_read_message_bytes;
  read_limits.memory_quota_bytes = config.read_memory_quota_bytes;
  read_limits.max_streams_per_connection = config.max_read_streams_per_connection;
  std::unique_ptr<grpc::Server> read_server =
      BuildServer(&topology, &read_server_admin, config, read_limits, tcp_credentials);
  ServerLimits admin_limits;
  if (config.max_ingest_bytes > 0)
    admin_limits.max_receive_bytes = config.max_ingest_bytes + (1 << 20);
  std::unique_ptr<grpc::Server> admin_server =
      BuildServer(&admin_topology, &admin, config, admin_limits, nullptr);
  if (!read_server || !admin_server) {
    TOPORR_LOG(ERROR) << "cannot start the gRPC server"
                      << (config.listen_address.empty()
                              ? ""
                              : ": cannot listen on " + config.listen_address +
                                    " (address in use by another process, such as another "
                                    "toporrd, or not an address of this machine)");
    return 1;
  }
  const bool loaded = (*state)->Current() != nullptr;
  SetHealth(read_server.get(), loaded);
  SetHealth(admin_server.get(), loaded);
  // SERVING from the moment the first snapshot is swapped in (before its Ingest answers).
  (*state)->SetOnChange([&](const Serving&) {
    SetHealth(read_server.get(), true);
    SetHealth(admin_server.get(), true);
  });
  int64_t status_snapshot = loaded ? (*state)->Current()->info.id : 0;  // last STATUS= sent
  auto snapshot_changed = [&] {
    auto current = (*state)->Current();
    const int64_t id = current != nullptr ? current->info.id : 0;
    if (id == status_snapshot) return false;
    status_snapshot = id;
    return true;
  };

  const uid_t self = geteuid();
  auto listener = PeerListener::Start(config.socket_path, [&](int fd, const PeerCredentials& peer) {
    peers.Remember(fd, peer);
    grpc::AddInsecureChannelFromFd(
        IsAdminPeer(peer, self, live.admin_gid) ? admin_server.get() : read_server.get(), fd);
  });
  if (!listener.ok()) {
    TOPORR_LOG(ERROR) << listener.status().message();
    return 1;
  }
  if (absl::Status s = SecureSocket(config.socket_path, live.admin_gid); !s.ok()) {
    TOPORR_LOG(ERROR) << s.message();
    return 1;
  }
  std::unique_ptr<MetricsHttpServer> metrics_http;
  if (!config.metrics_listen.empty()) {
    auto http = MetricsHttpServer::Start(config.metrics_listen,
                                         [&metrics] { return RenderDaemonMetrics(metrics); });
    if (!http.ok()) {
      TOPORR_LOG(ERROR) << http.status().message();
      return 1;
    }
    metrics_http = *std::move(http);
  }
  if (config.discovery_interval_s > 0) {
    TOPORR_LOG(INFO) << "live discovery every " << config.discovery_interval_s << " s with "
                     << sweeper.command()[0];
    sweeper.Start();
  }
  TOPORR_LOG(INFO) << "toporrd serving on unix:" << config.socket_path
                   << (config.listen_address.empty()
                           ? ""
                           : absl::StrCat(" and ", config.listen_address,
                                          config.tls_cert_path.empty() ? " (plain TCP)"
                                          : config.tls_client_ca_path.empty()
                                              ? " (TLS)"
                                              : " (TLS, mTLS admin)"))
                   << (config.listen_address.empty() || config.listen_allowed_networks.empty()
                           ? ""
                           : " from " + config.listen_allowed_networks)
                   << (config.metrics_listen.empty()
                           ? ""
                           : ", metrics on http://" + config.metrics_listen + "/metrics")
                   << ", database " << config.db_path;
  notifier.Ready(SnapshotStatus(**state));

  // The serving loop: signals, the health status and STATUS= when the snapshot changes, the
  // textfile every metrics_interval_s, watchdog keep-alives while the server answers.
  const absl::Duration tick = std::min(absl::Seconds(1), notifier.keepalive_interval());
  absl::Time next_textfile = absl::Now();
  while (true) {
    const timespec timeout = absl::ToTimespec(tick);
    const int sig = sigtimedwait(&signals, nullptr, &timeout);
    if (sig == SIGHUP) {
      notifier.Reloading();
      Reload(config, state->get(), &live);
      notifier.Reloaded(SnapshotStatus(**state));
    } else if (sig == SIGTERM || sig == SIGINT) {
      TOPORR_LOG(INFO) << "signal " << sig << ": shutting down";
      break;
    }
    if (snapshot_changed()) notifier.Status(SnapshotStatus(**state));
    if (!config.metrics_textfile_dir.empty() && absl::Now() >= next_textfile) {
      next_textfile = absl::Now() + absl::Seconds(config.metrics_interval_s);
      if (absl::Status s = WriteTextfile(config.metrics_textfile_dir, RenderDaemonMetrics(metrics));
          !s.ok()) {
        TOPORR_LOG(WARNING) << "metrics textfile: " << s.message();
      }
    }
    if (notifier.keepalive_interval() != absl::InfiniteDuration()) {
      if (ServerAnswers(read_server.get())) {
        notifier.WatchdogKeepalive();
      } else {
        TOPORR_LOG(ERROR) << "gRPC server does not answer its own health check; no watchdog "
                             "keep-alive";
      }
    }
  }
  notifier.Stopping();
  (*state)->SetOnChange(nullptr);
  listener->reset();  // stop accepting, remove the socket file
  metrics_http.reset();
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

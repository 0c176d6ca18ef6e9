#include "daemon/server.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <utility>

#include "absl/memory/memory.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "collectors/hosts.h"
#include "common/key_value_file.h"
#include "common/logging.h"
#include "common/status_macros.h"
#include "daemon/discovery.h"
#include "daemon/fabric_state.h"
#include "daemon/file_modes.h"
#include "daemon/grpc_services.h"
#include "daemon/host_lists.h"
#include "daemon/job_metrics.h"
#include "daemon/matrix_cache.h"
#include "daemon/metrics_http.h"
#include "daemon/metrics_text.h"
#include "daemon/network_filter.h"
#include "daemon/peer_book.h"
#include "daemon/peer_listener.h"
#include "daemon/request_limiter.h"
#include "daemon/rpc_stats.h"
#include "daemon/tcp_credentials.h"
#include "daemon/work_queue.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/ext/health_check_service_server_builder_option.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/health_check_service_interface.h"
#include "grpcpp/server_posix.h"

namespace toporr::daemon {
namespace {

// `status` with its message after "`context`: ", its code kept.
absl::Status WithContext(absl::string_view context, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat(context, ": ", status.message()));
}

// The host map file, read as a regular file (ReadRegularFile, like every file the
// configuration names: a directory would read as empty) and checked as an ingest would parse
// it (collectors/hosts.h ParseHostMap), so that a malformed map is refused at start and on
// SIGHUP rather than by every ingest.
absl::Status ReadHostMap(const std::string& path, std::string* out) {
  RETURN_IF_ERROR(ReadRegularFile(path, out, kHostListFileMaxBytes, "host map"));
  return collectors::ParseHostMap(*out, path).status();
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
    // delay other connections' light reads by a large factor (//daemon:limits_test checks
    // the light reads' latency under such a flood). Readers' requests are small; the default
    // 64 KiB window suffices.
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

// "serving snapshot 7 (ibnetdiscover fabric.topo, 16 hosts)" or why there is none.
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

// True when the read server answers a health check over its in-process channel within 5 s.
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

// Why a caller may not call admin RPCs, naming the admin group in force.
std::string AdminDenial(const std::string& admin_group) {
  return "admin RPCs need uid 0 or membership of group '" + admin_group +
         "' over the Unix socket, or over TCP a client certificate listed in "
         "tls_admin_clients";
}

// The settings that differ between `running` and `next` and take effect only at a restart.
std::vector<std::string> SettingsNeedingRestart(const DaemonConfig& running,
                                                const DaemonConfig& next) {
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
  if (mapping::CostModelSettingLines(next.cost_model.kind, next.cost_model.model, true) !=
      mapping::CostModelSettingLines(running.cost_model.kind, running.cost_model.model, true)) {
    restart.push_back("cost_model*");
  }
  if (next.discovery_interval_s != running.discovery_interval_s ||
      next.discovery_command != running.discovery_command) {
    restart.push_back("discovery_*");
  }
  return restart;
}

DiscoveryOptions SweepOptions(const DaemonConfig& config, RpcStats* stats) {
  DiscoveryOptions discovery;
  for (auto word : absl::StrSplit(config.discovery_command, ' ', absl::SkipEmpty())) {
    discovery.command.emplace_back(word);
  }
  discovery.interval_s = config.discovery_interval_s;
  discovery.probe_pause_us = config.discovery_probe_pause_us;
  discovery.timeout_s = config.discovery_timeout_s;
  discovery.stats = stats;
  return discovery;
}

JobMetrics::Options JobReportLimits(const DaemonConfig& config) {
  JobMetrics::Options options;
  options.burst = config.job_reports_burst;
  options.per_minute = config.job_reports_per_minute;
  return options;
}

HostListsOptions HostListLimits(const DaemonConfig& config) {
  HostListsOptions options;
  options.max_lists_per_peer = config.max_host_lists_per_peer;
  return options;
}

std::string HeavyRequests(const DaemonConfig& config) {
  return absl::StrCat("large reads (cost matrices or topologies of ", config.heavy_request_hosts,
                      " hosts or more; ", "max_heavy_requests = ", config.max_heavy_requests, ")");
}

// Matrices, topologies and host lists run on threads of their own at this nice level, off
// gRPC's threads that read requests and answer the light reads.
constexpr int kWorkQueueNice = 10;

}  // namespace

// Declared in the order Start() builds them, so that they are torn down in reverse: the
// listeners first, then the gRPC servers (which wait for the calls in flight), the work
// queues those calls run on, the services, and the store last.
struct Server::Parts {
  Parts(const DaemonConfig& config, std::unique_ptr<FabricState> fabric_state,
        int64_t started_unix_ms, std::vector<IpPrefix> allowed_networks)
      : state(std::move(fabric_state)),
        sweeper(SweepOptions(config, &stats), state.get()),
        host_lists(HostListLimits(config)),
        jobs(JobReportLimits(config)),
        metrics{state.get(), &host_lists, &matrix_cache, &stats, started_unix_ms},
        topology(state.get(), &matrix_cache, &host_lists, &stats),
        read_heavy(config.max_heavy_requests, HeavyRequests(config)),
        admin_heavy(config.max_heavy_requests, HeavyRequests(config)),
        read_work(config.max_heavy_requests + 2, kWorkQueueNice),
        admin_work(config.max_heavy_requests + 2, kWorkQueueNice),
        networks(std::move(allowed_networks), &stats),
        read_admin(state.get(), &sweeper, /*privileged=*/false, AdminDenial(config.admin_group),
                   config.max_ingest_bytes, &stats),
        read_server_admin(&read_admin),
        admin(state.get(), &sweeper, /*privileged=*/true, "", config.max_ingest_bytes, &stats),
        admin_topology(state.get(), &matrix_cache, &host_lists, &stats) {
    metrics.jobs = &jobs;
    topology.set_job_metrics(&jobs);
    admin_topology.set_job_metrics(&jobs);
    topology.set_metrics(&metrics);
    topology.set_peer_book(&peers);
    topology.set_heavy_limit(&read_heavy, config.heavy_request_hosts);
    topology.set_work_queue(&read_work);
    topology.set_network_filter(&networks);
    read_admin.set_peer_describer([this](const std::string& p) { return peers.Describe(p); });
    read_admin.set_tls_admin_clients(
        absl::StrSplit(config.tls_admin_clients, ',', absl::SkipWhitespace()));
    read_admin.set_network_filter(&networks);
    // Streamed ingests arrive in an unlinked file beside the database (same disk, same
    // permissions), never in /run or /tmp, which are often in memory.
    const std::string spool_dir = config.db_path.find('/') == std::string::npos
                                      ? "."
                                      : config.db_path.substr(0, config.db_path.rfind('/') + 1);
    admin.set_spool_dir(spool_dir);
    read_admin.set_spool_dir(spool_dir);
    admin_topology.set_metrics(&metrics);
    admin_topology.set_peer_book(&peers);
    admin_topology.set_heavy_limit(&admin_heavy, config.heavy_request_hosts);
    admin_topology.set_work_queue(&admin_work);
  }

  std::unique_ptr<FabricState> state;
  // Request counters of both servers and the discovery sweeps (GetStats, metrics).
  RpcStats stats;
  DiscoverySweeper sweeper;
  // Identical compact matrix requests (every leader of a job launch) share one computation.
  MatrixCache matrix_cache{8};
  // Jobs' host lists (RegisterHostList), bounded per caller: who calls is told by the
  // Unix-socket listener's credentials (uid) or the TCP peer.
  HostLists host_lists;
  PeerBook peers;
  // Finished jobs' summaries (ReportJob on either server), rate-limited per caller.
  JobMetrics jobs;
  MetricsSources metrics;
  TopologyService topology;
  // Heavy reads running at once, per server.
  RequestLimiter read_heavy;
  RequestLimiter admin_heavy;
  // Heavy requests and two more at once per server.
  WorkQueue read_work;
  WorkQueue admin_work;
  NetworkFilter networks;
  AdminService read_admin;
  // Readers (non-admin Unix connections, TCP) send small requests: their server refuses
  // larger messages unread, and admin methods before their request is read.
  ReadServerAdminService read_server_admin;
  AdminService admin;
  TopologyService admin_topology;
  std::unique_ptr<grpc::Server> read_server;
  std::unique_ptr<grpc::Server> admin_server;
  std::unique_ptr<PeerListener> listener;
  std::unique_ptr<MetricsHttpServer> metrics_http;
};

absl::StatusOr<std::unique_ptr<Server>> Server::Create(ServerOptions options) {
  const DaemonConfig& config = options.config;
  for (const auto& [path, what] :
       {std::pair{config.db_path, "database"}, std::pair{config.socket_path, "socket path"}}) {
    RETURN_IF_ERROR(RefuseSymlink(path, what));
  }
  std::shared_ptr<grpc::ServerCredentials> tcp_credentials;
  if (!config.listen_address.empty()) {
    auto credentials = TcpCredentials(config);
    if (!credentials.ok()) return WithContext("configuration", credentials.status());
    tcp_credentials = *std::move(credentials);
  }
  std::string host_map;
  if (!config.host_map_path.empty()) {
    if (absl::Status s = ReadHostMap(config.host_map_path, &host_map); !s.ok()) {
      return WithContext("host map", s);
    }
  }
  // toporrd's configuration file was checked when parsed; a test's options may not be.
  auto networks = ParseIpPrefixList(config.listen_allowed_networks);
  if (!networks.ok())
    return WithContext("configuration: listen_allowed_networks", networks.status());
  return absl::WrapUnique(new Server(std::move(options), std::move(tcp_credentials),
                                     std::move(host_map), *std::move(networks)));
}

Server::Server(ServerOptions options, std::shared_ptr<grpc::ServerCredentials> tcp_credentials,
               std::string host_map, std::vector<IpPrefix> allowed_networks)
    : options_(std::move(options)),
      tcp_credentials_(std::move(tcp_credentials)),
      host_map_(std::move(host_map)),
      allowed_networks_(std::move(allowed_networks)),
      admin_gid_(static_cast<gid_t>(-1)) {
  maintain_interval_ = std::min(absl::Seconds(1), notifier_.keepalive_interval());
}

Server::~Server() {
  // No snapshot change may reach the servers while they are torn down.
  if (parts_ != nullptr) parts_->state->SetOnChange(nullptr);
}

absl::Status Server::Start() {
  absl::MutexLock lock(&mu_);
  if (started_) return absl::FailedPreconditionError("the server was started already");
  started_ = true;
  const DaemonConfig& config = options_.config;
  const int64_t started_unix_ms = absl::ToUnixMillis(absl::Now());

  FabricStateOptions options;
  options.store.path = config.db_path;
  options.store.keep_snapshots = config.keep_snapshots;
  options.store.exclusive = true;  // one database, one daemon
  options.store.crash_point = options_.crash_point;
  options.max_host_loss = config.max_host_loss_percent / 100.0;
  options.cost_model = config.cost_model.model;
  if (!config.host_map_path.empty()) {
    options.default_host_map = std::move(host_map_);
    options.default_host_map_name = config.host_map_path;
  }
  TOPORR_LOG(INFO) << "cost model: "
                   << mapping::DescribeCostModel(config.cost_model.kind, config.cost_model.model);
  notifier_.Status("loading " + config.db_path);
  auto state = FabricState::Create(options);
  if (!state.ok()) return WithContext("cannot open " + config.db_path, state.status());
  RETURN_IF_ERROR(SecureDatabaseFiles(config.db_path));
  if ((*state)->Current() != nullptr) {
    TOPORR_LOG(INFO) << SnapshotStatus(**state);
  } else {
    TOPORR_LOG(INFO) << "database " << config.db_path
                     << " has no snapshot yet; health is NOT_SERVING until `toporrctl ingest`";
  }

  grpc::EnableDefaultHealthCheckService(true);
  admin_gid_ = LookupGroup(config.admin_group);
  parts_ = std::make_unique<Parts>(config, *std::move(state), started_unix_ms,
                                   std::move(allowed_networks_));
  Parts* parts = parts_.get();
  ServerLimits read_limits;
  read_limits.max_receive_bytes = config.max_read_message_bytes;
  read_limits.memory_quota_bytes = config.read_memory_quota_bytes;
  read_limits.max_streams_per_connection = config.max_read_streams_per_connection;
  parts->read_server = BuildServer(&parts->topology, &parts->read_server_admin, config, read_limits,
                                   tcp_credentials_);
  ServerLimits admin_limits;
  if (config.max_ingest_bytes > 0) {
    admin_limits.max_receive_bytes = config.max_ingest_bytes + (1 << 20);
  }
  parts->admin_server =
      BuildServer(&parts->admin_topology, &parts->admin, config, admin_limits, nullptr);
  if (!parts->read_server || !parts->admin_server) {
    return absl::UnavailableError(absl::StrCat(
        "cannot start the gRPC server",
        config.listen_address.empty()
            ? ""
            : ": cannot listen on " + config.listen_address +
                  " (address in use by another process, such as another toporrd, or not an "
                  "address of this machine)"));
  }
  const bool loaded = parts->state->Current() != nullptr;
  SetHealth(parts->read_server.get(), loaded);
  SetHealth(parts->admin_server.get(), loaded);
  // SERVING from the moment the first snapshot is swapped in (before its Ingest answers).
  parts->state->SetOnChange([parts](const Serving&) {
    SetHealth(parts->read_server.get(), true);
    SetHealth(parts->admin_server.get(), true);
  });
  status_snapshot_ = loaded ? parts->state->Current()->info.id : 0;

  const uid_t self = geteuid();
  ASSIGN_OR_RETURN(parts->listener,
                   PeerListener::Start(config.socket_path,
                                       [this, parts, self](int fd, const PeerCredentials& peer) {
                                         parts->peers.Remember(fd, peer);
                                         grpc::AddInsecureChannelFromFd(
                                             IsAdminPeer(peer, self, admin_gid_)
                                                 ? parts->admin_server.get()
                                                 : parts->read_server.get(),
                                             fd);
                                       }));
  RETURN_IF_ERROR(SecureSocket(config.socket_path, admin_gid_));
  if (!config.metrics_listen.empty()) {
    ASSIGN_OR_RETURN(parts->metrics_http, MetricsHttpServer::Start(config.metrics_listen, [parts] {
                       return RenderDaemonMetrics(parts->metrics);
                     }));
  }
  if (config.discovery_interval_s > 0) {
    TOPORR_LOG(INFO) << "live discovery every " << config.discovery_interval_s << " s with "
                     << parts->sweeper.command()[0];
    parts->sweeper.Start();
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
  notifier_.Ready(SnapshotStatus(*parts->state));
  next_textfile_ = absl::Now();
  serving_ = true;
  return absl::OkStatus();
}

void Server::Maintain() {
  absl::MutexLock lock(&mu_);
  if (!serving_) return;
  const DaemonConfig& config = options_.config;
  auto current = parts_->state->Current();
  const int64_t id = current != nullptr ? current->info.id : 0;
  if (id != status_snapshot_) {
    status_snapshot_ = id;
    notifier_.Status(SnapshotStatus(*parts_->state));
  }
  if (!config.metrics_textfile_dir.empty() && absl::Now() >= next_textfile_) {
    next_textfile_ = absl::Now() + absl::Seconds(config.metrics_interval_s);
    if (absl::Status s =
            WriteTextfile(config.metrics_textfile_dir, RenderDaemonMetrics(parts_->metrics));
        !s.ok()) {
      TOPORR_LOG(WARNING) << "metrics textfile: " << s.message();
    }
  }
  if (notifier_.keepalive_interval() != absl::InfiniteDuration()) {
    if (ServerAnswers(parts_->read_server.get())) {
      notifier_.WatchdogKeepalive();
    } else {
      TOPORR_LOG(ERROR) << "gRPC server does not answer its own health check; no watchdog "
                           "keep-alive";
    }
  }
}

void Server::Reload() {
  absl::MutexLock lock(&mu_);
  if (!serving_) return;
  notifier_.Reloading();
  ApplyReload();
  notifier_.Reloaded(SnapshotStatus(*parts_->state));
}

void Server::ApplyReload() {
  const DaemonConfig& running = options_.config;
  DaemonConfig next = running;
  if (options_.reload_config) {
    next = DaemonConfig();
    if (absl::Status s = options_.reload_config(&next); !s.ok()) {
      TOPORR_LOG(ERROR) << "reload: configuration: " << s.message() << "; keeping the old one";
      return;
    }
  }
  std::string host_map;
  if (!next.host_map_path.empty()) {
    if (absl::Status s = ReadHostMap(next.host_map_path, &host_map); !s.ok()) {
      TOPORR_LOG(ERROR) << "reload: host map: " << s.message() << "; keeping the old one";
      return;
    }
  }
  FabricState& state = *parts_->state;
  state.SetDefaultHostMap(host_map, next.host_map_path.empty() ? "host map" : next.host_map_path);
  admin_gid_ = LookupGroup(next.admin_group);
  parts_->read_admin.set_denial_reason(AdminDenial(next.admin_group));
  const std::vector<std::string> restart = SettingsNeedingRestart(running, next);
  TOPORR_LOG(INFO) << "reload: host map "
                   << (next.host_map_path.empty() ? "(none)" : next.host_map_path)
                   << ", admin group " << next.admin_group << " applied; " << SnapshotStatus(state)
                   << (restart.empty() ? ""
                                       : "; changed settings that need a restart: " +
                                             absl::StrJoin(restart, ", "));
}

void Server::Shutdown() {
  absl::MutexLock lock(&mu_);
  if (!serving_) return;
  serving_ = false;
  notifier_.Stopping();
  parts_->state->SetOnChange(nullptr);
  parts_->listener.reset();  // stop accepting, remove the socket file
  parts_->metrics_http.reset();
  const auto deadline = std::chrono::system_clock::now() + std::chrono::seconds(5);
  parts_->read_server->Shutdown(deadline);
  parts_->admin_server->Shutdown(deadline);
  TOPORR_LOG(INFO) << "stopped";
}

}  // namespace toporr::daemon

// toporrd configuration: a small `key = value` file (see deploy/toporrd.conf.example),
// overridden by command-line flags in main.cc.
#ifndef TOPORR_DAEMON_CONFIG_H_
#define TOPORR_DAEMON_CONFIG_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "mapping/costs/cost_model.h"

namespace toporr::daemon {

struct DaemonConfig {
  // SQLite database (created if absent).
  std::string db_path = "/var/lib/toporr/toporr.db";
  // Unix socket for read and admin RPCs; created mode 0666 (reads are open to every user;
  // admin RPCs are checked per connection with SO_PEERCRED).
  std::string socket_path = "/run/toporr/toporrd.sock";
  // Optional "HOST:PORT" TCP listener. Empty: none. It serves read RPCs over TLS
  // (tls_cert_path + tls_key_path), admin RPCs only to clients presenting a certificate signed
  // by tls_client_ca_path whose common name is in tls_admin_clients (mutual TLS). Without TLS
  // the daemon refuses to start unless listen_insecure is set or the address is loopback
  // (127.0.0.0/8, [::1], localhost: the traffic never leaves the machine); plain TCP never
  // carries admin RPCs.
  std::string listen_address;
  std::string tls_cert_path;       // PEM server certificate (chain)
  std::string tls_key_path;        // PEM private key of tls_cert_path
  std::string tls_client_ca_path;  // PEM CA(s) that sign admin client certificates
  // Comma-separated client certificate common names allowed to call admin RPCs over TCP.
  std::string tls_admin_clients;
  bool listen_insecure = false;  // allow a plain-TCP listen_address (read RPCs only)
  // Source networks whose hosts may call over the TCP listener, comma-separated CIDR
  // prefixes ("10.0.0.0/8, fd00::/8"; a bare address is one host). Empty: every source.
  // Other callers are refused with PERMISSION_DENIED, counted in toporr_peers_refused_total
  // {reason="network_not_allowed"} and logged once per address. Checked when parsed.
  std::string listen_allowed_networks;
  // Optional "HOST:PORT" HTTP listener serving GET /metrics (Prometheus text format).
  std::string metrics_listen;
  // Optional node_exporter textfile collector directory: toporrd.prom is written there
  // atomically every metrics_interval_s seconds.
  std::string metrics_textfile_dir;
  int metrics_interval_s = 15;
  // Members of this group (besides uid 0 and the daemon's own uid) may call admin RPCs.
  std::string admin_group = "toporr-admin";
  // Snapshots kept in the database (the current one is never deleted).
  int keep_snapshots = 20;
  // Optional GUID -> host map file applied to every ingest ("<guid> <host>" lines).
  std::string host_map_path;
  // Largest accepted ingest payload (bytes); 0 = no limit. The LFT dump of a 10,240-host
  // fabric is ~0.8 GB. Streamed ingests (toporrctl) have no other limit; the unary Ingest of
  // older clients is capped below 2 GiB by gRPC.
  int64_t max_ingest_bytes = 0;
  // Largest request message (bytes) the read server accepts: every connection of the Unix
  // socket from a user who is not an admin, and the TCP listener. A larger request is
  // refused with RESOURCE_EXHAUSTED by gRPC before it is read. Read requests are host lists
  // (a 16,384-host matrix request is ~0.3 MB); streamed ingest chunks are 1 MiB.
  int64_t max_read_message_bytes = 4 << 20;
  // gRPC memory quota (bytes) of the read server's connections. gRPC 1.51 receives a whole
  // request message before it checks max_read_message_bytes; the quota is what stops it:
  // past it, gRPC cancels requests being received (RESOURCE_EXHAUSTED "Buffers full") instead
  // of buffering more. At least 8 x max_read_message_bytes: when one request takes most of
  // the quota, gRPC may close the connection that carries it.
  int64_t read_memory_quota_bytes = 32 << 20;
  // Requests one connection of the read server may have in flight (HTTP/2
  // MAX_CONCURRENT_STREAMS); a client's further calls wait in the client. One connection then
  // holds at most this many request messages, and a client flooding the daemon over one
  // connection cannot fill read_memory_quota_bytes (past which gRPC cancels other readers'
  // requests and closes their idle connections).
  int max_read_streams_per_connection = 2;
  // Heavy requests (a cost matrix over at least heavy_request_hosts hosts, the topology of a
  // snapshot that has as many: their replies grow with the square of the host count, ~50 MB
  // for 1,024 hosts uncompressed) that may run at the same time, per server (readers and
  // admins each have this many, so readers cannot crowd out an admin's scheduler). One more
  // is refused at once with RESOURCE_EXHAUSTED (no queue).
  int max_heavy_requests = 2;
  int heavy_request_hosts = 1024;
  // Host lists (RegisterHostList) one caller may hold: a uid on the Unix socket, a client
  // certificate's common name or an address over TCP. Past it the caller's least recently
  // used list goes if it has been idle for a minute, else the registration is refused with
  // RESOURCE_EXHAUSTED (counted in toporr_host_lists_refused_total{reason="peer_quota"}): a
  // flood from one user never evicts another's list. The daemon holds 256 lists in all.
  int max_host_lists_per_peer = 32;
  // Finished jobs' summaries (ReportJob, daemon/job_metrics.h) one caller may send: this many
  // at once, then job_reports_per_minute on average (a token bucket per caller, who is told as
  // for host lists). Past it a summary is refused with RESOURCE_EXHAUSTED and counted in
  // toporr_job_reports_refused_total{reason="rate_limit"}. A site whose jobs all report from
  // one host over TCP (a login node's address, one certificate) raises both.
  int job_reports_burst = 20;
  int job_reports_per_minute = 60;
  // A new topology that removes more than this share of the current snapshot's hosts (or
  // all of them) is refused unless the ingest says --allow-shrink (daemon/fabric_state.h).
  int max_host_loss_percent = 10;
  // The cost model's constants: `cost_model = KIND` and `cost_model_*` overrides
  // (mapping/costs/cost_model.h), as `toporrctl calibrate` writes them. Applied to every
  // snapshot's costs when the daemon starts (a change needs a restart).
  mapping::CostModelSettings cost_model;
  // Live discovery (daemon/discovery.h): seconds between sweeps, 0 = only on request
  // (`toporrctl discover`).
  int discovery_interval_s = 0;
  // How sweeps reach the collector (daemon/discovery.h): its command line, space-separated,
  // run as toporrd's child; or "unix:PATH", the live-discovery helper listening there. Empty:
  // toporr-discover next to toporrd when toporrd runs as root, else
  // unix:/run/toporr-discover.sock (toporr-discover.socket).
  std::string discovery_command;
  // Pause between LFT block reads of a sweep (microseconds).
  int discovery_probe_pause_us = 200;
  // A sweep running longer is killed.
  int discovery_timeout_s = 600;
};

// Parses `key = value` lines; `#` starts a comment; blank lines ignored. Unknown keys and
// malformed values are kInvalidArgument "<file>:<line>: ...". Keys are the field names
// above. Fields not mentioned keep the values already in `*config`.
absl::Status ParseConfig(std::string_view text, std::string_view file_name, DaemonConfig* config);

// The keys ParseConfig accepts, in the order its unknown-key refusal lists them.
std::vector<std::string_view> ConfigKeys();

// Reads and parses a config file: kNotFound if it does not exist, kFailedPrecondition if it
// is not a regular file (a directory would read as an empty file, i.e. all defaults).
absl::Status LoadConfigFile(const std::string& path, DaemonConfig* config);

}  // namespace toporr::daemon

#endif  // TOPORR_DAEMON_CONFIG_H_

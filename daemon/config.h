// toporrd configuration: a small `key = value` file (see deploy/toporrd.conf.example),
// overridden by command-line flags in main.cc.
#ifndef TOPORR_DAEMON_CONFIG_H_
#define TOPORR_DAEMON_CONFIG_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace toporr::daemon {

struct DaemonConfig {
  // SQLite database (created if absent).
  std::string db_path = "/var/lib/toporr/toporr.db";
  // Unix socket for read and admin RPCs; created mode 0666 (reads are open to every user;
  // admin RPCs are checked per connection with SO_PEERCRED).
  std::string socket_path = "/run/toporr/toporrd.sock";
  // Optional "HOST:PORT" TCP listener for read RPCs only. Empty: none.
  std::string listen_address;
  // Members of this group (besides uid 0 and the daemon's own uid) may call admin RPCs.
  std::string admin_group = "toporr-admin";
  // Snapshots kept in the database (the current one is never deleted).
  int keep_snapshots = 20;
  // Optional GUID -> host map file applied to every ingest ("<guid> <host>" lines).
  std::string host_map_path;
  // Largest accepted ingest payload (bytes). The LFT dump of a 10,240-host fabric is
  // ~0.8 GB; gRPC caps one message below 2 GiB.
  int64_t max_ingest_bytes = 1536ll << 20;
  // Live discovery (daemon/discovery.h): seconds between sweeps, 0 = only on request
  // (`toporrctl discover`).
  int discovery_interval_s = 0;
  // Collector command line, space-separated; empty = toporr-discover next to toporrd.
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

// Reads and parses a config file (kNotFound if it does not exist).
absl::Status LoadConfigFile(const std::string& path, DaemonConfig* config);

}  // namespace toporr::daemon

#endif  // TOPORR_DAEMON_CONFIG_H_

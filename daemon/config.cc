#include "daemon/config.h"

#include "absl/strings/str_cat.h"
#include "common/key_value_file.h"
#include "common/net_address.h"
#include "common/printable.h"
#include "common/status_macros.h"
#include "common/text_scan.h"

namespace toporr::daemon {
namespace {

constexpr char kKnownKeys[] =
    "db_path, socket_path, listen_address, tls_cert_path, tls_key_path, tls_client_ca_path, "
    "tls_admin_clients, listen_insecure, listen_allowed_networks, metrics_listen, "
    "metrics_textfile_dir, "
    "metrics_interval_s, admin_group, keep_snapshots, host_map_path, max_ingest_bytes, "
    "max_read_message_bytes, read_memory_quota_bytes, max_read_streams_per_connection, "
    "max_heavy_requests, heavy_request_hosts, max_host_lists_per_peer, max_host_loss_percent, "
    "discovery_interval_s, "
    "discovery_command, discovery_probe_pause_us, discovery_timeout_s";

}  // namespace

absl::Status ParseConfig(std::string_view text, std::string_view file_name, DaemonConfig* config) {
  RETURN_IF_ERROR(ForEachKeyValue(text, file_name, [&](const KeyValue& kv) -> absl::Status {
    const std::string& key = kv.key;
    const std::string& value = kv.value;
    auto parse_int = [&](int64_t lo, int64_t hi, int64_t* out) {
      return ParseKeyValueInt(file_name, kv, lo, hi, out);
    };
    if (key == "db_path") {
      config->db_path = value;
    } else if (key == "socket_path") {
      config->socket_path = value;
    } else if (key == "listen_address") {
      config->listen_address = value;
    } else if (key == "tls_cert_path") {
      config->tls_cert_path = value;
    } else if (key == "tls_key_path") {
      config->tls_key_path = value;
    } else if (key == "tls_client_ca_path") {
      config->tls_client_ca_path = value;
    } else if (key == "tls_admin_clients") {
      config->tls_admin_clients = value;
    } else if (key == "listen_insecure") {
      RETURN_IF_ERROR(ParseKeyValueBool(file_name, kv, /*loose=*/false, &config->listen_insecure));
    } else if (key == "listen_allowed_networks") {
      if (absl::StatusOr<std::vector<IpPrefix>> list = ParseIpPrefixList(value); !list.ok()) {
        return LineError(file_name, kv.line, std::string(list.status().message()));
      }
      config->listen_allowed_networks = value;
    } else if (key == "metrics_listen") {
      config->metrics_listen = value;
    } else if (key == "metrics_textfile_dir") {
      config->metrics_textfile_dir = value;
    } else if (key == "metrics_interval_s") {
      int64_t v;
      RETURN_IF_ERROR(parse_int(1, 3600, &v));
      config->metrics_interval_s = static_cast<int>(v);
    } else if (key == "admin_group") {
      config->admin_group = value;
    } else if (key == "host_map_path") {
      config->host_map_path = value;
    } else if (key == "keep_snapshots") {
      int64_t v;
      RETURN_IF_ERROR(parse_int(1, 1000000, &v));
      config->keep_snapshots = static_cast<int>(v);
    } else if (key == "max_ingest_bytes") {
      int64_t v;
      RETURN_IF_ERROR(parse_int(0, int64_t{1} << 50, &v));
      config->max_ingest_bytes = v;
    } else if (key == "max_read_message_bytes") {
      int64_t v;
      RETURN_IF_ERROR(parse_int(int64_t{64} << 10, int64_t{1} << 30, &v));
      config->max_read_message_bytes = v;
    } else if (key == "read_memory_quota_bytes") {
      int64_t v;
      RETURN_IF_ERROR(parse_int(int64_t{1} << 20, int64_t{1} << 40, &v));
      config->read_memory_quota_bytes = v;
    } else if (key == "max_read_streams_per_connection") {
      int64_t v;
      RETURN_IF_ERROR(parse_int(1, 1024, &v));
      config->max_read_streams_per_connection = static_cast<int>(v);
    } else if (key == "max_heavy_requests") {
      int64_t v;
      RETURN_IF_ERROR(parse_int(1, 1024, &v));
      config->max_heavy_requests = static_cast<int>(v);
    } else if (key == "heavy_request_hosts") {
      int64_t v;
      RETURN_IF_ERROR(parse_int(1, 1 << 20, &v));
      config->heavy_request_hosts = static_cast<int>(v);
    } else if (key == "max_host_lists_per_peer") {
      int64_t v;
      RETURN_IF_ERROR(parse_int(1, 1 << 20, &v));
      config->max_host_lists_per_peer = static_cast<int>(v);
    } else if (key == "max_host_loss_percent") {
      int64_t v;
      RETURN_IF_ERROR(parse_int(0, 100, &v));
      config->max_host_loss_percent = static_cast<int>(v);
    } else if (key == "discovery_command") {
      config->discovery_command = value;
    } else if (key == "discovery_interval_s") {
      int64_t v;
      RETURN_IF_ERROR(parse_int(0, 30 * 86400, &v));
      config->discovery_interval_s = static_cast<int>(v);
    } else if (key == "discovery_probe_pause_us") {
      int64_t v;
      RETURN_IF_ERROR(parse_int(0, 1000000, &v));
      config->discovery_probe_pause_us = static_cast<int>(v);
    } else if (key == "discovery_timeout_s") {
      int64_t v;
      RETURN_IF_ERROR(parse_int(1, 86400, &v));
      config->discovery_timeout_s = static_cast<int>(v);
    } else {
      // The list of keys follows the bounded part: the message stays bounded.
      return absl::InvalidArgumentError(absl::StrCat(
          LineError(file_name, kv.line, absl::StrCat("unknown key ", Quoted(key))).message(),
          " (known: ", kKnownKeys, ")"));
    }
    return absl::OkStatus();
  }));
  if (config->read_memory_quota_bytes < 8 * config->max_read_message_bytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        std::string(file_name), ": read_memory_quota_bytes (", config->read_memory_quota_bytes,
        ") must be at least 8 x max_read_message_bytes (", config->max_read_message_bytes,
        "): gRPC closes readers' connections when a request takes most of the quota"));
  }
  return absl::OkStatus();
}

absl::Status LoadConfigFile(const std::string& path, DaemonConfig* config) {
  std::string text;
  RETURN_IF_ERROR(ReadRegularFile(path, &text, kConfigFileMaxBytes, "configuration file"));
  return ParseConfig(text, path, config);
}

}  // namespace toporr::daemon

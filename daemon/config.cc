#include "daemon/config.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/printable.h"
#include "common/text_scan.h"

namespace toporr::daemon {
namespace {

constexpr char kKnownKeys[] =
    "db_path, socket_path, listen_address, tls_cert_path, tls_key_path, tls_client_ca_path, "
    "tls_admin_clients, listen_insecure, metrics_listen, metrics_textfile_dir, "
    "metrics_interval_s, admin_group, keep_snapshots, host_map_path, max_ingest_bytes, "
    "max_read_message_bytes, read_memory_quota_bytes, max_read_streams_per_connection, "
    "max_heavy_requests, heavy_request_hosts, max_host_loss_percent, discovery_interval_s, "
    "discovery_command, discovery_probe_pause_us, discovery_timeout_s";

}  // namespace

absl::Status ParseConfig(std::string_view text, std::string_view file_name, DaemonConfig* config) {
  LineScanner lines(text);
  for (std::string_view line; lines.Next(&line);) {
    const int line_no = lines.number();
    if (size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    line = Trim(line);
    if (line.empty()) continue;
    // Refusals quote the file's text escaped and cut (LineError, Quoted): a config file
    // may hold any bytes.
    auto refuse = [&](std::string_view what) { return LineError(file_name, line_no, what); };
    size_t eq = line.find('=');
    if (eq == std::string_view::npos) {
      return refuse(absl::StrCat("expected `key = value`, got ", Quoted(line)));
    }
    std::string key(Trim(line.substr(0, eq)));
    std::string value(Trim(line.substr(eq + 1)));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
      value = value.substr(1, value.size() - 2);
    auto parse_int = [&](int64_t lo, int64_t hi, int64_t* out) -> absl::Status {
      if (!absl::SimpleAtoi(value, out) || *out < lo || *out > hi) {
        return refuse(
            absl::StrCat(key, " must be an integer in [", lo, ", ", hi, "], got ", Quoted(value)));
      }
      return absl::OkStatus();
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
      if (value != "true" && value != "false") {
        return refuse(absl::StrCat(key, " must be true or false, got ", Quoted(value)));
      }
      config->listen_insecure = value == "true";
    } else if (key == "metrics_listen") {
      config->metrics_listen = value;
    } else if (key == "metrics_textfile_dir") {
      config->metrics_textfile_dir = value;
    } else if (key == "metrics_interval_s") {
      int64_t v;
      if (auto s = parse_int(1, 3600, &v); !s.ok()) return s;
      config->metrics_interval_s = static_cast<int>(v);
    } else if (key == "admin_group") {
      config->admin_group = value;
    } else if (key == "host_map_path") {
      config->host_map_path = value;
    } else if (key == "keep_snapshots") {
      int64_t v;
      if (auto s = parse_int(1, 1000000, &v); !s.ok()) return s;
      config->keep_snapshots = static_cast<int>(v);
    } else if (key == "max_ingest_bytes") {
      int64_t v;
      if (auto s = parse_int(0, int64_t{1} << 50, &v); !s.ok()) return s;
      config->max_ingest_bytes = v;
    } else if (key == "max_read_message_bytes") {
      int64_t v;
      if (auto s = parse_int(int64_t{64} << 10, int64_t{1} << 30, &v); !s.ok()) return s;
      config->max_read_message_bytes = v;
    } else if (key == "read_memory_quota_bytes") {
      int64_t v;
      if (auto s = parse_int(int64_t{1} << 20, int64_t{1} << 40, &v); !s.ok()) return s;
      config->read_memory_quota_bytes = v;
    } else if (key == "max_read_streams_per_connection") {
      int64_t v;
      if (auto s = parse_int(1, 1024, &v); !s.ok()) return s;
      config->max_read_streams_per_connection = static_cast<int>(v);
    } else if (key == "max_heavy_requests") {
      int64_t v;
      if (auto s = parse_int(1, 1024, &v); !s.ok()) return s;
      config->max_heavy_requests = static_cast<int>(v);
    } else if (key == "heavy_request_hosts") {
      int64_t v;
      if (auto s = parse_int(1, 1 << 20, &v); !s.ok()) return s;
      config->heavy_request_hosts = static_cast<int>(v);
    } else if (key == "max_host_loss_percent") {
      int64_t v;
      if (auto s = parse_int(0, 100, &v); !s.ok()) return s;
      config->max_host_loss_percent = static_cast<int>(v);
    } else if (key == "discovery_command") {
      config->discovery_command = value;
    } else if (key == "discovery_interval_s") {
      int64_t v;
      if (auto s = parse_int(0, 30 * 86400, &v); !s.ok()) return s;
      config->discovery_interval_s = static_cast<int>(v);
    } else if (key == "discovery_probe_pause_us") {
      int64_t v;
      if (auto s = parse_int(0, 1000000, &v); !s.ok()) return s;
      config->discovery_probe_pause_us = static_cast<int>(v);
    } else if (key == "discovery_timeout_s") {
      int64_t v;
      if (auto s = parse_int(1, 86400, &v); !s.ok()) return s;
      config->discovery_timeout_s = static_cast<int>(v);
    } else {
      // The list of keys follows the bounded part: the message stays bounded.
      return absl::InvalidArgumentError(
          absl::StrCat(refuse(absl::StrCat("unknown key ", Quoted(key))).message(),
                       " (known: ", kKnownKeys, ")"));
    }
  }
  if (config->read_memory_quota_bytes < 8 * config->max_read_message_bytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        std::string(file_name), ": read_memory_quota_bytes (", config->read_memory_quota_bytes,
        ") must be at least 8 x max_read_message_bytes (", config->max_read_message_bytes,
        "): gRPC closes readers' connections when a request takes most of the quota"));
  }
  return absl::OkStatus();
}

absl::Status LoadConfigFile(const std::string& path, DaemonConfig* config) {
  std::ifstream in(path);
  if (!in) {
    return absl::NotFoundError(absl::StrCat(path, ": cannot open: ", std::strerror(errno)));
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return ParseConfig(ss.str(), path, config);
}

}  // namespace toporr::daemon

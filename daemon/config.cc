#include "daemon/config.h"

#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/key_value_file.h"
#include "common/net_address.h"
#include "common/printable.h"
#include "common/status_macros.h"
#include "common/text_scan.h"

namespace toporr::daemon {
namespace {

// One `key = value` line being applied; refusals name its file and line.
struct Line {
  std::string_view file_name;
  const KeyValue& kv;
};

// One toporrd.conf key (the DaemonConfig field of that name) and how a value is parsed,
// checked and stored: a refusal is kInvalidArgument "<file>:<line>: ..." and leaves the
// field unchanged.
struct Setting {
  const char* key;
  absl::Status (*apply)(const Line& line, DaemonConfig* c);
};

// The value as an integer in [lo, hi] into `*out`, or ParseKeyValueInt's refusal.
template <typename Int>
absl::Status ParseIn(const Line& line, int64_t lo, int64_t hi, Int* out) {
  int64_t v = 0;
  RETURN_IF_ERROR(ParseKeyValueInt(line.file_name, line.kv, lo, hi, &v));
  *out = static_cast<Int>(v);
  return absl::OkStatus();
}

#define TOPORR_TEXT(field) \
  [](const Line& l, DaemonConfig* c) { return c->field = l.kv.value, absl::OkStatus(); }
#define TOPORR_BOOL(field)                                                   \
  [](const Line& l, DaemonConfig* c) {                                       \
    return ParseKeyValueBool(l.file_name, l.kv, /*loose=*/false, &c->field); \
  }
#define TOPORR_INT(field, lo, hi) \
  [](const Line& l, DaemonConfig* c) { return ParseIn(l, lo, hi, &c->field); }

// In the order the unknown-key message lists them.
constexpr Setting kSettings[] = {
    {"db_path", TOPORR_TEXT(db_path)},
    {"socket_path", TOPORR_TEXT(socket_path)},
    {"listen_address", TOPORR_TEXT(listen_address)},
    {"tls_cert_path", TOPORR_TEXT(tls_cert_path)},
    {"tls_key_path", TOPORR_TEXT(tls_key_path)},
    {"tls_client_ca_path", TOPORR_TEXT(tls_client_ca_path)},
    {"tls_admin_clients", TOPORR_TEXT(tls_admin_clients)},
    {"listen_insecure", TOPORR_BOOL(listen_insecure)},
    {"listen_allowed_networks",
     [](const Line& l, DaemonConfig* c) {
       if (absl::StatusOr<std::vector<IpPrefix>> list = ParseIpPrefixList(l.kv.value); !list.ok()) {
         return LineError(l.file_name, l.kv.line, std::string(list.status().message()));
       }
       c->listen_allowed_networks = l.kv.value;
       return absl::OkStatus();
     }},
    {"metrics_listen", TOPORR_TEXT(metrics_listen)},
    {"metrics_textfile_dir", TOPORR_TEXT(metrics_textfile_dir)},
    {"metrics_interval_s", TOPORR_INT(metrics_interval_s, 1, 3600)},
    {"admin_group", TOPORR_TEXT(admin_group)},
    {"keep_snapshots", TOPORR_INT(keep_snapshots, 1, 1000000)},
    {"host_map_path", TOPORR_TEXT(host_map_path)},
    {"max_ingest_bytes", TOPORR_INT(max_ingest_bytes, 0, int64_t{1} << 50)},
    {"max_read_message_bytes",
     TOPORR_INT(max_read_message_bytes, int64_t{64} << 10, int64_t{1} << 30)},
    {"read_memory_quota_bytes",
     TOPORR_INT(read_memory_quota_bytes, int64_t{1} << 20, int64_t{1} << 40)},
    {"max_read_streams_per_connection", TOPORR_INT(max_read_streams_per_connection, 1, 1024)},
    {"max_heavy_requests", TOPORR_INT(max_heavy_requests, 1, 1024)},
    {"heavy_request_hosts", TOPORR_INT(heavy_request_hosts, 1, 1 << 20)},
    {"max_host_lists_per_peer", TOPORR_INT(max_host_lists_per_peer, 1, 1 << 20)},
    {"job_reports_burst", TOPORR_INT(job_reports_burst, 1, 1000000)},
    {"job_reports_per_minute", TOPORR_INT(job_reports_per_minute, 1, 1000000)},
    {"max_host_loss_percent", TOPORR_INT(max_host_loss_percent, 0, 100)},
    {"discovery_interval_s", TOPORR_INT(discovery_interval_s, 0, 30 * 86400)},
    {"discovery_command", TOPORR_TEXT(discovery_command)},
    {"discovery_probe_pause_us", TOPORR_INT(discovery_probe_pause_us, 0, 1000000)},
    {"discovery_timeout_s", TOPORR_INT(discovery_timeout_s, 1, 86400)},
};

#undef TOPORR_TEXT
#undef TOPORR_BOOL
#undef TOPORR_INT

}  // namespace

std::vector<std::string_view> ConfigKeys() {
  std::vector<std::string_view> keys;
  for (const Setting& s : kSettings) keys.push_back(s.key);
  for (std::string_view key : mapping::CostModelKeys()) keys.push_back(key);
  return keys;
}

namespace {

std::string KnownKeys() {
  std::string out;
  for (std::string_view key : ConfigKeys())
    absl::StrAppend(&out, out.empty() ? "" : ", ", std::string(key));
  return out;
}

}  // namespace

absl::Status ParseConfig(std::string_view text, std::string_view file_name, DaemonConfig* config) {
  RETURN_IF_ERROR(ForEachKeyValue(text, file_name, [&](const KeyValue& kv) -> absl::Status {
    for (const Setting& s : kSettings) {
      if (kv.key == s.key) return s.apply(Line{file_name, kv}, config);
    }
    if (mapping::IsCostModelKey(kv.key)) {
      absl::Status s = mapping::ApplyCostModelSetting(kv.key, kv.value, &config->cost_model);
      return s.ok() ? s : LineError(file_name, kv.line, std::string(s.message()));
    }
    // The list of keys follows the bounded part: the message stays bounded.
    return absl::InvalidArgumentError(absl::StrCat(
        LineError(file_name, kv.line, absl::StrCat("unknown key ", Quoted(kv.key))).message(),
        " (known: ", KnownKeys(), ")"));
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

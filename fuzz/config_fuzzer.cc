// libFuzzer harness: toporrd's config file (daemon/config.h ParseConfig, used read-only).
// Accepted: every numeric key within the range config.h documents. Refused:
// fuzz/fuzz_checks.h CheckRefusal.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "daemon/config.h"
#include "fuzz/fuzz_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using toporr::fuzz::Check;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  toporr::daemon::DaemonConfig c;
  absl::Status parsed = toporr::daemon::ParseConfig(text, toporr::fuzz::kSource, &c);
  if (!parsed.ok()) {
    toporr::fuzz::CheckRefusal(parsed, text);
    return 0;
  }
  toporr::fuzz::NoteAccepted();
  Check(c.metrics_interval_s >= 1 && c.metrics_interval_s <= 3600, "metrics_interval_s range");
  Check(c.keep_snapshots >= 1, "keep_snapshots range");
  // 0 (the default) is no limit.
  Check(c.max_ingest_bytes >= 0 && c.max_ingest_bytes <= (int64_t{1} << 50), "max_ingest_bytes");
  Check(c.read_memory_quota_bytes >= 8 * c.max_read_message_bytes, "read quota vs message");
  Check(c.max_read_streams_per_connection >= 1 && c.max_heavy_requests >= 1,
        "per-connection and heavy bounds");
  Check(c.max_host_loss_percent >= 0 && c.max_host_loss_percent <= 100, "max_host_loss_percent");
  Check(c.discovery_interval_s >= 0 && c.discovery_probe_pause_us >= 0, "discovery ranges");
  Check(c.discovery_timeout_s >= 1, "discovery_timeout_s range");
  return 0;
}

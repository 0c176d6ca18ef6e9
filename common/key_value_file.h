// The `key = value` configuration files of toporrd (toporrd.conf) and libtoporr
// (client.conf): one setting per line, `#` starts a comment, blank lines are ignored, a value
// may be wrapped in double quotes. What the keys mean is the caller's.
#ifndef TOPORR_COMMON_KEY_VALUE_FILE_H_
#define TOPORR_COMMON_KEY_VALUE_FILE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace toporr {

struct KeyValue {
  std::string key;
  std::string value;
  long line = 0;  // 1-based
};

// Calls `setting` for each `key = value` line of `text` in order and stops at the first
// error: a line without `=` or an empty key is kInvalidArgument "<file>:<line>: ..." (the
// line quoted, escaped and cut), and an error `setting` returns is passed on unchanged.
absl::Status ForEachKeyValue(std::string_view text, std::string_view file_name,
                             const std::function<absl::Status(const KeyValue&)>& setting);

// Refusals of one setting, "<file>:<line>: <key> must be ..., got '<value>'".
absl::Status KeyValueError(std::string_view file_name, const KeyValue& kv,
                           std::string_view expected);

// `kv.value` as an integer in [lo, hi], or KeyValueError.
absl::Status ParseKeyValueInt(std::string_view file_name, const KeyValue& kv, int64_t lo,
                              int64_t hi, int64_t* out);

// A yes/no word in any case: "1", "true", "yes", "on" -> true; "0", "false", "no", "off"
// and "" -> false. False for anything else (*out unchanged).
bool ParseBoolWord(std::string_view text, bool* out);

// `kv.value` as "true" or "false" (and, when `loose`, any ParseBoolWord word).
absl::Status ParseKeyValueBool(std::string_view file_name, const KeyValue& kv, bool loose,
                               bool* out);

// Size bounds of the files settings name, by kind (toporr(7) states them): a file beyond its
// bound is refused before it is read, in bounded time and memory.
inline constexpr int64_t kConfigFileMaxBytes = int64_t{1} << 20;     // site and daemon settings
inline constexpr int64_t kPemFileMaxBytes = int64_t{1} << 20;        // TLS CA, certificate, key
inline constexpr int64_t kHostListFileMaxBytes = int64_t{64} << 20;  // host maps, hostfiles
inline constexpr int64_t kProfileFileMaxBytes = int64_t{256} << 20;  // traffic profiles
inline constexpr int64_t kFabricFileMaxBytes = int64_t{4} << 30;     // fabric dumps

// The whole content of the regular file `path`: kNotFound "<path>: cannot open: <errno text>"
// when it does not exist or cannot be opened, kFailedPrecondition "<path>: not a regular file"
// for a directory, socket or device (which would otherwise read as an empty configuration),
// kResourceExhausted "<path>: larger than the N bytes a <kind> may have" beyond `max_bytes`
// (checked before reading, and again while reading a file that grows), kDataLoss when
// reading fails midway.
absl::Status ReadRegularFile(const std::string& path, std::string* text, int64_t max_bytes,
                             std::string_view kind);

}  // namespace toporr

#endif  // TOPORR_COMMON_KEY_VALUE_FILE_H_

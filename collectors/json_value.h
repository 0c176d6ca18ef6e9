// A small JSON reader for the JSON inputs toporr ingests (collectors/plogp.h's probe.json):
// RFC 8259 values as a tree in which every value remembers the line it starts on, so that a
// parser built on it refuses a bad document with `file:line: what` like every text format.
//
// Bounds: nesting depth at most kMaxJsonDepth; numbers are doubles (strtod of at most 64
// characters); strings are UTF-8 (\uXXXX escapes, surrogate pairs included, are decoded;
// raw control characters are refused); duplicate object keys are refused. Errors are
// kInvalidArgument "<file>:<line>: <what>" (common/text_scan.h LineError). Pure.
#ifndef TOPORR_COLLECTORS_JSON_VALUE_H_
#define TOPORR_COLLECTORS_JSON_VALUE_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace toporr::collectors {

inline constexpr int kMaxJsonDepth = 64;

struct JsonValue {
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };
  Type type = Type::kNull;
  long line = 1;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<JsonValue> items;                            // kArray
  std::vector<std::pair<std::string, JsonValue>> members;  // kObject, in document order

  // The member named `key` of an object, or nullptr (also for a non-object).
  const JsonValue* Find(std::string_view key) const;
};

const char* JsonTypeName(JsonValue::Type type);  // "null", "boolean", "number", ...

// Parses one JSON document (surrounding whitespace allowed, nothing else after it).
absl::StatusOr<JsonValue> ParseJson(std::string_view text, std::string_view file_name);

}  // namespace toporr::collectors

#endif  // TOPORR_COLLECTORS_JSON_VALUE_H_

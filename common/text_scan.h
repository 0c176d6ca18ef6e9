// Small scanners for the line-oriented text the collectors parse (tool dumps, map and config
// files), shared so that every parser trims, splits lines and reads numbers the same way.
//
// Two kinds of functions:
//   - Consume* take `std::string_view& s`, read a token at the FRONT of `s` and, only when
//     they return true, remove it from `s`. On false `s` is unchanged. They do not skip
//     leading blanks.
//   - Parse* read a WHOLE string and fail on anything left over.
//
// Nothing here allocates except LineError, which builds a message. The scanners and
// LineScanner are defined in this header because they run per token of multi-megabyte dumps
// (collectors/ibnetdiscover.h, collectors/forwarding_tables.h; bench/scale_bench measures
// their parse rates): inlining them keeps those parsers fast. Blanks are ' ', '\t' and '\r' (a CR
// left over from CRLF files counts as a blank). All functions are pure and thread-safe.
#ifndef TOPORR_COMMON_TEXT_SCAN_H_
#define TOPORR_COMMON_TEXT_SCAN_H_

#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>

#include "absl/status/status.h"

namespace toporr {

// ' ', '\t' or '\r'.
inline bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// `s` without leading / trailing / both blanks.
inline std::string_view TrimLeft(std::string_view s) {
  while (!s.empty() && IsBlank(s.front())) s.remove_prefix(1);
  return s;
}
inline std::string_view TrimRight(std::string_view s) {
  while (!s.empty() && IsBlank(s.back())) s.remove_suffix(1);
  return s;
}
inline std::string_view Trim(std::string_view s) { return TrimRight(TrimLeft(s)); }

// When `s` starts with `literal`, removes it and returns true.
inline bool Consume(std::string_view& s, std::string_view literal) {
  if (s.substr(0, literal.size()) != literal) return false;
  s.remove_prefix(literal.size());
  return true;
}

// 0..15 for '0'-'9', 'a'-'f', 'A'-'F'; -1 for any other character.
inline int HexDigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// 1 to 16 hex digits, no "0x" prefix (a GUID, a LID column). Fails when `s` does not start
// with a hex digit or when a 17th hex digit follows (more than 64 bits).
inline bool ConsumeHex(std::string_view& s, uint64_t* value) {
  size_t i = 0;
  uint64_t x = 0;
  for (int d; i < s.size() && (d = HexDigitValue(s[i])) >= 0; ++i) {
    if (i == 16) return false;
    x = (x << 4) | static_cast<uint64_t>(d);
  }
  if (i == 0) return false;
  *value = x;
  s.remove_prefix(i);
  return true;
}

// "0x" or "0X", then ConsumeHex. Consumes nothing unless both parts match.
inline bool ConsumeHex0x(std::string_view& s, uint64_t* value) {
  std::string_view t = s;
  if (!Consume(t, "0x") && !Consume(t, "0X")) return false;
  if (!ConsumeHex(t, value)) return false;
  s = t;
  return true;
}

// 1 to 19 decimal digits, no sign (19 digits always fit in 64 bits). Fails when `s` does not
// start with a digit or when a 20th digit follows.
inline bool ConsumeDecimal(std::string_view& s, uint64_t* value) {
  size_t i = 0;
  uint64_t x = 0;
  for (; i < s.size() && i < 19 && s[i] >= '0' && s[i] <= '9'; ++i) x = x * 10 + (s[i] - '0');
  if (i == 0 || (i < s.size() && s[i] >= '0' && s[i] <= '9')) return false;
  *value = x;
  s.remove_prefix(i);
  return true;
}

// ConsumeDecimal, then fails (consuming nothing) when the value exceeds `max`; for the
// bounded fields of dumps (port <= 255, LID <= 0xffff, LMC <= 7). `Int` is any integer type
// (taken from `value`) and `max` must be >= 0.
template <typename Int>
bool ConsumeDecimal(std::string_view& s, std::common_type_t<Int> max, Int* value) {
  static_assert(std::is_integral_v<Int>, "ConsumeDecimal needs an integer type");
  std::string_view t = s;
  uint64_t x;
  if (!ConsumeDecimal(t, &x) || x > static_cast<uint64_t>(max)) return false;
  *value = static_cast<Int>(x);
  s = t;
  return true;
}

// The whole of `text` is a 64-bit hex number with an optional "0x"/"0X" prefix and 1 to 16
// digits: "0x0002c903000e0a11", "2C903000E0A11". No blanks, no sign.
bool ParseHexU64(std::string_view text, uint64_t* value);

// "<file>:<line>: <what>" as kInvalidArgument: the one form in which a text input is refused
// (e.g. "fattree.txt:412: port line before any node header"). `line` is 1-based. The file
// name and `what` are escaped and capped (common/printable.h: kMaxQuotedPath and
// kMaxLineErrorWhat bytes), so that a refusal quoting a 20 KB line still fits a gRPC status.
inline constexpr size_t kMaxLineErrorWhat = 480;
absl::Status LineError(std::string_view file, long line, std::string_view what);

// Number of lines of `text` as LineScanner counts them, at least 1 (an empty text has the
// line 1 an error may name): the last line a `file:line:` message may name.
inline long LineCount(std::string_view text) {
  long lines = 0;
  for (const char* p = text.data();
       (p = static_cast<const char*>(std::memchr(p, '\n', text.data() + text.size() - p))); ++p) {
    ++lines;
  }
  if (!text.empty() && text.back() != '\n') ++lines;
  return lines == 0 ? 1 : lines;
}

// Splits a buffer into lines without copying: each line is a view into the buffer without
// its '\n' (a '\r' before it is kept; trim it with TrimRight when the format allows CRLF).
// A final line without '\n' is a line; a buffer ending in '\n' has no empty last line.
// Numbers are 1-based, for `file:line: what is wrong` messages. The buffer must outlive the
// scanner and the views. Not thread-safe (it is a cursor).
//
//   LineScanner lines(text);
//   for (std::string_view line; lines.Next(&line);) { ... lines.number() ... }
class LineScanner {
 public:
  explicit LineScanner(std::string_view text) : text_(text) {}

  // Stores the next line in `*line` and returns true; false at the end of the buffer.
  bool Next(std::string_view* line) {
    if (pos_ >= text_.size()) return false;
    const char* start = text_.data() + pos_;
    const size_t rest = text_.size() - pos_;
    const void* nl = std::memchr(start, '\n', rest);
    const size_t len = nl ? static_cast<size_t>(static_cast<const char*>(nl) - start) : rest;
    *line = std::string_view(start, len);
    pos_ += len + 1;
    ++number_;
    return true;
  }
  // The number of the line the last Next returned (0 before the first).
  int number() const { return number_; }

 private:
  std::string_view text_;
  size_t pos_ = 0;
  int number_ = 0;
};

}  // namespace toporr

#endif  // TOPORR_COMMON_TEXT_SCAN_H_

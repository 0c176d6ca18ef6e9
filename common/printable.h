// Text that came from outside (fabric dumps, map files, requests) as it may be stored, sent
// in a protobuf `string` and shown on a terminal or in a log line.
//
// toporr's policy (README "Strings from dumps"): node descriptions, host names and source
// names must be printable UTF-8. Parsers refuse anything else with `file:line: what`
// (FirstUnprintable says which byte), the store refuses a fabric that has any, the daemon
// refuses such request fields with INVALID_ARGUMENT, and every message that quotes input
// (errors, logs, toporrctl output) goes through Printable(), which escapes what a terminal
// would interpret and caps the length, so a refusal always fits in a gRPC status and never
// rewrites the operator's screen.
//
// Printable UTF-8 here: well-formed UTF-8 (no overlong forms, no surrogates, at most
// U+10FFFF) without C0 controls (U+0000-U+001F), DEL (U+007F) or C1 controls
// (U+0080-U+009F). Pure functions; thread-safe.
#ifndef TOPORR_COMMON_PRINTABLE_H_
#define TOPORR_COMMON_PRINTABLE_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace toporr {

// How much of a name (a host, a source a client sent) a message quotes.
inline constexpr size_t kMaxQuotedName = 160;
// How much of a file's path a message quotes: a path as long as Linux allows is shown whole
// in practice, and a message quoting one still fits a gRPC status.
inline constexpr size_t kMaxQuotedPath = 1024;

// Offset of the first byte of `text` that does not start a printable UTF-8 character
// (std::string_view::npos when all of `text` is printable). `allow` lists ASCII control
// characters accepted anyway (e.g. "\t\n" for multi-line text).
size_t FirstUnprintable(std::string_view text, std::string_view allow = {});

inline bool IsPrintableUtf8(std::string_view text) {
  return FirstUnprintable(text) == std::string_view::npos;
}

// "byte 0x1b at column 7 is not printable UTF-8" for the byte FirstUnprintable found at
// `offset` (columns 1-based): the tail of a parser's refusal.
std::string DescribeUnprintable(std::string_view text, size_t offset);

// `text` with every byte that is not printable UTF-8 written as \xNN (`allow` as in
// FirstUnprintable: kept verbatim), cut after `max_bytes` bytes of input (on a character
// boundary) with "...(N bytes)" appended: what a message may quote of untrusted input.
std::string Printable(std::string_view text, size_t max_bytes = 160, std::string_view allow = {});

// Printable(text) in single quotes: "'node01'", "'abc...(20480 bytes)'".
std::string Quoted(std::string_view text, size_t max_bytes = 160);

}  // namespace toporr

#endif  // TOPORR_COMMON_PRINTABLE_H_

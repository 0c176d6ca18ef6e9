#include "common/printable.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

namespace toporr {
namespace {

// Length (1-4) of the printable UTF-8 character at the front of `s`, 0 when its first byte
// starts none (invalid, truncated, overlong, surrogate, beyond U+10FFFF or a control).
size_t PrintableCharLength(std::string_view s, std::string_view allow) {
  const auto b0 = static_cast<unsigned char>(s[0]);
  if (b0 < 0x80) {
    if (b0 >= 0x20 && b0 != 0x7f) return 1;
    return allow.find(static_cast<char>(b0)) != std::string_view::npos ? 1 : 0;
  }
  size_t len;
  uint32_t cp;
  if ((b0 & 0xe0) == 0xc0) {
    len = 2;
    cp = b0 & 0x1f;
  } else if ((b0 & 0xf0) == 0xe0) {
    len = 3;
    cp = b0 & 0x0f;
  } else if ((b0 & 0xf8) == 0xf0) {
    len = 4;
    cp = b0 & 0x07;
  } else {
    return 0;  // a continuation byte or 0xf8..0xff
  }
  if (s.size() < len) return 0;
  for (size_t i = 1; i < len; ++i) {
    const auto b = static_cast<unsigned char>(s[i]);
    if ((b & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3f);
  }
  static constexpr uint32_t kMinOfLength[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMinOfLength[len] || cp > 0x10ffff) return 0;  // overlong or too large
  if (cp >= 0xd800 && cp <= 0xdfff) return 0;             // surrogate
  if (cp >= 0x80 && cp <= 0x9f) return 0;                 // C1 control
  return len;
}

}  // namespace

size_t FirstUnprintable(std::string_view text, std::string_view allow) {
  for (size_t i = 0; i < text.size();) {
    const size_t len = PrintableCharLength(text.substr(i), allow);
    if (len == 0) return i;
    i += len;
  }
  return std::string_view::npos;
}

std::string DescribeUnprintable(std::string_view text, size_t offset) {
  char byte[8];
  std::snprintf(byte, sizeof(byte), "0x%02x", static_cast<unsigned char>(text[offset]));
  return std::string("byte ") + byte + " at column " + std::to_string(offset + 1) +
         " is not printable UTF-8";
}

std::string Printable(std::string_view text, size_t max_bytes, std::string_view allow) {
  std::string out;
  out.reserve(std::min(text.size(), max_bytes) + 16);
  size_t i = 0;
  while (i < text.size()) {
    const size_t len = PrintableCharLength(text.substr(i), allow);
    if (i + std::max<size_t>(len, 1) > max_bytes) break;
    if (len == 0) {
      char esc[8];
      std::snprintf(esc, sizeof(esc), "\\x%02x", static_cast<unsigned char>(text[i]));
      out += esc;
      ++i;
    } else {
      out.append(text.data() + i, len);
      i += len;
    }
  }
  if (i < text.size()) out += "...(" + std::to_string(text.size()) + " bytes)";
  return out;
}

std::string Quoted(std::string_view text, size_t max_bytes) {
  return "'" + Printable(text, max_bytes) + "'";
}

}  // namespace toporr

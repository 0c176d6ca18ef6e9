#include "common/text_scan.h"

#include <string>

#include "common/printable.h"

namespace toporr {

bool ParseHexU64(std::string_view text, uint64_t* value) {
  std::string_view s = text;
  if (!ConsumeHex0x(s, value) && !ConsumeHex(s, value)) return false;
  return s.empty();
}

absl::Status LineError(std::string_view file, long line, std::string_view what) {
  // Whatever `what` quotes of the input, the refusal stays short and printable.
  return absl::InvalidArgumentError(Printable(file, kMaxQuotedPath) + ":" + std::to_string(line) +
                                    ": " + Printable(what, kMaxLineErrorWhat));
}

}  // namespace toporr

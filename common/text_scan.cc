#include "common/text_scan.h"

#include <string>

namespace toporr {

bool ParseHexU64(std::string_view text, uint64_t* value) {
  std::string_view s = text;
  if (!ConsumeHex0x(s, value) && !ConsumeHex(s, value)) return false;
  return s.empty();
}

absl::Status LineError(std::string_view file, long line, std::string_view what) {
  return absl::InvalidArgumentError(std::string(file) + ":" + std::to_string(line) + ": " +
                                    std::string(what));
}

}  // namespace toporr

#include "common/text_scan.h"

namespace toporr {

bool ParseHexU64(std::string_view text, uint64_t* value) {
  std::string_view s = text;
  if (!ConsumeHex0x(s, value) && !ConsumeHex(s, value)) return false;
  return s.empty();
}

}  // namespace toporr

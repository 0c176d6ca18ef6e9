// libFuzzer harness: collectors/fabric_input.h with InputFormat::kLft (checks in
// fuzz/parser_checks.h). Seeds and runs: bench/run_fuzz.sh, fuzz/README.md.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/parser_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  toporr::fuzz::CheckForwardingTablesInput(
      toporr::collectors::InputFormat::kLft,
      std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}

// libFuzzer harness: collectors/fabric_input.h with InputFormat::kIbnetdiscover (checks in
// fuzz/parser_checks.h). Seeds and runs: bench/run_fuzz.sh, fuzz/README.md.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/parser_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  toporr::fuzz::CheckTopologyInput(toporr::collectors::InputFormat::kIbnetdiscover,
                                   std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}

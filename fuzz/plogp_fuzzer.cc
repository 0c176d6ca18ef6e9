// libFuzzer harness: collectors/plogp.h ParsePlogpProbe (probe.json of toporr-probe) and the
// fabric PlogpFabric makes of what it accepts. Refused: fuzz/fuzz_checks.h CheckRefusal.
// Accepted: host, level and hwloc_check texts printable; PlogpFabric succeeds and its fabric
// passes fabric::ValidateFabric; what WritePlogpProbe writes of it parses again and writes
// the same text (the writer and the parser agree on every file the parser takes). Seeds and
// runs: bench/run_fuzz.sh, fuzz/README.md.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>

#include "collectors/plogp.h"
#include "fabric/validate.h"
#include "fuzz/fuzz_checks.h"

namespace {

using toporr::fuzz::Check;

std::string Written(const toporr::collectors::PlogpProbe& probe) {
  std::ostringstream out;
  toporr::collectors::WritePlogpProbe(probe, &out);
  return out.str();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<toporr::collectors::PlogpProbe> probe =
      toporr::collectors::ParsePlogpProbe(input, toporr::fuzz::kSource);
  if (!probe.ok()) {
    toporr::fuzz::CheckRefusal(probe.status(), input);
    return 0;
  }
  toporr::fuzz::NoteAccepted();
  for (const std::string& host : probe->hosts) toporr::fuzz::CheckPrintable(host, "host name");
  for (const auto* levels : {&probe->rank_levels, &probe->host_levels}) {
    for (const auto& level : *levels) toporr::fuzz::CheckPrintable(level.name, "level name");
  }
  if (probe->hwloc_check.has_value()) {
    toporr::fuzz::CheckPrintable(probe->hwloc_check->detail, "hwloc_check detail");
  }
  absl::StatusOr<toporr::fabric::Fabric> fabric = toporr::collectors::PlogpFabric(*probe);
  if (!fabric.ok())
    toporr::fuzz::Fail("accepted a probe PlogpFabric refuses: " + fabric.status().ToString());
  if (absl::Status valid = toporr::fabric::ValidateFabric(*fabric); !valid.ok()) {
    toporr::fuzz::Fail("accepted a probe whose fabric does not validate: " + valid.ToString());
  }
  const std::string text = Written(*probe);
  absl::StatusOr<toporr::collectors::PlogpProbe> again =
      toporr::collectors::ParsePlogpProbe(text, "written.json");
  if (!again.ok())
    toporr::fuzz::Fail("the written probe does not parse: " + again.status().ToString());
  Check(Written(*again) == text, "the written probe parses to a different probe");
  return 0;
}

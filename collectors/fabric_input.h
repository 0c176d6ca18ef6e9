// One entry point from "a file in some format" to a Fabric with hosts assigned, shared by
// the daemon's ingest and toporrctl's offline commands.
#ifndef TOPORR_COLLECTORS_FABRIC_INPUT_H_
#define TOPORR_COLLECTORS_FABRIC_INPUT_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "collectors/fabric.h"
#include "collectors/hosts.h"

namespace toporr::collectors {

enum class InputFormat {
  kIbnetdiscover,  // default topology output (-g/-f/-m/LMC) or the -p ports report
};

// "ibnetdiscover" -> kIbnetdiscover; kInvalidArgument listing the supported names.
absl::StatusOr<InputFormat> ParseInputFormat(std::string_view name);
const char* InputFormatName(InputFormat format);

struct FabricInput {
  InputFormat format = InputFormat::kIbnetdiscover;
  std::string source_name;   // file name used in errors ("fabric.txt:12: ...")
  std::string_view content;
  HostRule host_rule;
  std::string_view host_map;  // GUID -> host map file content; empty = none
  std::string host_map_name = "host map";
};

// Parses `input.content` and assigns hosts. Errors carry "<file>:<line>: <problem>".
absl::StatusOr<Fabric> ParseFabricInput(const FabricInput& input);

}  // namespace toporr::collectors

#endif  // TOPORR_COLLECTORS_FABRIC_INPUT_H_

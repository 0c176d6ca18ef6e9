#include "collectors/fabric_input.h"

#include "collectors/ibnetdiscover.h"
#include "common/status_macros.h"

namespace toporr::collectors {

absl::StatusOr<InputFormat> ParseInputFormat(std::string_view name) {
  if (name == "ibnetdiscover") return InputFormat::kIbnetdiscover;
  return absl::InvalidArgumentError("unknown input format '" + std::string(name) +
                                    "' (supported: ibnetdiscover)");
}

const char* InputFormatName(InputFormat format) {
  switch (format) {
    case InputFormat::kIbnetdiscover: return "ibnetdiscover";
  }
  return "unknown";
}

absl::StatusOr<Fabric> ParseFabricInput(const FabricInput& input) {
  Fabric fabric;
  switch (input.format) {
    case InputFormat::kIbnetdiscover: {
      IbnetdiscoverOptions opts;
      opts.file_name = input.source_name;
      ASSIGN_OR_RETURN(fabric, ParseIbnetdiscover(input.content, opts));
      break;
    }
  }
  std::unordered_map<uint64_t, std::string> guid_map;
  if (!input.host_map.empty()) {
    ASSIGN_OR_RETURN(guid_map, ParseHostMap(input.host_map, input.host_map_name));
  }
  RETURN_IF_ERROR(AssignHosts(input.host_rule, guid_map, &fabric));
  return fabric;
}

}  // namespace toporr::collectors

#include "collectors/ibnetdiscover.h"

#include <string_view>

#include "absl/status/status.h"
#include "collectors/ibnetdiscover_parsers.h"
#include "collectors/ibnetdiscover_scan.h"

namespace toporr::collectors {

using fabric::Fabric;
using fabric::LinkSpeed;
using ibnetdiscover_internal::DetectFormat;
using ibnetdiscover_internal::ErrorSink;
using ibnetdiscover_internal::Format;
using ibnetdiscover_internal::ListFormatError;
using ibnetdiscover_internal::ParsePortsReport;
using ibnetdiscover_internal::ParseSpeedToken;
using ibnetdiscover_internal::ParseTopologyFile;
using ibnetdiscover_internal::ParseWidthToken;
using ibnetdiscover_internal::StartsWith;

bool ParseWidthSpeed(std::string_view text, int* width_lanes, LinkSpeed* speed) {
  size_t split;
  if (StartsWith(text, "??")) {
    split = 2;
  } else {
    split = text.find_first_of("xX");
    if (split == std::string_view::npos) return false;
    ++split;
  }
  return ParseWidthToken(text.substr(0, split), width_lanes) &&
         ParseSpeedToken(text.substr(split), speed);
}

absl::StatusOr<Fabric> ParseIbnetdiscover(std::string_view text,
                                          const IbnetdiscoverOptions& options) {
  int line = 0;
  switch (DetectFormat(text, &line)) {
    case Format::kTopology:
      return ParseTopologyFile(text, line, options);
    case Format::kPorts:
      return ParsePortsReport(text, line, options);
    case Format::kList:
      return ListFormatError(ErrorSink(options.file_name), line);
    case Format::kNone:
      break;
  }
  return ErrorSink(options.file_name)
      .Whole(
          "no ibnetdiscover output found (expected a topology file or an "
          "`ibnetdiscover -p` report)");
}

}  // namespace toporr::collectors

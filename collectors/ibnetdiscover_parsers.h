// The two parsers behind ParseIbnetdiscover (ibnetdiscover.h, which states what the result
// holds, which dumps are refused and the `-p` specifics), one file each:
// ibnetdiscover_topology.cc and ibnetdiscover_ports.cc. ParseIbnetdiscover picks one with
// DetectFormat (ibnetdiscover_scan.h); `first_line` is the input's first meaningful line, and
// lines before it are noise and skipped. Internal to collectors/:ibnetdiscover.
#ifndef TOPORR_COLLECTORS_IBNETDISCOVER_PARSERS_H_
#define TOPORR_COLLECTORS_IBNETDISCOVER_PARSERS_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "collectors/ibnetdiscover.h"
#include "fabric/fabric.h"

namespace toporr::collectors::ibnetdiscover_internal {

// The topology file: plain `ibnetdiscover` and its -g, -f and -m variants, any LMC.
absl::StatusOr<fabric::Fabric> ParseTopologyFile(std::string_view text, int first_line,
                                                 const IbnetdiscoverOptions& options);

// The `ibnetdiscover -p` / `--ports` report.
absl::StatusOr<fabric::Fabric> ParsePortsReport(std::string_view text, int first_line,
                                                const IbnetdiscoverOptions& options);

}  // namespace toporr::collectors::ibnetdiscover_internal

#endif  // TOPORR_COLLECTORS_IBNETDISCOVER_PARSERS_H_

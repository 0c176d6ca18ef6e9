// The text report of a FabricDiff (fabric_diff.h): what the daemon's GetDiff RPC returns and
// `toporrctl diff` prints.
// Thread-safety: the function is pure.
#ifndef TOPORR_FABRIC_FABRIC_DIFF_REPORT_H_
#define TOPORR_FABRIC_FABRIC_DIFF_REPORT_H_

#include <cstddef>
#include <string>

#include "fabric/fabric_diff.h"

namespace toporr::fabric {

struct DiffFormatOptions {
  // Lines listed per section before "... and N more". Default 20.
  size_t max_lines_per_section = 20;
  // Labels for the two snapshots in the heading, e.g. "snapshot 12". Default "A" / "B".
  std::string label_a = "A";
  std::string label_b = "B";
};

// Human-readable report: a heading, then one section per non-empty kind of change with its
// count and one line per change (capped), e.g.
//   Links degraded (1):
//     0x0002c90200500100 "MF0;leaf02" port 1 <-> 0x0002c903000e0b50 "node05 HCA-1" port 1: 4xQDR 32
//     Gb/s -> 1xQDR 8 Gb/s
// (one line per change), then a "Routes:" summary line with the per-switch and destination
// sections, or "Routes: not compared ..." without tables on both sides. An empty diff reads
// "No differences between A and B." plus the routes line.
std::string FormatFabricDiff(const FabricDiff& diff, const DiffFormatOptions& options = {});

}  // namespace toporr::fabric

#endif  // TOPORR_FABRIC_FABRIC_DIFF_REPORT_H_

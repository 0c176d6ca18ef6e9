// Checking the routes of the forwarding tables against what `ibtracert` saw on the live
// fabric: a trace that disagrees with the LFT walk means the dump and the tables are not of
// the same fabric (or the SM changed the routes in between).
#ifndef TOPORR_MAPPING_ROUTES_TRACE_CHECK_H_
#define TOPORR_MAPPING_ROUTES_TRACE_CHECK_H_

#include <cstdint>
#include <string>
#include <vector>

#include "fabric/trace.h"
#include "mapping/routes/lft_routes.h"

namespace toporr::mapping {

// Checks an ibtracert trace against the LFT walk from the trace's source to `dlid` (0: the
// trace's destination base LID, from its `To` line, or for `-n` traces from the fabric).
// Returns human-readable disagreements, empty when the walk takes exactly the trace's
// route: same ports out and in, same nodes (port GUIDs), same destination. Traces do not
// print the DLID they were asked for, so pass it for the non-base LIDs of an LMC range.
std::vector<std::string> CompareTrace(const LftRoutes& routes, const fabric::Trace& trace,
                                      uint32_t dlid = 0);

}  // namespace toporr::mapping

#endif  // TOPORR_MAPPING_ROUTES_TRACE_CHECK_H_

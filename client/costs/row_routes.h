// The routes of a job's cost rows on their way to rank 0: each node leader packs its host's
// mapping::RouteRow into 32-bit words (one MPI_Gatherv of MPI_UINT32_T,
// client/mpi/gathered_costs.cc), rank 0 unpacks the concatenation into one
// mapping::TableRoutes over the job's hosts.
//
// Packet of one host (words): host | m | m offsets | L | L links | k | k link ids | k rates
// (float bits); m = 0 when the source had no routes for that host.
// Pure functions; thread-safe.
#ifndef TOPORR_CLIENT_COSTS_ROW_ROUTES_H_
#define TOPORR_CLIENT_COSTS_ROW_ROUTES_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "mapping/routes/table_routes.h"

namespace toporr::client {

// Appends the packet of `host`'s row to `out`.
void PackRouteRow(int host, const mapping::RouteRow& row, std::vector<uint32_t>* out);

// The routes over hosts 0..n-1 from the packets in `words` (any order, one per host). Null
// with *why set when a host has no packet or its source gave no routes; kDataLoss for
// packets that do not parse, and TableRoutes' kInvalidArgument for routes that do not fit.
absl::StatusOr<std::unique_ptr<mapping::TableRoutes>> UnpackRoutes(
    const std::vector<uint32_t>& words, int n, std::string* why);

}  // namespace toporr::client

#endif  // TOPORR_CLIENT_COSTS_ROW_ROUTES_H_

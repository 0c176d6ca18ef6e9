// The cost-matrix and cost-row replies below the gRPC adapter: GetCostMatrix's choice
// between the reply cache, the compact byte form and the plain arrays, GetCostRow's rows
// (arrays, or a copy out of a registered host list's compact rows), and
// GetQuantizedCostMatrix's packing of uint16 costs. The adapter validates the request and
// resolves host names; these functions take the resolved host indices of one served
// snapshot and fill the reply.
// Every reply is refused (kFailedPrecondition naming the pair) when one of its off-diagonal
// costs is unknown (no route): a matrix with holes is never served as a success.
// Thread-safety: as the Serving (immutable) and MatrixCache (thread-safe) they are given.
#ifndef TOPORR_DAEMON_COST_MATRICES_H_
#define TOPORR_DAEMON_COST_MATRICES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "daemon/fabric_state.h"
#include "daemon/host_lists.h"
#include "daemon/matrix_cache.h"
#include "mapping/costs/host_costs.h"
#include "toporr/v1/toporr.pb.h"

namespace toporr::daemon {

// The route kind of the snapshot's costs, as the wire names it.
v1::RouteKind RouteKindOf(const Serving& s);

// Appends one pair's cost to the three parallel arrays of `out`.
void AppendCost(const mapping::HostPairCost& c, v1::CostArrays* out);

// Fills `resp` with the costs between `hosts` (indices into s.fabric.hosts, the order of
// req.hosts()). A compact request is answered from `cache` (may be null) when it holds the
// same request for this snapshot, else in the compact form, which is then cached; a matrix
// that does not fit that form (kOutOfRange from PairCosts::MatrixCompact) is sent as plain
// arrays with `compact_fallback` saying why. Other errors are returned.
absl::Status FillCostMatrix(const Serving& s, const std::vector<int>& hosts,
                            const v1::GetCostMatrixRequest& req, MatrixCache* cache,
                            v1::GetCostMatrixResponse* resp);

// Fills `resp` with the row of host `self` against `cols` (indices into s.fabric.hosts, the
// columns in order) as arrays, with the columns' names, snapshot, route kind and
// host_column. `compact_requested`: compact rows are served for registered host lists
// only, so compact_fallback says so.
absl::Status FillCostRow(const Serving& s, int self, const std::vector<int>& cols,
                         bool compact_requested, v1::GetCostRowResponse* resp);

// Fills `resp` with the row of host `self` against the registered list of `view` (resolved
// against `s`; `view.rows` set when `compact`), no column names. Compact when asked for,
// `self` is one of the list's hosts and the list fits the form: a copy of n bytes. Else the
// arrays, with compact_fallback saying why when compact was asked for. Errors of the rows
// other than kOutOfRange are returned.
absl::Status FillListedCostRow(const Serving& s, int self, const HostLists::View& view,
                               bool compact, v1::GetCostRowResponse* resp);

// Routes from each of `rows` to each of `cols` (indices into s.fabric.hosts), row-major, as
// the snapshot's forwarding tables make them. Without forwarding tables `out` stays empty
// and *missing says why (not an error: the costs are still served).
void FillRouteTable(const Serving& s, const std::vector<int>& rows, const std::vector<int>& cols,
                    v1::RouteTable* out, std::string* missing);

// The largest matrix GetCostMatrix sends with routes (n^2 routes of a few links each).
inline constexpr int kMaxRouteMatrixHosts = 1024;

// Fills `resp` with the PMIx-style uint16 quantised costs between `hosts` for messages of
// `reference_bytes` (0: 65536), little-endian, row-major.
absl::Status FillQuantizedCostMatrix(const Serving& s, const std::vector<int>& hosts,
                                     int64_t reference_bytes,
                                     v1::GetQuantizedCostMatrixResponse* resp);

// `values` as little-endian bytes, two per value.
std::string PackLittleEndian(const std::vector<uint16_t>& values);

}  // namespace toporr::daemon

#endif  // TOPORR_DAEMON_COST_MATRICES_H_

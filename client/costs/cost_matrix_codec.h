// The host cost matrix of a GetCostMatrixResponse, and one host's cost row of a
// GetCostRowResponse, as plain arrays, whichever form the daemon sent them in
// (toporr.proto): CostArrays, or CompactCosts (two bytes per pair plus a rate palette and
// the latency model) when the request set `compact`.
//
// Decoding is exact: a compact response decodes to the very floats the daemon would have put
// in CostArrays for the same matrix (latency evaluated in double as
// nic + switch * hops + link * (hops + 1), then rounded to float; the diagonal all zero;
// unreachable pairs hops -1, bottleneck 0, latency +infinity).
#ifndef TOPORR_CLIENT_COSTS_COST_MATRIX_CODEC_H_
#define TOPORR_CLIENT_COSTS_COST_MATRIX_CODEC_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "mapping/routes/table_routes.h"
#include "toporr/v1/toporr.pb.h"

namespace toporr::client {

// Row-major n x n over the response's host list: element (i, j) at i * n + j.
struct CostMatrixArrays {
  int n = 0;
  std::vector<int32_t> hops;
  std::vector<float> bottleneck_gbps;
  std::vector<float> latency_ns;
};

// kDataLoss when the response is inconsistent (array or byte sizes other than n*n, a rate
// index outside the palette), naming what is wrong.
absl::StatusOr<CostMatrixArrays> DecodeCostMatrix(const v1::GetCostMatrixResponse& response);

// The same into `*out`, reusing its vectors' capacity: a caller that fetches matrices
// repeatedly (a scheduler, the daemon benchmark) then touches no fresh pages per call.
// `*out` is unspecified after an error.
absl::Status DecodeCostMatrix(const v1::GetCostMatrixResponse& response, CostMatrixArrays* out);

// One host's costs to the n columns of its request (for a registered host list, the list in
// its order): element j = cost(host, column j); the host's own column all zero.
struct CostRowArrays {
  int64_t snapshot_id = 0;
  int n = 0;
  std::vector<int32_t> hops;
  std::vector<double> bottleneck_gbps;  // the floats of the wire form, widened
  std::vector<double> latency_ns;       // likewise: as DecodeCostMatrix computes them
};

// Decodes `response` (compact or CostArrays) for a request of `expected_n` columns, checking
// what a client must be able to rely on: n == expected_n (hosts, when the reply names them,
// and every array), palette indexes inside the palette, rates and latency constants finite
// and >= 0, the host's own column (host_column) zero, and every other column reachable.
// kDataLoss naming what is wrong otherwise (an unreachable column among them: the fabric is
// partitioned, so the row cannot be used to rank the job's hosts); kInvalidArgument for
// expected_n < 1.
absl::StatusOr<CostRowArrays> DecodeCostRow(const v1::GetCostRowResponse& response, int expected_n);

// The routes of a RouteTable answering for num_rows x num_cols pairs (a matrix: n x n; a row:
// 1 x n), one mapping::RouteRow per row with the table's link ids and the rates of the links
// each row uses. kDataLoss naming what is wrong when the offsets do not fit the sizes or a
// link has no rate.
absl::StatusOr<std::vector<mapping::RouteRow>> DecodeRouteRows(const v1::RouteTable& table,
                                                               int num_rows, int num_cols);

}  // namespace toporr::client

#endif  // TOPORR_CLIENT_COSTS_COST_MATRIX_CODEC_H_

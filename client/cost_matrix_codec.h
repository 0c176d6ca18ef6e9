// The host cost matrix of a GetCostMatrixResponse as plain arrays, whichever form the daemon
// sent it in (toporr.proto): CostArrays, or CompactCosts (two bytes per pair plus a rate
// palette and the latency model) when the request set `compact`.
//
// Decoding is exact: a compact response decodes to the very floats the daemon would have put
// in CostArrays for the same matrix (latency evaluated in double as
// nic + switch * hops + link * (hops + 1), then rounded to float; the diagonal all zero;
// unreachable pairs hops -1, bottleneck 0, latency +infinity).
#ifndef TOPORR_CLIENT_COST_MATRIX_CODEC_H_
#define TOPORR_CLIENT_COST_MATRIX_CODEC_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
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

// One host's row as GetCostRow serves it (compact or plain), n == expected_n columns.
struct CostRowArrays {
  int64_t snapshot_id = 0;
  int n = 0;
  std::vector<int32_t> hops;
  std::vector<double> bottleneck_gbps;
  std::vector<double> latency_ns;
};
absl::StatusOr<CostRowArrays> DecodeCostRow(const v1::GetCostRowResponse& resp, int expected_n);

}  // namespace toporr::client

#endif  // TOPORR_CLIENT_COST_MATRIX_CODEC_H_

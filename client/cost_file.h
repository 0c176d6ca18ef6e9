// The file cost source of libtoporr (`TOPORR_COSTS=FILE`): a job's host cost matrix and the
// snapshot it was computed from, so a job can be reordered with no daemon (machines without
// one, batch scripts, simulation).
//
// Layout (little-endian, no padding):
//   magic "TOPORRC1" (8 bytes) | int64 snapshot_id | uint32 n |
//   n host names, each uint32 length + bytes |
//   n*n int32 hops | n*n float bottleneck_gbps | n*n float latency_ns   (row-major, i*n+j)
// The matrices mean exactly what GetCostMatrixResponse's CostArrays mean (toporr.proto).
#ifndef TOPORR_CLIENT_COST_FILE_H_
#define TOPORR_CLIENT_COST_FILE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "client/cost_matrix_codec.h"

namespace toporr::client {

struct CostFile {
  int64_t snapshot_id = 0;
  std::vector<std::string> hosts;  // matrix index order
  CostMatrixArrays costs;          // costs.n == hosts.size()
};

// kInvalidArgument when the arrays do not match the host list (names the sizes).
absl::StatusOr<std::string> EncodeCostFile(const CostFile& file);

// kDataLoss "<file_name>: <what>" for a bad magic, a truncated or oversized body, a duplicate
// or empty host name.
absl::StatusOr<CostFile> DecodeCostFile(std::string_view bytes, std::string_view file_name);

// Reading one row without the n^2 rest (what each leader of a job needs): the header, then
// the row's bottleneck and latency values at their offsets. Memory O(n).
struct CostFileHeader {
  int64_t snapshot_id = 0;
  std::vector<std::string> hosts;
  uint64_t matrices_offset = 0;  // where the hops matrix starts
};
// kNotFound when the file cannot be opened; kDataLoss "<path>: <what>" for a bad magic, a
// size that does not match the announced host count, or bad names (as DecodeCostFile).
absl::StatusOr<CostFileHeader> ReadCostFileHeader(const std::string& path);
// Row `row` (file order) of the bottleneck and latency matrices.
absl::Status ReadCostFileRow(const std::string& path, const CostFileHeader& header, int row,
                             std::vector<float>* bottleneck_gbps, std::vector<float>* latency_ns);

}  // namespace toporr::client

#endif  // TOPORR_CLIENT_COST_FILE_H_

// The file cost source of libtoporr (`TOPORR_COSTS=FILE`): a job's host cost matrix and the
// snapshot it was computed from, so a job can be reordered with no daemon (machines without
// one, batch scripts, simulation).
//
// Layout (little-endian, no padding):
//   magic "TOPORRC1" (8 bytes) | int64 snapshot_id | uint32 n |
//   n host names, each uint32 length + bytes |
//   n*n int32 hops | n*n float bottleneck_gbps | n*n float latency_ns   (row-major, i*n+j)
// The matrices mean exactly what GetCostMatrixResponse's CostArrays mean (toporr.proto).
//
// With the routes (what the forwarding tables make of every pair, so that libtoporr models
// link contention as `toporrctl plan --fabric` does), the magic is "TOPORRC2" and the header
// also gives the size of a section after the matrices:
//   magic "TOPORRC2" | int64 snapshot_id | uint32 n | uint64 routes_bytes | names | matrices |
//   uint32 L | L float link_gbps | (n*n + 1) uint64 offsets | offsets[n*n] uint32 links
// Route i -> j is links[offsets[i*n+j] .. offsets[i*n+j+1]), directed link ids 0..L-1 (the
// directions of one cable are two ids); routes i -> i are empty, every other one is not.
// Writers emit TOPORRC1 when they have no routes, so older readers keep working.
#ifndef TOPORR_CLIENT_COSTS_COST_FILE_H_
#define TOPORR_CLIENT_COSTS_COST_FILE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "client/costs/cost_matrix_codec.h"
#include "mapping/routes/table_routes.h"

namespace toporr::client {

// The routes section of a TOPORRC2 file (layout above).
struct CostFileRoutes {
  std::vector<float> link_gbps;   // L
  std::vector<uint64_t> offsets;  // n*n + 1
  std::vector<uint32_t> links;
  bool empty() const { return offsets.empty(); }
};

struct CostFile {
  int64_t snapshot_id = 0;
  std::vector<std::string> hosts;  // matrix index order
  CostMatrixArrays costs;          // costs.n == hosts.size()
  CostFileRoutes routes;           // empty: a TOPORRC1 file
};

// The routes section for hosts 0..n-1 of `routes` (its directed link ids are L's).
CostFileRoutes CostFileRoutesOf(const mapping::RouteSource& routes, int n);

// kInvalidArgument when the arrays or the routes do not match the host list (names the sizes).
absl::StatusOr<std::string> EncodeCostFile(const CostFile& file);

// kDataLoss "<file_name>: <what>" for a bad magic, a truncated or oversized body, a duplicate
// or empty host name, routes that do not fit the layout (a link id >= L, a route to itself, a
// missing route, a rate <= 0).
absl::StatusOr<CostFile> DecodeCostFile(std::string_view bytes, std::string_view file_name);

// Reading one row without the n^2 rest (what each leader of a job needs): the header, then
// the row's bottleneck and latency values at their offsets. Memory O(n).
struct CostFileHeader {
  int64_t snapshot_id = 0;
  std::vector<std::string> hosts;
  uint64_t matrices_offset = 0;  // where the hops matrix starts
  uint64_t routes_offset = 0;    // where the routes section starts; 0: none (TOPORRC1)
  uint32_t num_links = 0;        // L of the routes section
};
// kNotFound when the file cannot be opened; kDataLoss "<path>: <what>" for a bad magic, a
// size that does not match the announced host count, or bad names (as DecodeCostFile).
absl::StatusOr<CostFileHeader> ReadCostFileHeader(const std::string& path);
// Row `row` (file order) of the bottleneck and latency matrices.
absl::Status ReadCostFileRow(const std::string& path, const CostFileHeader& header, int row,
                             std::vector<float>* bottleneck_gbps, std::vector<float>* latency_ns);
// The routes from file host `row` to the file hosts `columns` (in that order), as a
// mapping::RouteRow with the file's link ids and the rates of the links it uses. Memory
// O(n + L). kFailedPrecondition when the file has no routes; kDataLoss for routes that do
// not fit the layout.
absl::Status ReadCostFileRouteRow(const std::string& path, const CostFileHeader& header, int row,
                                  const std::vector<int>& columns, mapping::RouteRow* out);

}  // namespace toporr::client

#endif  // TOPORR_CLIENT_COSTS_COST_FILE_H_

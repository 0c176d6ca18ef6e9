// Routes given as tables rather than walked: for every ordered pair of a job's hosts, the
// directed links of its route, with the rate of every link. This is how routes travel with
// cost rows (the daemon's GetCostRow with_routes, a TOPORRC2 cost file) to a process that has
// no fabric: libtoporr's rank 0 merges its leaders' rows into one TableRoutes and predicts
// link contention with it exactly as `toporrctl plan` does with the fabric's own routes.
//
// Link ids on input are the source's (fabric-wide directed link ids, sparse over a job);
// TableRoutes renumbers the links a job uses densely 0..num_directed_links()-1 in order of
// first use, so a job's memory is proportional to its own routes.
// Immutable after Create; thread-safe.
#ifndef TOPORR_MAPPING_ROUTES_TABLE_ROUTES_H_
#define TOPORR_MAPPING_ROUTES_TABLE_ROUTES_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "mapping/routes/route_source.h"

namespace toporr::mapping {

// The routes from one host to every host of the job (job host order).
struct RouteRow {
  // links[offsets[b] .. offsets[b + 1]) is the route to host b; n + 1 entries.
  std::vector<uint32_t> offsets;
  std::vector<uint32_t> links;  // the source's directed link ids
  // The rate of every link id that appears in `links` (parallel arrays, any order).
  std::vector<uint32_t> link_ids;
  std::vector<float> link_gbps;
};

class TableRoutes final : public RouteSource {
 public:
  // rows[a] = the routes from job host a. kInvalidArgument, naming the host index, when a
  // row's offsets are not n + 1 non-decreasing entries ending at links.size(), a route to
  // itself is not empty or one to another host is, a link has no rate or two different
  // rates (within the row or across rows), or a rate is not > 0.
  static absl::StatusOr<std::unique_ptr<TableRoutes>> Create(const std::vector<RouteRow>& rows);

  int num_directed_links() const override { return static_cast<int>(gbps_.size()); }
  double link_gbps(int directed_link) const override { return gbps_[directed_link]; }
  void Route(int host_a, int host_b, std::vector<int32_t>* directed_links) const override;

  int num_hosts() const { return n_; }

 private:
  TableRoutes() = default;
  int n_ = 0;
  std::vector<uint64_t> offsets_;  // n * n + 1, row-major
  std::vector<int32_t> links_;     // dense ids
  std::vector<double> gbps_;
};

}  // namespace toporr::mapping

#endif  // TOPORR_MAPPING_ROUTES_TABLE_ROUTES_H_

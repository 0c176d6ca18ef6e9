// What libtoporr knows about a communicator before it plans: the host of every rank, the
// job's distinct hosts, and where each rank is bound inside its host; and the host cost
// matrix as the leaders gathered it (one row per host, viewed in place, never copied).
// Pure: no MPI, so every rank can run it and tests need no mpirun.
#ifndef TOPORR_CLIENT_PLAN_JOB_LAYOUT_H_
#define TOPORR_CLIENT_PLAN_JOB_LAYOUT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "mapping/costs/cost_matrix.h"
#include "mapping/costs/placement.h"

namespace toporr::client {

struct JobLayout {
  std::vector<std::string> hosts;  // distinct, in order of first appearance by rank
  std::vector<int32_t> rank_host;  // index into `hosts`, one per rank
  int size() const { return static_cast<int>(rank_host.size()); }
};

// Rank i runs on rank_hosts[i].
JobLayout LayoutFromRankHosts(const std::vector<std::string>& rank_hosts);

// The placement the mapping engine plans over. A rank bound to one core (`bound[r].core >= 0`,
// from hwloc) sits at that location; any other rank (unbound, or bound to several cores)
// sits at SlotLocation(host, k), k = how many ranks of its host come before it: the regular
// shape `toporrctl plan` assumes, so an unbound job plans exactly like `toporrctl plan`
// with the same hosts and ranks file. `bound` may be empty (nothing bound).
mapping::Placement JobPlacement(const JobLayout& layout,
                                const std::vector<mapping::RankLocation>& bound);

// A host cost matrix over rows held elsewhere (the leaders' gathered rows in a shared
// window). rows[h] points at 2 * n floats of host h: latency_ns[0..n) then
// bottleneck_gbps[0..n), as the daemon serves a row. alpha = latency, beta = 8 / Gb/s (0 for
// a rate of 0), exactly as JobCostsFromMatrix reads a served matrix; the diagonal is 0.
class RowCostMatrix final : public mapping::HostCostMatrix {
 public:
  RowCostMatrix(int n, std::vector<const float*> rows) : n_(n), rows_(std::move(rows)) {}
  int num_hosts() const override { return n_; }
  double AlphaNs(int a, int b) const override {
    return a == b ? 0.0 : static_cast<double>(rows_[a][b]);
  }
  double BetaNs(int a, int b) const override {
    if (a == b) return 0.0;
    const double gbps = rows_[a][n_ + b];
    return gbps > 0 ? 8.0 / gbps : 0.0;
  }

 private:
  int n_;
  std::vector<const float*> rows_;
};

}  // namespace toporr::client

#endif  // TOPORR_CLIENT_PLAN_JOB_LAYOUT_H_

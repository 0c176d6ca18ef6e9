// The leaf-group form of a large job's costs (TOPORR_COMPRESS_ABOVE): how libtoporr's
// leaders reach rank 0 with O(n + groups^2) values instead of n^2.
#ifndef TOPORR_CLIENT_MPI_LEAF_GROUPS_H_
#define TOPORR_CLIENT_MPI_LEAF_GROUPS_H_

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "client/costs/row_source.h"
#include "client/plan/job_layout.h"
#include "mapping/costs/cost_matrix.h"

namespace toporr::client::mpi {

// The communication CompressRows needs: over the job's communicator `work` (every rank) and
// among the leaders (one per host, leader 0 being rank 0 of `work`). MpiLeaderExchange is the
// real one; a test or benchmark may stand in for the other processes (return codes are MPI's).
class LeaderExchange {
 public:
  virtual ~LeaderExchange() = default;
  virtual int rank() const = 0;  // in `work`
  virtual bool leader() const = 0;
  virtual int num_leaders() const = 0;  // leaders only
  virtual int leader_rank() const = 0;  // leaders only
  // Among the leaders: every leader's `count` values, in leader order.
  virtual int AllgatherLeaders(const uint64_t* mine, int count, uint64_t* all) = 0;
  // Among the leaders, to leader 0 (MPI_Gatherv).
  virtual int GathervToLeaderZero(const float* mine, int count, float* all, const int* counts,
                                  const int* displs) = 0;
  // Over `work` (collective_status.h Agree).
  virtual absl::Status Agree(const absl::Status& mine) = 0;
};

// LeaderExchange over `work` and `leaders` (null on non-leaders).
class MpiLeaderExchange final : public LeaderExchange {
 public:
  MpiLeaderExchange(MPI_Comm work, MPI_Comm leaders);
  int rank() const override { return rank_; }
  bool leader() const override { return leaders_ != MPI_COMM_NULL; }
  int num_leaders() const override { return num_leaders_; }
  int leader_rank() const override { return leader_rank_; }
  int AllgatherLeaders(const uint64_t* mine, int count, uint64_t* all) override;
  int GathervToLeaderZero(const float* mine, int count, float* all, const int* counts,
                          const int* displs) override;
  absl::Status Agree(const absl::Status& mine) override;

 private:
  MPI_Comm work_, leaders_;
  int rank_ = 0, num_leaders_ = 0, leader_rank_ = 0;
};

// Leaders turn their rows into mapping::HierarchicalCostMatrix's form without ever holding
// n^2 values:
//   1. each leader keys its row with its own column and its nearest hosts (the hosts of its
//      leaf) masked; the keys are allgathered among the leaders (n entries);
//   2. hosts with one key form a group;
//   3. each leader checks that its row is one value per other group and one value inside
//      its group;
//   4. all leaders of a group must have the same values (compared by hash);
//   5. one representative per group sends them to rank 0;
//   6. rank 0 builds the g x g matrices.
// O(n + g^2) per process.
// Fabrics that are not leaf-grouped (e.g. a torus) fail the check: kFailedPrecondition,
// and the caller falls back. Collective on `work`; `leaders` is null on non-leaders.
absl::Status CompressRows(MPI_Comm work, MPI_Comm leaders, const JobLayout& layout, int my_host,
                          const CostRow& row, std::unique_ptr<mapping::HostCostMatrix>* out);
// The same over any exchange.
absl::Status CompressRows(LeaderExchange& exchange, const JobLayout& layout, int my_host,
                          const CostRow& row, std::unique_ptr<mapping::HostCostMatrix>* out);

// What one leader contributes, for an exchange that stands in for other leaders: the key of
// step 1 (its row with its own column and its leaf's hosts masked), and the hash of step 4
// (*group_row: its group row, kFailedPrecondition when the row is not one value per group).
uint64_t LeafKey(const CostRow& row, int n, int my_host);
absl::Status GroupRowHash(const CostRow& row, const JobLayout& layout, int my_host,
                          const std::vector<int32_t>& group_of, int num_groups,
                          std::vector<float>* group_row, uint64_t* hash);

}  // namespace toporr::client::mpi

#endif  // TOPORR_CLIENT_MPI_LEAF_GROUPS_H_

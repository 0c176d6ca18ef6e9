// The leaf-group form of a large job's costs (TOPORR_COMPRESS_ABOVE): how libtoporr's
// leaders reach rank 0 with O(n + groups^2) values instead of n^2.
#ifndef TOPORR_CLIENT_MPI_LEAF_GROUPS_H_
#define TOPORR_CLIENT_MPI_LEAF_GROUPS_H_

#include <mpi.h>

#include <memory>

#include "absl/status/status.h"
#include "client/costs/row_source.h"
#include "client/plan/job_layout.h"
#include "mapping/costs/cost_matrix.h"

namespace toporr::client::mpi {

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

}  // namespace toporr::client::mpi

#endif  // TOPORR_CLIENT_MPI_LEAF_GROUPS_H_

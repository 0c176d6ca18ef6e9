// toporr's own reduce over MPI point-to-point (see allreduce.h for why), with MPI_Reduce's
// arguments (recvbuf significant at the root only, MPI_IN_PLACE at the root) and the contract
// of steps.h.
//   ReduceBinomial   up the in-order binomial tree of mapping/schedules/collective_shapes.h, the
//   one
//                    mapping/schedules/pattern.h models for reduce: shifted rank v reduces what its
//                    children send, smallest subtree first, into its partial result, and
//                    sends that to its parent (v minus its lowest set bit 2^k) at stage k.
#ifndef TOPORR_CLIENT_MPI_COLL_REDUCE_H_
#define TOPORR_CLIENT_MPI_COLL_REDUCE_H_

#include <mpi.h>

namespace toporr::client::mpi::coll {

int ReduceBinomial(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                   int root, MPI_Comm comm);

}  // namespace toporr::client::mpi::coll

#endif  // TOPORR_CLIENT_MPI_COLL_REDUCE_H_

// toporr's own allgather algorithms over MPI point-to-point (see allreduce.h for why), with
// MPI_Allgather's arguments and the contract of steps.h, plus the blocks placed by
// `position`: the block of rank k of `comm` lands at block position[k] of recvbuf (null: at
// k), and MPI_IN_PLACE takes this rank's block from position[rank]. So one call serves a
// communicator reordered from the caller's, whose block order must stay the caller's ranks
// (position = the order).
//   AllgatherRing                p - 1 steps to the right neighbour.
//   AllgatherRecursiveDoubling   power-of-two sizes (others: the ring): at step k the
//                                2^k blocks gathered so far are exchanged with rank ^ 2^k, each
//                                step one message (an indexed datatype over the positions).
#ifndef TOPORR_CLIENT_MPI_COLL_ALLGATHER_H_
#define TOPORR_CLIENT_MPI_COLL_ALLGATHER_H_

#include <mpi.h>

namespace toporr::client::mpi::coll {

int AllgatherRing(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, const int* position);
int AllgatherRecursiveDoubling(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                               void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                               const int* position);

}  // namespace toporr::client::mpi::coll

#endif  // TOPORR_CLIENT_MPI_COLL_ALLGATHER_H_

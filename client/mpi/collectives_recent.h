// toporr's implementations of recent locality-seeking collectives that the MPI libraries do
// not offer, over MPI point-to-point, with the schedules of mapping/swing_schedule.h (the
// same functions the mapping engine's patterns use, so prediction and reordering describe
// exactly what runs):
//   AllreduceSwing           Swing, latency-optimal (De Sensi et al., NSDI'24): log2(pof2)
//                            exchanges of the whole vector, rank v's peer at step s being
//                            v + rho(s) (v even) or v - rho(s) (v odd) mod pof2,
//                            rho(s) = 1, -1, 3, -5, 11, ... Sizes that are not powers of two
//                            are folded exactly like Open MPI's recursive doubling: the even
//                            rank of each of the first `extra` pairs (2j, 2j+1) hands its
//                            vector to the odd one, sits out, and gets the result back.
//   AllreduceSwingBandwidth  Swing, bandwidth-optimal: reduce-scatter by halving the vector
//                            over the same peers (step s exchanges count / 2^(s+1)), then the
//                            allgather over the peers in reverse. Which half a rank keeps is
//                            bit s of SwingBlockKey, so every message is one contiguous range
//                            (the authors' "remapped" variant; the peers and the byte counts
//                            are those of their bitmap variant). Non-power-of-two sizes fold
//                            like Open MPI's Rabenseifner (pairs trade halves, the odd member
//                            drops out and receives the result); count < pof2 runs
//                            AllreduceSwing.
//   BcastBine                Bine tree (De Sensi et al., SC'25): the binomial tree with
//                            distance halving over Swing peers on shifted ranks (root = 0);
//                            other sizes run it on the even members of the first `extra`
//                            pairs and the others, and the odd members receive from their even
//                            neighbour in one last step. A rank sends to its children one
//                            after the other in stage order (blocking sends), so the run is
//                            the synchronous schedule the mapping engine predicts. Whole
//                            message, no segmentation.
// Conventions as collectives.h: any count (0 too), counts not divisible by the size, any
// size, MPI_IN_PLACE, predefined and derived datatypes (temporaries by true extent),
// predefined and user-defined ops through MPI_Reduce_local (correct for commutative ops;
// callers send non-commutative ops to the MPI library). Every function returns an MPI error
// code and is collective over `comm` (an intra-communicator).
#ifndef TOPORR_CLIENT_MPI_COLLECTIVES_RECENT_H_
#define TOPORR_CLIENT_MPI_COLLECTIVES_RECENT_H_

#include <mpi.h>

namespace toporr::client::mpi::coll {

int AllreduceSwing(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                   MPI_Comm comm);
int AllreduceSwingBandwidth(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                            MPI_Op op, MPI_Comm comm);
int BcastBine(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm);

}  // namespace toporr::client::mpi::coll

#endif  // TOPORR_CLIENT_MPI_COLLECTIVES_RECENT_H_

// toporr's own bcast algorithms over MPI point-to-point (see allreduce.h for why). Every
// function has MPI_Bcast's arguments (plus the radix of the k-nomial tree) and keeps the
// contract of steps.h. Trees are on shifted ranks (the root is 0) and are the ones
// mapping/schedules/collective_shapes.h defines, as mapping/schedules/pattern.h predicts them;
// whole messages.
//   BcastBinomial, BcastBinaryTree, BcastKnomial (radix 2..8; less is taken as 2)
//                            a rank receives from its parent, then sends to all its children
//                            at once (isend + waitall).
//   BcastScatterAllgather    binomial scatter of ceil(count / p)-element blocks down the
//                            in-order binomial tree, then a recursive-doubling allgather
//                            (a ring allgather when the size is not a power of two);
//   BcastScatterAllgatherRing  the same scatter, then a ring allgather. Both with
//                            count < size: BcastBinomial.
//   BcastBine                Bine tree (De Sensi et al., SC'25;
//   mapping/schedules/swing_schedule.h):
//                            the binomial tree with distance halving over Swing peers; other
//                            sizes run it on the even members of the first `extra` pairs and
//                            the others, and the odd members receive from their even
//                            neighbour in one last step. A rank sends to its children one
//                            after the other in stage order (blocking sends), so the run is
//                            the synchronous schedule the mapping engine predicts.
#ifndef TOPORR_CLIENT_MPI_COLL_BCAST_H_
#define TOPORR_CLIENT_MPI_COLL_BCAST_H_

#include <mpi.h>

namespace toporr::client::mpi::coll {

int BcastBinomial(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm);
int BcastBinaryTree(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm);
int BcastKnomial(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm, int radix);
int BcastScatterAllgather(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm);
int BcastScatterAllgatherRing(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm);
int BcastBine(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm);

}  // namespace toporr::client::mpi::coll

#endif  // TOPORR_CLIENT_MPI_COLL_BCAST_H_

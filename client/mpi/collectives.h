// toporr's own collective algorithms, over MPI point-to-point, so that the algorithm a
// communicator was reordered for is the one that runs on it (MPI libraries pick theirs by
// their own size rules). Schedules follow Open MPI's coll/base algorithms
// (../shared/reference/formats_and_algorithms.md § 5), which is what the mapping engine
// models and predicts:
//   allreduce  ring and segmented ring (count < size: recursive doubling), recursive doubling
//   (non-power-of-two
//              sizes: even ranks of the first 2*extra fold into their odd neighbour),
//              Rabenseifner (reduce-scatter by recursive halving + allgather by recursive
//              doubling; non-power-of-two: odd ranks of the first 2*rem drop out after
//              trading halves; count < pof2: recursive doubling)
//   allgather  ring, recursive doubling (power-of-two sizes; ring otherwise)
//   reduce     binomial
//   bcast      binomial, binary tree, k-nomial (radix 2..8), scatter-allgather (binomial
//              scatter + recursive-doubling allgather; ring allgather when the size is not a
//              power of two), scatter-allgather-ring; scatter variants with count < size:
//              binomial
// Whole messages (the segmented ring excepted). Any count (0 too), any size, MPI_IN_PLACE,
// predefined and derived datatypes (temporary buffers by true extent), predefined and user-defined
// ops applied with MPI_Reduce_local in rank order (so the allreduce algorithms are correct
// for commutative ops; callers send non-commutative ops to the MPI library). Every
// function returns an MPI error code and is collective over `comm` (an intra-communicator).
#ifndef TOPORR_CLIENT_MPI_COLLECTIVES_H_
#define TOPORR_CLIENT_MPI_COLLECTIVES_H_

#include <mpi.h>

#include <cstdint>

namespace toporr::client::mpi::coll {

int AllreduceRing(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm);
// Ring in phases (Open MPI's segmented ring): the reduce-scatter runs once per phase on a
// 1/phases slice of every block, so messages stay near `segment_bytes`; then one allgather
// of whole blocks. Phases: floor(count / (p * segcount)) (+1 for a large remainder);
// segment_bytes 0, or a segment that holds the message: the plain ring.
int AllreduceSegmentedRing(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                           MPI_Op op, MPI_Comm comm, int64_t segment_bytes);
// The segment size toporr runs (and predicts) its segmented ring with: 1 MiB, the segment of
// Open MPI's classic decision rules.
inline constexpr int64_t kRingSegmentBytes = int64_t{1} << 20;
int AllreduceRecursiveDoubling(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                               MPI_Op op, MPI_Comm comm);
int AllreduceRabenseifner(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                          MPI_Op op, MPI_Comm comm);

// Allgather with the blocks placed by `position`: the block of rank k of `comm` lands at
// block position[k] of recvbuf (null: at k), and MPI_IN_PLACE takes this rank's block from
// position[rank]. So one call serves a communicator reordered from the caller's, whose block
// order must stay the caller's ranks (position = the order). Ring: p - 1 steps to the right
// neighbour; recursive doubling: power-of-two sizes (others: ring), each step one message
// (an indexed datatype over the positions).
int AllgatherRing(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, const int* position);
int AllgatherRecursiveDoubling(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                               void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                               const int* position);

int BcastBinomial(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm);
int BcastBinaryTree(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm);
int BcastKnomial(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm, int radix);
int BcastScatterAllgather(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm);
int BcastScatterAllgatherRing(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm);

// Reduce into `root` along the binomial tree mapping/pattern.h models for reduce: shifted
// rank v with lowest set bit 2^k sends its partial result to v - 2^k at stage k, after
// reducing what its children sent. MPI_Reduce's arguments (recvbuf significant at the root
// only, MPI_IN_PLACE at the root); commutative ops.
int ReduceBinomial(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                   int root, MPI_Comm comm);

}  // namespace toporr::client::mpi::coll

#endif  // TOPORR_CLIENT_MPI_COLLECTIVES_H_

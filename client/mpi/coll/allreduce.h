// toporr's own allreduce algorithms over MPI point-to-point, so that the algorithm a
// communicator was reordered for is the one that runs on it (MPI libraries pick theirs by
// their own size rules). Every function has MPI_Allreduce's arguments (plus a segment size
// where one applies) and keeps the contract of steps.h. Schedules, as mapping/schedules/pattern.h
// predicts them:
//   AllreduceRing            Open MPI's ring: reduce-scatter then allgather of p blocks to
//                            the right neighbour (count < p: recursive doubling).
//   AllreduceSegmentedRing   the ring in phases (Open MPI's segmented ring): the
//                            reduce-scatter runs once per phase on a 1/phases slice of every
//                            block, so messages stay near `segment_bytes`; then one allgather
//                            of whole blocks. Phases: floor(count / (p * segcount)) (+1 for a
//                            large remainder); segment_bytes 0, or a segment that holds the
//                            message: the plain ring.
//   AllreduceRecursiveDoubling  whole vectors exchanged with v ^ 2^k on the folded ranks
//                            (mapping/schedules/collective_shapes.h, the odd member of a pair
//                            plays): the even ranks of the first 2 * extra hand their vector to the
//                            odd neighbour, sit out, and get the result back.
//   AllreduceRabenseifner    reduce-scatter by recursive halving + allgather by recursive
//                            doubling over v ^ 2^k on the folded ranks (the even member
//                            plays: pairs trade halves, the odd member drops out and receives
//                            the result); count < pof2: recursive doubling.
//   AllreduceSwing           Swing, latency-optimal (De Sensi et al., NSDI'24): recursive
//                            doubling's fold and whole vectors, with the peer of v at step s
//                            SwingPeer(v, s, pof2) (mapping/schedules/swing_schedule.h) instead of
//                            v ^ 2^s.
//   AllreduceSwingBandwidth  Swing, bandwidth-optimal: Rabenseifner's fold and halving over
//                            the Swing peers; which half a rank keeps at step s is bit s of
//                            SwingBlockKey, so every message is one contiguous range (the
//                            authors' "remapped" variant; the peers and the byte counts are
//                            those of their bitmap variant); count < pof2: AllreduceSwing.
#ifndef TOPORR_CLIENT_MPI_COLL_ALLREDUCE_H_
#define TOPORR_CLIENT_MPI_COLL_ALLREDUCE_H_

#include <mpi.h>

#include <cstdint>

namespace toporr::client::mpi::coll {

int AllreduceRing(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm);
int AllreduceSegmentedRing(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                           MPI_Op op, MPI_Comm comm, int64_t segment_bytes);
// The segment size toporr runs (and predicts) its segmented ring with: 1 MiB, the segment of
// Open MPI's classic decision rules.
inline constexpr int64_t kRingSegmentBytes = int64_t{1} << 20;
int AllreduceRecursiveDoubling(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                               MPI_Op op, MPI_Comm comm);
int AllreduceRabenseifner(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                          MPI_Op op, MPI_Comm comm);
int AllreduceSwing(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                   MPI_Comm comm);
int AllreduceSwingBandwidth(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                            MPI_Op op, MPI_Comm comm);

}  // namespace toporr::client::mpi::coll

#endif  // TOPORR_CLIENT_MPI_COLL_ALLREDUCE_H_

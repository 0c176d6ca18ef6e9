// toporr's own implementation of each algorithm it runs itself, by collective: the `own`
// column of the algorithm registry (mapping/schedules/algorithms.h) made callable, one
// signature per collective (an algorithm's extra parameter, the knomial radix, is every bcast
// implementation's; the segmented ring's segment is kRingSegmentBytes). own_test.cc checks
// these tables against the registry.
#ifndef TOPORR_CLIENT_MPI_COLL_OWN_H_
#define TOPORR_CLIENT_MPI_COLL_OWN_H_

#include <mpi.h>

#include "mapping/schedules/pattern.h"

namespace toporr::client::mpi::coll {

using AllreduceFn = int (*)(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                            MPI_Op op, MPI_Comm comm);
using BcastFn = int (*)(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
                        int radix);
// `position` (may be null): new rank k's block goes to block position[k] of recvbuf.
using AllgatherFn = int (*)(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            const int* position);

// The implementation of `a` for the collective; nullptr where toporr does not run it.
AllreduceFn OwnAllreduce(mapping::Algorithm a);
BcastFn OwnBcast(mapping::Algorithm a);
AllgatherFn OwnAllgather(mapping::Algorithm a);

}  // namespace toporr::client::mpi::coll

#endif  // TOPORR_CLIENT_MPI_COLL_OWN_H_

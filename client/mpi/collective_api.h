// toporr's collectives as the C API and the PMPI layer call them: selection (or a forced
// algorithm) through Library::CollectiveComm, then collectives.h on the reordered
// communicator, the multi-level version (multilevel.h; bcast, reduce, allreduce, gather) on
// the caller's ranks, or the MPI library's own call where toporr does not act. MPI error
// codes. TOPORR_ALGORITHM=multilevel forces the multi-level version where it exists.
// Each collective first checks, with every rank of `comm`, that the buffers are host memory
// (buffers.h): a call on GPU or managed memory on any rank is the MPI library's own call on
// `comm`, with no decision and no TOPORR_REPORT line.
#ifndef TOPORR_CLIENT_MPI_COLLECTIVE_API_H_
#define TOPORR_CLIENT_MPI_COLLECTIVE_API_H_

#include <mpi.h>

#include <optional>

#include "client/mpi/library.h"
#include "mapping/pattern.h"

namespace toporr::client::mpi {

int Allreduce(Library& lib, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
              MPI_Op op, MPI_Comm comm, std::optional<mapping::Algorithm> algorithm);
// MPI_Allgather: ring or recursive doubling on the reordered communicator, blocks kept in
// the caller's rank order.
int Allgather(Library& lib, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
              void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
              std::optional<mapping::Algorithm> algorithm);
// MPI_Reduce: the MPI library's reduce run on a communicator reordered for the binomial
// tree, the root translated (commutative ops only; the rest as Allreduce).
int Reduce(Library& lib, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
           MPI_Op op, int root, MPI_Comm comm);
int Bcast(Library& lib, void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
          std::optional<mapping::Algorithm> algorithm, int radix);
// MPI_Gather: the multi-level version (multilevel.h) when selected (or forced with
// TOPORR_ALGORITHM=multilevel), blocks in the caller's rank order; otherwise the MPI
// library's own gather on the caller's communicator.
int Gather(Library& lib, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
           int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
           std::optional<mapping::Algorithm> algorithm);

}  // namespace toporr::client::mpi

#endif  // TOPORR_CLIENT_MPI_COLLECTIVE_API_H_

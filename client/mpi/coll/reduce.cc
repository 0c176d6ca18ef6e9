#include "client/mpi/coll/reduce.h"

#include <cstdint>

#include "client/mpi/coll/steps.h"
#include "mapping/schedules/collective_shapes.h"

namespace toporr::client::mpi::coll {

int ReduceBinomial(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                   int root, MPI_Comm comm) {
  int p = 1, r = 0;
  PMPI_Comm_size(comm, &p);
  PMPI_Comm_rank(comm, &r);
  const void* in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  if (r == root) RETURN_IF_MPI_ERROR(Copy(in, recvbuf, count, type));
  if (p == 1 || count == 0) return MPI_SUCCESS;
  const Elements e(type);
  const Shift s{p, root};
  const int v = s.Virtual(r);
  const bool has_children = v % 2 == 0 && v + 1 < p;
  // The partial result: the root's recvbuf, a scratch copy on other inner nodes; a leaf
  // sends its input as it is.
  Scratch acc_storage(e, has_children && r != root ? count : 0);
  void* acc = r == root ? recvbuf : acc_storage.get();
  if (has_children && r != root) RETURN_IF_MPI_ERROR(Copy(in, acc, count, type));
  Scratch tmp(e, has_children ? count : 0);
  const int64_t span = mapping::InOrderBinomialTreeSpan(v, p);
  for (int64_t m = 1; m < span; m *= 2) {  // the children v + m, smallest subtree first
    if (v + m < p) {
      RETURN_IF_MPI_ERROR(
          PMPI_Recv(tmp.get(), count, type, s.Real(v + m), kTag, comm, MPI_STATUS_IGNORE));
      RETURN_IF_MPI_ERROR(Reduce(tmp.get(), acc, count, type, op));
    }
  }
  if (v == 0) return MPI_SUCCESS;
  return PMPI_Send(has_children ? acc : in, count, type,
                   s.Real(mapping::InOrderBinomialTreeParent(v)), kTag, comm);
}

}  // namespace toporr::client::mpi::coll

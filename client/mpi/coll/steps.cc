#include "client/mpi/coll/steps.h"

#include <cstddef>

namespace toporr::client::mpi::coll {

Elements::Elements(MPI_Datatype type) {
  MPI_Aint lb = 0;
  PMPI_Type_get_extent(type, &lb, &extent);
  PMPI_Type_get_true_extent(type, &true_lb, &true_extent);
}

Scratch::Scratch(const Elements& e, int count)
    : storage_(count > 0 ? static_cast<size_t>(e.true_extent + (count - 1) * e.extent) : 1) {
  ptr_ = storage_.data() - e.true_lb;
}

int Copy(const void* src, void* dst, int count, MPI_Datatype type) {
  if (count == 0 || src == dst) return MPI_SUCCESS;
  return PMPI_Sendrecv(src, count, type, 0, kTag, dst, count, type, 0, kTag, MPI_COMM_SELF,
                       MPI_STATUS_IGNORE);
}

int Exchange(const void* send, int send_count, void* recv, int recv_count, MPI_Datatype type,
             int peer, MPI_Comm comm) {
  return PMPI_Sendrecv(send, send_count, type, peer, kTag, recv, recv_count, type, peer, kTag, comm,
                       MPI_STATUS_IGNORE);
}

int Reduce(const void* in, void* inout, int count, MPI_Datatype type, MPI_Op op) {
  return count == 0 ? MPI_SUCCESS : PMPI_Reduce_local(in, inout, count, type, op);
}

}  // namespace toporr::client::mpi::coll

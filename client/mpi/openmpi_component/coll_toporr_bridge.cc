// mca_coll_toporr's C++ half (coll_toporr.h): the component's toporr (component_library.h)
// running collective_api.h with the previous module's functions as the MPI library's own call.
#include <mpi.h>

#include <cstdint>
#include <optional>

#include "client/mpi/collective_api.h"
#include "client/mpi/library.h"
#include "client/mpi/openmpi_component/coll_toporr.h"
#include "client/mpi/openmpi_component/component_library.h"

namespace {

using toporr::client::mpi::Library;

Library* Coll() { return toporr::client::mpi::ComponentLibrary(TOPORR_MCA_COLL); }

// Whether a call of `count` elements of `type` is one toporr takes over: at least min_bytes,
// and not one of toporr's own steps.
bool Large(int count, MPI_Datatype type) {
  Library* library = Coll();
  if (library == nullptr || count <= 0 || toporr::client::mpi::InsideToporr()) return false;
  int size = 0;
  return PMPI_Type_size(type, &size) == MPI_SUCCESS &&
         static_cast<int64_t>(count) * size >= library->options().min_bytes;
}

}  // namespace

extern "C" {

int toporr_mca_allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                         MPI_Op op, MPI_Comm comm, const toporr_mca_previous* previous) {
  auto call = [&] {
    return previous->allreduce(sendbuf, recvbuf, count, type, op, comm, previous->allreduce_module);
  };
  if (!Large(count, type)) return call();
  return toporr::client::mpi::Allreduce(*Coll(), sendbuf, recvbuf, count, type, op, comm,
                                        std::nullopt, call);
}

int toporr_mca_bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
                     const toporr_mca_previous* previous) {
  auto call = [&] {
    return previous->bcast(buffer, count, type, root, comm, previous->bcast_module);
  };
  if (!Large(count, type)) return call();
  return toporr::client::mpi::Bcast(*Coll(), buffer, count, type, root, comm, std::nullopt, 4,
                                    call);
}

int toporr_mca_reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                      int root, MPI_Comm comm, const toporr_mca_previous* previous) {
  auto call = [&] {
    return previous->reduce(sendbuf, recvbuf, count, type, op, root, comm, previous->reduce_module);
  };
  if (!Large(count, type)) return call();
  return toporr::client::mpi::Reduce(*Coll(), sendbuf, recvbuf, count, type, op, root, comm, call);
}

int toporr_mca_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                         int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                         const toporr_mca_previous* previous) {
  auto call = [&] {
    return previous->allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                               previous->allgather_module);
  };
  if (!Large(recvcount, recvtype)) return call();  // per-rank block, as the PMPI layer counts
  return toporr::client::mpi::Allgather(*Coll(), sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                        recvtype, comm, std::nullopt, call);
}

}  // extern "C"

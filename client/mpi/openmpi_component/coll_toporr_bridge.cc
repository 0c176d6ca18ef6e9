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

// The previous module's nonblocking (`nonblocking`) or persistent (`persistent`) function,
// called with `args`, or MPI_ERR_UNSUPPORTED_OPERATION where no module provides it.
#define TOPORR_PREVIOUS_START(persistent, nonblocking, init, ...)                           \
  ((persistent)                                                                             \
       ? (previous->init != nullptr                                                         \
              ? previous->init(__VA_ARGS__, info, request, previous->init##_module)         \
              : MPI_ERR_UNSUPPORTED_OPERATION)                                              \
       : (previous->nonblocking != nullptr                                                  \
              ? previous->nonblocking(__VA_ARGS__, request, previous->nonblocking##_module) \
              : MPI_ERR_UNSUPPORTED_OPERATION))

// Open MPI starts small nonblocking allreduces of its own on a communicator (communicator-id
// agreement when communicators are created), from inside its progress engine, where a
// decision (collective, blocking) must not run: the nonblocking and persistent slots take a
// call only from this many bytes, whatever min_bytes says.
constexpr int64_t kOpenMpiOwnBytes = 1024;

// Large, for the nonblocking and persistent slots.
bool LargeStart(int count, MPI_Datatype type) {
  int size = 0;
  return Large(count, type) && PMPI_Type_size(type, &size) == MPI_SUCCESS &&
         static_cast<int64_t>(count) * size >= kOpenMpiOwnBytes;
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

int toporr_mca_iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                          MPI_Op op, MPI_Comm comm, int persistent, MPI_Info info,
                          MPI_Request* request, const toporr_mca_previous* previous,
                          const toporr_library_starts* starts) {
  auto call = [&] {
    return TOPORR_PREVIOUS_START(persistent, iallreduce, allreduce_init, sendbuf, recvbuf, count,
                                 type, op, comm);
  };
  if (!LargeStart(count, type)) return call();
  return toporr::client::mpi::Iallreduce(
      *Coll(), sendbuf, recvbuf, count, type, op, comm,
      toporr::client::mpi::Start::Of(persistent, info, request, starts), call);
}

int toporr_mca_ibcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
                      int persistent, MPI_Info info, MPI_Request* request,
                      const toporr_mca_previous* previous, const toporr_library_starts* starts) {
  auto call = [&] {
    return TOPORR_PREVIOUS_START(persistent, ibcast, bcast_init, buffer, count, type, root, comm);
  };
  if (!LargeStart(count, type)) return call();
  return toporr::client::mpi::Ibcast(
      *Coll(), buffer, count, type, root, comm,
      toporr::client::mpi::Start::Of(persistent, info, request, starts), call);
}

int toporr_mca_ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                       int root, MPI_Comm comm, int persistent, MPI_Info info, MPI_Request* request,
                       const toporr_mca_previous* previous, const toporr_library_starts* starts) {
  auto call = [&] {
    return TOPORR_PREVIOUS_START(persistent, ireduce, reduce_init, sendbuf, recvbuf, count, type,
                                 op, root, comm);
  };
  if (!LargeStart(count, type)) return call();
  return toporr::client::mpi::Ireduce(
      *Coll(), sendbuf, recvbuf, count, type, op, root, comm,
      toporr::client::mpi::Start::Of(persistent, info, request, starts), call);
}

int toporr_mca_iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm, int persistent,
                          MPI_Info info, MPI_Request* request, const toporr_mca_previous* previous,
                          const toporr_library_starts* starts) {
  auto call = [&] {
    return TOPORR_PREVIOUS_START(persistent, iallgather, allgather_init, sendbuf, sendcount,
                                 sendtype, recvbuf, recvcount, recvtype, comm);
  };
  if (!LargeStart(recvcount, recvtype)) return call();
  return toporr::client::mpi::Iallgather(
      *Coll(), sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
      toporr::client::mpi::Start::Of(persistent, info, request, starts), call);
}

}  // extern "C"

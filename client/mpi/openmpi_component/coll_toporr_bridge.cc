// mca_coll_toporr's C++ half (coll_toporr.h): one toporr per process, configured from the
// component's MCA parameters over TOPORR_* and the site file, running collective_api.h with
// the previous module's functions as the MPI library's own call.
#include <mpi.h>

#include <cstdint>
#include <optional>
#include <string>

#include "client/client_options.h"
#include "client/mpi/collective_api.h"
#include "client/mpi/library.h"
#include "client/mpi/openmpi_component/coll_toporr.h"

namespace {

using toporr::client::ClientOptions;
using toporr::client::mpi::Library;

// Set once, by toporr_mca_configure, before any module exists (MPI_Init); never destroyed, as
// communicators may still hold toporr's caches while the process exits.
Library* library = nullptr;

// The process configuration's strings, kept for toporr_mca_params' pointers.
ClientOptions& Defaults() {
  static ClientOptions* options = new ClientOptions(toporr::client::ProcessClientOptions().options);
  return *options;
}

char* Text(std::string& s) { return s.empty() ? nullptr : s.data(); }
std::string Text(const char* s) { return s == nullptr ? std::string() : std::string(s); }

// Whether a call of `count` elements of `type` is one toporr takes over: at least min_bytes,
// and not one of toporr's own steps.
bool Large(int count, MPI_Datatype type) {
  if (library == nullptr || count <= 0 || toporr::client::mpi::InsideToporr()) return false;
  int size = 0;
  return MPI_Type_size(type, &size) == MPI_SUCCESS &&
         static_cast<int64_t>(count) * size >= library->options().min_bytes;
}

}  // namespace

extern "C" {

void toporr_mca_defaults(toporr_mca_params* p) {
  ClientOptions& o = Defaults();
  p->min_bytes = o.min_bytes;
  p->disable = o.disable;
  p->verify = o.verify;
  p->verify_calls = o.verify_calls;
  p->check_arguments = o.check_arguments;
  p->reproducible = o.reproducible;
  p->deadline_ms = o.deadline_ms;
  p->verbose = o.verbose;
  p->report = Text(o.report_path);
  p->address = Text(o.address);
  p->socket = Text(o.socket);
  p->tls_ca = Text(o.tls_ca);
  p->costs = Text(o.costs_path);
  p->hostmap = Text(o.hostmap_path);
  p->algorithm = Text(o.algorithm);
}

int toporr_mca_configure(const toporr_mca_params* p) {
  if (library == nullptr) {
    ClientOptions o = Defaults();
    o.min_bytes = p->min_bytes;
    o.disable = p->disable;
    o.verify = p->verify;
    o.verify_calls = p->verify_calls;
    o.check_arguments = p->check_arguments;
    o.reproducible = p->reproducible;
    o.deadline_ms = p->deadline_ms;
    o.verbose = p->verbose;
    o.report_path = Text(p->report);
    o.address = Text(p->address);
    o.socket = Text(p->socket);
    o.tls_ca = Text(p->tls_ca);
    o.costs_path = Text(p->costs);
    o.hostmap_path = Text(p->hostmap);
    o.algorithm = Text(p->algorithm);
    library = new Library(o, toporr::client::ProcessClientOptions().warnings);
  }
  return library->options().disable ? 0 : 1;
}

int toporr_mca_allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                         MPI_Op op, MPI_Comm comm, const toporr_mca_previous* previous) {
  auto call = [&] {
    return previous->allreduce(sendbuf, recvbuf, count, type, op, comm, previous->allreduce_module);
  };
  if (!Large(count, type)) return call();
  return toporr::client::mpi::Allreduce(*library, sendbuf, recvbuf, count, type, op, comm,
                                        std::nullopt, call);
}

int toporr_mca_bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
                     const toporr_mca_previous* previous) {
  auto call = [&] {
    return previous->bcast(buffer, count, type, root, comm, previous->bcast_module);
  };
  if (!Large(count, type)) return call();
  return toporr::client::mpi::Bcast(*library, buffer, count, type, root, comm, std::nullopt, 4,
                                    call);
}

int toporr_mca_reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                      int root, MPI_Comm comm, const toporr_mca_previous* previous) {
  auto call = [&] {
    return previous->reduce(sendbuf, recvbuf, count, type, op, root, comm, previous->reduce_module);
  };
  if (!Large(count, type)) return call();
  return toporr::client::mpi::Reduce(*library, sendbuf, recvbuf, count, type, op, root, comm, call);
}

int toporr_mca_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                         int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                         const toporr_mca_previous* previous) {
  auto call = [&] {
    return previous->allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                               previous->allgather_module);
  };
  if (!Large(recvcount, recvtype)) return call();  // per-rank block, as the PMPI layer counts
  return toporr::client::mpi::Allgather(*library, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                        recvtype, comm, std::nullopt, call);
}

}  // extern "C"

// toporr's collectives as the C API and the PMPI layer call them: selection (or a forced
// algorithm) through Library::CollectiveComm, then coll/ on the reordered
// communicator, the multi-level version (multilevel.h; bcast, reduce, allreduce, gather) on
// the caller's ranks, or the MPI library's own call where toporr does not act. MPI error
// codes. TOPORR_ALGORITHM=multilevel forces the multi-level version where it exists.
// Each collective first checks, with every rank of `comm`, that the buffers are host memory
// (buffers.h): a call on GPU or managed memory on any rank is the MPI library's own call on
// `comm`, with no decision and no TOPORR_REPORT line.
//
// "The MPI library's own call" on the caller's communicator (toporr's fallback, and the other
// path of the run-time check) is PMPI_<collective> with the caller's arguments, or the
// `library` callable of the overloads that take one: a caller whose PMPI_* would come back to
// toporr (an Open MPI coll component, under which PMPI_Allreduce(comm) runs the component's
// module) passes the call of what would have run without it. toporr's own steps (its
// argument check, the decision's communication, its algorithms' messages and the library's
// algorithm on a reordered communicator) still call PMPI_* and MPI_*, with InsideToporr()
// true on the calling thread, so that such a caller sends them on untouched.
#ifndef TOPORR_CLIENT_MPI_COLLECTIVE_API_H_
#define TOPORR_CLIENT_MPI_COLLECTIVE_API_H_

#include <mpi.h>

#include <optional>

#include "absl/functional/function_ref.h"
#include "client/mpi/library.h"
#include "client/mpi/library_starts.h"
#include "mapping/schedules/pattern.h"

namespace toporr::client::mpi {

// The MPI library's own call with the caller's arguments; returns its MPI error code. Called
// at most once per call of the functions below, on every rank alike, from the calling thread.
using LibraryCall = absl::FunctionRef<int()>;

// True while one of the functions below runs toporr's own path on this thread (from its
// buffer check to its end): MPI calls made then are toporr's own steps.
bool InsideToporr();

int Allreduce(Library& lib, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
              MPI_Op op, MPI_Comm comm, std::optional<mapping::Algorithm> algorithm);
int Allreduce(Library& lib, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
              MPI_Op op, MPI_Comm comm, std::optional<mapping::Algorithm> algorithm,
              LibraryCall library);
// MPI_Allgather: ring or recursive doubling on the reordered communicator, blocks kept in
// the caller's rank order.
int Allgather(Library& lib, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
              void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
              std::optional<mapping::Algorithm> algorithm);
int Allgather(Library& lib, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
              void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
              std::optional<mapping::Algorithm> algorithm, LibraryCall library);
// MPI_Reduce: the MPI library's reduce run on a communicator reordered for the binomial
// tree, the root translated (commutative ops only; the rest as Allreduce).
int Reduce(Library& lib, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
           MPI_Op op, int root, MPI_Comm comm);
int Reduce(Library& lib, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
           MPI_Op op, int root, MPI_Comm comm, LibraryCall library);
int Bcast(Library& lib, void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
          std::optional<mapping::Algorithm> algorithm, int radix);
int Bcast(Library& lib, void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
          std::optional<mapping::Algorithm> algorithm, int radix, LibraryCall library);
// MPI_Gather: the multi-level version (multilevel.h) when selected (or forced with
// TOPORR_ALGORITHM=multilevel), blocks in the caller's rank order; otherwise the MPI
// library's own gather on the caller's communicator.
int Gather(Library& lib, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
           int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
           std::optional<mapping::Algorithm> algorithm);

// ---- Nonblocking and persistent collectives (nonblocking_api.cc) ----
// MPI_I{allreduce,bcast,reduce,allgather} and MPI_{Allreduce,Bcast,Reduce,Allgather}_init
// (MPI-4; Open MPI 4.1's MPIX_*_init). toporr's path is the MPI library's own nonblocking or
// persistent call on a communicator in toporr's order (allgather: MPI_Iallgatherv /
// MPI_Allgatherv_init there, each rank's block placed at its caller's rank), so progress,
// overlap, completion, cancellation and freeing of the request are the MPI library's: the
// request returned is the library's own. The decision is toporr_comm_reorder's for the
// collective (the order its predicted-fastest algorithm runs best in), cached per
// communicator and size class apart from the blocking call's, with the same fallbacks.
// Synchronisation: a call that decides (the first of its size class on a communicator, and a
// fallback's retry) is collective and synchronising, as creating a communicator is, and so is
// the first call on a communicator that checks the buffers' memory (buffers.h); the argument
// check (check_arguments) is made then. A call answered from the cache starts without
// communication, except while the decision's run-time check measures (the first
// 2 x verify_calls calls of a nonblocking decision): such a call runs to completion inside
// the start, timed as the blocking call's check times it, and returns an already complete
// request (a generalized request). A persistent call takes the decision's current choice at
// init (toporr's order while its check measures) and is not measured.

// library_starts.h: the MPI library's starts toporr uses on its own communicators.
using LibraryStarts = toporr_library_starts;

// How a nonblocking or persistent call starts: the kind, the info of a persistent init, the
// request to fill and, where not the MPI API's, the library's starts toporr uses.
struct Start {
  enum class Kind { kNonblocking, kPersistent };
  Kind kind = Kind::kNonblocking;
  MPI_Info info = MPI_INFO_NULL;
  MPI_Request* request = nullptr;
  const LibraryStarts* starts = nullptr;

  // The start the C entry points describe with an int (0 nonblocking, else persistent).
  static Start Of(int persistent, MPI_Info info, MPI_Request* request,
                  const LibraryStarts* starts = nullptr) {
    return Start{persistent ? Kind::kPersistent : Kind::kNonblocking, info, request, starts};
  }
};

// Whether this build's MPI library has persistent collectives (MPI-4, or Open MPI's MPIX_).
bool HasPersistentCollectives();

// `library`: the MPI library's own start of the call with the caller's arguments, filling
// *start.request (the overloads without it use PMPI_I* or the PMPI persistent init).
int Iallreduce(Library& lib, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
               MPI_Op op, MPI_Comm comm, const Start& start);
int Iallreduce(Library& lib, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
               MPI_Op op, MPI_Comm comm, const Start& start, LibraryCall library);
int Ibcast(Library& lib, void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
           const Start& start);
int Ibcast(Library& lib, void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
           const Start& start, LibraryCall library);
// Commutative ops only (the rest: the library's call on the caller's communicator).
int Ireduce(Library& lib, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
            MPI_Op op, int root, MPI_Comm comm, const Start& start);
int Ireduce(Library& lib, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
            MPI_Op op, int root, MPI_Comm comm, const Start& start, LibraryCall library);
int Iallgather(Library& lib, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
               void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
               const Start& start);
int Iallgather(Library& lib, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
               void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
               const Start& start, LibraryCall library);

}  // namespace toporr::client::mpi

#endif  // TOPORR_CLIENT_MPI_COLLECTIVE_API_H_

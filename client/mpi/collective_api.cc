// toporr_allreduce / toporr_bcast (toporr.h) and their PMPI entry points (pmpi_abi.h): one
// opening for every collective (Opening: the argument check, the decision and communicator
// from Library::CollectiveComm, the run-time check), the algorithm from coll/own.h, the MPI
// library's own call wherever toporr does not act.
#include "client/mpi/collective_api.h"

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "client/mpi/coll/own.h"
#include "client/mpi/coll/steps.h"
#include "client/mpi/collective_opening.h"
#include "client/mpi/library.h"
#include "client/mpi/multilevel.h"
#include "mapping/schedules/pattern.h"

namespace toporr::client::mpi {
namespace {

using mapping::Algorithm;

}  // namespace

int Allreduce(Library& lib, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
              MPI_Op op, MPI_Comm comm, std::optional<Algorithm> algorithm) {
  return Allreduce(lib, sendbuf, recvbuf, count, type, op, comm, algorithm,
                   [&] { return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm); });
}

int Allreduce(Library& lib, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
              MPI_Op op, MPI_Comm comm, std::optional<Algorithm> algorithm, LibraryCall library) {
  std::optional<Call> call =
      Eligible(lib, mapping::Collective::kAllreduce, comm, count, type, op, kNoRoot);
  if (!call) return library();
  call->algorithm = algorithm;
  call->has_multilevel = true;
  Opening opening(lib);
  if (!opening.Open(comm, *call, {sendbuf, recvbuf}, Runs::kEither)) return library();
  const CollectiveRun& run = opening.run();
  // The library's call where the run-time check runs it (CollectiveRun::library_on).
  auto best_library = [&]() -> int {
    if (run.library_on == MPI_COMM_NULL) return library();
    return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, run.library_on);
  };
  return opening.Run(
      [&]() -> int {
        if (run.multilevel != nullptr) {
          return run.multilevel->Allreduce(sendbuf, recvbuf, count, type, op);
        }
        if (run.algorithm) {
          if (coll::AllreduceFn own = coll::OwnAllreduce(*run.algorithm)) {
            return own(sendbuf, recvbuf, count, type, op, run.run_on);
          }
        }
        // The library's call on the reordered ranks (decided, or an algorithm toporr does not
        // carry).
        return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, run.run_on);
      },
      best_library);
}

int Allgather(Library& lib, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
              void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
              std::optional<Algorithm> algorithm) {
  return Allgather(
      lib, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, algorithm, [&] {
        return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
      });
}

int Allgather(Library& lib, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
              void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
              std::optional<Algorithm> algorithm, LibraryCall library) {
  std::optional<Call> call = Eligible(lib, mapping::Collective::kAllgather, comm, recvcount,
                                      recvtype, MPI_OP_NULL, kNoRoot);
  if (!call) return library();
  call->algorithm = algorithm;
  Opening opening(lib);
  if (!opening.Open(comm, *call, {sendbuf, recvbuf}, Runs::kAlgorithm)) return library();
  const CollectiveRun& run = opening.run();
  // Blocks stay in the caller's rank order: new rank k's block goes to block order[k].
  const int* position = run.order != nullptr && !run.order->empty() ? run.order->data() : nullptr;
  return opening.Run(
      [&]() -> int {
        if (coll::AllgatherFn own = coll::OwnAllgather(*run.algorithm)) {
          return own(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, run.run_on,
                     position);
        }
        return library();  // an algorithm toporr does not carry: the library's, unreordered
      },
      library);
}

int Reduce(Library& lib, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
           MPI_Op op, int root, MPI_Comm comm) {
  return Reduce(lib, sendbuf, recvbuf, count, type, op, root, comm,
                [&] { return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm); });
}

int Reduce(Library& lib, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
           MPI_Op op, int root, MPI_Comm comm, LibraryCall library) {
  std::optional<Call> call =
      Eligible(lib, mapping::Collective::kReduce, comm, count, type, op, root);
  if (!call) return library();
  call->has_multilevel = true;
  Opening opening(lib);
  if (!opening.Open(comm, *call, {sendbuf, recvbuf}, Runs::kEither)) return library();
  const CollectiveRun& run = opening.run();
  return opening.Run(
      [&]() -> int {
        if (run.multilevel != nullptr) {
          return run.multilevel->Reduce(sendbuf, recvbuf, count, type, op);
        }
        // The library's reduce on the communicator ordered for the binomial tree (a
        // commutative op gives the root the same result whatever the order). MPI_IN_PLACE at
        // the root becomes a copy of the root's buffer: the root moves to another rank of the
        // reordered communicator, and MPICH 4.0's reduce-scatter-gather reduce crashes on
        // MPI_IN_PLACE at a nonzero root (large counts) where the caller's call at root 0
        // would not.
        if (sendbuf == MPI_IN_PLACE) {
          coll::Scratch copy(coll::Elements(type), count);
          if (int rc = coll::Copy(recvbuf, copy.get(), count, type); rc != MPI_SUCCESS) return rc;
          return PMPI_Reduce(copy.get(), recvbuf, count, type, op, run.root, run.run_on);
        }
        return PMPI_Reduce(sendbuf, recvbuf, count, type, op, run.root, run.run_on);
      },
      library);
}

int Bcast(Library& lib, void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
          std::optional<Algorithm> algorithm, int radix) {
  return Bcast(lib, buffer, count, type, root, comm, algorithm, radix,
               [&] { return PMPI_Bcast(buffer, count, type, root, comm); });
}

int Bcast(Library& lib, void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
          std::optional<Algorithm> algorithm, int radix, LibraryCall library) {
  std::optional<Call> call =
      Eligible(lib, mapping::Collective::kBcast, comm, count, type, MPI_OP_NULL, root);
  if (!call) return library();
  call->algorithm = algorithm;
  call->has_multilevel = true;
  call->radix = radix;
  Opening opening(lib);
  if (!opening.Open(comm, *call, {buffer}, Runs::kEither)) return library();
  const CollectiveRun& run = opening.run();
  auto best_library = [&]() -> int {
    if (run.library_on == MPI_COMM_NULL) return library();
    return PMPI_Bcast(buffer, count, type, run.library_root, run.library_on);
  };
  return opening.Run(
      [&]() -> int {
        if (run.multilevel != nullptr) return run.multilevel->Bcast(buffer, count, type);
        if (run.algorithm) {
          if (coll::BcastFn own = coll::OwnBcast(*run.algorithm)) {
            return own(buffer, count, type, run.root, run.run_on, radix);
          }
        }
        return PMPI_Bcast(buffer, count, type, run.root, run.run_on);
      },
      best_library);
}

int Gather(Library& lib, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
           int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
           std::optional<Algorithm> algorithm) {
  auto library = [&] {
    return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  };
  int inter = 0, rank = 0, size = 1;
  PMPI_Comm_test_inter(comm, &inter);
  if (!inter) {
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
  }
  // Bytes per rank: the root's receive signature equals every sender's (MPI), so all agree.
  int type_size = 0;
  const bool root_side = !inter && rank == root;
  PMPI_Type_size(root_side ? recvtype : sendtype, &type_size);
  const int64_t bytes = static_cast<int64_t>(root_side ? recvcount : sendcount) * type_size;
  if (inter || bytes <= 0 || root < 0 || root >= size) return library();
  Opening opening(lib);
  // Senders' and the root's datatypes may differ: the bytes per rank are what must agree.
  const Call call{mapping::Collective::kGather, algorithm, true, bytes, root};
  // toporr runs no flat gather of its own: the multi-level version, or the library's call on
  // the caller's ranks.
  if (!opening.Open(comm, call, {sendbuf, recvbuf}, Runs::kMultilevel)) return library();
  const Multilevel* multilevel = opening.run().multilevel;
  return opening.Run(
      [&] {
        return multilevel->Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
      },
      library);
}

}  // namespace toporr::client::mpi

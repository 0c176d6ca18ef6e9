// toporr's nonblocking and persistent collectives (collective_api.h): the common opening
// (collective_opening.h) with Call::library_algorithm, then the MPI library's own
// nonblocking or persistent call on the decision's communicator.
#include <mpi.h>

#include <cstdint>
#include <deque>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "client/mpi/collective_api.h"
#include "client/mpi/collective_opening.h"
#include "client/mpi/library.h"
#include "client/mpi/persistent_abi.h"
#include "mapping/schedules/pattern.h"

// The MPI library's persistent init `name` called with the arguments, or MPI_ERR_OTHER where it
// has none (the entry points never ask for one there).
#ifdef TOPORR_PERSISTENT
#define TOPORR_INIT(name, ...) TOPORR_PERSISTENT(name)(__VA_ARGS__)
#else
#define TOPORR_INIT(name, ...) MPI_ERR_OTHER
#endif

namespace toporr::client::mpi {
namespace {

using Kind = Start::Kind;

// Starts one call as `start` says: `nonblocking` or `persistent`, each filling
// *start.request (start.starts' call, else PMPI_I* or the persistent init, TOPORR_INIT).
template <typename Nonblocking, typename Persistent>
int Begin(const Start& start, Nonblocking nonblocking, Persistent persistent) {
  return start.kind == Kind::kNonblocking ? nonblocking() : persistent();
}

// An already complete request for a call that ran to completion inside its start (a measured
// call of the run-time check): a generalized request, completed at once, whose status is a
// collective's (no source, no tag, not cancelled, no elements).
int QueryDone(void*, MPI_Status* status) {
  PMPI_Status_set_elements(status, MPI_BYTE, 0);
  PMPI_Status_set_cancelled(status, 0);
  status->MPI_SOURCE = MPI_UNDEFINED;
  status->MPI_TAG = MPI_UNDEFINED;
  return MPI_SUCCESS;
}
int FreeDone(void*) { return MPI_SUCCESS; }
int CancelDone(void*, int) { return MPI_SUCCESS; }

int CompleteRequest(MPI_Request* request) {
  if (int rc = PMPI_Grequest_start(QueryDone, FreeDone, CancelDone, nullptr, request);
      rc != MPI_SUCCESS) {
    return rc;
  }
  return PMPI_Grequest_complete(*request);
}

// Runs a started call to completion (a measured call), leaving an already complete request
// in *request.
int Finish(int started, MPI_Request* request) {
  if (started != MPI_SUCCESS) return started;
  if (int rc = PMPI_Wait(request, MPI_STATUS_IGNORE); rc != MPI_SUCCESS) return rc;
  return CompleteRequest(request);
}

// The opening's decision run: toporr's start on the decision's communicator (`ours`) or the
// library's (`library`), both filling *start.request. A nonblocking call while the run-time
// check measures runs to completion inside the start (Opening::Run times it); a persistent
// call takes toporr's path while the check measures, the verdict's path after it.
template <typename Ours, typename Lib>
int Dispatch(Opening& opening, const Start& start, Ours ours, Lib library) {
  if (!opening.Measuring()) return opening.Run(ours, library);
  if (start.kind == Kind::kPersistent) return ours();
  return opening.Run([&] { return Finish(ours(), start.request); },
                     [&] { return Finish(library(), start.request); });
}

// Stable arrays for MPI_Iallgatherv / MPI_Allgatherv_init, which read them until the request
// completes (or, persistent, until it is freed): per communicator size, counts of one block;
// for persistent calls, a copy of the order and the block datatype per init (kept until the
// process exits: a persistent request may outlive its communicator's decision cache, and
// nothing tells toporr when it is freed).
class StableArrays {
 public:
  static int FreeTypes(MPI_Comm, int keyval, void*, void*);

  const int* Ones(int n) {
    std::lock_guard<std::mutex> lock(mu_);
    std::unique_ptr<std::vector<int>>& v = ones_[n];
    if (!v) v = std::make_unique<std::vector<int>>(n, 1);
    return v->data();
  }
  const int* Keep(const std::vector<int32_t>& order) {
    std::lock_guard<std::mutex> lock(mu_);
    kept_.emplace_back(order.begin(), order.end());
    return kept_.back().data();
  }
  // Keeps `type` (a persistent request's block datatype: Open MPI's persistent collectives
  // read it at every start without holding it, so a free would leave them a dangling type;
  // MPICH's hold it) until MPI_Finalize.
  void KeepType(MPI_Datatype type) {
    std::lock_guard<std::mutex> lock(mu_);
    if (types_.empty()) {
      // Freed when MPI_Finalize deletes MPI_COMM_SELF's attributes, while MPI still works.
      int keyval = MPI_KEYVAL_INVALID;
      if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, FreeTypes, &keyval, nullptr) ==
          MPI_SUCCESS) {
        PMPI_Comm_set_attr(MPI_COMM_SELF, keyval, nullptr);
      }
    }
    types_.push_back(type);
  }

 private:
  std::mutex mu_;
  std::map<int, std::unique_ptr<std::vector<int>>> ones_;
  std::deque<std::vector<int>> kept_;
  std::vector<MPI_Datatype> types_;
};

StableArrays& Arrays() {
  static StableArrays* arrays = new StableArrays;  // outlives every request
  return *arrays;
}

int StableArrays::FreeTypes(MPI_Comm, int keyval, void*, void*) {
  StableArrays& a = Arrays();
  std::lock_guard<std::mutex> lock(a.mu_);
  for (MPI_Datatype& t : a.types_) PMPI_Type_free(&t);
  a.types_.clear();
  PMPI_Comm_free_keyval(&keyval);
  return MPI_SUCCESS;
}

int LibraryAllreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                     MPI_Comm comm, const Start& s) {
  return Begin(
      s,
      [&] {
        return s.starts ? s.starts->iallreduce(sendbuf, recvbuf, count, type, op, comm, s.request)
                        : PMPI_Iallreduce(sendbuf, recvbuf, count, type, op, comm, s.request);
      },
      [&] {
        return s.starts ? s.starts->allreduce_init(sendbuf, recvbuf, count, type, op, comm, s.info,
                                                   s.request)
                        : TOPORR_INIT(Allreduce, sendbuf, recvbuf, count, type, op, comm, s.info,
                                      s.request);
      });
}

int LibraryBcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
                 const Start& s) {
  return Begin(
      s,
      [&] {
        return s.starts ? s.starts->ibcast(buffer, count, type, root, comm, s.request)
                        : PMPI_Ibcast(buffer, count, type, root, comm, s.request);
      },
      [&] {
        return s.starts ? s.starts->bcast_init(buffer, count, type, root, comm, s.info, s.request)
                        : TOPORR_INIT(Bcast, buffer, count, type, root, comm, s.info, s.request);
      });
}

int LibraryReduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  int root, MPI_Comm comm, const Start& s) {
  return Begin(
      s,
      [&] {
        return s.starts
                   ? s.starts->ireduce(sendbuf, recvbuf, count, type, op, root, comm, s.request)
                   : PMPI_Ireduce(sendbuf, recvbuf, count, type, op, root, comm, s.request);
      },
      [&] {
        return s.starts ? s.starts->reduce_init(sendbuf, recvbuf, count, type, op, root, comm,
                                                s.info, s.request)
                        : TOPORR_INIT(Reduce, sendbuf, recvbuf, count, type, op, root, comm, s.info,
                                      s.request);
      });
}

int LibraryAllgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     int recvcount, MPI_Datatype recvtype, MPI_Comm comm, const Start& s) {
  return Begin(
      s,
      [&] {
        return PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                               s.request);
      },
      [&] {
        return TOPORR_INIT(Allgather, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                           comm, s.info, s.request);
      });
}

// An allgather on `comm` (in `order`: new rank k = caller's rank order[k]) that leaves each
// rank's block where the caller's communicator puts it: an allgatherv of one block per rank
// (a contiguous datatype of recvcount elements of recvtype), rank k's at block order[k].
int AllgatherInOrder(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                     const std::vector<int32_t>& order, const Start& s) {
  const int n = static_cast<int>(order.size());
  MPI_Datatype block = MPI_DATATYPE_NULL;
  MPI_Aint lb = 0, extent = 0;
  PMPI_Type_get_extent(recvtype, &lb, &extent);
  if (int rc = PMPI_Type_contiguous(recvcount, recvtype, &block); rc != MPI_SUCCESS) return rc;
  MPI_Datatype resized = MPI_DATATYPE_NULL;
  int rc = PMPI_Type_create_resized(block, lb, extent * recvcount, &resized);
  PMPI_Type_free(&block);
  if (rc != MPI_SUCCESS) return rc;
  if (rc = PMPI_Type_commit(&resized); rc == MPI_SUCCESS) {
    const int* ones = Arrays().Ones(n);
    const int* displs = s.kind == Kind::kPersistent ? Arrays().Keep(order)
                                                    : reinterpret_cast<const int*>(order.data());
    // A datatype freed while a call uses it stays valid for that call (MPI_Type_free).
    rc = Begin(
        s,
        [&] {
          return s.starts ? s.starts->iallgatherv(sendbuf, sendcount, sendtype, recvbuf, ones,
                                                  displs, resized, comm, s.request)
                          : PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, ones, displs,
                                             resized, comm, s.request);
        },
        [&] {
          return s.starts ? s.starts->allgatherv_init(sendbuf, sendcount, sendtype, recvbuf, ones,
                                                      displs, resized, comm, s.info, s.request)
                          : TOPORR_INIT(Allgatherv, sendbuf, sendcount, sendtype, recvbuf, ones,
                                        displs, resized, comm, s.info, s.request);
        });
  }
#if defined(OPEN_MPI)
  if (s.kind == Kind::kPersistent && rc == MPI_SUCCESS) {
    Arrays().KeepType(resized);
    return rc;
  }
#endif
  PMPI_Type_free(&resized);
  return rc;
}

static_assert(sizeof(int32_t) == sizeof(int), "orders are passed to MPI as int arrays");

// The path of a call whose result does not depend on the ranks' order (allreduce, bcast,
// reduce): `start_on(c, root)` starts the library's call on communicator `c` with `root` as a
// rank of it. toporr's path starts it on the decision's communicator; the library's path on
// the communicator in the order the library was predicted fastest in, else `library`.
template <typename StartOn>
int StartOnOrder(Library& lib, std::optional<Call> call, MPI_Comm comm,
                 std::initializer_list<const void*> buffers, const Start& start,
                 LibraryCall library, StartOn start_on) {
  if (!call) return library();
  call->library_algorithm = true;
  Opening opening(lib);
  if (!opening.Open(comm, *call, buffers, Runs::kReordered)) return library();
  const CollectiveRun& run = opening.run();
  return Dispatch(
      opening, start, [&] { return start_on(run.run_on, run.root); },
      [&] {
        if (run.library_on == MPI_COMM_NULL) return library();
        return start_on(run.library_on, run.library_root);
      });
}

}  // namespace

bool HasPersistentCollectives() {
#ifdef TOPORR_PERSISTENT
  return true;
#else
  return false;
#endif
}

int Iallreduce(Library& lib, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
               MPI_Op op, MPI_Comm comm, const Start& start) {
  return Iallreduce(lib, sendbuf, recvbuf, count, type, op, comm, start, [&] {
    return LibraryAllreduce(sendbuf, recvbuf, count, type, op, comm, start);
  });
}

int Iallreduce(Library& lib, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
               MPI_Op op, MPI_Comm comm, const Start& start, LibraryCall library) {
  return StartOnOrder(
      lib, Eligible(lib, mapping::Collective::kAllreduce, comm, count, type, op, kNoRoot), comm,
      {sendbuf, recvbuf}, start, library, [&](MPI_Comm c, int) {
        return LibraryAllreduce(sendbuf, recvbuf, count, type, op, c, start);
      });
}

int Ibcast(Library& lib, void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
           const Start& start) {
  return Ibcast(lib, buffer, count, type, root, comm, start,
                [&] { return LibraryBcast(buffer, count, type, root, comm, start); });
}

int Ibcast(Library& lib, void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
           const Start& start, LibraryCall library) {
  return StartOnOrder(
      lib, Eligible(lib, mapping::Collective::kBcast, comm, count, type, MPI_OP_NULL, root), comm,
      {buffer}, start, library,
      [&](MPI_Comm c, int r) { return LibraryBcast(buffer, count, type, r, c, start); });
}

int Ireduce(Library& lib, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
            MPI_Op op, int root, MPI_Comm comm, const Start& start) {
  return Ireduce(lib, sendbuf, recvbuf, count, type, op, root, comm, start, [&] {
    return LibraryReduce(sendbuf, recvbuf, count, type, op, root, comm, start);
  });
}

int Ireduce(Library& lib, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
            MPI_Op op, int root, MPI_Comm comm, const Start& start, LibraryCall library) {
  // A commutative op gives the root the same result whatever the order; the root keeps
  // MPI_IN_PLACE, being the root of the reordered communicator too.
  return StartOnOrder(lib, Eligible(lib, mapping::Collective::kReduce, comm, count, type, op, root),
                      comm, {sendbuf, recvbuf}, start, library, [&](MPI_Comm c, int r) {
                        return LibraryReduce(sendbuf, recvbuf, count, type, op, r, c, start);
                      });
}

int Iallgather(Library& lib, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
               void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
               const Start& start) {
  return Iallgather(lib, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, start,
                    [&] {
                      return LibraryAllgather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                              recvtype, comm, start);
                    });
}

int Iallgather(Library& lib, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
               void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
               const Start& start, LibraryCall library) {
  std::optional<Call> call = Eligible(lib, mapping::Collective::kAllgather, comm, recvcount,
                                      recvtype, MPI_OP_NULL, kNoRoot);
  if (!call) return library();
  call->library_algorithm = true;
  Opening opening(lib);
  if (!opening.Open(comm, *call, {sendbuf, recvbuf}, Runs::kReordered)) return library();
  const CollectiveRun& run = opening.run();
  return Dispatch(
      opening, start,
      [&] {
        return AllgatherInOrder(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                run.run_on, *run.order, start);
      },
      library);
}

}  // namespace toporr::client::mpi

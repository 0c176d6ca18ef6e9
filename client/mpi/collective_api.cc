// toporr_allreduce / toporr_bcast (toporr.h) and their PMPI entry points (pmpi_abi.h): one
// opening for every collective (Opening: the argument check, the decision and communicator
// from Library::CollectiveComm, the run-time check), the algorithm from coll/own.h, the MPI
// library's own call wherever toporr does not act.
#include "client/mpi/collective_api.h"

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "client/mpi/buffers.h"
#include "client/mpi/coll/own.h"
#include "client/mpi/coll/steps.h"
#include "client/mpi/collective_status.h"
#include "client/mpi/library.h"
#include "client/mpi/multilevel.h"
#include "common/fnv.h"
#include "mapping/schedules/pattern.h"

namespace toporr::client::mpi {
namespace {

using mapping::Algorithm;

// Set while toporr itself runs on this thread: its own MPI_Allreduce / MPI_Bcast calls (which
// the PMPI layer intercepts too) then go straight to the MPI library.
thread_local bool inside_toporr = false;

}  // namespace

bool InsideToporr() { return inside_toporr; }

namespace {

// TOPORR_ALGORITHM, when it names an algorithm `collective` has.
std::optional<Algorithm> Forced(const Library& lib, mapping::Collective collective,
                                std::optional<Algorithm> requested) {
  if (requested || lib.options().algorithm.empty()) return requested;
  absl::StatusOr<Algorithm> a = mapping::ParseAlgorithm(lib.options().algorithm);
  if (!a.ok()) return std::nullopt;
  for (Algorithm x : mapping::AlgorithmsFor(collective)) {
    if (x == *a) return *a;
  }
  return std::nullopt;
}

// TOPORR_ALGORITHM=multilevel, unless the caller named an algorithm.
bool ForcedMultilevel(const Library& lib, std::optional<Algorithm> requested) {
  return !requested && lib.options().algorithm == "multilevel";
}

// The shape of `type`: what two ranks' datatypes must share for toporr's algorithms, which
// split and move a buffer by the caller's (count, datatype), to be correct. Datatypes with the
// same type signature but another layout (MPI allows them in one call) differ here.
void HashType(MPI_Datatype type, uint64_t* h) {
  int size = 0, integers = 0, addresses = 0, types = 0, combiner = 0;
  MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
  PMPI_Type_size(type, &size);
  PMPI_Type_get_extent(type, &lb, &extent);
  PMPI_Type_get_true_extent(type, &true_lb, &true_extent);
  PMPI_Type_get_envelope(type, &integers, &addresses, &types, &combiner);
  for (int64_t v :
       {int64_t{size}, int64_t{lb}, int64_t{extent}, int64_t{true_lb}, int64_t{true_extent},
        int64_t{combiner}, int64_t{integers}, int64_t{addresses}, int64_t{types}}) {
    *h = Fnv64aWord(*h, static_cast<uint64_t>(v));
  }
}

// The arguments of one call that every rank must pass alike for toporr to run its own path.
uint64_t CallHash(const ReorderRequest& r, int64_t count, MPI_Datatype type) {
  uint64_t h = kFnv64Offset;
  for (int64_t v :
       {int64_t{static_cast<int>(r.collective)}, r.bytes, count, int64_t{r.root}, int64_t{r.radix},
        int64_t{r.algorithm ? static_cast<int>(*r.algorithm) : -1}, int64_t{r.force_multilevel}}) {
    h = Fnv64aWord(h, static_cast<uint64_t>(v));
  }
  if (type != MPI_DATATYPE_NULL) HashType(type, &h);
  return h;
}

// One collective call as its entry function describes it to the common opening.
struct Call {
  mapping::Collective collective = mapping::Collective::kAllreduce;
  std::optional<Algorithm> algorithm;  // the caller's (C API); nullopt: auto or TOPORR_ALGORITHM
  bool has_multilevel = false;         // TOPORR_ALGORITHM=multilevel applies
  int64_t bytes = 0;                   // per rank for allgather and gather
  int root = 0;
  int radix = 4;
  // What the argument check hashes besides the request: the count and datatype every rank
  // passes alike (MPI_DATATYPE_NULL: none, where only the bytes must agree).
  int64_t count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
};

// What toporr runs of a decision: its own algorithm on the reordered communicator, the
// multi-level version, or any of those and the MPI library's call on the reordered
// communicator (collectives whose result does not depend on the ranks' order).
enum class Runs { kAlgorithm, kMultilevel, kEither };

// The common opening of toporr's collectives. While it lives, MPI calls on this thread are
// toporr's own (InsideToporr). Where toporr is off (TOPORR_DISABLE) or already inside (the
// call is one of toporr's own steps), it marks nothing and Open is false: the caller runs
// the library's call as if toporr were not there.
class Opening {
 public:
  explicit Opening(Library& lib) : lib_(lib), owner_(!inside_toporr && !lib.options().disable) {
    if (owner_) inside_toporr = true;
  }
  ~Opening() {
    if (owner_) inside_toporr = false;
  }
  Opening(const Opening&) = delete;
  Opening& operator=(const Opening&) = delete;

  // Whether toporr runs its own path for `call` on `comm`: toporr on, host buffers on every
  // rank (buffers.h), the same arguments on every rank (Admit), and a decision (deciding on
  // a miss) whose choice is something of `runs`. False: the caller runs the MPI library's
  // own call on `comm`, on every rank alike.
  bool Open(MPI_Comm comm, const Call& call, std::initializer_list<const void*> buffers,
            Runs runs) {
    if (!owner_) return false;
    if (!HostBuffers(comm, buffers)) return false;
    ReorderRequest request;
    request.collective = call.collective;
    request.algorithm = Forced(lib_, call.collective, call.algorithm);
    request.own_algorithms = true;
    request.force_multilevel = call.has_multilevel && ForcedMultilevel(lib_, call.algorithm);
    request.bytes = call.bytes;
    request.root = call.root;
    request.radix = call.radix;
    comm_ = comm;
    if (!Admit(lib_, comm, request, CallHash(request, call.count, call.type), &args_)) {
      return false;
    }
    if (lib_.CollectiveComm(comm, request, &run_) != MPI_SUCCESS) return false;
    const bool multilevel = run_.multilevel != nullptr;
    const bool algorithm = run_.algorithm.has_value();
    switch (runs) {
      case Runs::kAlgorithm:
        return algorithm;
      case Runs::kMultilevel:
        return multilevel;
      case Runs::kEither:
        return algorithm || multilevel || run_.library_reordered;
    }
    return false;
  }

  const CollectiveRun& run() const { return run_; }

  // Runs toporr's path (`ours`) or the MPI library's own call (`library`) as the decision's
  // run-time check says (client/report/verification.h; no check: toporr's). A measured call starts
  // after a barrier, is timed on every rank and its slowest rank's time reduced over the
  // decision's communicator (which only toporr sends on), so that all ranks record the same
  // time. A measured call of toporr's path repeats the argument check inside its timed region
  // (its answer is known): the check is part of that path's cost in every call, and not of
  // the library's. Precondition: Open was true.
  template <typename Ours, typename Lib>
  int Run(Ours&& ours, Lib&& library) {
    DecisionCheck* check = run_.check;
    if (check == nullptr) return ours();
    Verification& v = check->verification;
    const bool toporrs = v.Next() == Verification::Path::kToporr;
    if (!v.measuring()) return toporrs ? ours() : library();
    PMPI_Barrier(run_.run_on);
    const double start = PMPI_Wtime();
    bool same = false;
    if (toporrs && args_.made) SameOnEveryRank(comm_, args_.call_hash, &same);
    const int rc = toporrs ? ours() : library();
    double local = PMPI_Wtime() - start, slowest = local;
    PMPI_Allreduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, run_.run_on);
    if (v.Record(slowest)) lib_.ReportCheck(comm_, *check);
    return rc;
  }

 private:
  // The argument check of one call (Admit): whether it was made, and what every rank passed.
  struct ArgumentCheck {
    bool made = false;
    uint64_t call_hash = 0;
  };

  // Whether toporr may run its own path for this call. No communication when the
  // communicator's cached decision runs the library's call anyway. Otherwise, with
  // check_arguments, every rank must have passed the same arguments (`call_hash`): one
  // 16-byte MPI_Allreduce on `comm` itself, so that a rank whose call went straight to the
  // MPI library (one below TOPORR_MIN_BYTES, say) meets it inside the library, which reports
  // the mismatch as it would without toporr.
  static bool Admit(Library& lib, MPI_Comm comm, const ReorderRequest& request, uint64_t call_hash,
                    ArgumentCheck* args) {
    *args = ArgumentCheck{};
    if (lib.NextCall(comm, request) == Library::NextRun::kLibrary) return false;
    if (!lib.options().check_arguments) return true;
    *args = ArgumentCheck{true, call_hash};
    bool same = false;
    SameOnEveryRank(comm, call_hash, &same);
    return same;
  }

  Library& lib_;
  const bool owner_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  ArgumentCheck args_;
  CollectiveRun run_;
};

}  // namespace

int Allreduce(Library& lib, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
              MPI_Op op, MPI_Comm comm, std::optional<Algorithm> algorithm) {
  return Allreduce(lib, sendbuf, recvbuf, count, type, op, comm, algorithm,
                   [&] { return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm); });
}

int Allreduce(Library& lib, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
              MPI_Op op, MPI_Comm comm, std::optional<Algorithm> algorithm, LibraryCall library) {
  int commutative = 0, inter = 0, type_size = 0;
  PMPI_Op_commutative(op, &commutative);
  PMPI_Comm_test_inter(comm, &inter);
  PMPI_Type_size(type, &type_size);
  if (!commutative || inter || count <= 0 || lib.options().reproducible) return library();
  Opening opening(lib);
  Call call{mapping::Collective::kAllreduce, algorithm, true, int64_t{count} * type_size};
  call.count = count;
  call.type = type;
  if (!opening.Open(comm, call, {sendbuf, recvbuf}, Runs::kEither)) return library();
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
  int inter = 0, type_size = 0;
  PMPI_Comm_test_inter(comm, &inter);
  PMPI_Type_size(recvtype, &type_size);
  if (inter || recvcount <= 0) return library();
  Opening opening(lib);
  Call call{mapping::Collective::kAllgather, algorithm, false, int64_t{recvcount} * type_size};
  call.count = recvcount;
  call.type = recvtype;
  if (!opening.Open(comm, call, {sendbuf, recvbuf}, Runs::kAlgorithm)) return library();
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
  int commutative = 0, inter = 0, type_size = 0, size = 1;
  PMPI_Op_commutative(op, &commutative);
  PMPI_Comm_test_inter(comm, &inter);
  PMPI_Type_size(type, &type_size);
  if (!inter) PMPI_Comm_size(comm, &size);
  if (!commutative || inter || count <= 0 || lib.options().reproducible || root < 0 ||
      root >= size) {
    return library();
  }
  Opening opening(lib);
  Call call{mapping::Collective::kReduce, std::nullopt, true, int64_t{count} * type_size, root};
  call.count = count;
  call.type = type;
  if (!opening.Open(comm, call, {sendbuf, recvbuf}, Runs::kEither)) return library();
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
  int inter = 0, type_size = 0, size = 1;
  PMPI_Comm_test_inter(comm, &inter);
  PMPI_Type_size(type, &type_size);
  if (!inter) PMPI_Comm_size(comm, &size);
  if (inter || count <= 0 || root < 0 || root >= size) return library();
  Opening opening(lib);
  Call call{mapping::Collective::kBcast, algorithm, true, int64_t{count} * type_size, root, radix};
  call.count = count;
  call.type = type;
  if (!opening.Open(comm, call, {buffer}, Runs::kEither)) return library();
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

// toporr_allreduce / toporr_bcast (toporr.h) and their PMPI entry points (pmpi_abi.h):
// the decision and communicator from Library::CollectiveComm, the algorithm from coll/ (one
// file per collective family), the MPI library's own call wherever toporr does not act.
#include "client/mpi/collective_api.h"

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "client/mpi/buffers.h"
#include "client/mpi/coll/allgather.h"
#include "client/mpi/coll/allreduce.h"
#include "client/mpi/coll/bcast.h"
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

class Inside {
 public:
  Inside() { inside_toporr = true; }
  ~Inside() { inside_toporr = false; }
};

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

// The argument check of one call (Admit): whether it was made, and what every rank passed.
struct ArgumentCheck {
  bool made = false;
  uint64_t call_hash = 0;
};

// Whether toporr may run its own path for this call (else the caller runs the MPI library's
// call, unchanged, on every rank). No communication when the communicator's cached decision
// runs the library's call anyway. Otherwise, with check_arguments, every rank must have
// passed the same arguments (`call_hash`): one 16-byte MPI_Allreduce on `comm` itself, so
// that a rank whose call went straight to the MPI library (one below TOPORR_MIN_BYTES, say)
// meets it inside the library, which reports the mismatch as it would without toporr.
bool Admit(Library& lib, MPI_Comm comm, const ReorderRequest& request, uint64_t call_hash,
           ArgumentCheck* args) {
  *args = ArgumentCheck{};
  if (lib.NextCall(comm, request) == Library::NextRun::kLibrary) return false;
  if (!lib.options().check_arguments) return true;
  *args = ArgumentCheck{true, call_hash};
  bool same = false;
  SameOnEveryRank(comm, call_hash, &same);
  return same;
}

// Runs toporr's path (`ours`) or the MPI library's own call (`library`) as the decision's
// run-time check says (client/verification.h; no check: toporr's). A measured call starts
// after a barrier, is timed on every rank and its slowest rank's time reduced over `internal`
// (the decision's communicator, which only toporr sends on), so that all ranks record the
// same time. A measured call of toporr's path repeats the argument check inside its timed
// region (`args`; its answer is known): the check is part of that path's cost in every call,
// and not of the library's.
template <typename Ours, typename Lib>
int Checked(Library& lib, DecisionCheck* check, MPI_Comm comm, MPI_Comm internal,
            const ArgumentCheck& args, Ours&& ours, Lib&& library) {
  if (check == nullptr) return ours();
  Verification& v = check->verification;
  const bool toporrs = v.Next() == Verification::Path::kToporr;
  if (!v.measuring()) return toporrs ? ours() : library();
  PMPI_Barrier(internal);
  const double start = PMPI_Wtime();
  bool same = false;
  if (toporrs && args.made) SameOnEveryRank(comm, args.call_hash, &same);
  const int rc = toporrs ? ours() : library();
  double local = PMPI_Wtime() - start, slowest = local;
  PMPI_Allreduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, internal);
  if (v.Record(slowest)) lib.ReportCheck(comm, *check);
  return rc;
}

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
  if (!commutative || inter || count <= 0 || lib.options().disable || lib.options().reproducible ||
      inside_toporr) {
    return library();
  }
  Inside inside;
  if (!HostBuffers(comm, {sendbuf, recvbuf})) return library();
  ReorderRequest request;
  request.collective = mapping::Collective::kAllreduce;
  request.algorithm = Forced(lib, request.collective, algorithm);
  request.own_algorithms = true;
  request.force_multilevel = ForcedMultilevel(lib, algorithm);
  request.bytes = static_cast<int64_t>(count) * type_size;
  ArgumentCheck args;
  if (!Admit(lib, comm, request, CallHash(request, count, type), &args)) return library();
  MPI_Comm run_on = MPI_COMM_NULL;
  std::optional<Algorithm> chosen;
  int root = 0;
  const Multilevel* multilevel = nullptr;
  DecisionCheck* check = nullptr;
  if (lib.CollectiveComm(comm, request, &run_on, &chosen, &root, nullptr, &multilevel, &check) !=
          MPI_SUCCESS ||
      (multilevel == nullptr && !chosen)) {
    return library();
  }
  auto ours = [&]() -> int {
    if (multilevel != nullptr) return multilevel->Allreduce(sendbuf, recvbuf, count, type, op);
    switch (*chosen) {
      case Algorithm::kRing:
        return coll::AllreduceRing(sendbuf, recvbuf, count, type, op, run_on);
      case Algorithm::kSegmentedRing:
        return coll::AllreduceSegmentedRing(sendbuf, recvbuf, count, type, op, run_on,
                                            coll::kRingSegmentBytes);
      case Algorithm::kRecursiveDoubling:
        return coll::AllreduceRecursiveDoubling(sendbuf, recvbuf, count, type, op, run_on);
      case Algorithm::kRabenseifner:
        return coll::AllreduceRabenseifner(sendbuf, recvbuf, count, type, op, run_on);
      case Algorithm::kSwing:
        return coll::AllreduceSwing(sendbuf, recvbuf, count, type, op, run_on);
      case Algorithm::kSwingBandwidth:
        return coll::AllreduceSwingBandwidth(sendbuf, recvbuf, count, type, op, run_on);
      default:  // an algorithm toporr does not carry: the library's, on the reordered ranks
        return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, run_on);
    }
  };
  return Checked(lib, check, comm, run_on, args, ours, library);
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
  if (inter || recvcount <= 0 || lib.options().disable || inside_toporr) return library();
  Inside inside;
  if (!HostBuffers(comm, {sendbuf, recvbuf})) return library();
  ReorderRequest request;
  request.collective = mapping::Collective::kAllgather;
  request.algorithm = Forced(lib, request.collective, algorithm);
  request.own_algorithms = true;
  request.bytes = static_cast<int64_t>(recvcount) * type_size;  // per rank
  ArgumentCheck args;
  if (!Admit(lib, comm, request, CallHash(request, recvcount, recvtype), &args)) {
    return library();
  }
  MPI_Comm run_on = MPI_COMM_NULL;
  std::optional<Algorithm> chosen;
  int root = 0;
  const std::vector<int32_t>* order = nullptr;
  DecisionCheck* check = nullptr;
  if (lib.CollectiveComm(comm, request, &run_on, &chosen, &root, &order, nullptr, &check) !=
          MPI_SUCCESS ||
      !chosen) {
    return library();
  }
  // Blocks stay in the caller's rank order: new rank k's block goes to block order[k].
  const int* position = order != nullptr && !order->empty() ? order->data() : nullptr;
  auto ours = [&]() -> int {
    switch (*chosen) {
      case Algorithm::kRing:
        return coll::AllgatherRing(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                   run_on, position);
      case Algorithm::kRecursiveDoubling:
        return coll::AllgatherRecursiveDoubling(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                                recvtype, run_on, position);
      default:  // an algorithm toporr does not carry: the library's on the caller's ranks
        return library();
    }
  };
  return Checked(lib, check, comm, run_on, args, ours, library);
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
  if (!commutative || inter || count <= 0 || lib.options().disable || lib.options().reproducible ||
      root < 0 || root >= size || inside_toporr) {
    return library();
  }
  Inside inside;
  if (!HostBuffers(comm, {sendbuf, recvbuf})) return library();
  ReorderRequest request;
  request.collective = mapping::Collective::kReduce;
  request.algorithm = Forced(lib, request.collective, std::nullopt);
  request.own_algorithms = true;
  request.force_multilevel = ForcedMultilevel(lib, std::nullopt);
  request.bytes = static_cast<int64_t>(count) * type_size;
  request.root = root;
  ArgumentCheck args;
  if (!Admit(lib, comm, request, CallHash(request, count, type), &args)) return library();
  MPI_Comm run_on = MPI_COMM_NULL;
  std::optional<Algorithm> chosen;
  int new_root = root;
  const Multilevel* multilevel = nullptr;
  DecisionCheck* check = nullptr;
  if (lib.CollectiveComm(comm, request, &run_on, &chosen, &new_root, nullptr, &multilevel,
                         &check) != MPI_SUCCESS ||
      (multilevel == nullptr && !chosen)) {
    return library();
  }
  auto ours = [&]() -> int {
    if (multilevel != nullptr) return multilevel->Reduce(sendbuf, recvbuf, count, type, op);
    // The library's reduce on the communicator ordered for the binomial tree (a commutative
    // op gives the root the same result whatever the order). MPI_IN_PLACE at the root becomes
    // a copy of the root's buffer: the root moves to another rank of the reordered
    // communicator, and MPICH 4.0's reduce-scatter-gather reduce crashes on MPI_IN_PLACE at a
    // nonzero root (large counts) where the caller's call at root 0 would not.
    if (sendbuf == MPI_IN_PLACE) {
      coll::Scratch copy(coll::Elements(type), count);
      if (int rc = coll::Copy(recvbuf, copy.get(), count, type); rc != MPI_SUCCESS) return rc;
      return PMPI_Reduce(copy.get(), recvbuf, count, type, op, new_root, run_on);
    }
    return PMPI_Reduce(sendbuf, recvbuf, count, type, op, new_root, run_on);
  };
  return Checked(lib, check, comm, run_on, args, ours, library);
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
  if (inter || count <= 0 || lib.options().disable || root < 0 || root >= size || inside_toporr) {
    return library();
  }
  Inside inside;
  if (!HostBuffers(comm, {buffer})) return library();
  ReorderRequest request;
  request.collective = mapping::Collective::kBcast;
  request.algorithm = Forced(lib, request.collective, algorithm);
  request.own_algorithms = true;
  request.bytes = static_cast<int64_t>(count) * type_size;
  request.root = root;
  request.radix = radix;
  request.force_multilevel = ForcedMultilevel(lib, algorithm);
  ArgumentCheck args;
  if (!Admit(lib, comm, request, CallHash(request, count, type), &args)) return library();
  MPI_Comm run_on = MPI_COMM_NULL;
  std::optional<Algorithm> chosen;
  int new_root = root;
  const Multilevel* multilevel = nullptr;
  DecisionCheck* check = nullptr;
  if (lib.CollectiveComm(comm, request, &run_on, &chosen, &new_root, nullptr, &multilevel,
                         &check) != MPI_SUCCESS ||
      (multilevel == nullptr && !chosen)) {
    return library();
  }
  auto ours = [&]() -> int {
    if (multilevel != nullptr) return multilevel->Bcast(buffer, count, type);
    switch (*chosen) {
      case Algorithm::kBinomial:
        return coll::BcastBinomial(buffer, count, type, new_root, run_on);
      case Algorithm::kBinaryTree:
        return coll::BcastBinaryTree(buffer, count, type, new_root, run_on);
      case Algorithm::kKnomial:
        return coll::BcastKnomial(buffer, count, type, new_root, run_on, radix);
      case Algorithm::kScatterAllgather:
        return coll::BcastScatterAllgather(buffer, count, type, new_root, run_on);
      case Algorithm::kScatterAllgatherRing:
        return coll::BcastScatterAllgatherRing(buffer, count, type, new_root, run_on);
      case Algorithm::kBine:
        return coll::BcastBine(buffer, count, type, new_root, run_on);
      default:
        return PMPI_Bcast(buffer, count, type, new_root, run_on);
    }
  };
  return Checked(lib, check, comm, run_on, args, ours, library);
}

int Gather(Library& lib, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
           int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
           std::optional<Algorithm> algorithm) {
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
  if (inter || bytes <= 0 || lib.options().disable || root < 0 || root >= size || inside_toporr ||
      !HostBuffers(comm, {sendbuf, recvbuf})) {
    return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  }
  Inside inside;
  ReorderRequest request;
  request.collective = mapping::Collective::kGather;
  request.algorithm = Forced(lib, request.collective, algorithm);
  request.own_algorithms = true;
  request.force_multilevel = ForcedMultilevel(lib, algorithm);
  request.bytes = bytes;
  request.root = root;
  auto library = [&] {
    return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  };
  // Senders' and the root's datatypes may differ: the bytes per rank are what must agree.
  ArgumentCheck args;
  if (!Admit(lib, comm, request, CallHash(request, 0, MPI_DATATYPE_NULL), &args)) {
    return library();
  }
  MPI_Comm run_on = MPI_COMM_NULL;
  std::optional<Algorithm> chosen;
  int new_root = root;
  const Multilevel* multilevel = nullptr;
  DecisionCheck* check = nullptr;
  if (lib.CollectiveComm(comm, request, &run_on, &chosen, &new_root, nullptr, &multilevel,
                         &check) != MPI_SUCCESS ||
      multilevel == nullptr) {
    // toporr runs no flat gather of its own: the library's, on the caller's ranks.
    return library();
  }
  return Checked(
      lib, check, comm, run_on, args,
      [&] {
        return multilevel->Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
      },
      library);
}

}  // namespace toporr::client::mpi

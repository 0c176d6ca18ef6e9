// The opening of toporr's collectives (collective_opening.h).
#include "client/mpi/collective_opening.h"

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "client/mpi/buffers.h"
#include "client/mpi/collective_api.h"
#include "client/mpi/collective_status.h"
#include "client/mpi/library.h"
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

InsideMark::InsideMark(const Library& lib) : owner_(!inside_toporr && !lib.options().disable) {
  if (owner_) inside_toporr = true;
}

InsideMark::~InsideMark() {
  if (owner_) inside_toporr = false;
}

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

}  // namespace

std::optional<Call> Eligible(const Library& lib, mapping::Collective collective, MPI_Comm comm,
                             int count, MPI_Datatype type, MPI_Op op, int root) {
  int inter = 0, type_size = 0, size = 1;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter || count <= 0) return std::nullopt;
  if (op != MPI_OP_NULL) {
    int commutative = 0;
    PMPI_Op_commutative(op, &commutative);
    if (!commutative || lib.options().reproducible) return std::nullopt;
  }
  if (root != kNoRoot) {
    PMPI_Comm_size(comm, &size);
    if (root < 0 || root >= size) return std::nullopt;
  }
  PMPI_Type_size(type, &type_size);
  Call call;
  call.collective = collective;
  call.bytes = int64_t{count} * type_size;
  call.root = root == kNoRoot ? 0 : root;
  call.count = count;
  call.type = type;
  return call;
}

bool Opening::Open(MPI_Comm comm, const Call& call, std::initializer_list<const void*> buffers,
                   Runs runs) {
  if (!mark_.owner()) return false;
  if (!HostBuffers(comm, buffers)) return false;
  ReorderRequest request;
  request.collective = call.collective;
  request.algorithm = Forced(lib_, call.collective, call.algorithm);
  request.own_algorithms = !call.library_algorithm;
  request.force_multilevel = call.has_multilevel && ForcedMultilevel(lib_, call.algorithm);
  request.bytes = call.bytes;
  request.root = call.root;
  request.radix = call.radix;
  comm_ = comm;
  if (!Admit(lib_, comm, request, CallHash(request, call.count, call.type), call.library_algorithm,
             &args_)) {
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
    case Runs::kReordered: {
      const bool decided = algorithm || multilevel || run_.library_reordered;
      if (!decided || run_.run_on == MPI_COMM_NULL || run_.order == nullptr) return false;
      const std::vector<int32_t>& order = *run_.order;
      for (size_t i = 0; i < order.size(); ++i) {
        if (order[i] != static_cast<int32_t>(i)) return true;
      }
      return false;
    }
  }
  return false;
}

bool Opening::Admit(Library& lib, MPI_Comm comm, const ReorderRequest& request, uint64_t call_hash,
                    bool only_deciding, ArgumentCheck* args) {
  *args = ArgumentCheck{};
  const Library::NextRun next = lib.NextCall(comm, request);
  if (next == Library::NextRun::kLibrary) return false;
  if (!lib.options().check_arguments) return true;
  if (only_deciding && next != Library::NextRun::kDecide) return true;
  *args = ArgumentCheck{true, call_hash};
  bool same = false;
  SameOnEveryRank(comm, call_hash, &same);
  return same;
}

}  // namespace toporr::client::mpi

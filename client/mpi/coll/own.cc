#include "client/mpi/coll/own.h"

#include <utility>

#include "client/mpi/coll/allgather.h"
#include "client/mpi/coll/allreduce.h"
#include "client/mpi/coll/bcast.h"

namespace toporr::client::mpi::coll {
namespace {

using mapping::Algorithm;

template <typename Fn, size_t N>
Fn Find(const std::pair<Algorithm, Fn> (&table)[N], Algorithm a) {
  for (const auto& [algorithm, fn] : table) {
    if (algorithm == a) return fn;
  }
  return nullptr;
}

int SegmentedRing(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm) {
  return AllreduceSegmentedRing(sendbuf, recvbuf, count, type, op, comm, kRingSegmentBytes);
}

constexpr std::pair<Algorithm, AllreduceFn> kAllreduce[] = {
    {Algorithm::kRing, AllreduceRing},
    {Algorithm::kSegmentedRing, SegmentedRing},
    {Algorithm::kRecursiveDoubling, AllreduceRecursiveDoubling},
    {Algorithm::kRabenseifner, AllreduceRabenseifner},
    {Algorithm::kSwing, AllreduceSwing},
    {Algorithm::kSwingBandwidth, AllreduceSwingBandwidth},
};

// A bcast without a radix, called with one.
template <int (*F)(void*, int, MPI_Datatype, int, MPI_Comm)>
int NoRadix(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm, int) {
  return F(buffer, count, type, root, comm);
}

constexpr std::pair<Algorithm, BcastFn> kBcast[] = {
    {Algorithm::kBinomial, NoRadix<BcastBinomial>},
    {Algorithm::kBinaryTree, NoRadix<BcastBinaryTree>},
    {Algorithm::kKnomial, BcastKnomial},
    {Algorithm::kScatterAllgather, NoRadix<BcastScatterAllgather>},
    {Algorithm::kScatterAllgatherRing, NoRadix<BcastScatterAllgatherRing>},
    {Algorithm::kBine, NoRadix<BcastBine>},
};

constexpr std::pair<Algorithm, AllgatherFn> kAllgather[] = {
    {Algorithm::kRing, AllgatherRing},
    {Algorithm::kRecursiveDoubling, AllgatherRecursiveDoubling},
};

}  // namespace

AllreduceFn OwnAllreduce(Algorithm a) { return Find(kAllreduce, a); }
BcastFn OwnBcast(Algorithm a) { return Find(kBcast, a); }
AllgatherFn OwnAllgather(Algorithm a) { return Find(kAllgather, a); }

}  // namespace toporr::client::mpi::coll

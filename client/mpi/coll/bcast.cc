#include "client/mpi/coll/bcast.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "client/mpi/coll/steps.h"
#include "mapping/schedules/collective_shapes.h"
#include "mapping/schedules/swing_schedule.h"

namespace toporr::client::mpi::coll {
namespace {

// Receives from the parent of this rank's shifted rank (parent_of(v)), then sends to all its
// children (for_each_child(v, p, visit)) concurrently.
template <typename Parent, typename ForEachChild>
int TreeBcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm, Parent parent_of,
              ForEachChild for_each_child) {
  int p = 1, r = 0;
  PMPI_Comm_size(comm, &p);
  PMPI_Comm_rank(comm, &r);
  if (p == 1 || count == 0) return MPI_SUCCESS;
  const Shift s{p, root};
  const int v = s.Virtual(r);
  if (v != 0) {
    RETURN_IF_MPI_ERROR(
        PMPI_Recv(buffer, count, type, s.Real(parent_of(v)), kTag, comm, MPI_STATUS_IGNORE));
  }
  std::vector<int> children;
  for_each_child(v, p, [&](int64_t c) { children.push_back(s.Real(c)); });
  if (children.empty()) return MPI_SUCCESS;
  std::vector<MPI_Request> requests(children.size());
  for (size_t i = 0; i < children.size(); ++i) {
    RETURN_IF_MPI_ERROR(PMPI_Isend(buffer, count, type, children[i], kTag, comm, &requests[i]));
  }
  return PMPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
}

// Binomial scatter of blocks of ceil(count / p) elements (block b = shifted rank b's) down
// the in-order binomial tree, then an allgather: recursive doubling (p a power of two and
// `ring` false) or ring.
int ScatterAllgather(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
                     bool ring) {
  int p = 1, r = 0;
  PMPI_Comm_size(comm, &p);
  PMPI_Comm_rank(comm, &r);
  if (p == 1 || count == 0) return MPI_SUCCESS;
  if (count < p) return BcastBinomial(buffer, count, type, root, comm);
  const Elements e(type);
  const Shift s{p, root};
  const int v = s.Virtual(r);
  const int64_t sc = (count + p - 1) / p;
  // Elements of blocks [b, b + n), clipped to the communicator and the message.
  auto first = [&](int64_t b) { return std::min<int64_t>(b * sc, count); };
  auto elems = [&](int64_t b, int64_t n) {
    return static_cast<int>(first(std::min<int64_t>(b + n, p)) - first(b));
  };
  // v's subtree spans blocks [v, v + span): the root's every block.
  const int64_t span = mapping::InOrderBinomialTreeSpan(v, p);
  if (v != 0) {
    RETURN_IF_MPI_ERROR(PMPI_Recv(e.At(buffer, first(v)), elems(v, span), type,
                                  s.Real(mapping::InOrderBinomialTreeParent(v)), kTag, comm,
                                  MPI_STATUS_IGNORE));
  }
  int rc = MPI_SUCCESS;
  mapping::ForEachInOrderBinomialTreeChild(v, p, [&](int64_t c, int64_t m) {
    if (rc == MPI_SUCCESS) {
      rc = PMPI_Send(e.At(buffer, first(c)), elems(c, m), type, s.Real(c), kTag, comm);
    }
  });
  RETURN_IF_MPI_ERROR(rc);
  if (!ring && mapping::FloorPowerOfTwo(p) == p) {
    for (int mask = 1; mask < p; mask *= 2) {
      const int partner = v ^ mask;
      const int mine = v & ~(mask - 1), theirs = partner & ~(mask - 1);
      RETURN_IF_MPI_ERROR(Exchange(e.At(buffer, first(mine)), elems(mine, mask),
                                   e.At(buffer, first(theirs)), elems(theirs, mask), type,
                                   s.Real(partner), comm));
    }
    return MPI_SUCCESS;
  }
  const int right = s.Real((v + 1) % p), left = s.Real((v - 1 + p) % p);
  for (int t = 0; t < p - 1; ++t) {
    const int sb = ((v - t) % p + p) % p, rb = ((v - t - 1) % p + p) % p;
    RETURN_IF_MPI_ERROR(PMPI_Sendrecv(e.At(buffer, first(sb)), elems(sb, 1), type, right, kTag,
                                      e.At(buffer, first(rb)), elems(rb, 1), type, left, kTag, comm,
                                      MPI_STATUS_IGNORE));
  }
  return MPI_SUCCESS;
}

}  // namespace

int BcastBinomial(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  return TreeBcast(
      buffer, count, type, root, comm, mapping::BinomialTreeParent,
      [](int64_t v, int64_t p, auto visit) { mapping::ForEachBinomialTreeChild(v, p, visit); });
}

int BcastBinaryTree(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  return TreeBcast(
      buffer, count, type, root, comm, [](int64_t v) { return mapping::KaryTreeParent(v, 2); },
      [](int64_t v, int64_t p, auto visit) { mapping::ForEachKaryTreeChild(v, p, 2, visit); });
}

int BcastKnomial(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm, int radix) {
  if (radix < 2) radix = 2;
  return TreeBcast(
      buffer, count, type, root, comm,
      [radix](int64_t v) { return mapping::KnomialTreeParent(v, radix); },
      [radix](int64_t v, int64_t p, auto visit) {
        mapping::ForEachKnomialTreeChild(v, p, radix, visit);
      });
}

int BcastScatterAllgather(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  return ScatterAllgather(buffer, count, type, root, comm, /*ring=*/false);
}

int BcastScatterAllgatherRing(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  return ScatterAllgather(buffer, count, type, root, comm, /*ring=*/true);
}

int BcastBine(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  int p = 1, r = 0;
  PMPI_Comm_size(comm, &p);
  PMPI_Comm_rank(comm, &r);
  if (p == 1 || count == 0) return MPI_SUCCESS;
  const mapping::BineTree tree = mapping::BineBcastTree(p);
  const Shift s{p, root};
  const int v = s.Virtual(r);
  if (v != 0) {
    RETURN_IF_MPI_ERROR(
        PMPI_Recv(buffer, count, type, s.Real(tree.parent[v]), kTag, comm, MPI_STATUS_IGNORE));
  }
  // The children one after the other in stage order: the child of stage t has the data
  // after stage t and forwards it while this rank serves the next one.
  std::vector<std::pair<int32_t, int>> children;  // (stage, shifted rank)
  for (int u = 1; u < p; ++u) {
    if (tree.parent[u] == v) children.emplace_back(tree.stage[u], u);
  }
  std::sort(children.begin(), children.end());
  for (const auto& [stage, u] : children) {
    RETURN_IF_MPI_ERROR(PMPI_Send(buffer, count, type, s.Real(u), kTag, comm));
  }
  return MPI_SUCCESS;
}

}  // namespace toporr::client::mpi::coll

#include "client/mpi/collectives_recent.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "client/mpi/collective_steps.h"
#include "mapping/swing_schedule.h"

namespace toporr::client::mpi::coll {

using mapping::FloorPowerOfTwo;
using mapping::FoldedRank;
using mapping::Log2Floor;
using mapping::SwingBlockKey;
using mapping::SwingPeer;
using mapping::UnfoldedRank;

int AllreduceSwing(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                   MPI_Comm comm) {
  int p = 1, r = 0;
  PMPI_Comm_size(comm, &p);
  PMPI_Comm_rank(comm, &r);
  if (sendbuf != MPI_IN_PLACE) RETURN_IF_MPI_ERROR(Copy(sendbuf, recvbuf, count, type));
  if (p == 1 || count == 0) return MPI_SUCCESS;
  const Elements e(type);
  Scratch tmp(e, count);
  const int64_t pof2 = FloorPowerOfTwo(p), extra = p - pof2;
  const int64_t v = FoldedRank(r, p, /*keep_odd=*/true);
  const bool paired = r < 2 * extra;
  if (paired && v < 0) {
    RETURN_IF_MPI_ERROR(PMPI_Send(recvbuf, count, type, r + 1, kTag, comm));
  } else if (paired) {
    RETURN_IF_MPI_ERROR(PMPI_Recv(tmp.get(), count, type, r - 1, kTag, comm, MPI_STATUS_IGNORE));
    RETURN_IF_MPI_ERROR(Reduce(tmp.get(), recvbuf, count, type, op));
  }
  if (v >= 0) {
    for (int s = 0; s < Log2Floor(pof2); ++s) {
      const int peer = static_cast<int>(UnfoldedRank(SwingPeer(v, s, pof2), p, true));
      RETURN_IF_MPI_ERROR(Exchange(recvbuf, count, tmp.get(), count, type, peer, comm));
      RETURN_IF_MPI_ERROR(Reduce(tmp.get(), recvbuf, count, type, op));
    }
  }
  if (!paired) return MPI_SUCCESS;
  if (v >= 0) return PMPI_Send(recvbuf, count, type, r - 1, kTag, comm);
  return PMPI_Recv(recvbuf, count, type, r + 1, kTag, comm, MPI_STATUS_IGNORE);
}

int AllreduceSwingBandwidth(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                            MPI_Op op, MPI_Comm comm) {
  int p = 1, r = 0;
  PMPI_Comm_size(comm, &p);
  PMPI_Comm_rank(comm, &r);
  const int64_t pof2 = FloorPowerOfTwo(p), extra = p - pof2;
  if (p == 1 || count < pof2) return AllreduceSwing(sendbuf, recvbuf, count, type, op, comm);
  if (sendbuf != MPI_IN_PLACE) RETURN_IF_MPI_ERROR(Copy(sendbuf, recvbuf, count, type));
  const Elements e(type);
  Scratch tmp(e, count);
  const int64_t v = FoldedRank(r, p, /*keep_odd=*/false);
  const bool paired = r < 2 * extra;
  const int lhalf = count / 2, rhalf = count - lhalf;
  if (paired && v < 0) {  // odd: reduce the right half for the even neighbour, then drop out
    RETURN_IF_MPI_ERROR(PMPI_Sendrecv(recvbuf, lhalf, type, r - 1, kTag, e.At(tmp.get(), lhalf),
                                      rhalf, type, r - 1, kTag, comm, MPI_STATUS_IGNORE));
    RETURN_IF_MPI_ERROR(Reduce(e.At(tmp.get(), lhalf), e.At(recvbuf, lhalf), rhalf, type, op));
    RETURN_IF_MPI_ERROR(PMPI_Send(e.At(recvbuf, lhalf), rhalf, type, r - 1, kTag, comm));
  } else if (paired) {
    RETURN_IF_MPI_ERROR(PMPI_Sendrecv(e.At(recvbuf, lhalf), rhalf, type, r + 1, kTag, tmp.get(),
                                      lhalf, type, r + 1, kTag, comm, MPI_STATUS_IGNORE));
    RETURN_IF_MPI_ERROR(Reduce(tmp.get(), recvbuf, lhalf, type, op));
    RETURN_IF_MPI_ERROR(
        PMPI_Recv(e.At(recvbuf, lhalf), rhalf, type, r + 1, kTag, comm, MPI_STATUS_IGNORE));
  }
  if (v >= 0) {
    // window[s] = [lo, hi) this rank holds before step s; bit s of the key picks the half
    // it keeps (0: the lower one), the peer keeps the other.
    const int steps = Log2Floor(pof2);
    const int64_t key = SwingBlockKey(v, pof2);
    std::vector<std::pair<int, int>> window(steps + 1);
    window[0] = {0, count};
    for (int s = 0; s < steps; ++s) {
      const auto [lo, hi] = window[s];
      const int mid = lo + (hi - lo) / 2;
      window[s + 1] = ((key >> s) & 1) == 0 ? std::pair(lo, mid) : std::pair(mid, hi);
    }
    auto peer_at = [&](int s) {
      return static_cast<int>(UnfoldedRank(SwingPeer(v, s, pof2), p, false));
    };
    for (int s = 0; s < steps; ++s) {  // reduce-scatter
      const auto [lo, hi] = window[s];
      const auto [keep_lo, keep_hi] = window[s + 1];
      const int give_lo = keep_lo == lo ? keep_hi : lo, give_hi = keep_lo == lo ? hi : keep_lo;
      RETURN_IF_MPI_ERROR(Exchange(e.At(recvbuf, give_lo), give_hi - give_lo,
                                   e.At(tmp.get(), keep_lo), keep_hi - keep_lo, type, peer_at(s),
                                   comm));
      RETURN_IF_MPI_ERROR(
          Reduce(e.At(tmp.get(), keep_lo), e.At(recvbuf, keep_lo), keep_hi - keep_lo, type, op));
    }
    for (int s = steps - 1; s >= 0; --s) {  // allgather: send what I hold, get the sibling
      const auto [lo, hi] = window[s];
      const auto [mine_lo, mine_hi] = window[s + 1];
      const int other_lo = mine_lo == lo ? mine_hi : lo, other_hi = mine_lo == lo ? hi : mine_lo;
      RETURN_IF_MPI_ERROR(Exchange(e.At(recvbuf, mine_lo), mine_hi - mine_lo,
                                   e.At(recvbuf, other_lo), other_hi - other_lo, type, peer_at(s),
                                   comm));
    }
  }
  if (!paired) return MPI_SUCCESS;
  if (v >= 0) return PMPI_Send(recvbuf, count, type, r + 1, kTag, comm);
  return PMPI_Recv(recvbuf, count, type, r - 1, kTag, comm, MPI_STATUS_IGNORE);
}

int BcastBine(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  int p = 1, r = 0;
  PMPI_Comm_size(comm, &p);
  PMPI_Comm_rank(comm, &r);
  if (p == 1 || count == 0) return MPI_SUCCESS;
  const mapping::BineTree tree = mapping::BineBcastTree(p);
  auto real = [&](int64_t u) { return static_cast<int>((u + root) % p); };
  const int v = (r - root + p) % p;
  if (v != 0) {
    RETURN_IF_MPI_ERROR(
        PMPI_Recv(buffer, count, type, real(tree.parent[v]), kTag, comm, MPI_STATUS_IGNORE));
  }
  // The children one after the other in stage order: the child of stage t has the data
  // after stage t and forwards it while this rank serves the next one.
  std::vector<std::pair<int32_t, int>> children;  // (stage, shifted rank)
  for (int u = 1; u < p; ++u) {
    if (tree.parent[u] == v) children.emplace_back(tree.stage[u], u);
  }
  std::sort(children.begin(), children.end());
  for (const auto& [stage, u] : children) {
    RETURN_IF_MPI_ERROR(PMPI_Send(buffer, count, type, real(u), kTag, comm));
  }
  return MPI_SUCCESS;
}

}  // namespace toporr::client::mpi::coll

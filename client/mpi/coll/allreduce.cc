#include "client/mpi/coll/allreduce.h"

#include <cstdint>
#include <utility>
#include <vector>

#include "client/mpi/coll/steps.h"
#include "mapping/schedules/collective_shapes.h"
#include "mapping/schedules/swing_schedule.h"

namespace toporr::client::mpi::coll {
namespace {

using mapping::FloorPowerOfTwo;
using mapping::FoldedRank;
using mapping::Log2Floor;
using mapping::UnfoldedRank;

// Open MPI's block split (COLL_BASE_COMPUTE_BLOCKCOUNT): `num` blocks of `count` elements,
// the first count % num one element larger.
struct Blocks {
  Blocks(int64_t count, int64_t num) : small(count / num), split(count % num) {}
  int Len(int64_t b) const { return static_cast<int>(b < split ? small + 1 : small); }
  int64_t Offset(int64_t b) const { return b < split ? b * (small + 1) : b * small + split; }
  int64_t small, split;
};

// One ring pass over p - 1 steps to the right neighbour. Reduce-scatter (reduce = true): at
// step t rank r sends block r - t and accumulates block r - t - 1, ending with block r + 1
// complete; allgather: sends block r + 1 - t and stores block r - t. Block b is the
// elements [offset(b), offset(b) + len(b)) of recvbuf; `tmp` holds the largest block.
template <typename Len, typename Offset>
int RingPass(bool reduce, void* recvbuf, const Elements& e, MPI_Datatype type, MPI_Op op,
             MPI_Comm comm, int p, int r, const Len& len, const Offset& offset, char* tmp) {
  auto mod = [&](int x) { return ((x % p) + p) % p; };
  const int right = mod(r + 1), left = mod(r - 1);
  for (int t = 0; t < p - 1; ++t) {
    const int sb = reduce ? mod(r - t) : mod(r + 1 - t);
    const int rb = reduce ? mod(r - t - 1) : mod(r - t);
    char* into = reduce ? tmp : e.At(recvbuf, offset(rb));
    RETURN_IF_MPI_ERROR(PMPI_Sendrecv(e.At(recvbuf, offset(sb)), len(sb), type, right, kTag, into,
                                      len(rb), type, left, kTag, comm, MPI_STATUS_IGNORE));
    if (reduce) RETURN_IF_MPI_ERROR(Reduce(tmp, e.At(recvbuf, offset(rb)), len(rb), type, op));
  }
  return MPI_SUCCESS;
}

// Recursive doubling and Swing (latency-optimal): whole vectors exchanged with
// peer(v, s, pof2) at step s on the folded virtual ranks (the odd member of a pair plays).
template <typename Peer>
int FullVectorButterfly(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                        MPI_Comm comm, Peer peer) {
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
  if (paired && v < 0) {  // even: hand the vector to the odd neighbour and wait
    RETURN_IF_MPI_ERROR(PMPI_Send(recvbuf, count, type, r + 1, kTag, comm));
  } else if (paired) {
    RETURN_IF_MPI_ERROR(PMPI_Recv(tmp.get(), count, type, r - 1, kTag, comm, MPI_STATUS_IGNORE));
    RETURN_IF_MPI_ERROR(Reduce(tmp.get(), recvbuf, count, type, op));
  }
  if (v >= 0) {
    for (int s = 0; s < Log2Floor(pof2); ++s) {
      const int remote = static_cast<int>(UnfoldedRank(peer(v, s, pof2), p, true));
      RETURN_IF_MPI_ERROR(Exchange(recvbuf, count, tmp.get(), count, type, remote, comm));
      RETURN_IF_MPI_ERROR(Reduce(tmp.get(), recvbuf, count, type, op));
    }
  }
  if (!paired) return MPI_SUCCESS;
  if (v >= 0) return PMPI_Send(recvbuf, count, type, r - 1, kTag, comm);
  return PMPI_Recv(recvbuf, count, type, r + 1, kTag, comm, MPI_STATUS_IGNORE);
}

// Rabenseifner and Swing (bandwidth-optimal): reduce-scatter by recursive halving with
// peer(v, s, pof2) at step s, then the allgather over the same peers in reverse, on the
// folded virtual ranks (pairs trade halves, the even member plays). Bit s of key(v, pof2)
// says which half v keeps at step s (0: the lower one); the peer's key differs there.
// count >= pof2 (every window holds an element).
template <typename Peer, typename Key>
int HalvingButterfly(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                     MPI_Comm comm, Peer peer, Key key) {
  int p = 1, r = 0;
  PMPI_Comm_size(comm, &p);
  PMPI_Comm_rank(comm, &r);
  if (sendbuf != MPI_IN_PLACE) RETURN_IF_MPI_ERROR(Copy(sendbuf, recvbuf, count, type));
  const Elements e(type);
  Scratch tmp(e, count);
  const int64_t pof2 = FloorPowerOfTwo(p), extra = p - pof2;
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
    // window[s] = [lo, hi) this rank holds before step s.
    const int steps = Log2Floor(pof2);
    const int64_t my_key = key(v, pof2);
    std::vector<std::pair<int, int>> window(steps + 1);
    window[0] = {0, count};
    for (int s = 0; s < steps; ++s) {
      const auto [lo, hi] = window[s];
      const int mid = lo + (hi - lo) / 2;
      window[s + 1] = ((my_key >> s) & 1) == 0 ? std::pair(lo, mid) : std::pair(mid, hi);
    }
    auto peer_at = [&](int s) {
      return static_cast<int>(UnfoldedRank(peer(v, s, pof2), p, /*keep_odd=*/false));
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

int64_t XorPeer(int64_t v, int s, int64_t) { return v ^ (int64_t{1} << s); }
int64_t OwnRank(int64_t v, int64_t) { return v; }

}  // namespace

int AllreduceRing(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm) {
  return AllreduceSegmentedRing(sendbuf, recvbuf, count, type, op, comm, 0);
}

int AllreduceSegmentedRing(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                           MPI_Op op, MPI_Comm comm, int64_t segment_bytes) {
  int p = 1, r = 0, type_size = 0;
  PMPI_Comm_size(comm, &p);
  PMPI_Comm_rank(comm, &r);
  PMPI_Type_size(type, &type_size);
  if (count < p) return AllreduceRecursiveDoubling(sendbuf, recvbuf, count, type, op, comm);
  if (sendbuf != MPI_IN_PLACE) RETURN_IF_MPI_ERROR(Copy(sendbuf, recvbuf, count, type));
  if (p == 1) return MPI_SUCCESS;
  const Elements e(type);
  const Blocks blocks(count, p);
  // Segments (Open MPI's COLL_BASE_COMPUTED_SEGCOUNT; none when a segment holds the message)
  // and phases: floor(count / (p * segcount)), one more for a large enough remainder.
  int64_t segcount = count;
  if (segment_bytes >= type_size && type_size > 0 && segment_bytes < int64_t{type_size} * count) {
    segcount = segment_bytes / type_size;
    if (segment_bytes - segcount * type_size > type_size / 2) ++segcount;
  }
  int64_t phases = 1;
  if (int64_t{count} >= p * segcount) {
    phases = count / (p * segcount);
    const int64_t rest = count % (p * segcount);
    if (rest >= p && rest > (p * segcount) / 2) ++phases;
  }
  Scratch tmp(e, blocks.Len(0));
  for (int64_t phase = 0; phase < phases; ++phase) {  // reduce-scatter, one slice of every block
    auto len = [&](int b) { return Blocks(blocks.Len(b), phases).Len(phase); };
    auto offset = [&](int b) {
      return blocks.Offset(b) + Blocks(blocks.Len(b), phases).Offset(phase);
    };
    RETURN_IF_MPI_ERROR(RingPass(true, recvbuf, e, type, op, comm, p, r, len, offset, tmp.get()));
  }
  auto len = [&](int b) { return blocks.Len(b); };  // allgather of the complete blocks
  auto offset = [&](int b) { return blocks.Offset(b); };
  return RingPass(false, recvbuf, e, type, op, comm, p, r, len, offset, tmp.get());
}

int AllreduceRecursiveDoubling(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                               MPI_Op op, MPI_Comm comm) {
  return FullVectorButterfly(sendbuf, recvbuf, count, type, op, comm, XorPeer);
}

int AllreduceRabenseifner(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                          MPI_Op op, MPI_Comm comm) {
  int p = 1;
  PMPI_Comm_size(comm, &p);
  if (count < FloorPowerOfTwo(p) || p == 1) {
    return AllreduceRecursiveDoubling(sendbuf, recvbuf, count, type, op, comm);
  }
  return HalvingButterfly(sendbuf, recvbuf, count, type, op, comm, XorPeer, OwnRank);
}

int AllreduceSwing(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                   MPI_Comm comm) {
  return FullVectorButterfly(sendbuf, recvbuf, count, type, op, comm, mapping::SwingPeer);
}

int AllreduceSwingBandwidth(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                            MPI_Op op, MPI_Comm comm) {
  int p = 1;
  PMPI_Comm_size(comm, &p);
  if (p == 1 || count < FloorPowerOfTwo(p)) {
    return AllreduceSwing(sendbuf, recvbuf, count, type, op, comm);
  }
  return HalvingButterfly(sendbuf, recvbuf, count, type, op, comm, mapping::SwingPeer,
                          mapping::SwingBlockKey);
}

}  // namespace toporr::client::mpi::coll

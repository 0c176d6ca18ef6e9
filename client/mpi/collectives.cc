#include "client/mpi/collectives.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "client/mpi/collective_steps.h"

namespace toporr::client::mpi::coll {
namespace {

int LargestPowerOfTwoAtMost(int p) {
  int x = 1;
  while (x * 2 <= p) x *= 2;
  return x;
}

}  // namespace

int AllreduceRecursiveDoubling(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                               MPI_Op op, MPI_Comm comm) {
  int p = 1, r = 0;
  PMPI_Comm_size(comm, &p);
  PMPI_Comm_rank(comm, &r);
  if (sendbuf != MPI_IN_PLACE) RETURN_IF_MPI_ERROR(Copy(sendbuf, recvbuf, count, type));
  if (p == 1 || count == 0) return MPI_SUCCESS;
  const Elements e(type);
  Scratch tmp(e, count);
  const int adj = LargestPowerOfTwoAtMost(p);
  const int extra = p - adj;
  int newrank = r - extra;
  if (r < 2 * extra) {  // fold the extra ranks in: even ones give their data and wait
    if (r % 2 == 0) {
      RETURN_IF_MPI_ERROR(PMPI_Send(recvbuf, count, type, r + 1, kTag, comm));
      newrank = -1;
    } else {
      RETURN_IF_MPI_ERROR(PMPI_Recv(tmp.get(), count, type, r - 1, kTag, comm, MPI_STATUS_IGNORE));
      RETURN_IF_MPI_ERROR(Reduce(tmp.get(), recvbuf, count, type, op));
      newrank = r / 2;
    }
  }
  if (newrank >= 0) {
    for (int dist = 1; dist < adj; dist *= 2) {
      const int nr = newrank ^ dist;
      const int remote = nr < extra ? nr * 2 + 1 : nr + extra;
      RETURN_IF_MPI_ERROR(Exchange(recvbuf, count, tmp.get(), count, type, remote, comm));
      RETURN_IF_MPI_ERROR(Reduce(tmp.get(), recvbuf, count, type, op));
    }
  }
  if (r < 2 * extra) {
    if (r % 2 == 1) return PMPI_Send(recvbuf, count, type, r - 1, kTag, comm);
    return PMPI_Recv(recvbuf, count, type, r + 1, kTag, comm, MPI_STATUS_IGNORE);
  }
  return MPI_SUCCESS;
}

namespace {

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

int AllreduceRabenseifner(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                          MPI_Op op, MPI_Comm comm) {
  int p = 1, r = 0;
  PMPI_Comm_size(comm, &p);
  PMPI_Comm_rank(comm, &r);
  const int pof2 = LargestPowerOfTwoAtMost(p);
  if (count < pof2 || p == 1) {
    return AllreduceRecursiveDoubling(sendbuf, recvbuf, count, type, op, comm);
  }
  if (sendbuf != MPI_IN_PLACE) RETURN_IF_MPI_ERROR(Copy(sendbuf, recvbuf, count, type));
  const Elements e(type);
  Scratch tmp(e, count);
  const int rem = p - pof2;
  const int lhalf = count / 2, rhalf = count - lhalf;
  int vrank = r - rem;
  if (r < 2 * rem) {  // pairs trade halves; the odd rank of each pair drops out
    if (r % 2 == 1) {
      RETURN_IF_MPI_ERROR(PMPI_Sendrecv(recvbuf, lhalf, type, r - 1, kTag, e.At(tmp.get(), lhalf),
                                        rhalf, type, r - 1, kTag, comm, MPI_STATUS_IGNORE));
      RETURN_IF_MPI_ERROR(Reduce(e.At(tmp.get(), lhalf), e.At(recvbuf, lhalf), rhalf, type, op));
      RETURN_IF_MPI_ERROR(PMPI_Send(e.At(recvbuf, lhalf), rhalf, type, r - 1, kTag, comm));
      vrank = -1;
    } else {
      RETURN_IF_MPI_ERROR(PMPI_Sendrecv(e.At(recvbuf, lhalf), rhalf, type, r + 1, kTag, tmp.get(),
                                        lhalf, type, r + 1, kTag, comm, MPI_STATUS_IGNORE));
      RETURN_IF_MPI_ERROR(Reduce(tmp.get(), recvbuf, lhalf, type, op));
      RETURN_IF_MPI_ERROR(
          PMPI_Recv(e.At(recvbuf, lhalf), rhalf, type, r + 1, kTag, comm, MPI_STATUS_IGNORE));
      vrank = r / 2;
    }
  }
  auto real = [&](int v) { return v < rem ? 2 * v : v + rem; };
  if (vrank >= 0) {
    // Reduce-scatter by recursive halving: the window [lo, hi) halves at every step.
    std::vector<std::pair<int, int>> parents;
    int lo = 0, hi = count;
    for (int mask = 1; mask < pof2; mask *= 2) {
      const int vdest = vrank ^ mask, dest = real(vdest);
      const int mid = lo + (hi - lo) / 2;
      parents.emplace_back(lo, hi);
      if (vrank < vdest) {  // keep the left half
        RETURN_IF_MPI_ERROR(Exchange(e.At(recvbuf, mid), hi - mid, e.At(tmp.get(), lo), mid - lo,
                                     type, dest, comm));
        RETURN_IF_MPI_ERROR(Reduce(e.At(tmp.get(), lo), e.At(recvbuf, lo), mid - lo, type, op));
        hi = mid;
      } else {
        RETURN_IF_MPI_ERROR(Exchange(e.At(recvbuf, lo), mid - lo, e.At(tmp.get(), mid), hi - mid,
                                     type, dest, comm));
        RETURN_IF_MPI_ERROR(Reduce(e.At(tmp.get(), mid), e.At(recvbuf, mid), hi - mid, type, op));
        lo = mid;
      }
    }
    // Allgather by recursive doubling, in reverse: each step joins a window with its sibling.
    for (int k = static_cast<int>(parents.size()) - 1, mask = pof2 / 2; k >= 0; --k, mask /= 2) {
      const int dest = real(vrank ^ mask);
      const auto [plo, phi] = parents[k];
      const int olo = lo == plo ? hi : plo, ohi = lo == plo ? phi : lo;
      RETURN_IF_MPI_ERROR(
          Exchange(e.At(recvbuf, lo), hi - lo, e.At(recvbuf, olo), ohi - olo, type, dest, comm));
      lo = plo;
      hi = phi;
    }
  }
  if (r < 2 * rem) {
    if (r % 2 == 0) return PMPI_Send(recvbuf, count, type, r + 1, kTag, comm);
    return PMPI_Recv(recvbuf, count, type, r - 1, kTag, comm, MPI_STATUS_IGNORE);
  }
  return MPI_SUCCESS;
}

namespace {

// Puts this rank's own block in place (unless MPI_IN_PLACE) and returns block positions.
int OwnBlock(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, int rank, int p, const int* position,
             std::vector<int>* pos) {
  pos->resize(p);
  for (int k = 0; k < p; ++k) (*pos)[k] = position != nullptr ? position[k] : k;
  if (sendbuf == MPI_IN_PLACE) return MPI_SUCCESS;
  const Elements e(recvtype);
  void* mine = e.At(recvbuf, static_cast<int64_t>((*pos)[rank]) * recvcount);
  if (sendcount == 0 && recvcount == 0) return MPI_SUCCESS;
  return PMPI_Sendrecv(sendbuf, sendcount, sendtype, 0, kTag, mine, recvcount, recvtype, 0, kTag,
                       MPI_COMM_SELF, MPI_STATUS_IGNORE);
}

}  // namespace

int AllgatherRing(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, const int* position) {
  int p = 1, r = 0;
  PMPI_Comm_size(comm, &p);
  PMPI_Comm_rank(comm, &r);
  std::vector<int> pos;
  RETURN_IF_MPI_ERROR(
      OwnBlock(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, r, p, position, &pos));
  if (p == 1 || recvcount == 0) return MPI_SUCCESS;
  const Elements e(recvtype);
  auto block = [&](int k) { return e.At(recvbuf, static_cast<int64_t>(pos[k]) * recvcount); };
  const int right = (r + 1) % p, left = (r - 1 + p) % p;
  for (int t = 0; t < p - 1; ++t) {
    const int sb = ((r - t) % p + p) % p, rb = ((r - t - 1) % p + p) % p;
    RETURN_IF_MPI_ERROR(PMPI_Sendrecv(block(sb), recvcount, recvtype, right, kTag, block(rb),
                                      recvcount, recvtype, left, kTag, comm, MPI_STATUS_IGNORE));
  }
  return MPI_SUCCESS;
}

int AllgatherRecursiveDoubling(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                               void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                               const int* position) {
  int p = 1, r = 0;
  PMPI_Comm_size(comm, &p);
  PMPI_Comm_rank(comm, &r);
  if ((p & (p - 1)) != 0) {
    return AllgatherRing(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                         position);
  }
  std::vector<int> pos;
  RETURN_IF_MPI_ERROR(
      OwnBlock(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, r, p, position, &pos));
  if (p == 1 || recvcount == 0) return MPI_SUCCESS;
  // One block as a unit, so that a group of blocks is an indexed type over their positions.
  MPI_Datatype block = MPI_DATATYPE_NULL;
  RETURN_IF_MPI_ERROR(PMPI_Type_contiguous(recvcount, recvtype, &block));
  auto group_type = [&](int first, int n, MPI_Datatype* out) {
    MPI_Datatype indexed = MPI_DATATYPE_NULL;
    int rc = PMPI_Type_create_indexed_block(n, 1, pos.data() + first, block, &indexed);
    if (rc == MPI_SUCCESS) rc = PMPI_Type_commit(&indexed);
    *out = indexed;
    return rc;
  };
  int rc = MPI_SUCCESS;
  for (int mask = 1; mask < p && rc == MPI_SUCCESS; mask *= 2) {
    const int partner = r ^ mask;
    const int mine = r & ~(mask - 1), theirs = partner & ~(mask - 1);
    MPI_Datatype send_type = MPI_DATATYPE_NULL, recv_type = MPI_DATATYPE_NULL;
    rc = group_type(mine, mask, &send_type);
    if (rc == MPI_SUCCESS) rc = group_type(theirs, mask, &recv_type);
    if (rc == MPI_SUCCESS) {
      rc = PMPI_Sendrecv(recvbuf, 1, send_type, partner, kTag, recvbuf, 1, recv_type, partner, kTag,
                         comm, MPI_STATUS_IGNORE);
    }
    if (send_type != MPI_DATATYPE_NULL) PMPI_Type_free(&send_type);
    if (recv_type != MPI_DATATYPE_NULL) PMPI_Type_free(&recv_type);
  }
  PMPI_Type_free(&block);
  return rc;
}

namespace {

// Receives from `parent` (unless < 0), then sends to every child concurrently.
int TreeBcast(void* buffer, int count, MPI_Datatype type, int parent,
              const std::vector<int>& children, MPI_Comm comm) {
  if (parent >= 0) {
    RETURN_IF_MPI_ERROR(PMPI_Recv(buffer, count, type, parent, kTag, comm, MPI_STATUS_IGNORE));
  }
  if (children.empty()) return MPI_SUCCESS;
  std::vector<MPI_Request> requests(children.size());
  for (size_t i = 0; i < children.size(); ++i) {
    RETURN_IF_MPI_ERROR(PMPI_Isend(buffer, count, type, children[i], kTag, comm, &requests[i]));
  }
  return PMPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
}

// Shifted rank v (root = 0) <-> rank.
struct Shift {
  int p, root;
  int Real(int v) const { return (v + root) % p; }
};

// Binary tree of Open MPI's build_tree(2): children of v are v + delta and v + 2 delta,
// delta = 2^level(v); level L holds shifted ranks 2^L - 1 .. 2^(L+1) - 2.
std::vector<int> BinaryChildren(int v, int p) {
  int level = 0, first_of_next = 1;
  while (first_of_next <= v) {
    ++level;
    first_of_next = 2 * first_of_next + 1;
  }
  const int delta = 1 << level;
  std::vector<int> out;
  for (int i = 1; i <= 2; ++i) {
    if (v + delta * i < p) out.push_back(v + delta * i);
  }
  return out;
}

std::vector<int> KnomialChildren(int v, int p, int radix, int* parent) {
  int start = 1;
  if (v == 0) {
    while (static_cast<int64_t>(start) * radix < p) start *= radix;
    *parent = -1;
  } else {
    int mask = 1;
    while (v % (radix * mask) == 0) mask *= radix;
    *parent = v / (radix * mask) * (radix * mask);
    start = mask / radix;
  }
  std::vector<int> out;
  for (int m = start; m >= 1; m /= radix) {
    for (int k = 1; k < radix; ++k) {
      if (static_cast<int64_t>(v) + static_cast<int64_t>(k) * m < p) out.push_back(v + k * m);
    }
  }
  return out;
}

}  // namespace

int BcastBinomial(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  int p = 1, r = 0;
  PMPI_Comm_size(comm, &p);
  PMPI_Comm_rank(comm, &r);
  if (p == 1 || count == 0) return MPI_SUCCESS;
  const Shift s{p, root};
  const int v = (r - root + p) % p;
  int mask = 1;  // smallest power of two greater than v
  while (mask <= v) mask *= 2;
  const int parent = v == 0 ? -1 : s.Real(v - mask / 2);
  std::vector<int> children;
  for (int m = mask; v + m < p; m *= 2) children.push_back(s.Real(v + m));
  return TreeBcast(buffer, count, type, parent, children, comm);
}

int BcastBinaryTree(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  int p = 1, r = 0;
  PMPI_Comm_size(comm, &p);
  PMPI_Comm_rank(comm, &r);
  if (p == 1 || count == 0) return MPI_SUCCESS;
  const Shift s{p, root};
  const int v = (r - root + p) % p;
  int parent = -1;
  for (int u = 0; u < v && parent < 0; ++u) {
    for (int c : BinaryChildren(u, p)) {
      if (c == v) parent = s.Real(u);
    }
  }
  std::vector<int> children;
  for (int c : BinaryChildren(v, p)) children.push_back(s.Real(c));
  return TreeBcast(buffer, count, type, parent, children, comm);
}

int BcastKnomial(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm, int radix) {
  int p = 1, r = 0;
  PMPI_Comm_size(comm, &p);
  PMPI_Comm_rank(comm, &r);
  if (p == 1 || count == 0) return MPI_SUCCESS;
  if (radix < 2) radix = 2;
  const Shift s{p, root};
  const int v = (r - root + p) % p;
  int parent = -1;
  std::vector<int> children;
  for (int c : KnomialChildren(v, p, radix, &parent)) children.push_back(s.Real(c));
  return TreeBcast(buffer, count, type, parent < 0 ? -1 : s.Real(parent), children, comm);
}

namespace {

// Binomial scatter of blocks of `sc` elements (block b = shifted rank b's), then an
// allgather: recursive doubling (p a power of two and `ring` false) or ring.
int ScatterAllgather(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
                     bool ring) {
  int p = 1, r = 0;
  PMPI_Comm_size(comm, &p);
  PMPI_Comm_rank(comm, &r);
  if (p == 1 || count == 0) return MPI_SUCCESS;
  if (count < p) return BcastBinomial(buffer, count, type, root, comm);
  const Elements e(type);
  const Shift s{p, root};
  const int v = (r - root + p) % p;
  const int64_t sc = (count + p - 1) / p;
  // Elements of blocks [b, b + n), clipped to the communicator and the message.
  auto first = [&](int64_t b) { return std::min<int64_t>(b * sc, count); };
  auto elems = [&](int64_t b, int64_t n) {
    return static_cast<int>(first(std::min<int64_t>(b + n, p)) - first(b));
  };
  int low = 1;  // v's subtree spans `low` blocks; the root's every block
  if (v == 0) {
    while (low < p) low *= 2;
  } else {
    low = v & -v;
    RETURN_IF_MPI_ERROR(PMPI_Recv(e.At(buffer, first(v)), elems(v, low), type, s.Real(v - low),
                                  kTag, comm, MPI_STATUS_IGNORE));
  }
  for (int m = low / 2; m >= 1; m /= 2) {
    if (v + m < p) {
      RETURN_IF_MPI_ERROR(
          PMPI_Send(e.At(buffer, first(v + m)), elems(v + m, m), type, s.Real(v + m), kTag, comm));
    }
  }
  const bool pof2 = (p & (p - 1)) == 0;
  if (!ring && pof2) {
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

int BcastScatterAllgather(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  return ScatterAllgather(buffer, count, type, root, comm, /*ring=*/false);
}

int BcastScatterAllgatherRing(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  return ScatterAllgather(buffer, count, type, root, comm, /*ring=*/true);
}

int ReduceBinomial(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                   int root, MPI_Comm comm) {
  int p = 1, r = 0;
  PMPI_Comm_size(comm, &p);
  PMPI_Comm_rank(comm, &r);
  const void* in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  if (r == root) RETURN_IF_MPI_ERROR(Copy(in, recvbuf, count, type));
  if (p == 1 || count == 0) return MPI_SUCCESS;
  const Elements e(type);
  const Shift s{p, root};
  const int v = (r - root + p) % p;
  const bool has_children = v % 2 == 0 && v + 1 < p;
  // The partial result: the root's recvbuf, a scratch copy on other inner nodes; a leaf
  // sends its input as it is.
  Scratch acc_storage(e, has_children && r != root ? count : 0);
  void* acc = r == root ? recvbuf : acc_storage.get();
  if (has_children && r != root) RETURN_IF_MPI_ERROR(Copy(in, acc, count, type));
  Scratch tmp(e, has_children ? count : 0);
  for (int m = 1; m < p; m *= 2) {
    if (v & m) {
      return PMPI_Send(has_children ? acc : in, count, type, s.Real(v - m), kTag, comm);
    }
    if (v + m < p) {
      RETURN_IF_MPI_ERROR(
          PMPI_Recv(tmp.get(), count, type, s.Real(v + m), kTag, comm, MPI_STATUS_IGNORE));
      RETURN_IF_MPI_ERROR(Reduce(tmp.get(), acc, count, type, op));
    }
  }
  return MPI_SUCCESS;
}

}  // namespace toporr::client::mpi::coll

// Building blocks of toporr's own collective algorithms (this folder: one file per
// collective family, as Open MPI's coll/base): element access and scratch space for any
// datatype, local copy and reduction through the MPI library, and one pairwise exchange.
//
// The contract every algorithm of this folder keeps: any count (0 too), counts not divisible
// by the size, any size, MPI_IN_PLACE, predefined and derived datatypes (temporaries by true
// extent), predefined and user-defined ops applied with MPI_Reduce_local in rank order (so
// the reductions are correct for commutative ops; callers send non-commutative ops to the MPI
// library). Each returns an MPI error code and is collective over `comm`, an
// intra-communicator. Their schedules are the ones the mapping engine predicts
// (mapping/schedules/pattern.h), built from the same trees and folds
// (mapping/schedules/collective_shapes.h). Internal to client/mpi.
#ifndef TOPORR_CLIENT_MPI_COLL_STEPS_H_
#define TOPORR_CLIENT_MPI_COLL_STEPS_H_

#include <mpi.h>

#include <cstdint>
#include <vector>

namespace toporr::client::mpi::coll {

// Tag of every message; used on toporr's own communicators only, so no user message matches.
inline constexpr int kTag = 0x7C01;

#define RETURN_IF_MPI_ERROR(expr)                     \
  do {                                                \
    const int toporr_rc_ = (expr);                    \
    if (toporr_rc_ != MPI_SUCCESS) return toporr_rc_; \
  } while (0)

// Element access for any datatype: element i of `base` is at base + i * extent.
struct Elements {
  explicit Elements(MPI_Datatype type);
  char* At(void* base, int64_t i) const { return static_cast<char*>(base) + i * extent; }
  const char* At(const void* base, int64_t i) const {
    return static_cast<const char*>(base) + i * extent;
  }
  MPI_Aint extent = 0, true_lb = 0, true_extent = 0;
};

// Scratch space for `count` elements of a datatype (true extent, shifted by the true lower
// bound as MPI requires of a buffer pointer).
class Scratch {
 public:
  Scratch(const Elements& e, int count);
  char* get() { return ptr_; }

 private:
  std::vector<char> storage_;
  char* ptr_;
};

// Local copy of `count` elements through the MPI library (any datatype layout).
int Copy(const void* src, void* dst, int count, MPI_Datatype type);

// Sends `send_count` and receives `recv_count` elements with one peer.
int Exchange(const void* send, int send_count, void* recv, int recv_count, MPI_Datatype type,
             int peer, MPI_Comm comm);

// inout := in op inout (MPI_Reduce_local), nothing for count 0.
int Reduce(const void* in, void* inout, int count, MPI_Datatype type, MPI_Op op);

// Shifted rank v = (rank - root + p) % p of rooted trees (the root is 0), and back.
struct Shift {
  int p, root;
  int Virtual(int rank) const { return (rank - root + p) % p; }
  int Real(int64_t v) const { return static_cast<int>((v + root) % p); }
};

}  // namespace toporr::client::mpi::coll

#endif  // TOPORR_CLIENT_MPI_COLL_STEPS_H_

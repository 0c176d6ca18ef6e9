// libtoporr_pmpi.so: under LD_PRELOAD, an unchanged MPI program's topology constructors with
// reorder = 1 return communicators reordered by toporr (topology.h), and MPI_Cart_map /
// MPI_Graph_map return the ranks those constructors give; reorder = 0 and TOPORR_DISABLE=1
// leave the MPI library's own call untouched. MPI_Allreduce, MPI_Bcast, MPI_Reduce and
// MPI_Allgather (per-rank block) of at least TOPORR_MIN_BYTES (default 64 KiB) run toporr's
// collectives (collective_api.h), and so do their nonblocking forms (MPI_Iallreduce, ...) and
// persistent ones (MPI_Allreduce_init of MPI 4 and Open MPI 5, Open MPI 4.1's
// MPIX_Allreduce_init, ...): the MPI library's own nonblocking or persistent call on toporr's
// order (collective_api.h says when a start synchronises); smaller calls cost one
// datatype-size lookup and a comparison before the MPI library's.
//
// Buffers: a large call whose buffers are GPU or managed memory at any rank (asked of a CUDA
// driver or HIP runtime the process has loaded, client/memory/device_memory.h) goes to the MPI
// library untouched on every rank, with no decision (client/mpi/buffers.h: how ranks agree,
// and what that costs). The C interceptors, the Fortran ones below and the C API all reach
// toporr through collective_api.h, where the check is made.
// Threads: every thread level, MPI_THREAD_MULTIPLE included, is served: concurrent calls on
// different communicators decide and run independently (decisions are cached per
// communicator, the daemon's channel is created once under a lock and shared, the one
// warning is counted under a lock). With TOPORR_PROFILE every call here is also counted
// (pmpi_traffic.cc; the persistent ones are not).
//
// Fortran: Open MPI's Fortran bindings (mpif.h, `use mpi`, `use mpi_f08`) and MPICH's mpi_f08
// topology functions do not call the C symbols above (MPICH's old bindings and mpi_f08
// collectives do), so their entry points for the same functions are wrapped too, with
// MPI_DIST_GRAPH_CREATE(_ADJACENT): see pmpi_fortran.cc for which symbols of which library, and how
// MPI_IN_PLACE, MPI_BOTTOM and MPI_UNWEIGHTED are recognised. They share the guards above through
// pmpi_guards.h.
#include <mpi.h>

#include "client/mpi/persistent_abi.h"
#include "client/mpi/pmpi_abi.h"
#include "client/mpi/pmpi_guards.h"

// Set while this thread runs a topology function through toporr: the MPI collectives of its
// decision (the reorder protocol, library.h) go straight to the MPI library, as those of
// toporr's collectives do (collective_api.cc), instead of each making a decision of its own.
static thread_local bool in_topology = false;

template <typename Run>
static int InTopology(Run run) {
  const bool outer = in_topology;
  in_topology = true;
  const int rc = run();
  in_topology = outer;
  return rc;
}

extern "C" {

static long long MinBytes() {
  static const long long min = toporr_pmpi_min_bytes();
  return min;
}

static bool Large(int count, MPI_Datatype datatype) {
  const long long min = MinBytes();
  int size = 0;
  return min >= 0 && !in_topology && count > 0 && PMPI_Type_size(datatype, &size) == MPI_SUCCESS &&
         static_cast<long long>(count) * size >= min;
}

// Counts a collective call for TOPORR_PROFILE (pmpi_traffic.cc); one branch when not profiling.
static inline void Profile(int collective, MPI_Comm comm, long long count, MPI_Datatype datatype) {
  if (toporr_profile.enabled) toporr_profile_collective(collective, comm, count, datatype);
}

// Adds the time from its construction to its destruction to the profile's time inside MPI
// (pmpi_abi.h) while recording; one branch each way when not.
class MpiTime {
 public:
  MpiTime()
      : start_(toporr_profile.enabled && toporr_profile.timing ? toporr_profile_clock() : 0) {}
  ~MpiTime() {
    if (start_ != 0) toporr_profile_add_mpi_time(start_);
  }
  MpiTime(const MpiTime&) = delete;
  MpiTime& operator=(const MpiTime&) = delete;

 private:
  uint64_t start_;
};

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm) {
  Profile(TOPORR_PROFILE_ALLREDUCE, comm, count, datatype);
  const MpiTime timed;
  if (Large(count, datatype)) {
    return toporr_pmpi_allreduce(sendbuf, recvbuf, count, datatype, op, comm);
  }
  return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
}

int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  Profile(TOPORR_PROFILE_ALLGATHER, comm, recvcount, recvtype);
  const MpiTime timed;
  if (Large(recvcount, recvtype)) {  // per-rank block, as the mapping engine counts it
    return toporr_pmpi_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  }
  return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm) {
  Profile(TOPORR_PROFILE_REDUCE, comm, count, datatype);
  const MpiTime timed;
  if (Large(count, datatype)) {
    return toporr_pmpi_reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
  }
  return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
}

int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  Profile(TOPORR_PROFILE_BCAST, comm, count, datatype);
  const MpiTime timed;
  if (Large(count, datatype)) return toporr_pmpi_bcast(buffer, count, datatype, root, comm);
  return PMPI_Bcast(buffer, count, datatype, root, comm);
}

// The nonblocking forms (counted for TOPORR_PROFILE, not timed: their time is the caller's
// overlap) and the persistent ones (MPI-4, or Open MPI 4.1's MPIX_), with the same threshold.
int MPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Request* request) {
  Profile(TOPORR_PROFILE_ALLREDUCE, comm, count, datatype);
  if (Large(count, datatype)) {
    return toporr_pmpi_iallreduce(sendbuf, recvbuf, count, datatype, op, comm, 0, MPI_INFO_NULL,
                                  request);
  }
  return PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request);
}

int MPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  Profile(TOPORR_PROFILE_ALLGATHER, comm, recvcount, recvtype);
  if (Large(recvcount, recvtype)) {
    return toporr_pmpi_iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                                  0, MPI_INFO_NULL, request);
  }
  return PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}

int MPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm, MPI_Request* request) {
  Profile(TOPORR_PROFILE_REDUCE, comm, count, datatype);
  if (Large(count, datatype)) {
    return toporr_pmpi_ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, 0, MPI_INFO_NULL,
                               request);
  }
  return PMPI_Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, request);
}

int MPI_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
               MPI_Request* request) {
  Profile(TOPORR_PROFILE_BCAST, comm, count, datatype);
  if (Large(count, datatype)) {
    return toporr_pmpi_ibcast(buffer, count, datatype, root, comm, 0, MPI_INFO_NULL, request);
  }
  return PMPI_Ibcast(buffer, count, datatype, root, comm, request);
}

#ifdef TOPORR_PERSISTENT
int TOPORR_PERSISTENT_PUBLIC(Allreduce)(const void* sendbuf, void* recvbuf, int count,
                                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                        MPI_Info info, MPI_Request* request) {
  if (Large(count, datatype)) {
    return toporr_pmpi_iallreduce(sendbuf, recvbuf, count, datatype, op, comm, 1, info, request);
  }
  return TOPORR_PERSISTENT(Allreduce)(sendbuf, recvbuf, count, datatype, op, comm, info, request);
}

int TOPORR_PERSISTENT_PUBLIC(Allgather)(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                        void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                        MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  if (Large(recvcount, recvtype)) {
    return toporr_pmpi_iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                                  1, info, request);
  }
  return TOPORR_PERSISTENT(Allgather)(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                      comm, info, request);
}

int TOPORR_PERSISTENT_PUBLIC(Reduce)(const void* sendbuf, void* recvbuf, int count,
                                     MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                                     MPI_Info info, MPI_Request* request) {
  if (Large(count, datatype)) {
    return toporr_pmpi_ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, 1, info, request);
  }
  return TOPORR_PERSISTENT(Reduce)(sendbuf, recvbuf, count, datatype, op, root, comm, info,
                                   request);
}

int TOPORR_PERSISTENT_PUBLIC(Bcast)(void* buffer, int count, MPI_Datatype datatype, int root,
                                    MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  if (Large(count, datatype)) {
    return toporr_pmpi_ibcast(buffer, count, datatype, root, comm, 1, info, request);
  }
  return TOPORR_PERSISTENT(Bcast)(buffer, count, datatype, root, comm, info, request);
}
#endif  // TOPORR_PERSISTENT

int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                    int reorder, MPI_Comm* comm_cart) {
  return InTopology(
      [&] { return toporr_pmpi_cart_create(comm_old, ndims, dims, periods, reorder, comm_cart); });
}

int MPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int* newrank) {
  return InTopology([&] { return toporr_pmpi_cart_map(comm, ndims, dims, periods, newrank); });
}

int MPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int* newrank) {
  return InTopology([&] { return toporr_pmpi_graph_map(comm, nnodes, index, edges, newrank); });
}

int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                     int reorder, MPI_Comm* comm_graph) {
  return InTopology([&] {
    return toporr_pmpi_graph_create(comm_old, nnodes, index, edges, reorder, comm_graph);
  });
}

int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                   const int sourceweights[], int outdegree,
                                   const int destinations[], const int destweights[], MPI_Info info,
                                   int reorder, MPI_Comm* comm_dist_graph) {
  return InTopology([&] {
    return toporr_pmpi_dist_graph_create_adjacent(comm_old, indegree, sources, sourceweights,
                                                  outdegree, destinations, destweights, info,
                                                  reorder, comm_dist_graph);
  });
}

int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                          const int destinations[], const int weights[], MPI_Info info, int reorder,
                          MPI_Comm* comm_dist_graph) {
  return InTopology([&] {
    return toporr_pmpi_dist_graph_create(comm_old, n, sources, degrees, destinations, weights, info,
                                         reorder, comm_dist_graph);
  });
}

}  // extern "C"

// The guards above, for the Fortran interceptors (pmpi_fortran.cc; contract: pmpi_guards.h).
namespace toporr::pmpi {

bool Large(int count, MPI_Datatype datatype) { return ::Large(count, datatype); }

int Collective(int collective, MPI_Comm comm, long long count, MPI_Datatype datatype, Call call) {
  Profile(collective, comm, count, datatype);
  const MpiTime timed;
  return call.run(call.arg);
}

int Topology(Call call) {
  return InTopology([&] { return call.run(call.arg); });
}

}  // namespace toporr::pmpi

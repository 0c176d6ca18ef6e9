// libtoporr_pmpi.so: under LD_PRELOAD, an unchanged MPI program's topology constructors with
// reorder = 1 return communicators reordered by toporr (topology.h), and MPI_Cart_map /
// MPI_Graph_map return the ranks those constructors give; reorder = 0 and TOPORR_DISABLE=1
// leave the MPI library's own call untouched. MPI_Allreduce, MPI_Bcast,
// MPI_Reduce and MPI_Allgather (per-rank block) of at least TOPORR_MIN_BYTES (default 64 KiB) run
// toporr's collectives (collective_api.h); smaller calls cost one datatype-size lookup and a
// comparison before the MPI library's.
//
// Buffers: a large call whose buffers are GPU or managed memory at any rank (asked of a CUDA
// driver or HIP runtime the process has loaded, client/memory/device_memory.h) goes to the MPI
// library untouched on every rank, with no decision (client/mpi/buffers.h: how ranks agree,
// and what that costs). The C interceptors, the Fortran ones below and the C API all reach
// toporr through collective_api.h, where the check is made.
// Threads: every thread level, MPI_THREAD_MULTIPLE included, is served: concurrent calls on
// different communicators decide and run independently (decisions are cached per
// communicator, the daemon's channel is created once under a lock and shared, the one
// warning is counted under a lock). Non-blocking (MPI_Iallreduce, ...) and persistent
// (MPI_Allreduce_init, MPIX_Allreduce_init, ...) collectives are not taken over: the MPI library
// runs them. With TOPORR_PROFILE every call here is also counted (pmpi_traffic.cc).
//
// Both MPI libraries' Fortran bindings call PMPI_* (Open MPI) or their own C entry points
// from inside the library, so intercepting the C symbols misses Fortran callers: the
// Fortran symbols (every name mangling gfortran and the `mpi` module use) are wrapped too.
// MPI_CART_CREATE, MPI_GRAPH_CREATE, MPI_CART_MAP and MPI_GRAPH_MAP, and MPI_ALLREDUCE,
// MPI_BCAST, MPI_REDUCE and MPI_ALLGATHER from Fortran are intercepted like the C calls
// (MPI_IN_PLACE and MPI_BOTTOM recognised by each library's private address). The Fortran
// dist-graph constructors are left to the MPI library (their MPI_UNWEIGHTED is private too).
#include <dlfcn.h>
#include <mpi.h>

#include <vector>

#include "client/mpi/pmpi_abi.h"

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

namespace {

using CartF = void (*)(MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*);
using GraphF = void (*)(MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*,
                        MPI_Fint*);
// MPI_CART_MAP and MPI_GRAPH_MAP: (comm, ndims|nnodes, dims|index, periods|edges, newrank, ierr).
using MapF = void (*)(MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*);
// The MPI library's own Fortran entry point `name` (the next definition after ours).
template <typename F>
F Next(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

using AllreduceF = void (*)(void*, void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*);
using BcastF = void (*)(void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*);
using ReduceF = void (*)(void*, void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*,
                         MPI_Fint*);
using AllgatherF = void (*)(void*, MPI_Fint*, MPI_Fint*, void*, MPI_Fint*, MPI_Fint*, MPI_Fint*,
                            MPI_Fint*);

// Fortran's MPI_IN_PLACE and MPI_BOTTOM are addresses private to each MPI library: Open MPI's
// are its common blocks mpi_fortran_in_place_ / mpi_fortran_bottom_; MPICH keeps pointers to
// its own in MPIR_F_MPI_IN_PLACE / MPIR_F_MPI_BOTTOM. A buffer toporr cannot classify goes
// to the library untouched.
struct FortranSentinels {
  const void* in_place = nullptr;
  const void* bottom = nullptr;
  bool known = false;
  FortranSentinels() {
    if (void* p = dlsym(RTLD_DEFAULT, "mpi_fortran_in_place_")) {
      in_place = p;
      bottom = dlsym(RTLD_DEFAULT, "mpi_fortran_bottom_");
      known = bottom != nullptr;
    } else if (auto** q = static_cast<void**>(dlsym(RTLD_DEFAULT, "MPIR_F_MPI_IN_PLACE"))) {
      auto** b = static_cast<void**>(dlsym(RTLD_DEFAULT, "MPIR_F_MPI_BOTTOM"));
      in_place = *q;
      bottom = b != nullptr ? *b : nullptr;
      known = in_place != nullptr && bottom != nullptr;
    }
  }
};

const FortranSentinels& Sentinels() {
  static const FortranSentinels s;
  return s;
}

void AllreduceF77(const char* name, void* sendbuf, void* recvbuf, MPI_Fint* count, MPI_Fint* type,
                  MPI_Fint* op, MPI_Fint* comm, MPI_Fint* ierr) {
  const MPI_Datatype t = MPI_Type_f2c(*type);
  const FortranSentinels& f = Sentinels();
  if (!f.known || !Large(*count, t) || sendbuf == f.bottom || recvbuf == f.bottom) {
    if (AllreduceF next = Next<AllreduceF>(name)) {
      next(sendbuf, recvbuf, count, type, op, comm, ierr);
      return;
    }
  }
  Profile(TOPORR_PROFILE_ALLREDUCE, MPI_Comm_f2c(*comm), *count, t);
  const MpiTime timed;
  *ierr = toporr_pmpi_allreduce(sendbuf == f.in_place ? MPI_IN_PLACE : sendbuf, recvbuf, *count, t,
                                MPI_Op_f2c(*op), MPI_Comm_f2c(*comm));
}

void BcastF77(const char* name, void* buffer, MPI_Fint* count, MPI_Fint* type, MPI_Fint* root,
              MPI_Fint* comm, MPI_Fint* ierr) {
  const MPI_Datatype t = MPI_Type_f2c(*type);
  const FortranSentinels& f = Sentinels();
  if (!f.known || !Large(*count, t) || buffer == f.bottom) {
    if (BcastF next = Next<BcastF>(name)) {
      next(buffer, count, type, root, comm, ierr);
      return;
    }
  }
  Profile(TOPORR_PROFILE_BCAST, MPI_Comm_f2c(*comm), *count, t);
  const MpiTime timed;
  *ierr = toporr_pmpi_bcast(buffer, *count, t, *root, MPI_Comm_f2c(*comm));
}

void ReduceF77(const char* name, void* sendbuf, void* recvbuf, MPI_Fint* count, MPI_Fint* type,
               MPI_Fint* op, MPI_Fint* root, MPI_Fint* comm, MPI_Fint* ierr) {
  const MPI_Datatype t = MPI_Type_f2c(*type);
  const FortranSentinels& f = Sentinels();
  if (!f.known || !Large(*count, t) || sendbuf == f.bottom || recvbuf == f.bottom) {
    if (ReduceF next = Next<ReduceF>(name)) {
      next(sendbuf, recvbuf, count, type, op, root, comm, ierr);
      return;
    }
  }
  Profile(TOPORR_PROFILE_REDUCE, MPI_Comm_f2c(*comm), *count, t);
  const MpiTime timed;
  *ierr = toporr_pmpi_reduce(sendbuf == f.in_place ? MPI_IN_PLACE : sendbuf, recvbuf, *count, t,
                             MPI_Op_f2c(*op), *root, MPI_Comm_f2c(*comm));
}

void AllgatherF77(const char* name, void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype,
                  void* recvbuf, MPI_Fint* recvcount, MPI_Fint* recvtype, MPI_Fint* comm,
                  MPI_Fint* ierr) {
  const MPI_Datatype rt = MPI_Type_f2c(*recvtype);
  const FortranSentinels& f = Sentinels();
  if (!f.known || !Large(*recvcount, rt) || sendbuf == f.bottom || recvbuf == f.bottom) {
    if (AllgatherF next = Next<AllgatherF>(name)) {
      next(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierr);
      return;
    }
  }
  Profile(TOPORR_PROFILE_ALLGATHER, MPI_Comm_f2c(*comm), *recvcount, rt);
  const MpiTime timed;
  const bool in_place = sendbuf == f.in_place;  // then sendcount/sendtype are ignored
  *ierr = toporr_pmpi_allgather(in_place ? MPI_IN_PLACE : sendbuf, *sendcount,
                                in_place ? rt : MPI_Type_f2c(*sendtype), recvbuf, *recvcount, rt,
                                MPI_Comm_f2c(*comm));
}

// Fortran LOGICAL periods as C ints: nonzero is true.
std::vector<int> CPeriods(const MPI_Fint* periods, int ndims) {
  std::vector<int> p(ndims);
  for (int i = 0; i < ndims; ++i) p[i] = periods[i] != 0;
  return p;
}

void CartF77(const char* name, MPI_Fint* comm_old, MPI_Fint* ndims, MPI_Fint* dims,
             MPI_Fint* periods, MPI_Fint* reorder, MPI_Fint* comm_cart, MPI_Fint* ierr) {
  if (*reorder == 0 || toporr_pmpi_disabled() || *ndims <= 0) {
    if (CartF next = Next<CartF>(name)) {
      next(comm_old, ndims, dims, periods, reorder, comm_cart, ierr);
      return;
    }
  }
  std::vector<int> d(dims, dims + *ndims), p = CPeriods(periods, *ndims);
  MPI_Comm out = MPI_COMM_NULL;
  *ierr = InTopology([&] {
    return toporr_pmpi_cart_create(MPI_Comm_f2c(*comm_old), *ndims, d.data(), p.data(),
                                   *reorder != 0, &out);
  });
  *comm_cart = MPI_Comm_c2f(out);
}

// MPI_CART_MAP and MPI_GRAPH_MAP: the MPI library's own call where toporr does not act, else
// `map(comm, &newrank)` with the arguments made C's. MPI_UNDEFINED has the same value in C and
// Fortran in both MPI libraries.
template <typename Map>
void MapF77(const char* name, MPI_Fint* comm, MPI_Fint* n, MPI_Fint* a, MPI_Fint* b,
            MPI_Fint* newrank, MPI_Fint* ierr, Map map) {
  if (toporr_pmpi_disabled() || *n <= 0) {
    if (MapF next = Next<MapF>(name)) {
      next(comm, n, a, b, newrank, ierr);
      return;
    }
  }
  int rank = MPI_UNDEFINED;
  *ierr = InTopology([&] { return map(MPI_Comm_f2c(*comm), &rank); });
  *newrank = rank;
}

void CartMapF77(const char* name, MPI_Fint* comm, MPI_Fint* ndims, MPI_Fint* dims,
                MPI_Fint* periods, MPI_Fint* newrank, MPI_Fint* ierr) {
  MapF77(name, comm, ndims, dims, periods, newrank, ierr, [&](MPI_Comm c, int* rank) {
    std::vector<int> d(dims, dims + *ndims), p = CPeriods(periods, *ndims);
    return toporr_pmpi_cart_map(c, *ndims, d.data(), p.data(), rank);
  });
}

// A Fortran process graph (nnodes > 0) as C ints.
struct CGraph {
  CGraph(int nnodes, const MPI_Fint* idx, const MPI_Fint* e)
      : index(idx, idx + nnodes), edges(e, e + index.back()) {}
  std::vector<int> index, edges;
};

void GraphF77(const char* name, MPI_Fint* comm_old, MPI_Fint* nnodes, MPI_Fint* index,
              MPI_Fint* edges, MPI_Fint* reorder, MPI_Fint* comm_graph, MPI_Fint* ierr) {
  if (*reorder == 0 || toporr_pmpi_disabled() || *nnodes <= 0) {
    if (GraphF next = Next<GraphF>(name)) {
      next(comm_old, nnodes, index, edges, reorder, comm_graph, ierr);
      return;
    }
  }
  const CGraph g(*nnodes, index, edges);
  MPI_Comm out = MPI_COMM_NULL;
  *ierr = InTopology([&] {
    return toporr_pmpi_graph_create(MPI_Comm_f2c(*comm_old), *nnodes, g.index.data(),
                                    g.edges.data(), *reorder != 0, &out);
  });
  *comm_graph = MPI_Comm_c2f(out);
}

void GraphMapF77(const char* name, MPI_Fint* comm, MPI_Fint* nnodes, MPI_Fint* index,
                 MPI_Fint* edges, MPI_Fint* newrank, MPI_Fint* ierr) {
  MapF77(name, comm, nnodes, index, edges, newrank, ierr, [&](MPI_Comm c, int* rank) {
    const CGraph g(*nnodes, index, edges);
    return toporr_pmpi_graph_map(c, *nnodes, g.index.data(), g.edges.data(), rank);
  });
}

}  // namespace

#define TOPORR_FORTRAN_CART(sym)                                                       \
  extern "C" void sym(MPI_Fint* c, MPI_Fint* n, MPI_Fint* d, MPI_Fint* p, MPI_Fint* r, \
                      MPI_Fint* out, MPI_Fint* ierr) {                                 \
    CartF77(#sym, c, n, d, p, r, out, ierr);                                           \
  }
#define TOPORR_FORTRAN_GRAPH(sym)                                                      \
  extern "C" void sym(MPI_Fint* c, MPI_Fint* n, MPI_Fint* i, MPI_Fint* e, MPI_Fint* r, \
                      MPI_Fint* out, MPI_Fint* ierr) {                                 \
    GraphF77(#sym, c, n, i, e, r, out, ierr);                                          \
  }

TOPORR_FORTRAN_CART(mpi_cart_create_)
TOPORR_FORTRAN_CART(mpi_cart_create__)
TOPORR_FORTRAN_CART(mpi_cart_create)
TOPORR_FORTRAN_CART(MPI_CART_CREATE)
TOPORR_FORTRAN_GRAPH(mpi_graph_create_)
TOPORR_FORTRAN_GRAPH(mpi_graph_create__)
TOPORR_FORTRAN_GRAPH(mpi_graph_create)
TOPORR_FORTRAN_GRAPH(MPI_GRAPH_CREATE)

#define TOPORR_FORTRAN_MAP(sym, body)                                                        \
  extern "C" void sym(MPI_Fint* c, MPI_Fint* n, MPI_Fint* a, MPI_Fint* b, MPI_Fint* newrank, \
                      MPI_Fint* ierr) {                                                      \
    body(#sym, c, n, a, b, newrank, ierr);                                                   \
  }

TOPORR_FORTRAN_MAP(mpi_cart_map_, CartMapF77)
TOPORR_FORTRAN_MAP(mpi_cart_map__, CartMapF77)
TOPORR_FORTRAN_MAP(mpi_cart_map, CartMapF77)
TOPORR_FORTRAN_MAP(MPI_CART_MAP, CartMapF77)
TOPORR_FORTRAN_MAP(mpi_graph_map_, GraphMapF77)
TOPORR_FORTRAN_MAP(mpi_graph_map__, GraphMapF77)
TOPORR_FORTRAN_MAP(mpi_graph_map, GraphMapF77)
TOPORR_FORTRAN_MAP(MPI_GRAPH_MAP, GraphMapF77)

#define TOPORR_FORTRAN_ALLREDUCE(sym)                                                       \
  extern "C" void sym(void* s, void* r, MPI_Fint* n, MPI_Fint* t, MPI_Fint* o, MPI_Fint* c, \
                      MPI_Fint* ierr) {                                                     \
    AllreduceF77(#sym, s, r, n, t, o, c, ierr);                                             \
  }
#define TOPORR_FORTRAN_BCAST(sym)                                                     \
  extern "C" void sym(void* b, MPI_Fint* n, MPI_Fint* t, MPI_Fint* root, MPI_Fint* c, \
                      MPI_Fint* ierr) {                                               \
    BcastF77(#sym, b, n, t, root, c, ierr);                                           \
  }

TOPORR_FORTRAN_ALLREDUCE(mpi_allreduce_)
TOPORR_FORTRAN_ALLREDUCE(mpi_allreduce__)
TOPORR_FORTRAN_ALLREDUCE(mpi_allreduce)
TOPORR_FORTRAN_ALLREDUCE(MPI_ALLREDUCE)
TOPORR_FORTRAN_BCAST(mpi_bcast_)
TOPORR_FORTRAN_BCAST(mpi_bcast__)
TOPORR_FORTRAN_BCAST(mpi_bcast)
TOPORR_FORTRAN_BCAST(MPI_BCAST)

#define TOPORR_FORTRAN_REDUCE(sym)                                                             \
  extern "C" void sym(void* s, void* r, MPI_Fint* n, MPI_Fint* t, MPI_Fint* o, MPI_Fint* root, \
                      MPI_Fint* c, MPI_Fint* ierr) {                                           \
    ReduceF77(#sym, s, r, n, t, o, root, c, ierr);                                             \
  }
#define TOPORR_FORTRAN_ALLGATHER(sym)                                                           \
  extern "C" void sym(void* s, MPI_Fint* sn, MPI_Fint* st, void* r, MPI_Fint* rn, MPI_Fint* rt, \
                      MPI_Fint* c, MPI_Fint* ierr) {                                            \
    AllgatherF77(#sym, s, sn, st, r, rn, rt, c, ierr);                                          \
  }

TOPORR_FORTRAN_REDUCE(mpi_reduce_)
TOPORR_FORTRAN_REDUCE(mpi_reduce__)
TOPORR_FORTRAN_REDUCE(mpi_reduce)
TOPORR_FORTRAN_REDUCE(MPI_REDUCE)
TOPORR_FORTRAN_ALLGATHER(mpi_allgather_)
TOPORR_FORTRAN_ALLGATHER(mpi_allgather__)
TOPORR_FORTRAN_ALLGATHER(mpi_allgather)
TOPORR_FORTRAN_ALLGATHER(MPI_ALLGATHER)

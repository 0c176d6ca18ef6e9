// The Fortran interceptors of libtoporr_pmpi.so: each takes over the Fortran call the C
// interceptor of pmpi.cc would take over, through the same entry points of pmpi_abi.h
// (toporr_pmpi_allreduce, ..., toporr_pmpi_dist_graph_create) and the same guards
// (pmpi_guards.h); any other call, and any buffer or handle toporr cannot classify, goes to
// the MPI library's own Fortran entry point (the next definition of the same symbol)
// untouched, arguments and error code as the program passed them.
//
// Why wrap Fortran at all: Open MPI's Fortran bindings, and MPICH's mpi_f08 topology
// functions, call PMPI_* or their own internals, not the C MPI_* symbols, so the C
// interceptors never see them. MPICH's old bindings and its mpi_f08 collectives call the C
// MPI_* symbols through the dynamic linker; its old bindings are wrapped all the same (a
// call toporr takes never reaches them, one passed on to them meets the C interceptor's
// test), its mpi_f08 collectives are not (below). What is wrapped (gfortran; Debian's
// Open MPI 4.1 and MPICH 4.0):
//   - mpif.h and `use mpi`: every name mangling (mpi_x_, mpi_x__, mpi_x, MPI_X) of
//     MPI_ALLREDUCE, MPI_BCAST, MPI_REDUCE, MPI_ALLGATHER, their nonblocking forms
//     (MPI_IALLREDUCE, ...) and persistent forms (below), MPI_CART_CREATE, MPI_GRAPH_CREATE,
//     MPI_CART_MAP, MPI_GRAPH_MAP, MPI_DIST_GRAPH_CREATE and MPI_DIST_GRAPH_CREATE_ADJACENT.
//   - `use mpi_f08`: the procedures the module's generic names resolve to, mpi_x_f08_.
//     Open MPI exports them for all ten, the four nonblocking and the four persistent
//     collectives (its collectives call ompi_x_f, which calls PMPI_X;
//     its topology functions call pmpi_x_). MPICH exports mpi_x_f08_ for the six topology
//     functions (they call PMPI_X), but not for the collectives: `use mpi_f08` calls its
//     mpi_allreduce_f08ts_, mpi_bcast_f08ts_, mpi_reduce_f08ts_ and mpi_allgather_f08ts_
//     (choice buffers as descriptors), and their mpi_x_init_f08ts_ and nonblocking
//     counterparts, which call the C MPI_Allreduce, ... through the dynamic linker, so
//     pmpi.cc's C interceptors take them and nothing here does. The PMPI names (pmpi_x_,
//     pmpi_x_f08_) are left to tools.
//   - The persistent collectives MPI_ALLREDUCE_INIT, MPI_BCAST_INIT, MPI_REDUCE_INIT and
//     MPI_ALLGATHER_INIT exist where pmpi.cc's C ones do (TOPORR_PERSISTENT,
//     persistent_abi.h), under the same names: MPI-4's and Open MPI 5's MPI_X_INIT
//     (mpi_x_init_ ..., Open MPI's mpi_x_init_f08_), and Open MPI 4.1's MPIX_X_INIT of its
//     pcollreq extension (`use mpi_ext`, `use mpi_f08_ext`: mpix_x_init_ ...,
//     mpix_x_init_f08_, which call ompix_x_init_f, which calls PMPIX_X_init). An MPI library
//     without them has none wrapped. MPICH 4.2 exports only the mpi_x_init_ mangling.
// Argument conventions, the same in both bindings and libraries: every argument by
// reference; handles are an INTEGER (mpi_f08: type(MPI_Comm) etc., one INTEGER MPI_VAL);
// LOGICAL is true when nonzero; mpi_f08's ierror is optional (a null address when absent);
// choice buffers of the wrapped collectives are plain addresses (Open MPI's module passes
// arrays without descriptors, contiguous copies where needed).
// Sentinels are addresses private to each library: Open MPI's MPI_IN_PLACE, MPI_BOTTOM,
// MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY are its common blocks mpi_fortran_in_place_,
// mpi_fortran_bottom_, mpi_fortran_unweighted_ and mpi_fortran_weights_empty_ in both
// bindings; MPICH's old bindings keep pointers to theirs in MPIR_F_MPI_IN_PLACE,
// MPIR_F_MPI_BOTTOM, MPIR_F_MPI_UNWEIGHTED and MPIR_F_MPI_WEIGHTS_EMPTY, and its mpi_f08
// module's MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY are the variables
// __mpi_f08_link_constants_MOD_mpi_unweighted / _mpi_weights_empty. A library whose
// sentinels are not found has its calls left to it. MPI_UNDEFINED has the same value in C
// and Fortran in both libraries.
#include <dlfcn.h>
#include <mpi.h>

#include <atomic>
#include <climits>
#include <vector>

#include "client/mpi/persistent_abi.h"
#include "client/mpi/pmpi_abi.h"
#include "client/mpi/pmpi_guards.h"

namespace {

using toporr::pmpi::Collective;
using toporr::pmpi::Large;
using toporr::pmpi::Topology;

// The MPI library's own Fortran entry point `name` (the next definition after ours).
template <typename F>
F Next(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

// A Fortran call's error code: mpi_f08's ierror is optional (null when absent).
void SetError(MPI_Fint* ierr, int rc) {
  if (ierr != nullptr) *ierr = rc;
}

// The MPI library's Fortran sentinels (see the top of this file); null when not found.
struct FortranSentinels {
  const void* in_place = nullptr;
  const void* bottom = nullptr;
  bool known = false;  // in_place and bottom
  // MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY of mpif.h / `use mpi`, and of `use mpi_f08`.
  const void* unweighted = nullptr;
  const void* weights_empty = nullptr;
  const void* f08_unweighted = nullptr;
  const void* f08_weights_empty = nullptr;

  FortranSentinels() {
    if (void* p = dlsym(RTLD_DEFAULT, "mpi_fortran_in_place_")) {
      in_place = p;
      bottom = dlsym(RTLD_DEFAULT, "mpi_fortran_bottom_");
      known = bottom != nullptr;
      unweighted = f08_unweighted = dlsym(RTLD_DEFAULT, "mpi_fortran_unweighted_");
      weights_empty = f08_weights_empty = dlsym(RTLD_DEFAULT, "mpi_fortran_weights_empty_");
    } else if (dlsym(RTLD_DEFAULT, "MPIR_F_MPI_IN_PLACE") != nullptr) {
      in_place = Pointee("MPIR_F_MPI_IN_PLACE");
      bottom = Pointee("MPIR_F_MPI_BOTTOM");
      known = in_place != nullptr && bottom != nullptr;
      unweighted = Pointee("MPIR_F_MPI_UNWEIGHTED");
      weights_empty = Pointee("MPIR_F_MPI_WEIGHTS_EMPTY");
      f08_unweighted = dlsym(RTLD_DEFAULT, "__mpi_f08_link_constants_MOD_mpi_unweighted");
      f08_weights_empty = dlsym(RTLD_DEFAULT, "__mpi_f08_link_constants_MOD_mpi_weights_empty");
    }
  }

  // The address held by the pointer variable `name`.
  static const void* Pointee(const char* name) {
    auto** p = static_cast<void**>(dlsym(RTLD_DEFAULT, name));
    return p != nullptr ? *p : nullptr;
  }
};

// Read at each intercepted call until known, then kept. MPICH sets its pointers in the first
// call of its old bindings (their MPI_INIT; after mpi_f08's MPI_Init, which does not set
// them, whichever old-binding call comes first), so a call intercepted before that finds
// them unknown and goes to the library.
FortranSentinels Sentinels() {
  static std::atomic<const FortranSentinels*> kept{nullptr};
  if (const FortranSentinels* s = kept.load(std::memory_order_acquire)) return *s;
  const FortranSentinels now;
  if (now.known) {
    const FortranSentinels* expected = nullptr;
    auto* s = new FortranSentinels(now);  // kept until the process exits
    if (!kept.compare_exchange_strong(expected, s, std::memory_order_acq_rel)) delete s;
  }
  return now;
}

// ---- collectives ----

using AllreduceF = void (*)(void*, void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*);
using BcastF = void (*)(void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*);
using ReduceF = void (*)(void*, void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*,
                         MPI_Fint*);
using AllgatherF = void (*)(void*, MPI_Fint*, MPI_Fint*, void*, MPI_Fint*, MPI_Fint*, MPI_Fint*,
                            MPI_Fint*);

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
  const MPI_Comm c = MPI_Comm_f2c(*comm);
  SetError(ierr, Collective(TOPORR_PROFILE_ALLREDUCE, c, *count, t, [&] {
             return toporr_pmpi_allreduce(sendbuf == f.in_place ? MPI_IN_PLACE : sendbuf, recvbuf,
                                          *count, t, MPI_Op_f2c(*op), c);
           }));
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
  const MPI_Comm c = MPI_Comm_f2c(*comm);
  SetError(ierr, Collective(TOPORR_PROFILE_BCAST, c, *count, t,
                            [&] { return toporr_pmpi_bcast(buffer, *count, t, *root, c); }));
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
  const MPI_Comm c = MPI_Comm_f2c(*comm);
  SetError(ierr, Collective(TOPORR_PROFILE_REDUCE, c, *count, t, [&] {
             return toporr_pmpi_reduce(sendbuf == f.in_place ? MPI_IN_PLACE : sendbuf, recvbuf,
                                       *count, t, MPI_Op_f2c(*op), *root, c);
           }));
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
  const MPI_Comm c = MPI_Comm_f2c(*comm);
  const bool in_place = sendbuf == f.in_place;  // then sendcount/sendtype are ignored
  SetError(ierr, Collective(TOPORR_PROFILE_ALLGATHER, c, *recvcount, rt, [&] {
             return toporr_pmpi_allgather(in_place ? MPI_IN_PLACE : sendbuf, *sendcount,
                                          in_place ? rt : MPI_Type_f2c(*sendtype), recvbuf,
                                          *recvcount, rt, c);
           }));
}

// ---- nonblocking collectives ----
// MPI_IALLREDUCE, MPI_IBCAST, MPI_IREDUCE and MPI_IALLGATHER: the arguments of the blocking
// call and a request (an INTEGER, mpi_f08's type(MPI_Request)) before ierror. Counted for
// TOPORR_PROFILE, not timed, as the C interceptors do.

using IallreduceF = void (*)(void*, void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*,
                             MPI_Fint*);
using IbcastF = void (*)(void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*);
using IreduceF = void (*)(void*, void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*,
                          MPI_Fint*, MPI_Fint*);
using IallgatherF = void (*)(void*, MPI_Fint*, MPI_Fint*, void*, MPI_Fint*, MPI_Fint*, MPI_Fint*,
                             MPI_Fint*, MPI_Fint*);

// Runs `start` (a toporr_pmpi_i* call filling a C request); the Fortran request is set when
// it succeeded, the error code in any case.
template <typename Run>
void RequestF77(MPI_Fint* request, MPI_Fint* ierr, Run start) {
  MPI_Request r = MPI_REQUEST_NULL;
  const int rc = start(&r);
  if (rc == MPI_SUCCESS) *request = MPI_Request_c2f(r);
  SetError(ierr, rc);
}

// Starts `start` (a toporr_pmpi_i* call filling a C request), counted as `collective`; the
// Fortran request is set when it started.
template <typename Run>
void StartF77(int collective, MPI_Comm c, long long count, MPI_Datatype t, MPI_Fint* request,
              MPI_Fint* ierr, Run start) {
  if (toporr_profile.enabled) toporr_profile_collective(collective, c, count, t);
  RequestF77(request, ierr, start);
}

void IallreduceF77(const char* name, void* sendbuf, void* recvbuf, MPI_Fint* count, MPI_Fint* type,
                   MPI_Fint* op, MPI_Fint* comm, MPI_Fint* request, MPI_Fint* ierr) {
  const MPI_Datatype t = MPI_Type_f2c(*type);
  const FortranSentinels& f = Sentinels();
  if (!f.known || !Large(*count, t) || sendbuf == f.bottom || recvbuf == f.bottom) {
    if (IallreduceF next = Next<IallreduceF>(name)) {
      next(sendbuf, recvbuf, count, type, op, comm, request, ierr);
      return;
    }
  }
  const MPI_Comm c = MPI_Comm_f2c(*comm);
  StartF77(TOPORR_PROFILE_ALLREDUCE, c, *count, t, request, ierr, [&](MPI_Request* r) {
    return toporr_pmpi_iallreduce(sendbuf == f.in_place ? MPI_IN_PLACE : sendbuf, recvbuf, *count,
                                  t, MPI_Op_f2c(*op), c, 0, MPI_INFO_NULL, r);
  });
}

void IbcastF77(const char* name, void* buffer, MPI_Fint* count, MPI_Fint* type, MPI_Fint* root,
               MPI_Fint* comm, MPI_Fint* request, MPI_Fint* ierr) {
  const MPI_Datatype t = MPI_Type_f2c(*type);
  const FortranSentinels& f = Sentinels();
  if (!f.known || !Large(*count, t) || buffer == f.bottom) {
    if (IbcastF next = Next<IbcastF>(name)) {
      next(buffer, count, type, root, comm, request, ierr);
      return;
    }
  }
  const MPI_Comm c = MPI_Comm_f2c(*comm);
  StartF77(TOPORR_PROFILE_BCAST, c, *count, t, request, ierr, [&](MPI_Request* r) {
    return toporr_pmpi_ibcast(buffer, *count, t, *root, c, 0, MPI_INFO_NULL, r);
  });
}

void IreduceF77(const char* name, void* sendbuf, void* recvbuf, MPI_Fint* count, MPI_Fint* type,
                MPI_Fint* op, MPI_Fint* root, MPI_Fint* comm, MPI_Fint* request, MPI_Fint* ierr) {
  const MPI_Datatype t = MPI_Type_f2c(*type);
  const FortranSentinels& f = Sentinels();
  if (!f.known || !Large(*count, t) || sendbuf == f.bottom || recvbuf == f.bottom) {
    if (IreduceF next = Next<IreduceF>(name)) {
      next(sendbuf, recvbuf, count, type, op, root, comm, request, ierr);
      return;
    }
  }
  const MPI_Comm c = MPI_Comm_f2c(*comm);
  StartF77(TOPORR_PROFILE_REDUCE, c, *count, t, request, ierr, [&](MPI_Request* r) {
    return toporr_pmpi_ireduce(sendbuf == f.in_place ? MPI_IN_PLACE : sendbuf, recvbuf, *count, t,
                               MPI_Op_f2c(*op), *root, c, 0, MPI_INFO_NULL, r);
  });
}

void IallgatherF77(const char* name, void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype,
                   void* recvbuf, MPI_Fint* recvcount, MPI_Fint* recvtype, MPI_Fint* comm,
                   MPI_Fint* request, MPI_Fint* ierr) {
  const MPI_Datatype rt = MPI_Type_f2c(*recvtype);
  const FortranSentinels& f = Sentinels();
  if (!f.known || !Large(*recvcount, rt) || sendbuf == f.bottom || recvbuf == f.bottom) {
    if (IallgatherF next = Next<IallgatherF>(name)) {
      next(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request, ierr);
      return;
    }
  }
  const MPI_Comm c = MPI_Comm_f2c(*comm);
  const bool in_place = sendbuf == f.in_place;  // then sendcount/sendtype are ignored
  StartF77(TOPORR_PROFILE_ALLGATHER, c, *recvcount, rt, request, ierr, [&](MPI_Request* r) {
    return toporr_pmpi_iallgather(in_place ? MPI_IN_PLACE : sendbuf, *sendcount,
                                  in_place ? rt : MPI_Type_f2c(*sendtype), recvbuf, *recvcount, rt,
                                  c, 0, MPI_INFO_NULL, r);
  });
}

// ---- persistent collectives ----
// MPI_ALLREDUCE_INIT, MPI_BCAST_INIT, MPI_REDUCE_INIT and MPI_ALLGATHER_INIT (Open MPI 4.1:
// MPIX_..._INIT): the arguments of the nonblocking call with an info (an INTEGER, mpi_f08's
// type(MPI_Info)) before the request. The request is created, not started; not counted for
// TOPORR_PROFILE, as the C interceptors do not count persistent collectives.
#ifdef TOPORR_PERSISTENT

using AllreduceInitF = void (*)(void*, void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*,
                                MPI_Fint*, MPI_Fint*);
using BcastInitF = void (*)(void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*,
                            MPI_Fint*);
using ReduceInitF = void (*)(void*, void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*,
                             MPI_Fint*, MPI_Fint*, MPI_Fint*);
using AllgatherInitF = void (*)(void*, MPI_Fint*, MPI_Fint*, void*, MPI_Fint*, MPI_Fint*, MPI_Fint*,
                                MPI_Fint*, MPI_Fint*, MPI_Fint*);

void AllreduceInitF77(const char* name, void* sendbuf, void* recvbuf, MPI_Fint* count,
                      MPI_Fint* type, MPI_Fint* op, MPI_Fint* comm, MPI_Fint* info,
                      MPI_Fint* request, MPI_Fint* ierr) {
  const MPI_Datatype t = MPI_Type_f2c(*type);
  const FortranSentinels& f = Sentinels();
  if (!f.known || !Large(*count, t) || sendbuf == f.bottom || recvbuf == f.bottom) {
    if (AllreduceInitF next = Next<AllreduceInitF>(name)) {
      next(sendbuf, recvbuf, count, type, op, comm, info, request, ierr);
      return;
    }
  }
  RequestF77(request, ierr, [&](MPI_Request* r) {
    return toporr_pmpi_iallreduce(sendbuf == f.in_place ? MPI_IN_PLACE : sendbuf, recvbuf, *count,
                                  t, MPI_Op_f2c(*op), MPI_Comm_f2c(*comm), 1, MPI_Info_f2c(*info),
                                  r);
  });
}

void BcastInitF77(const char* name, void* buffer, MPI_Fint* count, MPI_Fint* type, MPI_Fint* root,
                  MPI_Fint* comm, MPI_Fint* info, MPI_Fint* request, MPI_Fint* ierr) {
  const MPI_Datatype t = MPI_Type_f2c(*type);
  const FortranSentinels& f = Sentinels();
  if (!f.known || !Large(*count, t) || buffer == f.bottom) {
    if (BcastInitF next = Next<BcastInitF>(name)) {
      next(buffer, count, type, root, comm, info, request, ierr);
      return;
    }
  }
  RequestF77(request, ierr, [&](MPI_Request* r) {
    return toporr_pmpi_ibcast(buffer, *count, t, *root, MPI_Comm_f2c(*comm), 1, MPI_Info_f2c(*info),
                              r);
  });
}

void ReduceInitF77(const char* name, void* sendbuf, void* recvbuf, MPI_Fint* count, MPI_Fint* type,
                   MPI_Fint* op, MPI_Fint* root, MPI_Fint* comm, MPI_Fint* info, MPI_Fint* request,
                   MPI_Fint* ierr) {
  const MPI_Datatype t = MPI_Type_f2c(*type);
  const FortranSentinels& f = Sentinels();
  if (!f.known || !Large(*count, t) || sendbuf == f.bottom || recvbuf == f.bottom) {
    if (ReduceInitF next = Next<ReduceInitF>(name)) {
      next(sendbuf, recvbuf, count, type, op, root, comm, info, request, ierr);
      return;
    }
  }
  RequestF77(request, ierr, [&](MPI_Request* r) {
    return toporr_pmpi_ireduce(sendbuf == f.in_place ? MPI_IN_PLACE : sendbuf, recvbuf, *count, t,
                               MPI_Op_f2c(*op), *root, MPI_Comm_f2c(*comm), 1, MPI_Info_f2c(*info),
                               r);
  });
}

void AllgatherInitF77(const char* name, void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype,
                      void* recvbuf, MPI_Fint* recvcount, MPI_Fint* recvtype, MPI_Fint* comm,
                      MPI_Fint* info, MPI_Fint* request, MPI_Fint* ierr) {
  const MPI_Datatype rt = MPI_Type_f2c(*recvtype);
  const FortranSentinels& f = Sentinels();
  if (!f.known || !Large(*recvcount, rt) || sendbuf == f.bottom || recvbuf == f.bottom) {
    if (AllgatherInitF next = Next<AllgatherInitF>(name)) {
      next(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, request, ierr);
      return;
    }
  }
  const bool in_place = sendbuf == f.in_place;  // then sendcount/sendtype are ignored
  RequestF77(request, ierr, [&](MPI_Request* r) {
    return toporr_pmpi_iallgather(in_place ? MPI_IN_PLACE : sendbuf, *sendcount,
                                  in_place ? rt : MPI_Type_f2c(*sendtype), recvbuf, *recvcount, rt,
                                  MPI_Comm_f2c(*comm), 1, MPI_Info_f2c(*info), r);
  });
}

#endif  // TOPORR_PERSISTENT

// ---- topology functions ----

using CartF = void (*)(MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*);
using GraphF = void (*)(MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*,
                        MPI_Fint*);
// MPI_CART_MAP and MPI_GRAPH_MAP: (comm, ndims|nnodes, dims|index, periods|edges, newrank, ierr).
using MapF = void (*)(MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*);
// MPI_DIST_GRAPH_CREATE_ADJACENT: (comm_old, indegree, sources, sourceweights, outdegree,
// destinations, destweights, info, reorder, comm_dist_graph, ierr).
using DistAdjacentF = void (*)(MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*,
                               MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*);
// MPI_DIST_GRAPH_CREATE: (comm_old, n, sources, degrees, destinations, weights, info,
// reorder, comm_dist_graph, ierr).
using DistF = void (*)(MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*,
                       MPI_Fint*, MPI_Fint*, MPI_Fint*);

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
  SetError(ierr, Topology([&] {
             return toporr_pmpi_cart_create(MPI_Comm_f2c(*comm_old), *ndims, d.data(), p.data(),
                                            *reorder != 0, &out);
           }));
  *comm_cart = MPI_Comm_c2f(out);
}

// MPI_CART_MAP and MPI_GRAPH_MAP: the MPI library's own call where toporr does not act, else
// `map(comm, &newrank)` with the arguments made C's.
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
  SetError(ierr, Topology([&] { return map(MPI_Comm_f2c(*comm), &rank); }));
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
  SetError(ierr, Topology([&] {
             return toporr_pmpi_graph_create(MPI_Comm_f2c(*comm_old), *nnodes, g.index.data(),
                                             g.edges.data(), *reorder != 0, &out);
           }));
  *comm_graph = MPI_Comm_c2f(out);
}

void GraphMapF77(const char* name, MPI_Fint* comm, MPI_Fint* nnodes, MPI_Fint* index,
                 MPI_Fint* edges, MPI_Fint* newrank, MPI_Fint* ierr) {
  MapF77(name, comm, nnodes, index, edges, newrank, ierr, [&](MPI_Comm c, int* rank) {
    const CGraph g(*nnodes, index, edges);
    return toporr_pmpi_graph_map(c, *nnodes, g.index.data(), g.edges.data(), rank);
  });
}

// The two weight sentinels of the binding a call came through.
struct WeightSentinels {
  const void* unweighted;
  const void* weights_empty;
  bool Known() const { return unweighted != nullptr && weights_empty != nullptr; }
};

WeightSentinels OldWeights() {
  const FortranSentinels s = Sentinels();
  return {s.unweighted, s.weights_empty};
}
WeightSentinels F08Weights() {
  const FortranSentinels s = Sentinels();
  return {s.f08_unweighted, s.f08_weights_empty};
}

// A Fortran int array of n >= 0 elements as C's. Weights may be the binding's
// MPI_UNWEIGHTED or MPI_WEIGHTS_EMPTY (then C's); a copy always has an element, so that an
// empty list is never a null address.
class CInts {
 public:
  CInts(const MPI_Fint* a, int n) : copy_(n > 0 ? n : 1) {
    for (int i = 0; i < n; ++i) copy_[i] = a[i];
    data_ = copy_.data();
  }
  CInts(const MPI_Fint* w, int n, const WeightSentinels& s) : CInts(w, IsSentinel(w, s) ? 0 : n) {
    if (w == s.unweighted) data_ = MPI_UNWEIGHTED;
    if (w == s.weights_empty) data_ = MPI_WEIGHTS_EMPTY;
  }
  const int* data() const { return data_; }

 private:
  static bool IsSentinel(const MPI_Fint* w, const WeightSentinels& s) {
    return w == s.unweighted || w == s.weights_empty;
  }
  std::vector<int> copy_;
  const int* data_;
};

void DistAdjacentF77(const char* name, const WeightSentinels& weights, MPI_Fint* comm_old,
                     MPI_Fint* indegree, MPI_Fint* sources, MPI_Fint* sourceweights,
                     MPI_Fint* outdegree, MPI_Fint* destinations, MPI_Fint* destweights,
                     MPI_Fint* info, MPI_Fint* reorder, MPI_Fint* comm_dist_graph, MPI_Fint* ierr) {
  if (*reorder == 0 || toporr_pmpi_disabled() || !weights.Known() || *indegree < 0 ||
      *outdegree < 0) {
    if (DistAdjacentF next = Next<DistAdjacentF>(name)) {
      next(comm_old, indegree, sources, sourceweights, outdegree, destinations, destweights, info,
           reorder, comm_dist_graph, ierr);
      return;
    }
  }
  const CInts src(sources, *indegree), src_w(sourceweights, *indegree, weights);
  const CInts dst(destinations, *outdegree), dst_w(destweights, *outdegree, weights);
  MPI_Comm out = MPI_COMM_NULL;
  SetError(ierr, Topology([&] {
             return toporr_pmpi_dist_graph_create_adjacent(
                 MPI_Comm_f2c(*comm_old), *indegree, src.data(), src_w.data(), *outdegree,
                 dst.data(), dst_w.data(), MPI_Info_f2c(*info), *reorder != 0, &out);
           }));
  *comm_dist_graph = MPI_Comm_c2f(out);
}

void DistF77(const char* name, const WeightSentinels& weights, MPI_Fint* comm_old, MPI_Fint* n,
             MPI_Fint* sources, MPI_Fint* degrees, MPI_Fint* destinations, MPI_Fint* weights_in,
             MPI_Fint* info, MPI_Fint* reorder, MPI_Fint* comm_dist_graph, MPI_Fint* ierr) {
  long long edges = 0;
  bool valid = *n >= 0;
  for (int i = 0; valid && i < *n; ++i) {
    valid = degrees[i] >= 0;
    edges += degrees[i];
  }
  // An erroneous count goes to the library, which reports it.
  if (*reorder == 0 || toporr_pmpi_disabled() || !weights.Known() || !valid || edges > INT_MAX) {
    if (DistF next = Next<DistF>(name)) {
      next(comm_old, n, sources, degrees, destinations, weights_in, info, reorder, comm_dist_graph,
           ierr);
      return;
    }
  }
  const int m = valid ? static_cast<int>(edges) : 0;
  const CInts src(sources, valid ? *n : 0), deg(degrees, valid ? *n : 0);
  const CInts dst(destinations, m), w(weights_in, m, weights);
  MPI_Comm out = MPI_COMM_NULL;
  SetError(ierr, Topology([&] {
             return toporr_pmpi_dist_graph_create(MPI_Comm_f2c(*comm_old), *n, src.data(),
                                                  deg.data(), dst.data(), w.data(),
                                                  MPI_Info_f2c(*info), *reorder != 0, &out);
           }));
  *comm_dist_graph = MPI_Comm_c2f(out);
}

}  // namespace

// One wrapper per exported symbol: each passes its own name on, to find the library's.

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
#define TOPORR_FORTRAN_IALLREDUCE(sym)                                                      \
  extern "C" void sym(void* s, void* r, MPI_Fint* n, MPI_Fint* t, MPI_Fint* o, MPI_Fint* c, \
                      MPI_Fint* q, MPI_Fint* ierr) {                                        \
    IallreduceF77(#sym, s, r, n, t, o, c, q, ierr);                                         \
  }
#define TOPORR_FORTRAN_IBCAST(sym)                                                                 \
  extern "C" void sym(void* b, MPI_Fint* n, MPI_Fint* t, MPI_Fint* root, MPI_Fint* c, MPI_Fint* q, \
                      MPI_Fint* ierr) {                                                            \
    IbcastF77(#sym, b, n, t, root, c, q, ierr);                                                    \
  }
#define TOPORR_FORTRAN_IREDUCE(sym)                                                            \
  extern "C" void sym(void* s, void* r, MPI_Fint* n, MPI_Fint* t, MPI_Fint* o, MPI_Fint* root, \
                      MPI_Fint* c, MPI_Fint* q, MPI_Fint* ierr) {                              \
    IreduceF77(#sym, s, r, n, t, o, root, c, q, ierr);                                         \
  }
#define TOPORR_FORTRAN_IALLGATHER(sym)                                                          \
  extern "C" void sym(void* s, MPI_Fint* sn, MPI_Fint* st, void* r, MPI_Fint* rn, MPI_Fint* rt, \
                      MPI_Fint* c, MPI_Fint* q, MPI_Fint* ierr) {                               \
    IallgatherF77(#sym, s, sn, st, r, rn, rt, c, q, ierr);                                      \
  }
#define TOPORR_FORTRAN_ALLREDUCE_INIT(sym)                                                  \
  extern "C" void sym(void* s, void* r, MPI_Fint* n, MPI_Fint* t, MPI_Fint* o, MPI_Fint* c, \
                      MPI_Fint* info, MPI_Fint* q, MPI_Fint* ierr) {                        \
    AllreduceInitF77(#sym, s, r, n, t, o, c, info, q, ierr);                                \
  }
#define TOPORR_FORTRAN_BCAST_INIT(sym)                                                \
  extern "C" void sym(void* b, MPI_Fint* n, MPI_Fint* t, MPI_Fint* root, MPI_Fint* c, \
                      MPI_Fint* info, MPI_Fint* q, MPI_Fint* ierr) {                  \
    BcastInitF77(#sym, b, n, t, root, c, info, q, ierr);                              \
  }
#define TOPORR_FORTRAN_REDUCE_INIT(sym)                                                        \
  extern "C" void sym(void* s, void* r, MPI_Fint* n, MPI_Fint* t, MPI_Fint* o, MPI_Fint* root, \
                      MPI_Fint* c, MPI_Fint* info, MPI_Fint* q, MPI_Fint* ierr) {              \
    ReduceInitF77(#sym, s, r, n, t, o, root, c, info, q, ierr);                                \
  }
#define TOPORR_FORTRAN_ALLGATHER_INIT(sym)                                                      \
  extern "C" void sym(void* s, MPI_Fint* sn, MPI_Fint* st, void* r, MPI_Fint* rn, MPI_Fint* rt, \
                      MPI_Fint* c, MPI_Fint* info, MPI_Fint* q, MPI_Fint* ierr) {               \
    AllgatherInitF77(#sym, s, sn, st, r, rn, rt, c, info, q, ierr);                             \
  }
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
#define TOPORR_FORTRAN_MAP(sym, body)                                                        \
  extern "C" void sym(MPI_Fint* c, MPI_Fint* n, MPI_Fint* a, MPI_Fint* b, MPI_Fint* newrank, \
                      MPI_Fint* ierr) {                                                      \
    body(#sym, c, n, a, b, newrank, ierr);                                                   \
  }
// `weights`: OldWeights (mpif.h, `use mpi`) or F08Weights (`use mpi_f08`).
#define TOPORR_FORTRAN_DIST_ADJACENT(sym, weights)                                               \
  extern "C" void sym(MPI_Fint* c, MPI_Fint* in, MPI_Fint* s, MPI_Fint* sw, MPI_Fint* out,       \
                      MPI_Fint* d, MPI_Fint* dw, MPI_Fint* info, MPI_Fint* r, MPI_Fint* newcomm, \
                      MPI_Fint* ierr) {                                                          \
    DistAdjacentF77(#sym, weights(), c, in, s, sw, out, d, dw, info, r, newcomm, ierr);          \
  }
#define TOPORR_FORTRAN_DIST(sym, weights)                                                \
  extern "C" void sym(MPI_Fint* c, MPI_Fint* n, MPI_Fint* s, MPI_Fint* deg, MPI_Fint* d, \
                      MPI_Fint* w, MPI_Fint* info, MPI_Fint* r, MPI_Fint* newcomm,       \
                      MPI_Fint* ierr) {                                                  \
    DistF77(#sym, weights(), c, n, s, deg, d, w, info, r, newcomm, ierr);                \
  }

// mpif.h and `use mpi`, every mangling.
TOPORR_FORTRAN_ALLREDUCE(mpi_allreduce_)
TOPORR_FORTRAN_ALLREDUCE(mpi_allreduce__)
TOPORR_FORTRAN_ALLREDUCE(mpi_allreduce)
TOPORR_FORTRAN_ALLREDUCE(MPI_ALLREDUCE)
TOPORR_FORTRAN_BCAST(mpi_bcast_)
TOPORR_FORTRAN_BCAST(mpi_bcast__)
TOPORR_FORTRAN_BCAST(mpi_bcast)
TOPORR_FORTRAN_BCAST(MPI_BCAST)
TOPORR_FORTRAN_REDUCE(mpi_reduce_)
TOPORR_FORTRAN_REDUCE(mpi_reduce__)
TOPORR_FORTRAN_REDUCE(mpi_reduce)
TOPORR_FORTRAN_REDUCE(MPI_REDUCE)
TOPORR_FORTRAN_ALLGATHER(mpi_allgather_)
TOPORR_FORTRAN_ALLGATHER(mpi_allgather__)
TOPORR_FORTRAN_ALLGATHER(mpi_allgather)
TOPORR_FORTRAN_ALLGATHER(MPI_ALLGATHER)
TOPORR_FORTRAN_IALLREDUCE(mpi_iallreduce_)
TOPORR_FORTRAN_IALLREDUCE(mpi_iallreduce__)
TOPORR_FORTRAN_IALLREDUCE(mpi_iallreduce)
TOPORR_FORTRAN_IALLREDUCE(MPI_IALLREDUCE)
TOPORR_FORTRAN_IBCAST(mpi_ibcast_)
TOPORR_FORTRAN_IBCAST(mpi_ibcast__)
TOPORR_FORTRAN_IBCAST(mpi_ibcast)
TOPORR_FORTRAN_IBCAST(MPI_IBCAST)
TOPORR_FORTRAN_IREDUCE(mpi_ireduce_)
TOPORR_FORTRAN_IREDUCE(mpi_ireduce__)
TOPORR_FORTRAN_IREDUCE(mpi_ireduce)
TOPORR_FORTRAN_IREDUCE(MPI_IREDUCE)
TOPORR_FORTRAN_IALLGATHER(mpi_iallgather_)
TOPORR_FORTRAN_IALLGATHER(mpi_iallgather__)
TOPORR_FORTRAN_IALLGATHER(mpi_iallgather)
TOPORR_FORTRAN_IALLGATHER(MPI_IALLGATHER)
TOPORR_FORTRAN_CART(mpi_cart_create_)
TOPORR_FORTRAN_CART(mpi_cart_create__)
TOPORR_FORTRAN_CART(mpi_cart_create)
TOPORR_FORTRAN_CART(MPI_CART_CREATE)
TOPORR_FORTRAN_GRAPH(mpi_graph_create_)
TOPORR_FORTRAN_GRAPH(mpi_graph_create__)
TOPORR_FORTRAN_GRAPH(mpi_graph_create)
TOPORR_FORTRAN_GRAPH(MPI_GRAPH_CREATE)
TOPORR_FORTRAN_MAP(mpi_cart_map_, CartMapF77)
TOPORR_FORTRAN_MAP(mpi_cart_map__, CartMapF77)
TOPORR_FORTRAN_MAP(mpi_cart_map, CartMapF77)
TOPORR_FORTRAN_MAP(MPI_CART_MAP, CartMapF77)
TOPORR_FORTRAN_MAP(mpi_graph_map_, GraphMapF77)
TOPORR_FORTRAN_MAP(mpi_graph_map__, GraphMapF77)
TOPORR_FORTRAN_MAP(mpi_graph_map, GraphMapF77)
TOPORR_FORTRAN_MAP(MPI_GRAPH_MAP, GraphMapF77)
TOPORR_FORTRAN_DIST_ADJACENT(mpi_dist_graph_create_adjacent_, OldWeights)
TOPORR_FORTRAN_DIST_ADJACENT(mpi_dist_graph_create_adjacent__, OldWeights)
TOPORR_FORTRAN_DIST_ADJACENT(mpi_dist_graph_create_adjacent, OldWeights)
TOPORR_FORTRAN_DIST_ADJACENT(MPI_DIST_GRAPH_CREATE_ADJACENT, OldWeights)
TOPORR_FORTRAN_DIST(mpi_dist_graph_create_, OldWeights)
TOPORR_FORTRAN_DIST(mpi_dist_graph_create__, OldWeights)
TOPORR_FORTRAN_DIST(mpi_dist_graph_create, OldWeights)
TOPORR_FORTRAN_DIST(MPI_DIST_GRAPH_CREATE, OldWeights)

// `use mpi_f08` (the collectives: Open MPI's; MPICH's reach the C interceptors).
TOPORR_FORTRAN_ALLREDUCE(mpi_allreduce_f08_)
TOPORR_FORTRAN_BCAST(mpi_bcast_f08_)
TOPORR_FORTRAN_REDUCE(mpi_reduce_f08_)
TOPORR_FORTRAN_ALLGATHER(mpi_allgather_f08_)
TOPORR_FORTRAN_IALLREDUCE(mpi_iallreduce_f08_)
TOPORR_FORTRAN_IBCAST(mpi_ibcast_f08_)
TOPORR_FORTRAN_IREDUCE(mpi_ireduce_f08_)
TOPORR_FORTRAN_IALLGATHER(mpi_iallgather_f08_)
TOPORR_FORTRAN_CART(mpi_cart_create_f08_)
TOPORR_FORTRAN_GRAPH(mpi_graph_create_f08_)
TOPORR_FORTRAN_MAP(mpi_cart_map_f08_, CartMapF77)
TOPORR_FORTRAN_MAP(mpi_graph_map_f08_, GraphMapF77)
TOPORR_FORTRAN_DIST_ADJACENT(mpi_dist_graph_create_adjacent_f08_, F08Weights)
TOPORR_FORTRAN_DIST(mpi_dist_graph_create_f08_, F08Weights)

// The persistent collectives under the names pmpi.cc's C ones have (persistent_abi.h): old
// bindings in every mangling, then `use mpi_f08` (Open MPI's; MPICH's reach the C ones).
#ifdef TOPORR_PERSISTENT
#if MPI_VERSION >= 4 || (defined(OPEN_MPI) && OMPI_MAJOR_VERSION >= 5)
TOPORR_FORTRAN_ALLREDUCE_INIT(mpi_allreduce_init_)
TOPORR_FORTRAN_ALLREDUCE_INIT(mpi_allreduce_init__)
TOPORR_FORTRAN_ALLREDUCE_INIT(mpi_allreduce_init)
TOPORR_FORTRAN_ALLREDUCE_INIT(MPI_ALLREDUCE_INIT)
TOPORR_FORTRAN_BCAST_INIT(mpi_bcast_init_)
TOPORR_FORTRAN_BCAST_INIT(mpi_bcast_init__)
TOPORR_FORTRAN_BCAST_INIT(mpi_bcast_init)
TOPORR_FORTRAN_BCAST_INIT(MPI_BCAST_INIT)
TOPORR_FORTRAN_REDUCE_INIT(mpi_reduce_init_)
TOPORR_FORTRAN_REDUCE_INIT(mpi_reduce_init__)
TOPORR_FORTRAN_REDUCE_INIT(mpi_reduce_init)
TOPORR_FORTRAN_REDUCE_INIT(MPI_REDUCE_INIT)
TOPORR_FORTRAN_ALLGATHER_INIT(mpi_allgather_init_)
TOPORR_FORTRAN_ALLGATHER_INIT(mpi_allgather_init__)
TOPORR_FORTRAN_ALLGATHER_INIT(mpi_allgather_init)
TOPORR_FORTRAN_ALLGATHER_INIT(MPI_ALLGATHER_INIT)
TOPORR_FORTRAN_ALLREDUCE_INIT(mpi_allreduce_init_f08_)
TOPORR_FORTRAN_BCAST_INIT(mpi_bcast_init_f08_)
TOPORR_FORTRAN_REDUCE_INIT(mpi_reduce_init_f08_)
TOPORR_FORTRAN_ALLGATHER_INIT(mpi_allgather_init_f08_)
#else  // Open MPI 4.1's pcollreq extension
TOPORR_FORTRAN_ALLREDUCE_INIT(mpix_allreduce_init_)
TOPORR_FORTRAN_ALLREDUCE_INIT(mpix_allreduce_init__)
TOPORR_FORTRAN_ALLREDUCE_INIT(mpix_allreduce_init)
TOPORR_FORTRAN_ALLREDUCE_INIT(MPIX_ALLREDUCE_INIT)
TOPORR_FORTRAN_BCAST_INIT(mpix_bcast_init_)
TOPORR_FORTRAN_BCAST_INIT(mpix_bcast_init__)
TOPORR_FORTRAN_BCAST_INIT(mpix_bcast_init)
TOPORR_FORTRAN_BCAST_INIT(MPIX_BCAST_INIT)
TOPORR_FORTRAN_REDUCE_INIT(mpix_reduce_init_)
TOPORR_FORTRAN_REDUCE_INIT(mpix_reduce_init__)
TOPORR_FORTRAN_REDUCE_INIT(mpix_reduce_init)
TOPORR_FORTRAN_REDUCE_INIT(MPIX_REDUCE_INIT)
TOPORR_FORTRAN_ALLGATHER_INIT(mpix_allgather_init_)
TOPORR_FORTRAN_ALLGATHER_INIT(mpix_allgather_init__)
TOPORR_FORTRAN_ALLGATHER_INIT(mpix_allgather_init)
TOPORR_FORTRAN_ALLGATHER_INIT(MPIX_ALLGATHER_INIT)
TOPORR_FORTRAN_ALLREDUCE_INIT(mpix_allreduce_init_f08_)
TOPORR_FORTRAN_BCAST_INIT(mpix_bcast_init_f08_)
TOPORR_FORTRAN_REDUCE_INIT(mpix_reduce_init_f08_)
TOPORR_FORTRAN_ALLGATHER_INIT(mpix_allgather_init_f08_)
#endif
#endif  // TOPORR_PERSISTENT

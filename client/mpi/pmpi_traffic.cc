// libtoporr_pmpi.so's traffic interceptors (TOPORR_PROFILE, traffic_recorder.h): every call
// below goes to the MPI library unchanged, with the same arguments and result; when the
// process records (toporr_profile.enabled) it is first counted: the commonest sends here, in
// place (CountSendInPlace), everything else by libtoporr.so through pmpi_abi.h. Without
// TOPORR_PROFILE an interceptor costs one predictable branch.
//
// Seen: MPI_Send, MPI_Bsend, MPI_Ssend, MPI_Rsend and their non-blocking forms,
// MPI_Sendrecv, MPI_Sendrecv_replace (and MPI-4's MPI_Isendrecv(_replace) where the library
// has them), persistent sends (MPI_Send_init, ... counted at each MPI_Start / MPI_Startall),
// one-sided puts, gets, accumulates, get-accumulates, fetch-and-op and compare-and-swap
// (and their request forms), and the blocking and non-blocking collectives of
// traffic_profile.h (MPI_Allreduce, MPI_Bcast, MPI_Reduce and MPI_Allgather in pmpi.cc).
// Not seen: neighbourhood collectives, persistent and partitioned collectives and sends
// (MPI-4), large-count (_c) functions, and MPI calls the MPI library makes for itself.
//
// Timed (the profile's `time` record), while recording: the calls that may wait for another
// process: MPI_Send, MPI_Ssend, MPI_Rsend, MPI_Recv, MPI_Mrecv, MPI_Sendrecv(_replace),
// MPI_Probe, MPI_Mprobe, MPI_Wait, MPI_Waitall, MPI_Waitany, MPI_Waitsome, every blocking
// collective (with pmpi.cc's), and one-sided synchronisation (MPI_Win_fence, MPI_Win_complete,
// MPI_Win_wait, MPI_Win_unlock(_all), MPI_Win_flush(_all)); each costs two clock reads then.
// Not timed: calls that return without waiting (MPI_Isend, MPI_Bsend, MPI_Test*, MPI_Iprobe,
// MPI_Put, ...), so a program that polls with MPI_Test spends its waiting outside MPI here.
//
// Recording starts when the C MPI_Init / MPI_Init_thread returns and ends in MPI_Finalize.
// Fortran: MPICH's Fortran bindings (mpif.h, `use mpi`) call these C functions, so Fortran
// programs under MPICH are recorded like C ones. Open MPI's call PMPI_* directly: the PMPI
// layer sees none of a Fortran program's calls there, not even its MPI_Init, and writes no
// profile; MPI_INIT and MPI_INIT_THREAD are wrapped (every name mangling) only to say so
// once on rank 0 when TOPORR_PROFILE is set. Open MPI's `use mpi_f08` is not wrapped.
#include <dlfcn.h>
#include <mpi.h>

#include "client/mpi/pmpi_abi.h"

namespace {

inline bool Profiling() { return __builtin_expect(toporr_profile.enabled != 0, 0); }

// A send while recording, counted in place when toporr_profile says it may be (pmpi_abi.h):
// false when it must go to libtoporr.so (toporr_profile_send) instead.
inline bool CountSendInPlace(int dest, int count, MPI_Datatype datatype, MPI_Comm comm) {
  const toporr_profile_state& s = toporr_profile;
  if (!s.inline_sends || datatype != s.type || dest < 0 || count < 0) return false;
  int world = dest;
  if (comm != MPI_COMM_WORLD) {
    if (comm != s.comm || dest >= s.comm_size) return false;
    if (s.world != nullptr && (world = s.world[dest]) < 0) return false;
  }
  const auto& r = s.recent[world % TOPORR_PROFILE_RECENT];
  if (r.dest != world) return false;
  r.counters[0] += static_cast<uint64_t>(count) * s.type_size;
  r.counters[1] += 1;
  return true;
}

// The size of `type` in bytes; 0 for MPI_DATATYPE_NULL or a type MPI cannot size in an int.
long long TypeSize(MPI_Datatype type) {
  int size = 0;
  if (type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &size) != MPI_SUCCESS) return 0;
  return size > 0 ? size : 0;
}

long long Sum(const int counts[], int n) {
  long long sum = 0;
  for (int i = 0; i < n; ++i) sum += counts[i];
  return sum;
}

// A rooted collective's per-rank block: at the root one (count, type), elsewhere another.
struct RootedBlock {
  long long root_count;
  MPI_Datatype root_type;
  long long count;
  MPI_Datatype type;
};
long long RootedBlockBytes(const void* call, int is_root, int) {
  const auto* c = static_cast<const RootedBlock*>(call);
  return is_root ? c->root_count * TypeSize(c->root_type) : c->count * TypeSize(c->type);
}

// gatherv / scatterv: the root's mean block over its count array, elsewhere (count, type).
struct RootedCounts {
  const int* root_counts;
  MPI_Datatype root_type;
  long long count;
  MPI_Datatype type;
};
long long RootedCountsBytes(const void* call, int is_root, int peers) {
  const auto* c = static_cast<const RootedCounts*>(call);
  if (!is_root) return c->count * TypeSize(c->type);
  return peers > 0 ? Sum(c->root_counts, peers) / peers * TypeSize(c->root_type) : 0;
}

// allgatherv / alltoallv: the mean block of the receive counts (one per peer).
struct Counts {
  const int* counts;
  MPI_Datatype type;
};
long long CountsBytes(const void* call, int, int peers) {
  const auto* c = static_cast<const Counts*>(call);
  return peers > 0 ? Sum(c->counts, peers) / peers * TypeSize(c->type) : 0;
}

// alltoallw: the mean of the receive blocks, each of its own type.
struct TypedCounts {
  const int* counts;
  const MPI_Datatype* types;
};
long long TypedCountsBytes(const void* call, int, int peers) {
  const auto* c = static_cast<const TypedCounts*>(call);
  long long sum = 0;
  for (int i = 0; i < peers; ++i) sum += c->counts[i] * TypeSize(c->types[i]);
  return peers > 0 ? sum / peers : 0;
}

// reduce_scatter: the mean of the receive counts, one per process of the local group.
struct ReduceScatterCounts {
  const int* counts;
  MPI_Datatype type;
  MPI_Comm comm;
};
long long ReduceScatterBytes(const void* call, int, int) {
  const auto* c = static_cast<const ReduceScatterCounts*>(call);
  int n = 0;
  PMPI_Comm_size(c->comm, &n);
  return n > 0 ? Sum(c->counts, n) / n * TypeSize(c->type) : 0;
}

// A collective whose message size `bytes(call, ...)` computes at the rank that records it.
template <typename Call>
void Sized(int collective, MPI_Comm comm, int root, toporr_profile_bytes_fn bytes,
           const Call& call) {
  toporr_profile_collective_sized(collective, comm, root, bytes, &call);
}

}  // namespace

extern "C" {

// ---- start and end ----

int MPI_Init(int* argc, char*** argv) {
  const int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) toporr_profile_begin();
  return rc;
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) toporr_profile_begin();
  return rc;
}

int MPI_Finalize(void) {
  if (Profiling()) toporr_profile_finish();
  return PMPI_Finalize();
}

// ---- point to point ----

// MPI_<name>(params): while recording, `record` and then the MPI library's PMPI_<name>(args);
// otherwise PMPI_<name>(args) alone. Both are tail calls, so the unrecorded path sets up no
// frame: a load, a test and a jump.
#define TOPORR_RECORDED(name, params, args, record)            \
  __attribute__((noinline)) static int Recorded##name params { \
    record;                                                    \
    return PMPI_##name args;                                   \
  }                                                            \
  int MPI_##name params { return Profiling() ? Recorded##name args : PMPI_##name args; }

// MPI_<name>(params), a send of `count` `datatype` to `dest` of `comm`: counted in place, or
// by libtoporr.so in Counted<name>; every path ends in a tail call of PMPI_<name>(args).
#define TOPORR_RECORDED_SENDER(name, params, args, dest, count, datatype, comm) \
  __attribute__((noinline)) static int Counted##name params {                   \
    toporr_profile_send(dest, count, datatype, comm);                           \
    return PMPI_##name args;                                                    \
  }                                                                             \
  int MPI_##name params {                                                       \
    if (Profiling() && !CountSendInPlace(dest, count, datatype, comm)) {        \
      return Counted##name args;                                                \
    }                                                                           \
    return PMPI_##name args;                                                    \
  }
// MPI_<name>(params), a call that may wait for another process: while recording, `record`
// first, then the MPI library's PMPI_<name>(args), timed into toporr_profile.mpi_ticks when
// toporr_profile.timing; otherwise PMPI_<name>(args) alone, a tail call.
#define TOPORR_TIMED(name, params, args, record)            \
  __attribute__((noinline)) static int Timed##name params { \
    record;                                                 \
    if (!toporr_profile.timing) return PMPI_##name args;    \
    const uint64_t start = toporr_profile_clock();          \
    const int rc = PMPI_##name args;                        \
    toporr_profile_add_mpi_time(start);                     \
    return rc;                                              \
  }                                                         \
  int MPI_##name params { return Profiling() ? Timed##name args : PMPI_##name args; }
// A blocking send: counted (in place or by libtoporr.so), then timed.
#define TOPORR_TIMED_SENDER(name, params, args, dest, count, datatype, comm) \
  TOPORR_TIMED(name, params, args,                                           \
               if (!CountSendInPlace(dest, count, datatype, comm))           \
                   toporr_profile_send(dest, count, datatype, comm))
#define TOPORR_SEND_PARAMS \
  (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
#define TOPORR_SEND_ARGS (buf, count, datatype, dest, tag, comm)
#define TOPORR_TIMED_SEND(name) \
  TOPORR_TIMED_SENDER(name, TOPORR_SEND_PARAMS, TOPORR_SEND_ARGS, dest, count, datatype, comm)
#define TOPORR_RECORDED_SEND(name) \
  TOPORR_RECORDED_SENDER(name, TOPORR_SEND_PARAMS, TOPORR_SEND_ARGS, dest, count, datatype, comm)
#define TOPORR_RECORDED_ISEND(name)                                                               \
  TOPORR_RECORDED_SENDER(name,                                                                    \
                         (const void* buf, int count, MPI_Datatype datatype, int dest, int tag,   \
                          MPI_Comm comm, MPI_Request* request),                                   \
                         (buf, count, datatype, dest, tag, comm, request), dest, count, datatype, \
                         comm)
#define TOPORR_PROFILED_SEND_INIT(name)                                                \
  int MPI_##name(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, \
                 MPI_Comm comm, MPI_Request* request) {                                \
    const int rc = PMPI_##name(buf, count, datatype, dest, tag, comm, request);        \
    if (Profiling() && rc == MPI_SUCCESS) {                                            \
      toporr_profile_send_init(dest, count, datatype, comm, *request);                 \
    }                                                                                  \
    return rc;                                                                         \
  }

TOPORR_TIMED_SEND(Send)
TOPORR_RECORDED_SEND(Bsend)
TOPORR_TIMED_SEND(Ssend)
TOPORR_TIMED_SEND(Rsend)
TOPORR_RECORDED_ISEND(Isend)
TOPORR_RECORDED_ISEND(Ibsend)
TOPORR_RECORDED_ISEND(Issend)
TOPORR_RECORDED_ISEND(Irsend)
TOPORR_PROFILED_SEND_INIT(Send_init)
TOPORR_PROFILED_SEND_INIT(Bsend_init)
TOPORR_PROFILED_SEND_INIT(Ssend_init)
TOPORR_PROFILED_SEND_INIT(Rsend_init)

TOPORR_RECORDED(Start, (MPI_Request * request), (request), toporr_profile_start(1, request))
TOPORR_RECORDED(Startall, (int count, MPI_Request array_of_requests[]), (count, array_of_requests),
                toporr_profile_start(count, array_of_requests))
TOPORR_RECORDED(Request_free, (MPI_Request * request), (request),
                toporr_profile_request_free(*request))
TOPORR_RECORDED(Type_free, (MPI_Datatype * datatype), (datatype),
                toporr_profile_type_free(*datatype))

TOPORR_TIMED_SENDER(Sendrecv,
                    (const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                     int sendtag, void* recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                     int recvtag, MPI_Comm comm, MPI_Status* status),
                    (sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                     source, recvtag, comm, status),
                    dest, sendcount, sendtype, comm)
TOPORR_TIMED_SENDER(Sendrecv_replace,
                    (void* buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                     int recvtag, MPI_Comm comm, MPI_Status* status),
                    (buf, count, datatype, dest, sendtag, source, recvtag, comm, status), dest,
                    count, datatype, comm)

#if MPI_VERSION >= 4
int MPI_Isendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                  MPI_Comm comm, MPI_Request* request) {
  if (Profiling() && !CountSendInPlace(dest, sendcount, sendtype, comm)) {
    toporr_profile_send(dest, sendcount, sendtype, comm);
  }
  return PMPI_Isendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                        source, recvtag, comm, request);
}

int MPI_Isendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Request* request) {
  if (Profiling() && !CountSendInPlace(dest, count, datatype, comm)) {
    toporr_profile_send(dest, count, datatype, comm);
  }
  return PMPI_Isendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm,
                                request);
}
#endif

// Receives, probes and completions: timed only.
TOPORR_TIMED(Recv,
             (void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Status* status),
             (buf, count, datatype, source, tag, comm, status), (void)0)
TOPORR_TIMED(Mrecv,
             (void* buf, int count, MPI_Datatype datatype, MPI_Message* message,
              MPI_Status* status),
             (buf, count, datatype, message, status), (void)0)
TOPORR_TIMED(Probe, (int source, int tag, MPI_Comm comm, MPI_Status* status),
             (source, tag, comm, status), (void)0)
TOPORR_TIMED(Mprobe, (int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status),
             (source, tag, comm, message, status), (void)0)
TOPORR_TIMED(Wait, (MPI_Request * request, MPI_Status* status), (request, status), (void)0)
TOPORR_TIMED(Waitall, (int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]),
             (count, array_of_requests, array_of_statuses), (void)0)
TOPORR_TIMED(Waitany, (int count, MPI_Request array_of_requests[], int* index, MPI_Status* status),
             (count, array_of_requests, index, status), (void)0)
TOPORR_TIMED(Waitsome,
             (int incount, MPI_Request array_of_requests[], int* outcount, int array_of_indices[],
              MPI_Status array_of_statuses[]),
             (incount, array_of_requests, outcount, array_of_indices, array_of_statuses), (void)0)

// One-sided synchronisation: timed only.
TOPORR_TIMED(Win_fence, (int mode, MPI_Win win), (mode, win), (void)0)
TOPORR_TIMED(Win_complete, (MPI_Win win), (win), (void)0)
TOPORR_TIMED(Win_wait, (MPI_Win win), (win), (void)0)
TOPORR_TIMED(Win_unlock, (int rank, MPI_Win win), (rank, win), (void)0)
TOPORR_TIMED(Win_unlock_all, (MPI_Win win), (win), (void)0)
TOPORR_TIMED(Win_flush, (int rank, MPI_Win win), (rank, win), (void)0)
TOPORR_TIMED(Win_flush_all, (MPI_Win win), (win), (void)0)

// ---- one-sided and collectives ----

// MPI_<name>(params) and, with a request after them, MPI_<iname>: while recording, `record`
// first; then the MPI library's call.
#define TOPORR_UNPAREN(...) __VA_ARGS__
#define TOPORR_COUNTED(name, params, args, record) \
  int MPI_##name params {                          \
    if (Profiling()) {                             \
      record;                                      \
    }                                              \
    return PMPI_##name args;                       \
  }
#define TOPORR_COUNTED_PAIR(name, iname, params, args, record)          \
  TOPORR_COUNTED(name, params, args, record)                            \
  TOPORR_COUNTED(iname, (TOPORR_UNPAREN params, MPI_Request * request), \
                 (TOPORR_UNPAREN args, request), record)
// A blocking collective (timed) and its non-blocking form (counted only).
#define TOPORR_COLLECTIVE_PAIR(name, iname, params, args, record)       \
  TOPORR_TIMED(name, params, args, record)                              \
  TOPORR_COUNTED(iname, (TOPORR_UNPAREN params, MPI_Request * request), \
                 (TOPORR_UNPAREN args, request), record)

// One-sided: what goes to the target and what comes back; MPI_NO_OP sends no origin data,
// compare-and-swap sends the origin and the compare value.
TOPORR_COUNTED_PAIR(Put, Rput,
                    (const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                     int target_rank, MPI_Aint target_disp, int target_count,
                     MPI_Datatype target_datatype, MPI_Win win),
                    (origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                     target_count, target_datatype, win),
                    toporr_profile_rma(win, target_rank, origin_count, origin_datatype, 0,
                                       MPI_DATATYPE_NULL))
TOPORR_COUNTED_PAIR(Get, Rget,
                    (void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                     int target_rank, MPI_Aint target_disp, int target_count,
                     MPI_Datatype target_datatype, MPI_Win win),
                    (origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                     target_count, target_datatype, win),
                    toporr_profile_rma(win, target_rank, 0, MPI_DATATYPE_NULL, origin_count,
                                       origin_datatype))
TOPORR_COUNTED_PAIR(Accumulate, Raccumulate,
                    (const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                     int target_rank, MPI_Aint target_disp, int target_count,
                     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win),
                    (origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                     target_count, target_datatype, op, win),
                    toporr_profile_rma(win, target_rank, origin_count, origin_datatype, 0,
                                       MPI_DATATYPE_NULL))
TOPORR_COUNTED_PAIR(Get_accumulate, Rget_accumulate,
                    (const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                     void* result_addr, int result_count, MPI_Datatype result_datatype,
                     int target_rank, MPI_Aint target_disp, int target_count,
                     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win),
                    (origin_addr, origin_count, origin_datatype, result_addr, result_count,
                     result_datatype, target_rank, target_disp, target_count, target_datatype, op,
                     win),
                    toporr_profile_rma(win, target_rank, op == MPI_NO_OP ? 0 : origin_count,
                                       origin_datatype, result_count, result_datatype))
TOPORR_COUNTED(Fetch_and_op,
               (const void* origin_addr, void* result_addr, MPI_Datatype datatype, int target_rank,
                MPI_Aint target_disp, MPI_Op op, MPI_Win win),
               (origin_addr, result_addr, datatype, target_rank, target_disp, op, win),
               toporr_profile_rma(win, target_rank, op == MPI_NO_OP ? 0 : 1, datatype, 1, datatype))
TOPORR_COUNTED(Compare_and_swap,
               (const void* origin_addr, const void* compare_addr, void* result_addr,
                MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win),
               (origin_addr, compare_addr, result_addr, datatype, target_rank, target_disp, win),
               toporr_profile_rma(win, target_rank, 2, datatype, 1, datatype))

// Collectives, blocking and non-blocking alike (message sizes: traffic_profile.h).
// MPI_Allreduce, MPI_Bcast, MPI_Reduce and MPI_Allgather and their non-blocking and persistent
// forms are pmpi.cc's.
TOPORR_COLLECTIVE_PAIR(Barrier, Ibarrier, (MPI_Comm comm), (comm),
                       toporr_profile_collective(TOPORR_PROFILE_BARRIER, comm, 0,
                                                 MPI_DATATYPE_NULL))
TOPORR_COLLECTIVE_PAIR(Allgatherv, Iallgatherv,
                       (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                        const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                        MPI_Comm comm),
                       (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm),
                       Sized(TOPORR_PROFILE_ALLGATHERV, comm, TOPORR_PROFILE_NO_ROOT, CountsBytes,
                             Counts{recvcounts, recvtype}))
TOPORR_COLLECTIVE_PAIR(Gather, Igather,
                       (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                        int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm),
                       (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm),
                       Sized(TOPORR_PROFILE_GATHER, comm, root, RootedBlockBytes,
                             RootedBlock{recvcount, recvtype, sendcount, sendtype}))
TOPORR_COLLECTIVE_PAIR(Gatherv, Igatherv,
                       (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                        const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                        MPI_Comm comm),
                       (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                        comm),
                       Sized(TOPORR_PROFILE_GATHERV, comm, root, RootedCountsBytes,
                             RootedCounts{recvcounts, recvtype, sendcount, sendtype}))
TOPORR_COLLECTIVE_PAIR(Scatter, Iscatter,
                       (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                        int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm),
                       (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm),
                       Sized(TOPORR_PROFILE_SCATTER, comm, root, RootedBlockBytes,
                             RootedBlock{sendcount, sendtype, recvcount, recvtype}))
TOPORR_COLLECTIVE_PAIR(Scatterv, Iscatterv,
                       (const void* sendbuf, const int sendcounts[], const int displs[],
                        MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                        int root, MPI_Comm comm),
                       (sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                        comm),
                       Sized(TOPORR_PROFILE_SCATTERV, comm, root, RootedCountsBytes,
                             RootedCounts{sendcounts, sendtype, recvcount, recvtype}))
TOPORR_COLLECTIVE_PAIR(Alltoall, Ialltoall,
                       (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm),
                       (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm),
                       toporr_profile_collective(TOPORR_PROFILE_ALLTOALL, comm, recvcount,
                                                 recvtype))
TOPORR_COLLECTIVE_PAIR(Alltoallv, Ialltoallv,
                       (const void* sendbuf, const int sendcounts[], const int sdispls[],
                        MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm),
                       (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                        recvtype, comm),
                       Sized(TOPORR_PROFILE_ALLTOALLV, comm, TOPORR_PROFILE_NO_ROOT, CountsBytes,
                             Counts{recvcounts, recvtype}))
TOPORR_COLLECTIVE_PAIR(Alltoallw, Ialltoallw,
                       (const void* sendbuf, const int sendcounts[], const int sdispls[],
                        const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                        const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm),
                       (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                        recvtypes, comm),
                       Sized(TOPORR_PROFILE_ALLTOALLW, comm, TOPORR_PROFILE_NO_ROOT,
                             TypedCountsBytes, TypedCounts{recvcounts, recvtypes}))
TOPORR_COLLECTIVE_PAIR(Reduce_scatter, Ireduce_scatter,
                       (const void* sendbuf, void* recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm),
                       (sendbuf, recvbuf, recvcounts, datatype, op, comm),
                       Sized(TOPORR_PROFILE_REDUCE_SCATTER, comm, TOPORR_PROFILE_NO_ROOT,
                             ReduceScatterBytes, ReduceScatterCounts{recvcounts, datatype, comm}))
TOPORR_COLLECTIVE_PAIR(Reduce_scatter_block, Ireduce_scatter_block,
                       (const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm),
                       (sendbuf, recvbuf, recvcount, datatype, op, comm),
                       toporr_profile_collective(TOPORR_PROFILE_REDUCE_SCATTER_BLOCK, comm,
                                                 recvcount, datatype))
TOPORR_COLLECTIVE_PAIR(Scan, Iscan,
                       (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm),
                       (sendbuf, recvbuf, count, datatype, op, comm),
                       toporr_profile_collective(TOPORR_PROFILE_SCAN, comm, count, datatype))
TOPORR_COLLECTIVE_PAIR(Exscan, Iexscan,
                       (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm),
                       (sendbuf, recvbuf, count, datatype, op, comm),
                       toporr_profile_collective(TOPORR_PROFILE_EXSCAN, comm, count, datatype))

}  // extern "C"

// ---- Fortran MPI_INIT / MPI_INIT_THREAD (see the top of this file) ----

namespace {

using InitF = void (*)(MPI_Fint*);
using InitThreadF = void (*)(MPI_Fint*, MPI_Fint*, MPI_Fint*);

template <typename F>
F NextFortran(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

void InitF77(const char* name, MPI_Fint* ierr) {
  if (InitF next = NextFortran<InitF>(name)) {
    next(ierr);
  } else {
    *ierr = MPI_Init(nullptr, nullptr);
  }
  if (*ierr == MPI_SUCCESS) toporr_profile_init_unseen();
}

void InitThreadF77(const char* name, MPI_Fint* required, MPI_Fint* provided, MPI_Fint* ierr) {
  if (InitThreadF next = NextFortran<InitThreadF>(name)) {
    next(required, provided, ierr);
  } else {
    int p = MPI_THREAD_SINGLE;
    *ierr = MPI_Init_thread(nullptr, nullptr, *required, &p);
    *provided = p;
  }
  if (*ierr == MPI_SUCCESS) toporr_profile_init_unseen();
}

}  // namespace

#define TOPORR_FORTRAN_INIT(sym) \
  extern "C" void sym(MPI_Fint* ierr) { InitF77(#sym, ierr); }
#define TOPORR_FORTRAN_INIT_THREAD(sym)                                         \
  extern "C" void sym(MPI_Fint* required, MPI_Fint* provided, MPI_Fint* ierr) { \
    InitThreadF77(#sym, required, provided, ierr);                              \
  }

TOPORR_FORTRAN_INIT(mpi_init_)
TOPORR_FORTRAN_INIT(mpi_init__)
TOPORR_FORTRAN_INIT(mpi_init)
TOPORR_FORTRAN_INIT(MPI_INIT)
TOPORR_FORTRAN_INIT_THREAD(mpi_init_thread_)
TOPORR_FORTRAN_INIT_THREAD(mpi_init_thread__)
TOPORR_FORTRAN_INIT_THREAD(mpi_init_thread)
TOPORR_FORTRAN_INIT_THREAD(MPI_INIT_THREAD)

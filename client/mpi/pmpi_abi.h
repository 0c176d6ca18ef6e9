// What libtoporr.so exports for libtoporr_pmpi.so (not part of the stable C API: these may
// change with any release). The PMPI layer is a thin shared library over libtoporr.so
// rather than a second copy of it, so a program that links libtoporr.so and runs under
// LD_PRELOAD=libtoporr_pmpi.so has one toporr (one protobuf registration, one cache, one
// configuration). Each function returns what the MPI call it replaces would return.
#ifndef TOPORR_CLIENT_MPI_PMPI_ABI_H_
#define TOPORR_CLIENT_MPI_PMPI_ABI_H_

#include <mpi.h>
#include <stdint.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

// The PMPI layer's threshold: collectives of fewer bytes go straight to the MPI library;
// -1 when toporr is disabled (everything goes there).
long long toporr_pmpi_min_bytes(void);
int toporr_pmpi_allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                          MPI_Op op, MPI_Comm comm);
int toporr_pmpi_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int toporr_pmpi_reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                       MPI_Op op, int root, MPI_Comm comm);
int toporr_pmpi_bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
// The nonblocking (persistent = 0) and persistent (persistent = 1, with `info`) forms of the
// four: each fills *request as the MPI call it replaces would (collective_api.h).
int toporr_pmpi_iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                           MPI_Op op, MPI_Comm comm, int persistent, MPI_Info info,
                           MPI_Request* request);
int toporr_pmpi_iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm, int persistent,
                           MPI_Info info, MPI_Request* request);
int toporr_pmpi_ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, int root, MPI_Comm comm, int persistent, MPI_Info info,
                        MPI_Request* request);
int toporr_pmpi_ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                       int persistent, MPI_Info info, MPI_Request* request);
// One of toporr's algorithms run directly on `comm` (no selection, no reordering), for tests
// and benchmarks: `algorithm` is a toporr_algorithm value (TOPORR_ALG_RING, ...); radix for
// k-nomial, segment_bytes for the segmented ring. MPI_ERR_ARG for an algorithm toporr does
// not carry for that collective.
int toporr_coll_allreduce(int algorithm, const void* sendbuf, void* recvbuf, int count,
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, long long segment_bytes);
// Allgather on `comm` with block k placed at position[k] (null: at k), see coll/allgather.h.
int toporr_coll_allgather(int algorithm, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                          void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                          const int* position);
int toporr_coll_bcast(int algorithm, void* buffer, int count, MPI_Datatype datatype, int root,
                      MPI_Comm comm, int radix);
// Decision caches alive on communicators (for leak tests).
int toporr_debug_live_caches(void);
// Nonzero when the process-default configuration disables toporr (TOPORR_DISABLE).
int toporr_pmpi_disabled(void);
int toporr_pmpi_cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                            int reorder, MPI_Comm* comm_cart);
int toporr_pmpi_cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[],
                         int* newrank);
int toporr_pmpi_graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                             int reorder, MPI_Comm* comm_graph);
int toporr_pmpi_graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[],
                          int* newrank);
int toporr_pmpi_dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                           const int sourceweights[], int outdegree,
                                           const int destinations[], const int destweights[],
                                           MPI_Info info, int reorder, MPI_Comm* comm_dist_graph);
int toporr_pmpi_dist_graph_create(MPI_Comm comm_old, int n, const int sources[],
                                  const int degrees[], const int destinations[],
                                  const int weights[], MPI_Info info, int reorder,
                                  MPI_Comm* comm_dist_graph);

// ---- The traffic profile (TOPORR_PROFILE; the file: client/profile/traffic_profile.h) ----
// The PMPI layer reports each call it sees here; libtoporr.so counts (traffic_recorder.h).
// Every function below is a no-op unless this process records, and none of them changes
// what the MPI call does.

// What the interceptors read before calling in, owned and kept consistent by libtoporr.so.
// `enabled` is nonzero while this process records: the interceptors test it before anything
// else, so a job without TOPORR_PROFILE pays one predictable branch per call. When
// `inline_sends` is set (recording, not MPI_THREAD_MULTIPLE), a send of `type` on
// MPI_COMM_WORLD, or on `comm` (its rank r is world rank world[r], or r when world is null),
// to a world rank in `recent` is counted by the interceptor itself: bytes (count *
// type_size) into counters[0], one message into counters[1]. Any other send goes to
// toporr_profile_send, which refreshes `type`, `comm` and `recent`.
#define TOPORR_PROFILE_RECENT 8
struct toporr_profile_state {
  int enabled;
  int inline_sends;
  MPI_Datatype type;  // MPI_DATATYPE_NULL: none yet
  uint64_t type_size;
  MPI_Comm comm;  // MPI_COMM_NULL: none
  const int* world;
  int comm_size;
  struct {
    int dest;  // a world rank; -1: empty (slot: dest % TOPORR_PROFILE_RECENT)
    uint64_t* counters;
  } recent[TOPORR_PROFILE_RECENT];
  // The time this process spent, while recording, inside the MPI calls that may wait for
  // another process (the profile's `time` record, traffic_profile.h), in ticks of
  // toporr_profile_clock: the interceptors add each such call's duration
  // (toporr_profile_add_mpi_time), atomically under MPI_THREAD_MULTIPLE.
  uint64_t mpi_ticks;
  // Nonzero while recording with time records (the `profile_time` setting): the calls that
  // may wait are timed only then.
  int timing;
  // Nonzero when toporr_profile_clock reads the x86 time-stamp counter (the CPU says it is
  // invariant: the same rate on every core, in every power state); libtoporr.so converts
  // its ticks to nanoseconds against CLOCK_MONOTONIC over the recording.
  int tsc;
};
extern struct toporr_profile_state toporr_profile;

// CLOCK_MONOTONIC in nanoseconds.
static inline uint64_t toporr_profile_monotonic_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}
// The clock of the `time` record: the time-stamp counter (toporr_profile.tsc), else
// toporr_profile_monotonic_ns.
static inline uint64_t toporr_profile_clock(void) {
#if defined(__x86_64__)
  if (toporr_profile.tsc) return __rdtsc();
#endif
  return toporr_profile_monotonic_ns();
}
// Adds the time since `start` (toporr_profile_clock) to toporr_profile.mpi_ticks.
static inline void toporr_profile_add_mpi_time(uint64_t start) {
  const uint64_t ticks = toporr_profile_clock() - start;
  if (toporr_profile.inline_sends) {  // not MPI_THREAD_MULTIPLE: no other thread adds
    toporr_profile.mpi_ticks += ticks;
  } else {
    __atomic_fetch_add(&toporr_profile.mpi_ticks, ticks, __ATOMIC_RELAXED);
  }
}
// Right after the MPI library's MPI_Init / MPI_Init_thread succeeded: starts recording when
// the `profile` setting names a file (sets toporr_profile.enabled). Idempotent.
void toporr_profile_begin(void);
// After the MPI library's own Fortran MPI_INIT / MPI_INIT_THREAD returned without the C
// MPI_Init having been seen (Open MPI's Fortran bindings call PMPI_Init): nothing will be
// seen, so no profile; one warning on rank 0 when one was asked for.
void toporr_profile_init_unseen(void);
// A send of `count` elements of `datatype` to rank `dest` of `comm` (a negative dest, such
// as MPI_PROC_NULL, is no send).
void toporr_profile_send(int dest, int count, MPI_Datatype datatype, MPI_Comm comm);
// A persistent send request the MPI library just created: each MPI_Start of it is a send.
void toporr_profile_send_init(int dest, int count, MPI_Datatype datatype, MPI_Comm comm,
                              MPI_Request request);
// Before the MPI library's MPI_Start / MPI_Startall of these requests.
void toporr_profile_start(int count, const MPI_Request requests[]);
// Before the MPI library's MPI_Request_free of `request`.
void toporr_profile_request_free(MPI_Request request);
// Before the MPI library's MPI_Type_free of `datatype` (whose handle may then name another).
void toporr_profile_type_free(MPI_Datatype datatype);
// A one-sided operation on `win` at rank `target` of its group: `to_count` elements of
// `to_type` go to the target, `from_count` of `from_type` come back (a count of 0: none).
void toporr_profile_rma(MPI_Win win, int target, int to_count, MPI_Datatype to_type, int from_count,
                        MPI_Datatype from_type);

// The collectives counted, numbered as toporr::client::ProfiledCollective.
enum {
  TOPORR_PROFILE_BARRIER,
  TOPORR_PROFILE_BCAST,
  TOPORR_PROFILE_REDUCE,
  TOPORR_PROFILE_ALLREDUCE,
  TOPORR_PROFILE_ALLGATHER,
  TOPORR_PROFILE_ALLGATHERV,
  TOPORR_PROFILE_GATHER,
  TOPORR_PROFILE_GATHERV,
  TOPORR_PROFILE_SCATTER,
  TOPORR_PROFILE_SCATTERV,
  TOPORR_PROFILE_ALLTOALL,
  TOPORR_PROFILE_ALLTOALLV,
  TOPORR_PROFILE_ALLTOALLW,
  TOPORR_PROFILE_REDUCE_SCATTER,
  TOPORR_PROFILE_REDUCE_SCATTER_BLOCK,
  TOPORR_PROFILE_SCAN,
  TOPORR_PROFILE_EXSCAN,
  TOPORR_PROFILE_NUM_COLLECTIVES
};
// A call of `collective` on `comm` whose message size (client/profile/traffic_profile.h) is `count`
// elements of `datatype` at every rank.
void toporr_profile_collective(int collective, MPI_Comm comm, long long count,
                               MPI_Datatype datatype);
// The message size of a call at the rank that records it (rank 0 of comm's group), asked
// only there: `call` is what the interceptor passed, is_root whether that rank is the call's
// root, peers the length of the call's count arrays (the communicator's size, or an
// inter-communicator's remote size).
typedef long long (*toporr_profile_bytes_fn)(const void* call, int is_root, int peers);
// A call of `collective` on `comm` with `root` as the call took it (TOPORR_PROFILE_NO_ROOT
// for collectives without one).
#define TOPORR_PROFILE_NO_ROOT (-2147483647 - 1)
void toporr_profile_collective_sized(int collective, MPI_Comm comm, int root,
                                     toporr_profile_bytes_fn bytes, const void* call);
// In MPI_Finalize, before the MPI library's: rank 0 of MPI_COMM_WORLD gathers every
// process's counts and writes the file (a collective over MPI_COMM_WORLD). A file that
// cannot be written costs one warning on rank 0, never the job.
void toporr_profile_finish(void);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // TOPORR_CLIENT_MPI_PMPI_ABI_H_

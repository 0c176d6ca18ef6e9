/* Collectives from several threads and non-blocking / persistent collectives, as an unchanged
 * program calls them (run by buffers_threads_test.py, with and without
 * LD_PRELOAD=libtoporr_pmpi.so).
 *
 * `threads_check threads T ITERATIONS COUNT`: MPI_Init_thread(MPI_THREAD_MULTIPLE); T threads,
 *   each on its own duplicate of MPI_COMM_WORLD, run ITERATIONS rounds of MPI_Allreduce (sum of
 *   COUNT ints, out of place and in place) and MPI_Bcast (COUNT ints, the root moving with the
 *   round) at the same time, every result checked element by element.
 * `threads_check ithreads T ITERATIONS COUNT`: the same with MPI_Iallreduce and MPI_Ibcast, each
 *   completed by MPI_Wait.
 * `threads_check nonblocking COUNT`: MPI_Iallreduce, MPI_Ibcast and the persistent allreduce
 *   and bcast (MPI_Allreduce_init / MPI_Bcast_init of MPI 4, Open MPI's MPIX_ ones otherwise;
 *   skipped when the library has neither) of COUNT ints, three rounds each, checked; then one
 *   blocking MPI_Allreduce of COUNT ints (the call the PMPI layer takes over).
 * Rank 0 prints "LEVEL <provided thread level>" and "CHECK <mode> ok" (or "CHECK <mode> bad"
 * and the first wrong values as "BAD ..."); "PERSISTENT none" when the library has no
 * persistent collectives. Exit status 1 on any wrong value. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(OPEN_MPI)
#include <mpi-ext.h>
#endif

#if MPI_VERSION >= 4
#define ALLREDUCE_INIT MPI_Allreduce_init
#define BCAST_INIT MPI_Bcast_init
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ)
#define ALLREDUCE_INIT MPIX_Allreduce_init
#define BCAST_INIT MPIX_Bcast_init
#endif

static int rank, size;
static long failures;
static pthread_mutex_t failures_mu = PTHREAD_MUTEX_INITIALIZER;

static void Bad(const char* what, int thread, int round, int k, long got, long want) {
  pthread_mutex_lock(&failures_mu);
  if (failures++ < 5) {
    printf("BAD %s rank %d thread %d round %d [%d]: %ld, expected %ld\n", what, rank, thread, round,
           k, got, want);
  }
  pthread_mutex_unlock(&failures_mu);
}

/* Rank r's element k of the allreduce input in round `round` of thread `t`, and the sum. */
static int Input(int r, int t, int round, int k) { return r * 7 + t * 13 + round + k % 97; }
static long Sum(int t, int round, int k) {
  return 7L * size * (size - 1) / 2 + (long)size * (t * 13 + round + k % 97);
}
static int Broadcast(int root, int t, int round, int k) { return root * 1000 + t + round + k % 89; }

static void CheckSum(const char* what, const int* buf, int count, int t, int round) {
  for (int k = 0; k < count; ++k) {
    if (buf[k] != Sum(t, round, k)) {
      Bad(what, t, round, k, buf[k], Sum(t, round, k));
      return;
    }
  }
}

static void CheckBcast(const char* what, const int* buf, int count, int root, int t, int round) {
  for (int k = 0; k < count; ++k) {
    if (buf[k] != Broadcast(root, t, round, k)) {
      Bad(what, t, round, k, buf[k], Broadcast(root, t, round, k));
      return;
    }
  }
}

static void Fill(int* buf, int count, int t, int round) {
  for (int k = 0; k < count; ++k) buf[k] = Input(rank, t, round, k);
}

static void FillBcast(int* buf, int count, int root, int t, int round) {
  for (int k = 0; k < count; ++k) buf[k] = rank == root ? Broadcast(root, t, round, k) : -1;
}

struct Work {
  int thread, iterations, count;
  MPI_Comm comm;
};

/* Mode "ithreads": the threads' collectives are MPI_Iallreduce / MPI_Ibcast + MPI_Wait. */
static int nonblocking_threads;

static void AllreduceOn(const void* in, int* out, int count, MPI_Comm comm) {
  if (!nonblocking_threads) {
    MPI_Allreduce(in, out, count, MPI_INT, MPI_SUM, comm);
    return;
  }
  MPI_Request req;
  MPI_Iallreduce(in, out, count, MPI_INT, MPI_SUM, comm, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
}

static void BcastOn(int* buf, int count, int root, MPI_Comm comm) {
  if (!nonblocking_threads) {
    MPI_Bcast(buf, count, MPI_INT, root, comm);
    return;
  }
  MPI_Request req;
  MPI_Ibcast(buf, count, MPI_INT, root, comm, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
}

static void* Run(void* arg) {
  const struct Work* w = arg;
  int* in = malloc(sizeof(int) * w->count);
  int* out = malloc(sizeof(int) * w->count);
  for (int round = 0; round < w->iterations; ++round) {
    Fill(in, w->count, w->thread, round);
    AllreduceOn(in, out, w->count, w->comm);
    CheckSum("allreduce", out, w->count, w->thread, round);
    Fill(out, w->count, w->thread, round);
    AllreduceOn(MPI_IN_PLACE, out, w->count, w->comm);
    CheckSum("allreduce-in-place", out, w->count, w->thread, round);
    const int root = (round + w->thread) % size;
    FillBcast(out, w->count, root, w->thread, round);
    BcastOn(out, w->count, root, w->comm);
    CheckBcast("bcast", out, w->count, root, w->thread, round);
  }
  free(in);
  free(out);
  return NULL;
}

static void Threads(int num_threads, int iterations, int count) {
  pthread_t threads[16];
  struct Work work[16];
  if (num_threads > 16) num_threads = 16;
  for (int t = 0; t < num_threads; ++t) { /* duplicated in one order on every rank */
    work[t] = (struct Work){t, iterations, count, MPI_COMM_NULL};
    MPI_Comm_dup(MPI_COMM_WORLD, &work[t].comm);
  }
  for (int t = 0; t < num_threads; ++t) pthread_create(&threads[t], NULL, Run, &work[t]);
  for (int t = 0; t < num_threads; ++t) pthread_join(threads[t], NULL);
  for (int t = 0; t < num_threads; ++t) MPI_Comm_free(&work[t].comm);
}

static void NonBlocking(int count) {
  int* in = malloc(sizeof(int) * count);
  int* out = malloc(sizeof(int) * count);
  MPI_Request req;
  for (int round = 0; round < 3; ++round) {
    Fill(in, count, 0, round);
    MPI_Iallreduce(in, out, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CheckSum("iallreduce", out, count, 0, round);
    const int root = round % size;
    FillBcast(out, count, root, 0, round);
    MPI_Ibcast(out, count, MPI_INT, root, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CheckBcast("ibcast", out, count, root, 0, round);
  }
#ifdef ALLREDUCE_INIT
  /* Persistent: the buffers are bound at init; each round refills them and starts again. */
  MPI_Request allreduce, bcast;
  const int root = size - 1;
  int* data = malloc(sizeof(int) * count);
  ALLREDUCE_INIT(in, out, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &allreduce);
  BCAST_INIT(data, count, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL, &bcast);
  for (int round = 0; round < 3; ++round) {
    Fill(in, count, 0, round);
    MPI_Start(&allreduce);
    MPI_Wait(&allreduce, MPI_STATUS_IGNORE);
    CheckSum("allreduce-persistent", out, count, 0, round);
    FillBcast(data, count, root, 0, round);
    MPI_Start(&bcast);
    MPI_Wait(&bcast, MPI_STATUS_IGNORE);
    CheckBcast("bcast-persistent", data, count, root, 0, round);
  }
  MPI_Request_free(&allreduce);
  MPI_Request_free(&bcast);
  free(data);
#else
  if (rank == 0) printf("PERSISTENT none\n");
#endif
  Fill(in, count, 0, 7);
  MPI_Allreduce(in, out, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CheckSum("allreduce-blocking", out, count, 0, 7);
  free(in);
  free(out);
}

int main(int argc, char** argv) {
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  alarm(100); /* a rank stuck in a deadlock ends here, and mpirun ends the job */
  const char* mode = argc > 1 ? argv[1] : "threads";
  if (rank == 0) printf("LEVEL %d\n", provided);
  nonblocking_threads = strcmp(mode, "ithreads") == 0;
  if ((strcmp(mode, "threads") == 0 || nonblocking_threads) && argc > 4) {
    if (provided < MPI_THREAD_MULTIPLE) {
      if (rank == 0) printf("CHECK %s no-thread-multiple\n", mode);
      MPI_Finalize();
      return 1;
    }
    Threads(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
  } else if (strcmp(mode, "nonblocking") == 0 && argc > 2) {
    NonBlocking(atoi(argv[2]));
  } else {
    if (rank == 0)
      fprintf(stderr,
              "usage: threads_check threads|ithreads T ITERATIONS COUNT | nonblocking COUNT\n");
    MPI_Finalize();
    return 2;
  }
  long all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("CHECK %s %s\n", mode, all == 0 ? "ok" : "bad");
  MPI_Finalize();
  return all == 0 ? 0 : 1;
}

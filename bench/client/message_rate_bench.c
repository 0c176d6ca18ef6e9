/* What the traffic profile costs the messages it counts: rounds in which every rank posts
 * WINDOW MPI_Irecv of 8 bytes from the previous rank and WINDOW MPI_Isend of 8 bytes to the
 * next, then MPI_Waitall (a message-rate ring), on MPI_COMM_WORLD and on a duplicate of it
 * (whose destinations the profile translates to world ranks). Timed on rank 0 between
 * barriers; times are per message sent. On one rank the ring is the process sending to
 * itself, timed in the thread's CPU time (CLOCK_THREAD_CPUTIME_ID): the per-call cost alone,
 * unaffected by other processes' load; on more ranks, in wall time. Run it plain, under
 * LD_PRELOAD=libtoporr_pmpi.so, and under the preload with TOPORR_PROFILE in one session
 * (bench/client/run_message_rate_bench.sh).
 *
 * Under the profile it also compares in-process, in BLOCKS rotations of four blocks of
 * N/BLOCKS rounds each (the order rotating), which cancels the drift of a shared machine's
 * load that separate runs suffer from:
 *   direct     the sends and the wait call PMPI_Isend and PMPI_Waitall (what the program runs
 *              without the PMPI layer);
 *   layer      MPI_Isend and MPI_Waitall through the PMPI layer with recording off
 *              (toporr_profile.enabled cleared: the one branch each a job without
 *              TOPORR_PROFILE pays);
 *   counting   MPI_Isend and MPI_Waitall through the PMPI layer, recording without time
 *              records (toporr_profile.timing cleared: TOPORR_PROFILE_TIME=0): the sends
 *              counted;
 *   recording  MPI_Isend and MPI_Waitall through the PMPI layer, recording (the sends
 *              counted, the wait timed).
 *   message_rate_bench [N] [WINDOW] [BLOCKS]
 * prints {"world_ns":..,"dup_ns":..,"counted":M} and, under the profile, per communicator
 * (world, dup) the medians over rotations of the block times ("<comm>_<variant>_ns"), their
 * minimum ("<comm>_<variant>_min_ns": the block least disturbed by other processes) and the
 * median of the ratios to direct ("<comm>_<variant>_ratio"); M is the messages rank 0 sent while
 * recording (its file's `p2p 0 <next>` count). */
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "client/mpi/pmpi_abi.h"

typedef int (*IsendFn)(const void*, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request*);
typedef int (*WaitallFn)(int, MPI_Request*, MPI_Status*);

static int window = 16;
static double *out, *in;
static MPI_Request* req;
static struct toporr_profile_state* profile; /* libtoporr.so's, when loaded */
static long long counted;
static int use_cpu_clock; /* one rank */

static double Now(void) {
  if (!use_cpu_clock) return MPI_Wtime();
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double Ring(MPI_Comm comm, int rounds, IsendFn isend, WaitallFn waitall) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  MPI_Barrier(comm);
  const double t = Now();
  for (int i = 0; i < rounds; ++i) {
    for (int w = 0; w < window; ++w) MPI_Irecv(&in[w], 1, MPI_DOUBLE, prev, w, comm, &req[w]);
    for (int w = 0; w < window; ++w) isend(&out[w], 1, MPI_DOUBLE, next, w, comm, &req[window + w]);
    waitall(2 * window, req, MPI_STATUSES_IGNORE);
  }
  if (isend == MPI_Isend && profile != NULL && profile->enabled)
    counted += (long long)rounds * window;
  return (Now() - t) / ((double)rounds * window);
}

static int Compare(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

static double Median(double* v, int n) {
  qsort(v, n, sizeof *v, Compare);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

enum { kDirect, kLayer, kCounting, kRecording, kVariants };
static const char* const kNames[kVariants] = {"direct", "layer", "counting", "recording"};

/* Rotations of the four variants on `comm`; prints ,"<tag>_<variant>_ns":..,
 * "<tag>_<variant>_ratio":.. (medians over rotations; ratio to direct). */
static void CompareVariants(const char* tag, MPI_Comm comm, int blocks, int rounds, int print) {
  double* t[kVariants];
  double* ratio[kVariants];
  for (int v = 0; v < kVariants; ++v) {
    t[v] = malloc(blocks * sizeof(double));
    ratio[v] = malloc(blocks * sizeof(double));
  }
  for (int b = 0; b < blocks; ++b) {
    for (int k = 0; k < kVariants; ++k) {
      const int v = (b + k) % kVariants;
      profile->enabled = v == kCounting || v == kRecording;
      profile->timing = v == kRecording;
      t[v][b] = v == kDirect ? Ring(comm, rounds, PMPI_Isend, PMPI_Waitall)
                             : Ring(comm, rounds, MPI_Isend, MPI_Waitall);
    }
    for (int v = 0; v < kVariants; ++v) ratio[v][b] = t[v][b] / t[kDirect][b];
  }
  profile->enabled = profile->timing = 1;
  for (int v = 0; v < kVariants; ++v) {
    if (print) {
      const double median = Median(t[v], blocks); /* sorts: t[v][0] is then the minimum */
      printf(",\"%s_%s_ns\":%.2f,\"%s_%s_min_ns\":%.2f,\"%s_%s_ratio\":%.4f", tag, kNames[v],
             median * 1e9, tag, kNames[v], t[v][0] * 1e9, tag, kNames[v], Median(ratio[v], blocks));
    }
    free(t[v]);
    free(ratio[v]);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int rounds = argc > 1 ? atoi(argv[1]) : 20000;
  if (argc > 2) window = atoi(argv[2]);
  const int blocks = argc > 3 ? atoi(argv[3]) : 20;
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  use_cpu_clock = size == 1;
  profile = (struct toporr_profile_state*)dlsym(RTLD_DEFAULT, "toporr_profile");
  const int profiled = profile != NULL && profile->enabled && profile->timing;
  out = calloc(window, sizeof(double));
  in = calloc(window, sizeof(double));
  req = malloc(2 * window * sizeof(MPI_Request));
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  Ring(MPI_COMM_WORLD, rounds / 10 + 1, MPI_Isend, MPI_Waitall); /* warm-up */
  Ring(dup, rounds / 10 + 1, MPI_Isend, MPI_Waitall);
  const double world = Ring(MPI_COMM_WORLD, rounds, MPI_Isend, MPI_Waitall);
  const double duplicate = Ring(dup, rounds, MPI_Isend, MPI_Waitall);
  if (rank == 0) printf("{\"world_ns\":%.2f,\"dup_ns\":%.2f", world * 1e9, duplicate * 1e9);
  if (profiled) {
    const int block = rounds / blocks > 0 ? rounds / blocks : 1;
    CompareVariants("world", MPI_COMM_WORLD, blocks, block, rank == 0);
    CompareVariants("dup", dup, blocks, block, rank == 0);
  }
  if (rank == 0) printf(",\"counted\":%lld}\n", counted);
  MPI_Comm_free(&dup);
  free(out);
  free(in);
  free(req);
  MPI_Finalize();
  return 0;
}

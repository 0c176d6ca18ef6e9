/* Time to create a reordered communicator inside a real MPI job, against MPI_Comm_dup in
 * the same run (bench/client/run_reorder_comm_bench.sh runs it with mpirun against a real
 * toporrd).
 *
 *   reorder_comm_bench [ITERATIONS]
 * Per iteration, each timed between barriers as the slowest rank's time:
 *   dup      MPI_Comm_dup(MPI_COMM_WORLD)                      the baseline
 *   reorder  toporr_comm_reorder on a fresh duplicate (cache miss: host names, one
 *            registration, one row per host, allgather, compute on rank 0, broadcast,
 *            MPI_Comm_split)
 *   cached   the same call again on the same parent (answered from the cache + split)
 * Prints one JSON object on rank 0: medians in microseconds and the ratios to dup. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "client/toporr.h"

static int Compare(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

static double Median(double* v, int n) {
  qsort(v, n, sizeof(double), Compare);
  return v[n / 2];
}

/* The slowest rank's time of `seconds`, in microseconds. */
static double Slowest(double seconds) {
  double max = 0;
  MPI_Allreduce(&seconds, &max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return max * 1e6;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, n = argc > 1 ? atoi(argv[1]) : 20;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double* dup = malloc(sizeof(double) * n);
  double* reorder = malloc(sizeof(double) * n);
  double* cached = malloc(sizeof(double) * n);
  int reordered = 0, fallbacks = 0;
  for (int i = 0; i < n; ++i) {
    MPI_Comm d, parent, c1, c2;
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    dup[i] = Slowest(MPI_Wtime() - t);
    MPI_Comm_free(&d);

    MPI_Comm_dup(MPI_COMM_WORLD, &parent);
    toporr_decision dec;
    MPI_Barrier(MPI_COMM_WORLD);
    t = MPI_Wtime();
    toporr_comm_reorder(NULL, parent, TOPORR_ALLREDUCE, TOPORR_ALG_AUTO, 1 << 20, 0, &c1, &dec);
    reorder[i] = Slowest(MPI_Wtime() - t);
    reordered += dec.reordered;
    fallbacks += dec.fallback;
    MPI_Barrier(MPI_COMM_WORLD);
    t = MPI_Wtime();
    toporr_comm_reorder(NULL, parent, TOPORR_ALLREDUCE, TOPORR_ALG_AUTO, 1 << 20, 0, &c2, NULL);
    cached[i] = Slowest(MPI_Wtime() - t);
    MPI_Comm_free(&c1);
    MPI_Comm_free(&c2);
    MPI_Comm_free(&parent);
  }
  if (rank == 0) {
    double md = Median(dup, n), mr = Median(reorder, n), mc = Median(cached, n);
    printf(
        "{\"ranks\":%d,\"iterations\":%d,\"dup_us\":%.1f,\"reorder_us\":%.1f,"
        "\"cached_us\":%.1f,\"reorder_over_dup\":%.2f,\"cached_over_dup\":%.2f,"
        "\"reordered\":%d,\"fallbacks\":%d}\n",
        size, n, md, mr, mc, mr / md, mc / md, reordered, fallbacks);
  }
  free(dup);
  free(reorder);
  free(cached);
  MPI_Finalize();
  return 0;
}

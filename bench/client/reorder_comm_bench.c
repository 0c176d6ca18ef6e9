/* Time to create a reordered communicator inside a real MPI job, against MPI_Comm_dup and one
 * round trip to the cost source in the same run (bench/client/run_reorder_comm_bench.sh runs
 * it with mpirun against a real toporrd).
 *
 *   reorder_comm_bench [ITERATIONS] [RUN]
 * One untimed warm-up iteration, then per iteration, each timed between barriers:
 *   dup      MPI_Comm_dup(MPI_COMM_WORLD), the slowest rank's time       the baseline
 *   rtt      on rank 0 alone: one request to the cost source through libtoporr's own source
 *            and channel code (toporr_bench_source_round_trip: RegisterHostList of rank 0's
 *            host on a connection opened in the warm-up), rank 0's time
 *   reorder  toporr_comm_reorder on a fresh duplicate (cache miss: the whole decision
 *            protocol and MPI_Comm_split), the slowest rank's time
 *   cached   the same call again on the same parent (answered from the cache + split)
 *   ratio    reorder / (2 dup + rtt) of the iteration
 * Prints one JSON object on rank 0: per figure the median, quartiles, minimum and maximum in
 * microseconds, then every iteration's values. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/toporr.h"

/* libtoporr.so's bench-only entry (client/mpi/library.cc): 0 when the source answered. */
int toporr_bench_source_round_trip(const char* host);

static int Compare(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

/* Value at quantile q of sorted v (nearest rank). */
static double Quantile(const double* sorted, int n, double q) {
  int i = (int)(q * (n - 1) + 0.5);
  return sorted[i];
}

static void PrintFigure(const char* name, const double* v, int n) {
  double* s = malloc(sizeof(double) * n);
  memcpy(s, v, sizeof(double) * n);
  qsort(s, n, sizeof(double), Compare);
  printf("\"%s\":{\"median\":%.2f,\"q1\":%.2f,\"q3\":%.2f,\"min\":%.2f,\"max\":%.2f,\"values\":[",
         name, Quantile(s, n, 0.5), Quantile(s, n, 0.25), Quantile(s, n, 0.75), s[0], s[n - 1]);
  for (int i = 0; i < n; ++i) printf("%s%.2f", i ? "," : "", v[i]);
  printf("]}");
  free(s);
}

/* The slowest rank's time of `seconds`, in microseconds. */
static double Slowest(double seconds) {
  double max = 0;
  MPI_Allreduce(&seconds, &max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return max * 1e6;
}

/* Rank 0's host as libtoporr names it: its TOPORR_HOSTMAP line, else the short host name. */
static void RankZeroHost(char* host, size_t len) {
  const char* map = getenv("TOPORR_HOSTMAP");
  FILE* f = map != NULL && *map != '\0' ? fopen(map, "r") : NULL;
  host[0] = '\0';
  if (f != NULL) {
    if (fgets(host, (int)len, f) == NULL) host[0] = '\0';
    fclose(f);
    host[strcspn(host, " \t\r\n")] = '\0';
  }
  if (host[0] == '\0' && gethostname(host, len - 1) == 0) host[strcspn(host, ".")] = '\0';
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, n = argc > 1 ? atoi(argv[1]) : 20, run = argc > 2 ? atoi(argv[2]) : 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char host[256];
  RankZeroHost(host, sizeof(host));
  double* dup = malloc(sizeof(double) * n);
  double* rtt = malloc(sizeof(double) * n);
  double* reorder = malloc(sizeof(double) * n);
  double* cached = malloc(sizeof(double) * n);
  double* ratio = malloc(sizeof(double) * n);
  int reordered = 0, fallbacks = 0, rtt_failures = 0;
  for (int i = -1; i < n; ++i) {
    MPI_Comm d, parent, c1, c2;
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    double dup_us = Slowest(MPI_Wtime() - t);
    MPI_Comm_free(&d);

    MPI_Barrier(MPI_COMM_WORLD);
    double rtt_us = 0;
    if (rank == 0) {
      t = MPI_Wtime();
      if (toporr_bench_source_round_trip(host) != 0) ++rtt_failures;
      rtt_us = (MPI_Wtime() - t) * 1e6;
    }

    MPI_Comm_dup(MPI_COMM_WORLD, &parent);
    toporr_decision dec;
    MPI_Barrier(MPI_COMM_WORLD);
    t = MPI_Wtime();
    toporr_comm_reorder(NULL, parent, TOPORR_ALLREDUCE, TOPORR_ALG_AUTO, 1 << 20, 0, &c1, &dec);
    double reorder_us = Slowest(MPI_Wtime() - t);
    MPI_Barrier(MPI_COMM_WORLD);
    t = MPI_Wtime();
    toporr_comm_reorder(NULL, parent, TOPORR_ALLREDUCE, TOPORR_ALG_AUTO, 1 << 20, 0, &c2, NULL);
    double cached_us = Slowest(MPI_Wtime() - t);
    MPI_Comm_free(&c1);
    MPI_Comm_free(&c2);
    MPI_Comm_free(&parent);
    if (i < 0) continue; /* the warm-up: connections opened, code paged in */
    dup[i] = dup_us;
    rtt[i] = rtt_us;
    reorder[i] = reorder_us;
    cached[i] = cached_us;
    ratio[i] = reorder_us / (2 * dup_us + rtt_us);
    reordered += dec.reordered;
    fallbacks += dec.fallback;
  }
  if (rank == 0) {
    printf(
        "{\"run\":%d,\"ranks\":%d,\"iterations\":%d,\"reordered\":%d,\"fallbacks\":%d,"
        "\"rtt_failures\":%d,",
        run, size, n, reordered, fallbacks, rtt_failures);
    PrintFigure("dup_us", dup, n);
    printf(",");
    PrintFigure("rtt_us", rtt, n);
    printf(",");
    PrintFigure("reorder_us", reorder, n);
    printf(",");
    PrintFigure("cached_us", cached, n);
    printf(",");
    PrintFigure("ratio", ratio, n);
    printf("}\n");
    fflush(stdout);
  }
  free(dup);
  free(rtt);
  free(reorder);
  free(cached);
  free(ratio);
  MPI_Finalize();
  return 0;
}

/* One collective at several sizes, timed as the job's MPI library runs it: its default
 * selection, an algorithm its control variables force (MPICH's MPIR_CVAR_*), or the toporr
 * drop-in preloaded into the job. Nothing of toporr is linked: the job's environment decides
 * (bench/vcluster/run_mpich_topo_bench.py runs one job per variant, alternating).
 *
 *   plain_coll_bench --collective allreduce|bcast --sizes B1,B2,... [--reps R] [--warmup W]
 *                    [--pause-us U]
 *
 * Every repetition runs every size once: the job idles --pause-us (default 5000)
 * microseconds, so that each call starts on drained queues and full shaper buckets, then a
 * barrier, then the call; its time is the slowest rank's. Every result is checked
 * (allreduce: the sum of the ranks' integers; bcast: rank 0's pattern) and a wrong one aborts
 * the job. W warm-up repetitions (default 2) run first and are not reported. Rank 0 prints
 * JSON lines on stdout:
 *   {"kind":"setup", "ranks":P, "hosts":[host of each rank]}
 *   {"kind":"time", "collective":C, "bytes":B, "rep":r, "us":T}
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { kMaxSizes = 16 };

static void Die(const char* msg) {
  fprintf(stderr, "plain_coll_bench: %s\n", msg);
  MPI_Abort(MPI_COMM_WORLD, 2);
}

static int ParseSizes(const char* arg, long* sizes) {
  int n = 0;
  const char* p = arg;
  while (*p != '\0' && n < kMaxSizes) {
    char* end = NULL;
    long v = strtol(p, &end, 10);
    if (end == p || v < 4 || v % 4 != 0 || v > (1L << 30) || (*end != ',' && *end != '\0')) {
      return -1;
    }
    sizes[n++] = v;
    p = *end == ',' ? end + 1 : end;
  }
  return *p == '\0' ? n : -1;
}

static void PrintSetup(int rank, int nranks) {
  char host[MPI_MAX_PROCESSOR_NAME] = {0};
  gethostname(host, sizeof(host) - 1);
  char* all = rank == 0 ? malloc((size_t)nranks * MPI_MAX_PROCESSOR_NAME) : NULL;
  MPI_Gather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0,
             MPI_COMM_WORLD);
  if (rank != 0) return;
  printf("{\"kind\":\"setup\",\"ranks\":%d,\"hosts\":[", nranks);
  for (int r = 0; r < nranks; ++r) {
    printf("%s\"%s\"", r ? "," : "", all + (size_t)r * MPI_MAX_PROCESSOR_NAME);
  }
  printf("]}\n");
  fflush(stdout);
  free(all);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  const char* collective = NULL;
  const char* sizes_arg = NULL;
  int reps = 5, warmup = 2, pause_us = 5000;
  for (int i = 1; i < argc; ++i) {
    if (i + 1 >= argc) Die("every option takes a value (usage in plain_coll_bench.c)");
    if (strcmp(argv[i], "--collective") == 0) {
      collective = argv[++i];
    } else if (strcmp(argv[i], "--sizes") == 0) {
      sizes_arg = argv[++i];
    } else if (strcmp(argv[i], "--reps") == 0) {
      reps = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--warmup") == 0) {
      warmup = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--pause-us") == 0) {
      pause_us = atoi(argv[++i]);
    } else {
      Die("unknown option (usage in plain_coll_bench.c)");
    }
  }
  if (collective == NULL || sizes_arg == NULL) Die("--collective and --sizes are required");
  int bcast = strcmp(collective, "bcast") == 0;
  if (!bcast && strcmp(collective, "allreduce") != 0) Die("--collective: allreduce or bcast");
  if (reps < 1 || reps > 1000 || warmup < 0 || warmup > 100 || pause_us < 0 || pause_us > 1000000) {
    Die("--reps 1..1000, --warmup 0..100, --pause-us 0..1000000");
  }
  long sizes[kMaxSizes];
  int nsizes = ParseSizes(sizes_arg, sizes);
  if (nsizes <= 0) Die("--sizes: byte counts, multiples of 4, at most 1 GiB, comma-separated");
  long max_bytes = 0;
  for (int s = 0; s < nsizes; ++s) max_bytes = sizes[s] > max_bytes ? sizes[s] : max_bytes;
  int* send = malloc((size_t)max_bytes);
  int* recv = malloc((size_t)max_bytes);
  if (send == NULL || recv == NULL) Die("out of memory");
  PrintSetup(rank, nranks);

  for (int rep = -warmup; rep < reps; ++rep) {
    for (int s = 0; s < nsizes; ++s) {
      long count = sizes[s] / 4;
      for (long i = 0; i < count; ++i) {
        send[i] = bcast ? (rank == 0 ? (int)(i * 7 + 3) : -1) : (int)((rank + 1) * (i % 13));
      }
      usleep((useconds_t)pause_us);
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      if (bcast) {
        MPI_Bcast(send, (int)count, MPI_INT, 0, MPI_COMM_WORLD);
      } else {
        MPI_Allreduce(send, recv, (int)count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      }
      double mine = MPI_Wtime() - t0, slowest = 0;
      MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
      long total = (long)nranks * (nranks + 1) / 2;
      int wrong = 0;
      for (long i = 0; i < count; i += 4093) {
        wrong |= bcast ? send[i] != (int)(i * 7 + 3) : recv[i] != (int)(total * (i % 13));
      }
      long last = count - 1;
      wrong |= bcast ? send[last] != (int)(last * 7 + 3) : recv[last] != (int)(total * (last % 13));
      if (wrong) Die("a wrong result");
      if (rank == 0 && rep >= 0) {
        printf("{\"kind\":\"time\",\"collective\":\"%s\",\"bytes\":%ld,\"rep\":%d,\"us\":%.1f}\n",
               collective, sizes[s], rep, slowest * 1e6);
        fflush(stdout);
      }
    }
  }
  free(send);
  free(recv);
  MPI_Finalize();
  return 0;
}

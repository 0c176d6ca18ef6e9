/* Measured collective times on a real network: the MPI library's default, toporr's own
 * algorithms on the launch order and on toporr's order, and the PMPI drop-in, interleaved in
 * one job (bench/vcluster/run_vcluster_bench.py runs it on the virtual cluster).
 *
 *   coll_bench --collective allreduce|bcast --sizes B1,B2,... --algorithms A1,A2
 *              [--reps R] [--warmup W] [--warmup-max-bytes B] [--pause-us U]
 *              [--leaf-order R0,R1,...] [--no-launch-algorithms 1] [--leaf-algorithms 0|1]
 *              [--dropin-warmup N]
 *
 * Variants, each timed at every size and repetition:
 *   default      PMPI_Allreduce / PMPI_Bcast on MPI_COMM_WORLD: the MPI library's own choice
 *                on the launch order (the PMPI entry, so the drop-in never intercepts it)
 *   A@launch     toporr's implementation of algorithm A run directly on MPI_COMM_WORLD
 *                (left out with --no-launch-algorithms 1)
 *   A@toporr     the same implementation on the communicator toporr_comm_reorder made for
 *                A and the size (decided once, before timing)
 *   dropin       MPI_Allreduce / MPI_Bcast: under LD_PRELOAD=libtoporr_pmpi.so toporr's
 *                selection of algorithm and order; without it the library's call again
 * With --leaf-order (the launch ranks in the leaf-sorted order: new rank i is launch rank Ri,
 * a permutation of 0..P-1):
 *   default@leafsorted  PMPI_Allreduce / PMPI_Bcast on that order (a communicator split from
 *                MPI_COMM_WORLD with key = position): the MPI library's own choice on the
 *                leaf-sorted order
 *   A@leafsorted toporr's implementation of A on that order (left out with
 *                --no-launch-algorithms 1 unless --leaf-algorithms 1; --leaf-algorithms 0
 *                leaves it out in any case): against A@toporr, what toporr's order alone
 *                gives over the leaf-sorted one
 * Algorithms: allreduce ring, rabenseifner, recursive_doubling; bcast binomial,
 * scatter_allgather, scatter_allgather_ring, binary_tree, knomial. Bcast root: rank 0 of the
 * launch order (its new rank on a reordered or leaf-sorted communicator).
 *
 * One repetition runs every (size, variant) once, the variants of a size in an order shuffled
 * per repetition (the same seeded shuffle on every rank), so that no variant always follows
 * the same one. Before each call the job is idle for --pause-us (default 5000) microseconds,
 * so that every call starts on drained queues and full shaper buckets whatever ran before
 * it; then a barrier, and the call's time is the slowest rank's. Every result is checked
 * (allreduce: the sum of the ranks' integers; bcast: the root's pattern) and a wrong one aborts the
 * job. W warm-up repetitions (default 1) are run first and not reported; with
 * --warmup-max-bytes they run every variant only at the sizes up to B bytes and only the
 * drop-in above (its decision for that size is made there, outside the timed repetitions;
 * connections are made by the smaller sizes). --dropin-warmup N: then N more untimed drop-in
 * calls at every size, so that the drop-in's run-time verification of a decision (its first
 * 2 x verify_calls calls alternate between toporr's path and the library's) is over before
 * the timed repetitions.
 *
 * Rank 0 prints JSON lines on stdout:
 *   {"kind":"setup", "ranks":P, "hosts":[host of each rank], "dropin":0|1}
 *   {"kind":"order", "variant":"A@toporr", "bytes":B, "order":[old rank of each new rank],
 *    "reordered":0|1, "fallback":0|1, "reason":"...", "predicted_before_ns":X,
 *    "predicted_after_ns":Y}
 *   {"kind":"time", "collective":C, "variant":V, "bytes":B, "rep":r, "us":T}
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/mpi/pmpi_abi.h"
#include "client/toporr.h"

#define MAX_SIZES 16
#define MAX_ALGS 4
#define MAX_VARIANTS (3 + 3 * MAX_ALGS)

static int rank, nranks;

static void Die(const char* what) {
  if (rank == 0) fprintf(stderr, "coll_bench: %s\n", what);
  MPI_Abort(MPI_COMM_WORLD, 2);
}

typedef struct {
  const char* name;
  toporr_algorithm alg;
  int bcast;
} AlgName;

static const AlgName kAlgs[] = {
    {"ring", TOPORR_ALG_RING, 0},
    {"rabenseifner", TOPORR_ALG_RABENSEIFNER, 0},
    {"recursive_doubling", TOPORR_ALG_RECURSIVE_DOUBLING, 0},
    {"binomial", TOPORR_ALG_BINOMIAL, 1},
    {"scatter_allgather", TOPORR_ALG_SCATTER_ALLGATHER, 1},
    {"scatter_allgather_ring", TOPORR_ALG_SCATTER_ALLGATHER_RING, 1},
    {"binary_tree", TOPORR_ALG_BINARY_TREE, 1},
    {"knomial", TOPORR_ALG_KNOMIAL, 1},
};

typedef enum { kDefault, kLaunch, kToporr, kDropin, kDefaultLeaf, kLeaf } Kind;

typedef struct {
  char name[64];
  Kind kind;
  int alg; /* index into kAlgs for kLaunch / kToporr / kLeaf */
} Variant;

/* The communicator and root a variant runs on, per size. */
typedef struct {
  MPI_Comm comm;
  int root;
} Target;

static int ParseList(const char* text, char items[][64], int max) {
  int n = 0;
  const char* p = text;
  while (*p != '\0') {
    const char* end = strchr(p, ',');
    size_t len = end != NULL ? (size_t)(end - p) : strlen(p);
    if (n == max || len == 0 || len >= 64) return -1;
    memcpy(items[n], p, len);
    items[n][len] = '\0';
    ++n;
    p += len;
    if (*p == ',') ++p;
  }
  return n;
}

static int FindAlg(const char* name, int bcast) {
  for (size_t i = 0; i < sizeof(kAlgs) / sizeof(kAlgs[0]); ++i) {
    if (strcmp(kAlgs[i].name, name) == 0 && kAlgs[i].bcast == bcast) return (int)i;
  }
  return -1;
}

/* Value rank r puts at element i; the allreduce sum over ranks has a closed form. */
static int Value(int r, long i) { return (int)((r + 1) * (1 + i % 7)); }
static int Sum(long i) { return (int)((long)nranks * (nranks + 1) / 2 * (1 + i % 7)); }

static void Fill(int* buf, long count, int r) {
  for (long i = 0; i < count; ++i) buf[i] = Value(r, i);
}

/* One element per 4 KiB and the last one. */
static int Check(const int* buf, long count, int bcast, int root_world) {
  for (long i = 0; i < count; i += 1024) {
    if (buf[i] != (bcast ? Value(root_world, i) : Sum(i))) return 0;
  }
  long last = count - 1;
  return count == 0 || buf[last] == (bcast ? Value(root_world, last) : Sum(last));
}

static int Run(const Variant* v, int bcast, int* buf, long count, const Target* t) {
  if (bcast) {
    switch (v->kind) {
      case kDefault:
        return PMPI_Bcast(buf, (int)count, MPI_INT, 0, MPI_COMM_WORLD);
      case kDropin:
        return MPI_Bcast(buf, (int)count, MPI_INT, 0, MPI_COMM_WORLD);
      case kDefaultLeaf:
        return PMPI_Bcast(buf, (int)count, MPI_INT, t->root, t->comm);
      case kLaunch:
        return toporr_coll_bcast(kAlgs[v->alg].alg, buf, (int)count, MPI_INT, 0, MPI_COMM_WORLD, 4);
      case kToporr:
      case kLeaf:
        return toporr_coll_bcast(kAlgs[v->alg].alg, buf, (int)count, MPI_INT, t->root, t->comm, 4);
    }
  }
  switch (v->kind) {
    case kDefault:
      return PMPI_Allreduce(MPI_IN_PLACE, buf, (int)count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    case kDropin:
      return MPI_Allreduce(MPI_IN_PLACE, buf, (int)count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    case kDefaultLeaf:
      return PMPI_Allreduce(MPI_IN_PLACE, buf, (int)count, MPI_INT, MPI_SUM, t->comm);
    case kLaunch:
      return toporr_coll_allreduce(kAlgs[v->alg].alg, MPI_IN_PLACE, buf, (int)count, MPI_INT,
                                   MPI_SUM, MPI_COMM_WORLD, 0);
    case kToporr:
    case kLeaf:
      return toporr_coll_allreduce(kAlgs[v->alg].alg, MPI_IN_PLACE, buf, (int)count, MPI_INT,
                                   MPI_SUM, t->comm, 0);
  }
  return MPI_ERR_ARG;
}

static void PrintJsonString(const char* s) {
  putchar('"');
  for (; *s != '\0'; ++s) {
    if (*s == '"' || *s == '\\') {
      printf("\\%c", *s);
    } else if ((unsigned char)*s < 0x20) {
      printf("\\u%04x", *s);
    } else {
      putchar(*s);
    }
  }
  putchar('"');
}

/* Whether MPI_Allreduce resolves into libtoporr_pmpi.so (the drop-in is preloaded). */
static int DropinLoaded(void) {
  Dl_info info;
  void* sym = dlsym(RTLD_DEFAULT, "MPI_Allreduce");
  return sym != NULL && dladdr(sym, &info) != 0 && info.dli_fname != NULL &&
         strstr(info.dli_fname, "libtoporr_pmpi") != NULL;
}

static void PrintSetup(int dropin) {
  char host[MPI_MAX_PROCESSOR_NAME] = {0};
  int len = 0;
  MPI_Get_processor_name(host, &len);
  char* all = rank == 0 ? malloc((size_t)nranks * MPI_MAX_PROCESSOR_NAME) : NULL;
  PMPI_Gather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0,
              MPI_COMM_WORLD);
  if (rank != 0) return;
  printf("{\"kind\":\"setup\",\"ranks\":%d,\"dropin\":%d,\"hosts\":[", nranks, dropin);
  for (int r = 0; r < nranks; ++r) {
    if (r > 0) putchar(',');
    PrintJsonString(all + (size_t)r * MPI_MAX_PROCESSOR_NAME);
  }
  printf("]}\n");
  fflush(stdout);
  free(all);
}

/* toporr's communicator for algorithm `alg` at `bytes`; prints its order on rank 0. */
static Target Reorder(const Variant* v, int bcast, long bytes) {
  Target t = {MPI_COMM_NULL, 0};
  toporr_decision d;
  memset(&d, 0, sizeof(d));
  int rc = toporr_comm_reorder(NULL, MPI_COMM_WORLD, bcast ? TOPORR_BCAST : TOPORR_ALLREDUCE,
                               kAlgs[v->alg].alg, (size_t)bytes, 0, &t.comm, &d);
  if (rc != MPI_SUCCESS) Die("toporr_comm_reorder failed");
  int new_rank = 0;
  MPI_Comm_rank(t.comm, &new_rank);
  /* The root's new rank, known to all. */
  MPI_Group world_group, group;
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  MPI_Comm_group(t.comm, &group);
  int zero = 0;
  MPI_Group_translate_ranks(world_group, 1, &zero, group, &t.root);
  MPI_Group_free(&world_group);
  MPI_Group_free(&group);
  int* world_order = malloc(sizeof(int) * (size_t)nranks);
  /* The new rank of each old rank, gathered on world rank 0 and inverted: new rank i is old
   * rank world_order[i]. */
  int* new_of_old = rank == 0 ? malloc(sizeof(int) * (size_t)nranks) : NULL;
  PMPI_Gather(&new_rank, 1, MPI_INT, new_of_old, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    for (int old = 0; old < nranks; ++old) world_order[new_of_old[old]] = old;
    printf("{\"kind\":\"order\",\"variant\":");
    PrintJsonString(v->name);
    printf(",\"bytes\":%ld,\"order\":[", bytes);
    for (int i = 0; i < nranks; ++i) printf(i > 0 ? ",%d" : "%d", world_order[i]);
    printf("],\"reordered\":%d,\"fallback\":%d,\"reason\":", d.reordered, d.fallback);
    PrintJsonString(d.fallback_reason);
    printf(",\"algorithm\":");
    PrintJsonString(d.algorithm);
    printf(",\"predicted_before_ns\":%.0f,\"predicted_after_ns\":%.0f}\n", d.predicted_before_ns,
           d.predicted_after_ns);
    fflush(stdout);
  }
  free(new_of_old);
  free(world_order);
  return t;
}

/* The communicator of the leaf-sorted order: new rank i is launch rank leaf_order[i]; the
 * root is launch rank 0's new rank. */
static Target LeafSorted(const int* leaf_order) {
  Target t = {MPI_COMM_NULL, 0};
  int key = -1;
  for (int i = 0; i < nranks; ++i) {
    if (leaf_order[i] == rank) key = i;
    if (leaf_order[i] == 0) t.root = i;
  }
  if (PMPI_Comm_split(MPI_COMM_WORLD, 0, key, &t.comm) != MPI_SUCCESS) Die("leaf-sorted split");
  return t;
}

/* The order of `n` variants in one repetition: a Fisher-Yates shuffle driven by a linear
 * congruential generator seeded with `seed`, identical on every rank. */
static void Shuffle(int* order, int n, unsigned seed) {
  unsigned x = seed * 2654435761u + 12345u;
  for (int i = 0; i < n; ++i) order[i] = i;
  for (int i = n - 1; i > 0; --i) {
    x = x * 1103515245u + 12345u;
    int j = (int)((x >> 16) % (unsigned)(i + 1));
    int t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  const char* collective = NULL;
  const char* sizes_arg = NULL;
  const char* algs_arg = NULL;
  const char* leaf_arg = NULL;
  int reps = 10, warmup = 1, pause_us = 5000;
  long warmup_max_bytes = -1;
  int no_launch = 0, dropin_warmup = 0;
  int leaf_algs = -1; /* -1: as the launch-order algorithms */
  for (int i = 1; i < argc; ++i) {
    if (i + 1 >= argc) Die("every option takes a value (usage in coll_bench.c)");
    if (strcmp(argv[i], "--collective") == 0) {
      collective = argv[++i];
    } else if (strcmp(argv[i], "--sizes") == 0) {
      sizes_arg = argv[++i];
    } else if (strcmp(argv[i], "--algorithms") == 0) {
      algs_arg = argv[++i];
    } else if (strcmp(argv[i], "--reps") == 0) {
      reps = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--warmup") == 0) {
      warmup = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--warmup-max-bytes") == 0) {
      warmup_max_bytes = atol(argv[++i]);
    } else if (strcmp(argv[i], "--dropin-warmup") == 0) {
      dropin_warmup = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--no-launch-algorithms") == 0) {
      no_launch = atoi(argv[++i]) != 0;
    } else if (strcmp(argv[i], "--leaf-algorithms") == 0) {
      leaf_algs = atoi(argv[++i]) != 0;
    } else if (strcmp(argv[i], "--leaf-order") == 0) {
      leaf_arg = argv[++i];
    } else if (strcmp(argv[i], "--pause-us") == 0) {
      pause_us = atoi(argv[++i]);
    } else {
      Die("unknown option (usage in coll_bench.c)");
    }
  }
  if (collective == NULL || sizes_arg == NULL || algs_arg == NULL) {
    Die("--collective, --sizes and --algorithms are required");
  }
  int bcast = strcmp(collective, "bcast") == 0;
  if (!bcast && strcmp(collective, "allreduce") != 0) Die("--collective: allreduce or bcast");
  if (reps < 1 || reps > 1000 || warmup < 0 || warmup > 100 || pause_us < 0 || pause_us > 1000000) {
    Die("--reps 1..1000, --warmup 0..100, --pause-us 0..1000000");
  }

  char items[MAX_SIZES][64];
  long sizes[MAX_SIZES];
  int nsizes = ParseList(sizes_arg, items, MAX_SIZES);
  if (nsizes <= 0) Die("--sizes: a comma-separated list of byte counts");
  for (int i = 0; i < nsizes; ++i) {
    char* end = NULL;
    sizes[i] = strtol(items[i], &end, 10);
    if (*end != '\0' || sizes[i] < 4 || sizes[i] % 4 != 0 || sizes[i] > (1L << 30)) {
      Die("--sizes: byte counts, multiples of 4, at most 1 GiB");
    }
  }
  Variant variants[MAX_VARIANTS];
  int nvariants = 0;
  variants[nvariants++] = (Variant){"default", kDefault, -1};
  char alg_items[MAX_ALGS][64];
  int nalgs = ParseList(algs_arg, alg_items, MAX_ALGS);
  if (nalgs <= 0) Die("--algorithms: a comma-separated list (at most 4)");
  for (int a = 0; a < nalgs; ++a) {
    int idx = FindAlg(alg_items[a], bcast);
    if (idx < 0) Die("--algorithms: not one of toporr's algorithms for this collective");
    Variant launch = {"", kLaunch, idx}, reordered = {"", kToporr, idx};
    snprintf(launch.name, sizeof(launch.name), "%s@launch", kAlgs[idx].name);
    snprintf(reordered.name, sizeof(reordered.name), "%s@toporr", kAlgs[idx].name);
    if (!no_launch) variants[nvariants++] = launch;
    variants[nvariants++] = reordered;
  }
  variants[nvariants++] = (Variant){"dropin", kDropin, -1};
  int* leaf_order = NULL;
  if (leaf_arg != NULL) {
    leaf_order = malloc(sizeof(int) * (size_t)nranks);
    int* seen = calloc((size_t)nranks, sizeof(int));
    const char* p = leaf_arg;
    for (int i = 0; i < nranks; ++i) {
      char* end = NULL;
      long r = strtol(p, &end, 10);
      if (end == p || r < 0 || r >= nranks || seen[r] || (*end != ',' && *end != '\0') ||
          (*end == '\0') != (i == nranks - 1)) {
        Die("--leaf-order: a permutation of the launch ranks 0..P-1");
      }
      seen[r] = 1;
      leaf_order[i] = (int)r;
      p = end + 1;
    }
    free(seen);
    variants[nvariants++] = (Variant){"default@leafsorted", kDefaultLeaf, -1};
    for (int a = 0; a < nalgs && (leaf_algs < 0 ? !no_launch : leaf_algs); ++a) {
      Variant leaf = {"", kLeaf, FindAlg(alg_items[a], bcast)};
      snprintf(leaf.name, sizeof(leaf.name), "%s@leafsorted", kAlgs[leaf.alg].name);
      variants[nvariants++] = leaf;
    }
  }

  PrintSetup(DropinLoaded());
  long max_bytes = 0;
  for (int s = 0; s < nsizes; ++s) max_bytes = sizes[s] > max_bytes ? sizes[s] : max_bytes;
  int* buf = malloc((size_t)max_bytes);
  if (buf == NULL) Die("out of memory");
  Target targets[MAX_SIZES][MAX_VARIANTS];
  Target leaf = {MPI_COMM_WORLD, 0};
  if (leaf_order != NULL) leaf = LeafSorted(leaf_order);
  for (int s = 0; s < nsizes; ++s) {
    for (int k = 0; k < nvariants; ++k) {
      targets[s][k] = (Target){MPI_COMM_WORLD, 0};
      if (variants[k].kind == kToporr) targets[s][k] = Reorder(&variants[k], bcast, sizes[s]);
      if (variants[k].kind == kDefaultLeaf || variants[k].kind == kLeaf) targets[s][k] = leaf;
    }
  }

  if (dropin_warmup < 0 || dropin_warmup > 100) Die("--dropin-warmup 0..100");
  for (int rep = -warmup - (dropin_warmup > 0); rep < reps; ++rep) {
    for (int s = 0; s < nsizes; ++s) {
      long count = sizes[s] / 4;
      int order[MAX_VARIANTS];
      Shuffle(order, nvariants, (unsigned)((rep + warmup) * MAX_SIZES + s));
      for (int j = 0; j < nvariants; ++j) {
        int k = order[j];
        const Variant* v = &variants[k];
        if (rep < 0 && warmup_max_bytes >= 0 && sizes[s] > warmup_max_bytes && v->kind != kDropin) {
          continue;
        }
        if (rep < -warmup && v->kind != kDropin) continue;
        for (int extra = rep < -warmup ? dropin_warmup - 1 : 0; extra > 0; --extra) {
          Fill(buf, count, bcast ? (rank == 0 ? 0 : nranks + 7) : rank);
          if (pause_us > 0) usleep((useconds_t)pause_us);
          if (Run(v, bcast, buf, count, &targets[s][k]) != MPI_SUCCESS) {
            Die("a collective returned an error");
          }
        }
        Fill(buf, count, bcast ? (rank == 0 ? 0 : nranks + 7) : rank);
        if (pause_us > 0) usleep((useconds_t)pause_us);
        MPI_Barrier(MPI_COMM_WORLD);
        double start = MPI_Wtime();
        int rc = Run(v, bcast, buf, count, &targets[s][k]);
        double mine = MPI_Wtime() - start, slowest = 0;
        if (rc != MPI_SUCCESS) Die("a collective returned an error");
        int ok = Check(buf, count, bcast, 0), all_ok = 0;
        PMPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (!all_ok) {
          if (rank == 0) fprintf(stderr, "coll_bench: wrong result: %s %ld B\n", v->name, sizes[s]);
          MPI_Abort(MPI_COMM_WORLD, 3);
        }
        if (rank == 0 && rep >= 0) {
          printf("{\"kind\":\"time\",\"collective\":\"%s\",\"variant\":", collective);
          PrintJsonString(v->name);
          printf(",\"bytes\":%ld,\"rep\":%d,\"us\":%.1f}\n", sizes[s], rep, slowest * 1e6);
          fflush(stdout);
        }
      }
    }
  }
  for (int s = 0; s < nsizes; ++s) {
    for (int k = 0; k < nvariants; ++k) {
      if (targets[s][k].comm != MPI_COMM_WORLD && targets[s][k].comm != leaf.comm) {
        MPI_Comm_free(&targets[s][k].comm);
      }
    }
  }
  if (leaf.comm != MPI_COMM_WORLD) MPI_Comm_free(&leaf.comm);
  free(leaf_order);
  free(buf);
  MPI_Finalize();
  return 0;
}

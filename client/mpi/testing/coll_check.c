/* Correctness of toporr's collectives against the MPI library's own, over a generated table
 * (run by mpi_test.py at several communicator sizes):
 *   allreduce: ring, segmented ring (40 B segments), recursive doubling, Rabenseifner, Swing
 *              (latency and bandwidth)
 *   bcast:     binomial, binary tree, k-nomial (radix 2..8), scatter-allgather(-ring), Bine
 *   allgather: ring, recursive doubling (blocks in the caller's rank order when reordered)
 * x counts (0..17, around powers of two up to 1000, and 2^20, 2^20 + 7 for two cheap
 *   type/op pairs) x datatypes {int, double, float complex, a vector of ints, a struct of int
 *   and double} x ops {sum, max, bxor, a user commutative op} where MPI defines the pair
 *   (derived types with the user op only: MPI leaves predefined ops on them undefined)
 *   x in place or not (allreduce) / roots {0, size/2, size-1} (bcast).
 * Each case runs on a duplicate of MPI_COMM_WORLD through toporr_coll_* (the algorithm
 * alone), and a sample through toporr_allreduce / toporr_bcast (selection + reordered
 * communicator). Integer results must equal the library's bitwise; floating ones within
 * rounding (bitwise for max). Prints "COLL <cases> <failures>" on rank 0 and the first
 * failures as "BAD ...". Exit status 1 on any failure.
 * `coll_check quick`: counts {0, 1, 3, 17, 129, 1000} and no 2^20 cases (for MPICH, whose
 * busy-polling ranks are slow when a small machine is oversubscribed).
 * `coll_check multilevel [quick]`: the multi-level versions instead, through the selection
 * (run under TOPORR_ALGORITHM=multilevel, which forces them; TOPORR_REPORT shows the
 * decisions): allreduce (in place or not), bcast, reduce (MPI_Reduce through
 * toporr_pmpi_reduce, in place at the root or not) and gather (toporr_gather, in place at
 * the root or not) x the counts x datatypes x ops x roots {0, size/2, size-1}. */
#include <complex.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/mpi/pmpi_abi.h"
#include "client/mpi/testing/coll_table.h"
#include "client/toporr.h"

static const int kAllreduceAlgs[] = {
    TOPORR_ALG_RING,         TOPORR_ALG_SEGMENTED_RING, TOPORR_ALG_RECURSIVE_DOUBLING,
    TOPORR_ALG_RABENSEIFNER, TOPORR_ALG_SWING,          TOPORR_ALG_SWING_BANDWIDTH};
static const char* kAllreduceNames[] = {"ring",         "segmented_ring", "recursive_doubling",
                                        "rabenseifner", "swing",          "swing_bandwidth"};
#define NUM_ALLREDUCE_ALGS ((int)(sizeof(kAllreduceAlgs) / sizeof(kAllreduceAlgs[0])))
/* Segments of the segmented ring when run directly: 40 B, so that counts from a few dozen
 * elements up run in several phases (toporr's selection uses 1 MiB). */
enum { kTestSegmentBytes = 40 };

static void CheckAllreduce(MPI_Comm comm, int alg, int t, int o, int count, int in_place,
                           int selected) {
  const size_t bytes = ElementBytes(t) * (size_t)(count > 0 ? count : 1);
  char* send = malloc(bytes);
  char* got = malloc(bytes);
  char* want = malloc(bytes);
  Fill(t, send, count, rank, count);
  Fill(t, got, count, rank + 1000, count); /* garbage the algorithm must overwrite */
  memcpy(want, got, bytes);
  MPI_Allreduce(send, want, count, TypeOf(t), OpOf(o), comm);
  int rc;
  if (in_place) memcpy(got, send, bytes);
  const void* src = in_place ? MPI_IN_PLACE : send;
  if (selected) { /* alg < 0: TOPORR_ALG_AUTO (the multi-level table) */
    rc = toporr_allreduce(NULL, src, got, count, TypeOf(t), OpOf(o), MPI_COMM_WORLD,
                          alg < 0 ? TOPORR_ALG_AUTO : (toporr_algorithm)kAllreduceAlgs[alg]);
  } else {
    rc = toporr_coll_allreduce(kAllreduceAlgs[alg], src, got, count, TypeOf(t), OpOf(o), comm,
                               kTestSegmentBytes);
  }
  char what[200];
  snprintf(what, sizeof(what), "allreduce %s%s size=%d count=%d type=%s op=%s%s",
           alg < 0 ? "auto" : kAllreduceNames[alg], selected ? " (selected)" : "", size, count,
           kTypeNames[t], kOpNames[o], in_place ? " in-place" : "");
  Record(rc == MPI_SUCCESS && Same(t, o, got, want, count), what);
  free(send);
  free(got);
  free(want);
}

static const int kAllgatherAlgs[] = {TOPORR_ALG_RING, TOPORR_ALG_RECURSIVE_DOUBLING};
static const char* kAllgatherNames[] = {"ring", "recursive_doubling"};

/* `reversed`: rank k of this communicator is world rank size-1-k (position[k] = size-1-k),
 * so the blocks must be placed by position, as on a reordered communicator. */
static MPI_Comm reversed;
static int* reversed_position;

static void CheckAllgather(MPI_Comm comm, int alg, int t, int count, int in_place, int selected) {
  const size_t block = ElementBytes(t) * (size_t)count;
  const size_t bytes = block * size + 1;
  char* send = malloc(block + 1);
  char* got = malloc(bytes);
  char* want = malloc(bytes);
  Fill(t, send, count, rank, count + 5);
  Fill(t, got, count * size, 4242, count); /* the same garbage in both */
  memcpy(want, got, bytes);
  MPI_Allgather(send, count, TypeOf(t), want, count, TypeOf(t), comm);
  const void* src = send;
  if (in_place) {
    memcpy(got + block * rank, send, block);
    src = MPI_IN_PLACE;
  }
  int rc = selected ? toporr_allgather(NULL, src, count, TypeOf(t), got, count, TypeOf(t),
                                       MPI_COMM_WORLD, (toporr_algorithm)kAllgatherAlgs[alg])
                    : toporr_coll_allgather(kAllgatherAlgs[alg], src, count, TypeOf(t), got, count,
                                            TypeOf(t), reversed, reversed_position);
  char what[200];
  snprintf(what, sizeof(what), "allgather %s%s size=%d count=%d type=%s%s", kAllgatherNames[alg],
           selected ? " (selected)" : "", size, count, kTypeNames[t], in_place ? " in-place" : "");
  Record(rc == MPI_SUCCESS && Same(t, kMax, got, want, count * size), what);
  free(send);
  free(got);
  free(want);
}

static const int kBcastAlgs[] = {TOPORR_ALG_BINOMIAL,
                                 TOPORR_ALG_BINARY_TREE,
                                 TOPORR_ALG_KNOMIAL,
                                 TOPORR_ALG_SCATTER_ALLGATHER,
                                 TOPORR_ALG_SCATTER_ALLGATHER_RING,
                                 TOPORR_ALG_BINE};
static const char* kBcastNames[] = {
    "binomial", "binary_tree", "knomial", "scatter_allgather", "scatter_allgather_ring", "bine"};
#define NUM_BCAST_ALGS ((int)(sizeof(kBcastAlgs) / sizeof(kBcastAlgs[0])))

static void CheckBcast(MPI_Comm comm, int alg, int t, int count, int root, int radix,
                       int selected) {
  const size_t bytes = ElementBytes(t) * (size_t)(count > 0 ? count : 1);
  char* got = malloc(bytes);
  char* want = malloc(bytes);
  Fill(t, want, count, root, count); /* what root holds */
  if (rank == root) {
    memcpy(got, want, bytes);
  } else {
    Fill(t, got, count, rank + 1000, count);
    if (t == kVector) { /* the gaps are not part of the type: they keep their own value */
      for (long k = 0; k < count; ++k) ((int*)want)[3 * k + 1] = ((int*)got)[3 * k + 1];
    }
  }
  int rc = selected ? toporr_bcast(NULL, got, count, TypeOf(t), root, MPI_COMM_WORLD,
                                   alg < 0 ? TOPORR_ALG_AUTO : (toporr_algorithm)kBcastAlgs[alg])
                    : toporr_coll_bcast(kBcastAlgs[alg], got, count, TypeOf(t), root, comm, radix);
  char what[200];
  snprintf(what, sizeof(what), "bcast %s%s size=%d count=%d type=%s root=%d radix=%d",
           alg < 0 ? "auto" : kBcastNames[alg], selected ? " (selected)" : "", size, count,
           kTypeNames[t], root, radix);
  Record(rc == MPI_SUCCESS && Same(t, kSum, got, want, count), what);
  free(got);
  free(want);
}

/* MPI_Reduce through toporr (the PMPI entry point) against the library's, at `root`. */
static void CheckReduce(MPI_Comm comm, int t, int o, int count, int root, int in_place) {
  const size_t bytes = ElementBytes(t) * (size_t)(count > 0 ? count : 1);
  char* send = malloc(bytes);
  char* got = malloc(bytes);
  char* want = malloc(bytes);
  Fill(t, send, count, rank, count + 3);
  Fill(t, got, count, rank + 1000, count);
  memcpy(want, got, bytes);
  MPI_Reduce(send, want, count, TypeOf(t), OpOf(o), root, comm);
  const void* src = send;
  if (in_place && rank == root) {
    memcpy(got, send, bytes);
    src = MPI_IN_PLACE;
  }
  int rc = toporr_pmpi_reduce(src, got, count, TypeOf(t), OpOf(o), root, MPI_COMM_WORLD);
  char what[200];
  snprintf(what, sizeof(what), "reduce auto (selected) size=%d count=%d type=%s op=%s root=%d%s",
           size, count, kTypeNames[t], kOpNames[o], root, in_place ? " in-place" : "");
  Record(rc == MPI_SUCCESS && (rank != root || Same(t, o, got, want, count)), what);
  free(send);
  free(got);
  free(want);
}

/* toporr_gather against MPI_Gather: every block in the root's rank order. */
static void CheckGather(MPI_Comm comm, int t, int count, int root, int in_place) {
  const size_t block = ElementBytes(t) * (size_t)count;
  const size_t bytes = block * size + 1;
  char* send = malloc(block + 1);
  char* got = malloc(bytes);
  char* want = malloc(bytes);
  Fill(t, send, count, rank, count + 11);
  Fill(t, got, count * size, 4242, count); /* the same garbage in both */
  memcpy(want, got, bytes);
  MPI_Gather(send, count, TypeOf(t), want, count, TypeOf(t), root, comm);
  const void* src = send;
  if (in_place && rank == root) {
    memcpy(got + block * rank, send, block);
    src = MPI_IN_PLACE;
  }
  int rc = toporr_gather(NULL, src, count, TypeOf(t), got, count, TypeOf(t), root, MPI_COMM_WORLD,
                         TOPORR_ALG_AUTO);
  char what[200];
  snprintf(what, sizeof(what), "gather auto (selected) size=%d count=%d type=%s root=%d%s", size,
           count, kTypeNames[t], root, in_place ? " in-place" : "");
  Record(rc == MPI_SUCCESS && (rank != root || Same(t, kMax, got, want, count * size)), what);
  free(send);
  free(got);
  free(want);
}

/* The multi-level table (see the file comment). */
static void MultilevelTable(MPI_Comm comm, const int* counts, int n) {
  const int roots[3] = {0, size / 2, size - 1};
  for (int ci = 0; ci < n; ++ci) {
    for (int t = 0; t < kNumTypes; ++t) {
      for (int o = 0; o < kNumOps; ++o) {
        if (!Valid(t, o)) continue;
        CheckAllreduce(comm, -1, t, o, counts[ci], (ci + t + o) % 2, 1);
        for (int ri = 0; ri < 3; ++ri) {
          CheckReduce(comm, t, o, counts[ci], roots[ri], (ci + t + o + ri) % 2);
        }
      }
      for (int ri = 0; ri < 3; ++ri) {
        CheckBcast(comm, -1, t, counts[ci], roots[ri], 4, 1);
        CheckGather(comm, t, counts[ci], roots[ri], (ci + t + ri) % 2);
      }
    }
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CreateTableTypes();
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);

  int quick = 0, multilevel = 0;
  for (int i = 1; i < argc; ++i) {
    quick |= strcmp(argv[i], "quick") == 0;
    multilevel |= strcmp(argv[i], "multilevel") == 0;
  }
  int counts[64], n = 0;
  if (quick) {
    const int few[] = {0, 1, 3, 17, 129, 1000};
    for (size_t i = 0; i < sizeof(few) / sizeof(few[0]); ++i) counts[n++] = few[i];
  } else {
    for (int c = 0; c <= 17; ++c) counts[n++] = c;
    const int more[] = {31,  32,  33,  63,  64,  65,  100, 127, 128,
                        129, 255, 256, 257, 511, 512, 513, 999, 1000};
    for (size_t i = 0; i < sizeof(more) / sizeof(more[0]); ++i) counts[n++] = more[i];
  }

  if (multilevel) {
    MultilevelTable(comm, counts, n);
    if (!quick) {
      CheckAllreduce(comm, -1, kDouble, kSum, (1 << 20) + 7, 0, 1);
      CheckReduce(comm, kInt, kBxor, (1 << 20) + 7, size - 1, 1);
      CheckBcast(comm, -1, kInt, 1 << 20, size / 2, 4, 1);
      CheckGather(comm, kDouble, 70000, size / 2, 0);
    }
  }
  for (int a = 0; a < NUM_ALLREDUCE_ALGS && !multilevel; ++a) {
    for (int ci = 0; ci < n; ++ci) {
      for (int t = 0; t < kNumTypes; ++t) {
        for (int o = 0; o < kNumOps; ++o) {
          if (!Valid(t, o)) continue;
          CheckAllreduce(comm, a, t, o, counts[ci], (ci + t + o) % 2, 0);
        }
      }
    }
    if (!quick && kAllreduceAlgs[a] != TOPORR_ALG_SEGMENTED_RING) { /* 40 B: 10^5 steps */
      CheckAllreduce(comm, a, kInt, kSum, 1 << 20, 0, 0);
      CheckAllreduce(comm, a, kDouble, kMax, (1 << 20) + 7, 1, 0);
    }
    CheckAllreduce(comm, a, kDouble, kSum, quick ? 4099 : (1 << 20) + 7, 0, 1); /* selected */
    CheckAllreduce(comm, a, kVector, kUser, 1000, 1, 1);
  }
  MPI_Comm_split(MPI_COMM_WORLD, 0, size - 1 - rank, &reversed);
  reversed_position = malloc(sizeof(int) * size);
  for (int k = 0; k < size; ++k) reversed_position[k] = size - 1 - k;
  for (int a = 0; a < 2 && !multilevel; ++a) {
    for (int ci = 0; ci < n; ++ci) {
      for (int t = 0; t < kNumTypes; ++t) CheckAllgather(comm, a, t, counts[ci], (ci + t) % 2, 0);
    }
    CheckAllgather(comm, a, kDouble, quick ? 2049 : 70000, 0, 1); /* selected + reordered */
    CheckAllgather(comm, a, kStruct, 1000, 1, 1);
  }
  const int roots[3] = {0, size / 2, size - 1};
  for (int a = 0; a < NUM_BCAST_ALGS && !multilevel; ++a) {
    for (int ci = 0; ci < n; ++ci) {
      for (int t = 0; t < kNumTypes; ++t) {
        for (int ri = 0; ri < 3; ++ri) {
          const int radix = 2 + (ci + ri) % 7; /* k-nomial radices 2..8 */
          CheckBcast(comm, a, t, counts[ci], roots[ri], radix, 0);
        }
      }
    }
    if (!quick) CheckBcast(comm, a, kInt, 1 << 20, size - 1, 4, 0);
    CheckBcast(comm, a, kDouble, quick ? 4099 : (1 << 20) + 7, size / 2, 3, 1); /* selected */
    CheckBcast(comm, a, kStruct, 1000, size - 1, 4, 1);
  }
  if (rank == 0) printf("COLL %ld %ld\n", cases, failures);
  MPI_Comm_free(&reversed);
  free(reversed_position);
  MPI_Comm_free(&comm);
  FreeTableTypes();
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}

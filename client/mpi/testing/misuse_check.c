/* Programs for the PMPI layer's edge cases: erroneous calls, datatypes with one type signature
 * and two layouts, communicators of one rank, a daemon that is down or comes back, and
 * reproducible reductions. Unchanged MPI code (no toporr calls): run it with and without
 * LD_PRELOAD=libtoporr_pmpi.so and compare.
 *
 *   misuse_check MODE
 *
 * Modes (doubles, MPI_SUM; 128 KiB and more, above TOPORR_MIN_BYTES' default):
 *   counts-differ         MPI_Allreduce where rank 0 passes n elements and the others 2n (an
 *                         erroneous program: the MPI library reports it)
 *   counts-differ-cached  the same after one correct MPI_Allreduce of n elements (a decision
 *                         cached for rank 0's size class only)
 *   bcast-types           MPI_Bcast of 4n ints from rank 0 as MPI_INT, received as n elements
 *                         of a contiguous type of 4 ints (one type signature, two layouts)
 *   small-comms           MPI_Allreduce on MPI_COMM_SELF and on each of three
 *                         MPI_Comm_split parts
 *   dups:K                K times MPI_Comm_dup(MPI_COMM_WORLD), one 1 MiB MPI_Allreduce on it,
 *                         MPI_Comm_free; prints "ELAPSED <seconds>"
 *   pause-then:K:S        one 1 MiB MPI_Allreduce, S seconds of pause, then K more
 *   sum-bits              one 1 MiB MPI_Allreduce of irregular values; rank 0 prints
 *                         "BITS <hash of the result's bytes>"
 * Every mode that completes prints "CHECK <mode> ok|FAILED" from rank 0.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { kN = 16384 }; /* 128 KiB of doubles */

static int rank, size;

static void Done(const char* mode, int ok) {
  int all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0) printf("CHECK %s %s\n", mode, all ? "ok" : "FAILED");
}

/* In place, element i of rank r = r + i; the sum over `n` ranks is n*i + n*(n-1)/2. */
static int SumOk(MPI_Comm comm, int count) {
  int n = 0, r = 0, ok = 1;
  MPI_Comm_size(comm, &n);
  MPI_Comm_rank(comm, &r);
  double* v = malloc(sizeof(double) * count);
  for (int i = 0; i < count; ++i) v[i] = r + i;
  MPI_Allreduce(MPI_IN_PLACE, v, count, MPI_DOUBLE, MPI_SUM, comm);
  for (int i = 0; i < count; ++i) ok &= v[i] == (double)n * i + n * (n - 1) / 2.0;
  free(v);
  return ok;
}

static void CountsDiffer(int cached) {
  if (cached) SumOk(MPI_COMM_WORLD, kN);
  const int count = rank == 0 ? kN : 2 * kN;
  double* v = calloc(2 * kN, sizeof(double));
  MPI_Allreduce(MPI_IN_PLACE, v, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  free(v);
  Done(cached ? "counts-differ-cached" : "counts-differ", 1); /* not reached: MPI aborts */
}

static void BcastTypes(void) {
  /* n elements that no rank count divides: algorithms that split the buffer by elements
   * would cut the two layouts at different bytes. */
  const int n = kN + 1;
  MPI_Datatype four;
  MPI_Type_contiguous(4, MPI_INT, &four);
  MPI_Type_commit(&four);
  int* v = malloc(sizeof(int) * 4 * n);
  for (int i = 0; i < 4 * n; ++i) v[i] = rank == 0 ? 7 * i + 1 : -1;
  if (rank == 0) {
    MPI_Bcast(v, 4 * n, MPI_INT, 0, MPI_COMM_WORLD);
  } else {
    MPI_Bcast(v, n, four, 0, MPI_COMM_WORLD);
  }
  int ok = 1;
  for (int i = 0; i < 4 * n; ++i) ok &= v[i] == 7 * i + 1;
  free(v);
  MPI_Type_free(&four);
  Done("bcast-types", ok);
}

static void SmallComms(void) {
  int ok = SumOk(MPI_COMM_SELF, kN);
  MPI_Comm part;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 3, rank, &part);
  ok &= SumOk(part, kN);
  MPI_Comm_free(&part);
  Done("small-comms", ok);
}

static void Dups(int k) {
  int ok = 1;
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (int i = 0; i < k; ++i) {
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    ok &= SumOk(dup, 8 * kN);
    MPI_Comm_free(&dup);
  }
  const double elapsed = MPI_Wtime() - start;
  if (rank == 0) printf("ELAPSED %.3f\n", elapsed);
  Done("dups", ok);
}

static void PauseThen(int k, int seconds) {
  int ok = SumOk(MPI_COMM_WORLD, 8 * kN);
  if (rank == 0) sleep(seconds);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < k; ++i) ok &= SumOk(MPI_COMM_WORLD, 8 * kN);
  Done("pause-then", ok);
}

static void SumBits(void) {
  const int count = 8 * kN;
  double* v = malloc(sizeof(double) * count);
  for (int i = 0; i < count; ++i) v[i] = 1.0 / (1.0 + rank + 3.0 * i) + 1e-7 * (rank % 5);
  MPI_Allreduce(MPI_IN_PLACE, v, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  uint64_t h = 1469598103934665603ull;
  const unsigned char* b = (const unsigned char*)v;
  for (size_t i = 0; i < sizeof(double) * (size_t)count; ++i) h = (h ^ b[i]) * 1099511628211ull;
  if (rank == 0) printf("BITS %016llx\n", (unsigned long long)h);
  free(v);
  Done("sum-bits", 1);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* mode = argc > 1 ? argv[1] : "";
  int k = 0, s = 0;
  if (strcmp(mode, "counts-differ") == 0) {
    CountsDiffer(0);
  } else if (strcmp(mode, "counts-differ-cached") == 0) {
    CountsDiffer(1);
  } else if (strcmp(mode, "bcast-types") == 0) {
    BcastTypes();
  } else if (strcmp(mode, "small-comms") == 0) {
    SmallComms();
  } else if (sscanf(mode, "dups:%d", &k) == 1 && k > 0 && k <= 1000) {
    Dups(k);
  } else if (sscanf(mode, "pause-then:%d:%d", &k, &s) == 2 && k > 0 && k <= 1000 && s >= 0 &&
             s <= 60) {
    PauseThen(k, s);
  } else if (strcmp(mode, "sum-bits") == 0) {
    SumBits();
  } else {
    if (rank == 0) fprintf(stderr, "misuse_check: unknown mode '%s'\n", mode);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Finalize();
  return 0;
}

/* Collectives on "GPU" buffers under LD_PRELOAD=libtoporr_pmpi.so, with a stand-in CUDA driver
 * (client/testing/fake_gpu_driver.c, soname libcuda.so.1) that this program loads and tells
 * which of its buffers are device or managed memory. Run by buffers_threads_test.py.
 *
 * `device_check DRIVER COUNT [all|odd|none]`: loads DRIVER (dlopen, after MPI_Init and after a
 * first large MPI_Allreduce on host memory) on all ranks, on the odd ranks only (loaded before
 * any large collective: the ranks of one communicator differ), or on none (the control run);
 * then, on MPI_COMM_WORLD and on a duplicate made after the load, the calls below, each in a
 * size class of its own (toporr caches decisions per power of two), so that TOPORR_REPORT
 * tells them apart (B = 4 * COUNT bytes):
 *   allreduce  1 B  host buffers (before the load, WORLD only)
 *   allreduce  2 B  host buffers (after the load)
 *   allreduce  4 B  device buffers
 *   allreduce  8 B  in place, device buffer
 *   allreduce 16 B  managed buffers
 *   bcast      1 B  device buffer at every rank
 *   bcast      2 B  from rank 0, device buffer at rank 0 only (the other ranks' are host memory)
 *   bcast      4 B  host buffer
 *   reduce     1 B  device buffers (to rank 0)
 *   reduce     2 B  host buffers
 *   allgather  1 B  per rank, device buffers
 *   allgather  2 B  per rank, host buffers
 * every result checked. Rank 0 prints "CHECK device ok|bad" and "QUERIES <n>", the pointer
 * queries the driver answered on rank 0 (0 when not loaded there). */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { kFakeDevice = 1, kFakeManaged = 2 };
typedef int (*RegisterFn)(const void*, size_t, int);
typedef long (*QueriesFn)(void);

static int rank, size;
static long failures;
static RegisterFn add_range;

/* A buffer of n ints in memory of `kind` (0: plain host memory). Registered buffers are never
 * freed: the driver keeps their ranges, which a later host buffer must not reuse. */
static int* Buffer(int n, int kind) {
  int* p = calloc((size_t)n, sizeof(int));
  if (kind != 0 && add_range != NULL) add_range(p, sizeof(int) * (size_t)n, kind);
  return p;
}

static void Expect(const char* what, const int* buf, int n, int (*want)(int)) {
  for (int k = 0; k < n; ++k) {
    if (buf[k] != want(k)) {
      if (failures++ < 5)
        printf("BAD %s rank %d [%d]: %d, expected %d\n", what, rank, k, buf[k], want(k));
      return;
    }
  }
}

static int Own(int k) { return rank + k % 31; }
static int Sum(int k) { return size * (size - 1) / 2 + size * (k % 31); }
static int Root(int k) { return 5 + k % 17; }

static void Allreduce(const char* what, MPI_Comm comm, int n, int kind, int in_place) {
  int* in = Buffer(n, kind);
  int* out = Buffer(n, kind);
  for (int k = 0; k < n; ++k) (in_place ? out : in)[k] = Own(k);
  MPI_Allreduce(in_place ? MPI_IN_PLACE : in, out, n, MPI_INT, MPI_SUM, comm);
  Expect(what, out, n, Sum);
  if (kind == 0) {
    free(in);
    free(out);
  }
}

static void Bcast(const char* what, MPI_Comm comm, int n, int kind) {
  int* buf = Buffer(n, kind);
  for (int k = 0; k < n; ++k) buf[k] = rank == 0 ? Root(k) : -1;
  MPI_Bcast(buf, n, MPI_INT, 0, comm);
  Expect(what, buf, n, Root);
  if (kind == 0) free(buf);
}

static void Reduce(const char* what, MPI_Comm comm, int n, int kind) {
  int* in = Buffer(n, kind);
  int* out = Buffer(n, kind);
  for (int k = 0; k < n; ++k) in[k] = Own(k);
  MPI_Reduce(in, out, n, MPI_INT, MPI_SUM, 0, comm);
  if (rank == 0) Expect(what, out, n, Sum);
  if (kind == 0) {
    free(in);
    free(out);
  }
}

static void Allgather(const char* what, MPI_Comm comm, int n, int kind) {
  int* in = Buffer(n, kind);
  int* out = Buffer(n * size, kind);
  for (int k = 0; k < n; ++k) in[k] = Own(k);
  MPI_Allgather(in, n, MPI_INT, out, n, MPI_INT, comm);
  for (int r = 0; r < size; ++r) {
    for (int k = 0; k < n; ++k) {
      if (out[r * n + k] != r + k % 31) {
        if (failures++ < 5)
          printf("BAD %s rank %d block %d [%d]: %d\n", what, rank, r, k, out[r * n + k]);
        break;
      }
    }
  }
  if (kind == 0) {
    free(in);
    free(out);
  }
}

static void Calls(MPI_Comm comm, int count) {
  Allreduce("allreduce-host", comm, 2 * count, 0, 0);
  Allreduce("allreduce-device", comm, 4 * count, kFakeDevice, 0);
  Allreduce("allreduce-device-in-place", comm, 8 * count, kFakeDevice, 1);
  Allreduce("allreduce-managed", comm, 16 * count, kFakeManaged, 0);
  Bcast("bcast-device", comm, count, kFakeDevice);
  Bcast("bcast-device-at-root", comm, 2 * count, rank == 0 ? kFakeDevice : 0);
  Bcast("bcast-host", comm, 4 * count, 0);
  Reduce("reduce-device", comm, count, kFakeDevice);
  Reduce("reduce-host", comm, 2 * count, 0);
  Allgather("allgather-device", comm, count, kFakeDevice);
  Allgather("allgather-host", comm, 2 * count, 0);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  alarm(100); /* a rank stuck in a deadlock ends here, and mpirun ends the job */
  if (argc < 3) {
    if (rank == 0) fprintf(stderr, "usage: device_check DRIVER COUNT [all|odd|none]\n");
    MPI_Finalize();
    return 2;
  }
  const int count = atoi(argv[2]);
  const char* who = argc > 3 ? argv[3] : "all";
  const int load = strcmp(who, "all") == 0 || (strcmp(who, "odd") == 0 && rank % 2 == 1);
  void* driver = NULL;
  /* Odd ranks only: loaded before any large collective, as the contract in buffers.h asks. */
  if (load && strcmp(who, "odd") == 0) driver = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
  if (strcmp(who, "odd") != 0) Allreduce("allreduce-host-before", MPI_COMM_WORLD, count, 0, 0);
  if (load && driver == NULL) driver = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
  if (load && driver == NULL) {
    fprintf(stderr, "rank %d: %s\n", rank, dlerror());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  QueriesFn queries = NULL;
  if (driver != NULL) {
    add_range = (RegisterFn)dlsym(driver, "fake_gpu_register");
    queries = (QueriesFn)dlsym(driver, "fake_gpu_queries");
  }
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  Calls(MPI_COMM_WORLD, count);
  Calls(dup, count);
  MPI_Comm_free(&dup);
  long all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("CHECK device %s\n", all == 0 ? "ok" : "bad");
    printf("QUERIES %ld\n", queries != NULL ? queries() : 0L);
  }
  MPI_Finalize();
  return all == 0 ? 0 : 1;
}

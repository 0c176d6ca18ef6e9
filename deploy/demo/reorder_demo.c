/* The README demo's MPI program: an allreduce on a communicator toporr reordered for it
 * (C API), which toporr's coll component (or the PMPI layer) then runs, and a 2-D
 * MPI_Cart_create with reorder=1 on MPI_COMM_WORLD that the PMPI layer
 * (LD_PRELOAD=libtoporr_pmpi.so) reorders without any toporr call in the program (toporr's
 * Open MPI topo component keeps it in MPI_COMM_WORLD's order, as Open MPI's own
 * MPI_Cart_map answers there). Rank 0 prints each decision and checks the allreduce result. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "client/toporr.h"

static void PrintOrder(const char* what, MPI_Comm comm) {
  int world, size, new_rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &world);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(comm, &new_rank);
  int* news = malloc(sizeof(int) * size);
  MPI_Gather(&new_rank, 1, MPI_INT, news, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (world == 0) {
    int* order = malloc(sizeof(int) * size);
    for (int old = 0; old < size; ++old) order[news[old]] = old;
    printf("%s: new rank i = old rank", what);
    for (int i = 0; i < size; ++i) printf(" %d", order[i]);
    printf("\n");
    free(order);
  }
  free(news);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  MPI_Comm comm;
  toporr_decision d;
  toporr_comm_reorder(NULL, MPI_COMM_WORLD, TOPORR_ALLREDUCE, TOPORR_ALG_AUTO, 1 << 20, 0, &comm,
                      &d);
  if (rank == 0) {
    if (d.fallback) {
      printf("allreduce 1 MiB: identity order kept (%s)\n", d.fallback_reason);
    } else {
      printf("allreduce 1 MiB: %s from %s snapshot %lld, predicted %.1f us -> %.1f us (%.2fx)\n",
             d.algorithm, d.source, d.snapshot_id, d.predicted_before_ns / 1e3,
             d.predicted_after_ns / 1e3, d.predicted_before_ns / d.predicted_after_ns);
    }
  }
  PrintOrder("  allreduce communicator", comm);
  enum { kCount = 1 << 18 }; /* 1 MiB of ints */
  int* buf = malloc(sizeof(int) * kCount);
  for (int i = 0; i < kCount; ++i) buf[i] = rank + i;
  MPI_Allreduce(MPI_IN_PLACE, buf, kCount, MPI_INT, MPI_SUM, comm);
  long long bad = 0;
  for (int i = 0; i < kCount; ++i) {
    bad += buf[i] != size * (size - 1) / 2 + size * i;
  }
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("  allreduce result: %s\n", bad == 0 ? "correct" : "WRONG");
  free(buf);
  MPI_Comm_free(&comm);

  int dims[2] = {0, 0}, periods[2] = {1, 1};
  MPI_Dims_create(size, 2, dims);
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &cart);
  if (rank == 0) printf("MPI_Cart_create %dx%d, reorder=1:\n", dims[0], dims[1]);
  PrintOrder("  cartesian communicator", cart);
  MPI_Comm_free(&cart);
  MPI_Finalize();
  return bad == 0 ? 0 : 1;
}

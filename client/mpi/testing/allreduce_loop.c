/* An unchanged MPI program for the run-time check test: ITERS calls of MPI_Allreduce of COUNT
 * doubles on MPI_COMM_WORLD itself (no communicator of the program's own, so the launch order
 * is what the MPI library's call runs on). Usage: allreduce_loop COUNT ITERS. Rank 0 prints
 * one checksum per call, integers that every reduction order sums exactly. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int count = argc > 1 ? atoi(argv[1]) : 32768;
  const int iters = argc > 2 ? atoi(argv[2]) : 6;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double* in = malloc(sizeof(double) * (size_t)count);
  double* out = malloc(sizeof(double) * (size_t)count);
  for (int it = 0; it < iters; ++it) {
    for (int i = 0; i < count; ++i) in[i] = (double)((rank + 1) * (i % 97 + it));
    MPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double sum = 0;
    for (int i = 0; i < count; ++i) sum += out[i];
    if (rank == 0) printf("ALLREDUCE %d %.0f\n", it, sum);
  }
  free(in);
  free(out);
  MPI_Finalize();
  return 0;
}

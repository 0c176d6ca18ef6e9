/* What the PMPI layer costs a call it passes through: N MPI_Allreduce of 8 bytes (below
 * TOPORR_MIN_BYTES) and N MPI_Bcast of 8 bytes, timed on rank 0 between barriers. Run it
 * with and without LD_PRELOAD=libtoporr_pmpi.so in the same session
 * (bench/client/run_passthrough_bench.sh) and compare the per-call times.
 *   passthrough_bench [N]   prints {"allreduce_ns":..,"bcast_ns":..} per call */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int n = argc > 1 ? atoi(argv[1]) : 100000;
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double x = rank, y = 0;
  for (int i = 0; i < 1000; ++i) MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  double t = MPI_Wtime();
  for (int i = 0; i < n; ++i) MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  const double allreduce = (MPI_Wtime() - t) / n;
  MPI_Barrier(MPI_COMM_WORLD);
  t = MPI_Wtime();
  for (int i = 0; i < n; ++i) MPI_Bcast(&x, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  const double bcast = (MPI_Wtime() - t) / n;
  if (rank == 0)
    printf("{\"allreduce_ns\":%.1f,\"bcast_ns\":%.1f}\n", allreduce * 1e9, bcast * 1e9);
  MPI_Finalize();
  return 0;
}

/* An unchanged MPI program for the PMPI drop-in test: a 2-D Jacobi stencil on an
 * MPI_Cart_create grid (reorder = 1) with halo exchanges, a 20,000-double MPI_Allreduce and a
 * 100,000-int MPI_Bcast and a 20,000-double MPI_Reduce per iteration (above
 * TOPORR_MIN_BYTES), and small ones below it.
 * Rank 0 prints checksums that do not depend on which process holds which grid block, so
 * the output must be the same with and without LD_PRELOAD=libtoporr_pmpi.so (floating sums
 * printed to 10 significant digits: reduction order may differ in the last bits). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { kN = 16, kIters = 5, kVec = 20000, kInts = 100000 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int size, dims[2] = {0, 0}, periods[2] = {1, 1};
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Dims_create(size, 2, dims);
  MPI_Comm grid;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &grid);
  int rank, coords[2];
  MPI_Comm_rank(grid, &rank);
  MPI_Cart_coords(grid, rank, 2, coords);
  /* a kN x kN block with a one-cell halo, initialised from global coordinates */
  double u[kN + 2][kN + 2], v[kN + 2][kN + 2];
  for (int i = 0; i < kN + 2; ++i) {
    for (int j = 0; j < kN + 2; ++j) {
      u[i][j] = (coords[0] * kN + i) * 0.01 + (coords[1] * kN + j) * 0.001;
    }
  }
  MPI_Datatype column;
  MPI_Type_vector(kN, 1, kN + 2, MPI_DOUBLE, &column);
  MPI_Type_commit(&column);
  double* vec = malloc(sizeof(double) * kVec);
  int* ints = malloc(sizeof(int) * kInts);
  long long int_total = 0;
  double residual = 0, vec_total = 0;
  for (int it = 0; it < kIters; ++it) {
    int up, down, left, right;
    MPI_Cart_shift(grid, 0, 1, &up, &down);
    MPI_Cart_shift(grid, 1, 1, &left, &right);
    MPI_Sendrecv(&u[kN][1], kN, MPI_DOUBLE, down, 0, &u[0][1], kN, MPI_DOUBLE, up, 0, grid,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[1][1], kN, MPI_DOUBLE, up, 1, &u[kN + 1][1], kN, MPI_DOUBLE, down, 1, grid,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[1][kN], 1, column, right, 2, &u[1][0], 1, column, left, 2, grid,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[1][1], 1, column, left, 3, &u[1][kN + 1], 1, column, right, 3, grid,
                 MPI_STATUS_IGNORE);
    double local = 0;
    for (int i = 1; i <= kN; ++i) {
      for (int j = 1; j <= kN; ++j) {
        v[i][j] = 0.25 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]);
        local += (v[i][j] - u[i][j]) * (v[i][j] - u[i][j]);
      }
    }
    for (int i = 1; i <= kN; ++i) {
      for (int j = 1; j <= kN; ++j) u[i][j] = v[i][j];
    }
    double global = 0;
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, grid); /* 8 bytes: passed through */
    residual += global;
    for (int k = 0; k < kVec; ++k) vec[k] = coords[0] * 0.5 + coords[1] * 0.25 + k * 1e-4 + it;
    MPI_Allreduce(MPI_IN_PLACE, vec, kVec, MPI_DOUBLE, MPI_SUM, grid);
    vec_total += vec[0] + vec[kVec / 2] + vec[kVec - 1];
    /* the same vector reduced to rank 1 of the grid (to rank 0 with one process) */
    const int reduce_root = size > 1 ? 1 : 0;
    double* reduced = malloc(sizeof(double) * kVec);
    MPI_Reduce(vec, reduced, kVec, MPI_DOUBLE, MPI_MAX, reduce_root, grid);
    double reduced_sum = 0;
    if (rank == reduce_root) reduced_sum = reduced[0] + reduced[kVec - 1];
    MPI_Bcast(&reduced_sum, 1, MPI_DOUBLE, reduce_root, grid);
    vec_total += reduced_sum;
    free(reduced);
    const int root = it % size;
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    for (int k = 0; k < kInts; ++k) ints[k] = me == root ? k * 3 + it : -1;
    MPI_Bcast(ints, kInts, MPI_INT, root, MPI_COMM_WORLD);
    for (int k = 0; k < kInts; k += 997) int_total += ints[k];
  }
  long long all_ints = 0;
  MPI_Allreduce(&int_total, &all_ints, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  int world;
  MPI_Comm_rank(MPI_COMM_WORLD, &world);
  if (world == 0) {
    printf("grid %dx%d residual %.10g vector %.10g ints %lld\n", dims[0], dims[1], residual,
           vec_total, all_ints);
  }
  free(vec);
  free(ints);
  MPI_Type_free(&column);
  MPI_Comm_free(&grid);
  MPI_Finalize();
  return 0;
}

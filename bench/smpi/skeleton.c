/* Communication skeletons of three application classes, for the profile -> plan -> run loop
 * (bench/smpi/run_skeleton_eval.sh): the same program is profiled under a real MPI with
 * TOPORR_PROFILE and timed under SimGrid SMPI in the launch order and in the planned one.
 *
 *   skeleton halo3d ITERS BYTES   a 3-D periodic process grid (MPI_Dims_create, ranks in row-
 *                                 major order) where every rank exchanges a 27-point
 *                                 stencil's halo each iteration: BYTES with each of its 6 face
 *                                 neighbours, BYTES / 16 with the 12 edge and BYTES / 256 with
 *                                 the 8 corner neighbours (at least 8 bytes each);
 *   skeleton cg ITERS BYTES       conjugate gradient: a 7-point halo (BYTES with each face
 *                                 neighbour of the 3-D grid) and two 8-byte MPI_Allreduce
 *                                 (the dot products) per iteration;
 *   skeleton fft2d ITERS BYTES    a 2-D FFT's transposes: on a 2-D process grid, each
 *                                 iteration an MPI_Alltoall of BYTES per pair within every
 *                                 row, then within every column.
 *
 * Rank 0 prints "skeleton NAME ranks P iters K us T": T is the time of one iteration, the
 * slowest rank's, after one untimed warm-up iteration (MPI_Wtime: under SMPI the simulated
 * clock; the skeletons compute nothing). Neighbours that coincide on a small dimension get a
 * message each, as a real halo exchange sends them; none to itself. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kMaxNeighbours = 26 };

typedef struct {
  int count;
  int rank[kMaxNeighbours];
  int bytes[kMaxNeighbours];
  int direction[kMaxNeighbours]; /* (dx + 1) * 9 + (dy + 1) * 3 + dz + 1; opposite: 26 - it */
} Neighbours;

static int Max(int a, int b) { return a > b ? a : b; }

/* The neighbours of this rank on a periodic 3-D grid: faces only (7-point) or all 26. */
static void GridNeighbours(MPI_Comm cart, int bytes, int full, Neighbours* n) {
  int rank = 0, coords[3];
  MPI_Comm_rank(cart, &rank);
  MPI_Cart_coords(cart, rank, 3, coords);
  n->count = 0;
  for (int dx = -1; dx <= 1; ++dx) {
    for (int dy = -1; dy <= 1; ++dy) {
      for (int dz = -1; dz <= 1; ++dz) {
        const int nonzero = (dx != 0) + (dy != 0) + (dz != 0);
        if (nonzero == 0 || (!full && nonzero > 1)) continue;
        int c[3] = {coords[0] + dx, coords[1] + dy, coords[2] + dz}, peer = 0;
        MPI_Cart_rank(cart, c, &peer);
        if (peer == rank) continue;
        n->rank[n->count] = peer;
        n->bytes[n->count] = Max(8, nonzero == 1 ? bytes : nonzero == 2 ? bytes / 16 : bytes / 256);
        n->direction[n->count] = (dx + 1) * 9 + (dy + 1) * 3 + dz + 1;
        ++n->count;
      }
    }
  }
}

/* One halo exchange: with every neighbour, its bytes both ways. A message is tagged with the
 * direction it travels, received as the opposite direction's, so that neighbours that are the
 * same rank (a dimension of 1 or 2) each get their own message. */
static void Exchange(MPI_Comm cart, const Neighbours* n, char* send, char* recv, int slot) {
  MPI_Request requests[2 * kMaxNeighbours];
  for (int i = 0; i < n->count; ++i) {
    MPI_Irecv(recv + (size_t)i * slot, n->bytes[i], MPI_BYTE, n->rank[i], 26 - n->direction[i],
              cart, &requests[2 * i]);
    MPI_Isend(send + (size_t)i * slot, n->bytes[i], MPI_BYTE, n->rank[i], n->direction[i], cart,
              &requests[2 * i + 1]);
  }
  MPI_Waitall(2 * n->count, requests, MPI_STATUSES_IGNORE);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* name = argc > 3 ? argv[1] : "";
  const int iters = argc > 3 ? atoi(argv[2]) : 0;
  const int bytes = argc > 3 ? atoi(argv[3]) : 0;
  const int halo = !strcmp(name, "halo3d"), cg = !strcmp(name, "cg"), fft = !strcmp(name, "fft2d");
  if (!(halo || cg || fft) || iters < 1 || bytes < 8) {
    if (rank == 0) fprintf(stderr, "usage: skeleton halo3d|cg|fft2d ITERS BYTES (BYTES >= 8)\n");
    MPI_Finalize();
    return 2;
  }

  MPI_Comm cart = MPI_COMM_NULL, row = MPI_COMM_NULL, column = MPI_COMM_NULL;
  Neighbours n = {0};
  char *send = NULL, *recv = NULL;
  if (halo || cg) {
    int dims[3] = {0, 0, 0}, periods[3] = {1, 1, 1};
    MPI_Dims_create(size, 3, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, /*reorder=*/0, &cart);
    GridNeighbours(cart, bytes, halo, &n);
    send = calloc((size_t)kMaxNeighbours, (size_t)bytes);
    recv = calloc((size_t)kMaxNeighbours, (size_t)bytes);
  } else {
    int dims[2] = {0, 0};
    MPI_Dims_create(size, 2, dims);
    MPI_Comm_split(MPI_COMM_WORLD, rank / dims[1], rank, &row);
    MPI_Comm_split(MPI_COMM_WORLD, rank % dims[1], rank, &column);
    const int most = Max(dims[0], dims[1]);
    send = calloc((size_t)most, (size_t)bytes);
    recv = calloc((size_t)most, (size_t)bytes);
  }
  double dot = 1, sum = 0;
  double start = 0;
  for (int i = 0; i <= iters; ++i) {
    if (i == 1) { /* iteration 0 is the warm-up */
      MPI_Barrier(MPI_COMM_WORLD);
      start = MPI_Wtime();
    }
    if (halo || cg) Exchange(cart, &n, send, recv, bytes);
    if (cg) {
      MPI_Allreduce(&dot, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      MPI_Allreduce(&dot, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (fft) {
      MPI_Alltoall(send, bytes, MPI_BYTE, recv, bytes, MPI_BYTE, row);
      MPI_Alltoall(send, bytes, MPI_BYTE, recv, bytes, MPI_BYTE, column);
    }
  }
  const double end = MPI_Wtime();
  double first = 0, last = 0;
  MPI_Reduce(&start, &first, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
  MPI_Reduce(&end, &last, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("skeleton %s ranks %d iters %d us %.3f\n", name, size, iters,
           (last - first) / iters * 1e6);
  }
  free(send);
  free(recv);
  if (cart != MPI_COMM_NULL) MPI_Comm_free(&cart);
  if (row != MPI_COMM_NULL) MPI_Comm_free(&row);
  if (column != MPI_COMM_NULL) MPI_Comm_free(&column);
  MPI_Finalize();
  return 0;
}

/* Known time inside MPI for the profile's `time` records (profile_test.py), on 4 ranks:
 *   1. rank 1 sleeps 400 ms (outside MPI), then sends rank 0 one int, which rank 0 waits for
 *      in MPI_Recv; rank 3 does the same for rank 2, which waits in MPI_Irecv + MPI_Wait;
 *   2. rank 0 sleeps 300 ms, then all four run MPI_Allreduce of one int: ranks 1-3 wait in
 *      it for rank 0.
 * So rank 0 spends about 400 ms inside MPI and 300 ms outside, rank 2 about 700 ms inside,
 * ranks 1 and 3 about 300 ms inside and 400 ms outside. Rank 0 prints "WAIT ok <sum>". */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

static void sleep_ms(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&t, &t) != 0) {
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int r, n, v = 0, sum = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  if (n != 4) {
    if (r == 0) fprintf(stderr, "profile_wait: run me on 4 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (r % 2 == 1) {
    sleep_ms(400);
    v = r;
    MPI_Send(&v, 1, MPI_INT, r - 1, 0, MPI_COMM_WORLD);
  } else if (r == 0) {
    MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Request q;
    MPI_Irecv(&v, 1, MPI_INT, 3, 0, MPI_COMM_WORLD, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
  }
  if (r == 0) sleep_ms(300);
  MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (r == 0) printf("WAIT ok %d\n", sum);
  MPI_Finalize();
  return 0;
}

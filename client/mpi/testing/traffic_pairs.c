/* A program whose traffic is pairs: rank r exchanges ROUNDS messages of 64 KiB with rank
 * r ^ 1, then prints "PAIR <world rank> <rank> <partner's world rank>" per rank.
 *
 * Usage: traffic_pairs [PROFILE]. With PROFILE (a traffic profile of an earlier run), the
 * exchange runs on the communicator toporr_comm_reorder_traffic gives for it, and world rank
 * 0 first prints "DECISION reordered=R fallback=F source=S reason=..." from its decision. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/toporr.h"

enum { kBytes = 1 << 16, kRounds = 10 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int world = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world);
  MPI_Comm comm = MPI_COMM_WORLD;
  if (argc > 1) {
    toporr_decision d;
    int rc = toporr_comm_reorder_traffic(NULL, MPI_COMM_WORLD, argv[1], &comm, &d);
    if (rc != TOPORR_SUCCESS) {
      fprintf(stderr, "toporr_comm_reorder_traffic: %s\n", toporr_strerror(rc));
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (world == 0) {
      printf("DECISION reordered=%d fallback=%d source=%s reason=%s\n", d.reordered, d.fallback,
             d.source, d.fallback_reason);
    }
  }
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int partner = (rank ^ 1) < size ? rank ^ 1 : MPI_PROC_NULL;
  char* out = malloc(kBytes);
  char* in = malloc(kBytes);
  memset(out, rank, kBytes);
  for (int i = 0; i < kRounds; ++i) {
    MPI_Sendrecv(out, kBytes, MPI_CHAR, partner, 0, in, kBytes, MPI_CHAR, partner, 0, comm,
                 MPI_STATUS_IGNORE);
  }
  int partner_world = -1;
  MPI_Sendrecv(&world, 1, MPI_INT, partner, 1, &partner_world, 1, MPI_INT, partner, 1, comm,
               MPI_STATUS_IGNORE);
  printf("PAIR %d %d %d\n", world, rank, partner_world);
  free(out);
  free(in);
  if (comm != MPI_COMM_WORLD) MPI_Comm_free(&comm);
  MPI_Finalize();
  return 0;
}

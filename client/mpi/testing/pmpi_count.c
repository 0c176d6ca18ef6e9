/* A minimal PMPI profiling tool, linked into a program: counts the program's MPI_Allreduce
 * calls through the PMPI interface and prints "PMPI_COUNT allreduce <calls>" from
 * MPI_COMM_WORLD rank 0 at MPI_Finalize. Tools like it must keep seeing the application's
 * calls when toporr runs inside the MPI library (mca_coll_toporr). */
#include <mpi.h>
#include <stdio.h>

static long allreduce_calls = 0;

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm) {
  ++allreduce_calls;
  return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
}

int MPI_Finalize(void) {
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    printf("PMPI_COUNT allreduce %ld\n", allreduce_calls);
    fflush(stdout);
  }
  return PMPI_Finalize();
}

/* The traffic profile under MPI_THREAD_MULTIPLE: two threads per rank, each on its own
 * duplicate of MPI_COMM_WORLD, run ITERATIONS times at the same time an MPI_Sendrecv of one
 * double to the next rank and an MPI_Allreduce of one int (profile_test.py expects, per rank
 * r, `p2p r r+1` of 2 * ITERATIONS * 8 bytes and 2 * ITERATIONS messages, and the world
 * communicator's allreduce 2 * ITERATIONS calls of 4 bytes: the duplicates have its members).
 * Rank 0 prints "CHECK threads <sum>", or "CHECK threads unsupported" when the library does
 * not provide MPI_THREAD_MULTIPLE.
 *   profile_threads [ITERATIONS]   default 500 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int iterations = 500;
static int rank, size;

struct Work {
  MPI_Comm comm;
  long long sum;
};

static void* Run(void* arg) {
  struct Work* w = arg;
  for (int i = 0; i < iterations; ++i) {
    double out = rank + i, in = 0;
    MPI_Sendrecv(&out, 1, MPI_DOUBLE, (rank + 1) % size, i, &in, 1, MPI_DOUBLE,
                 (rank + size - 1) % size, i, w->comm, MPI_STATUS_IGNORE);
    int one = (int)in, total = 0;
    MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, w->comm);
    w->sum += total;
  }
  return NULL;
}

int main(int argc, char** argv) {
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  if (argc > 1) iterations = atoi(argv[1]);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (provided != MPI_THREAD_MULTIPLE) {
    if (rank == 0) printf("CHECK threads unsupported\n");
    MPI_Finalize();
    return 0;
  }
  struct Work work[2];
  pthread_t threads[2];
  for (int t = 0; t < 2; ++t) {
    MPI_Comm_dup(MPI_COMM_WORLD, &work[t].comm);
    work[t].sum = 0;
  }
  for (int t = 0; t < 2; ++t) pthread_create(&threads[t], NULL, Run, &work[t]);
  for (int t = 0; t < 2; ++t) pthread_join(threads[t], NULL);
  for (int t = 0; t < 2; ++t) MPI_Comm_free(&work[t].comm);
  if (rank == 0) printf("CHECK threads %lld\n", work[0].sum + work[1].sum);
  MPI_Finalize();
  return 0;
}

/* Test-only LD_PRELOAD shim: makes one rank's N-th PMPI_Comm_split (libtoporr calls the MPI
 * library through PMPI_*) fail, the way a real failure would look to libtoporr (the rank took
 * part in the collective, then got an error and no communicator), so mpi_test.py can show the
 * job still runs in identity order.
 *   TOPORR_TEST_FAIL_SPLIT_CALL=N  which call fails (1 = the first of the process)
 *   TOPORR_TEST_FAIL_SPLIT_RANK=R  on which MPI_COMM_WORLD rank (default: every rank) */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdlib.h>

static int calls;

int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  typedef int (*split_fn)(MPI_Comm, int, int, MPI_Comm*);
  static split_fn next = NULL;
  if (next == NULL) next = (split_fn)dlsym(RTLD_NEXT, "PMPI_Comm_split");
  const char* n = getenv("TOPORR_TEST_FAIL_SPLIT_CALL");
  const char* r = getenv("TOPORR_TEST_FAIL_SPLIT_RANK");
  int world = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &world);
  int rc = next(comm, color, key, newcomm);
  if (n != NULL && atoi(n) == ++calls && (r == NULL || atoi(r) == world)) {
    if (rc == MPI_SUCCESS && *newcomm != MPI_COMM_NULL) PMPI_Comm_free(newcomm);
    *newcomm = MPI_COMM_NULL;
    return MPI_ERR_COMM;
  }
  return rc;
}

/* Test-only LD_PRELOAD shim: makes one rank's N-th communicator constructor of libtoporr
 * (PMPI_Comm_split or PMPI_Comm_create: libtoporr calls the MPI library through PMPI_*)
 * fail, the way a real failure would look to libtoporr (the rank took part in the
 * collective, then got an error and no communicator), so mpi_test.py can show the job still
 * runs in identity order.
 *   TOPORR_TEST_FAIL_SPLIT_CALL=N  which call fails (1 = the first of the process, both
 *                                  constructors counted together)
 *   TOPORR_TEST_FAIL_SPLIT_RANK=R  on which MPI_COMM_WORLD rank (default: every rank) */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdlib.h>

static int calls;

/* The constructor's own result `rc`, or the injected failure when this call is the one. */
static int Outcome(int rc, MPI_Comm* newcomm) {
  const char* n = getenv("TOPORR_TEST_FAIL_SPLIT_CALL");
  const char* r = getenv("TOPORR_TEST_FAIL_SPLIT_RANK");
  int world = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &world);
  if (n != NULL && atoi(n) == ++calls && (r == NULL || atoi(r) == world)) {
    if (rc == MPI_SUCCESS && *newcomm != MPI_COMM_NULL) PMPI_Comm_free(newcomm);
    *newcomm = MPI_COMM_NULL;
    return MPI_ERR_COMM;
  }
  return rc;
}

int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  typedef int (*split_fn)(MPI_Comm, int, int, MPI_Comm*);
  static split_fn next = NULL;
  if (next == NULL) next = (split_fn)dlsym(RTLD_NEXT, "PMPI_Comm_split");
  return Outcome(next(comm, color, key, newcomm), newcomm);
}

int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  typedef int (*create_fn)(MPI_Comm, MPI_Group, MPI_Comm*);
  static create_fn next = NULL;
  if (next == NULL) next = (create_fn)dlsym(RTLD_NEXT, "PMPI_Comm_create");
  return Outcome(next(comm, group, newcomm), newcomm);
}

/* Test-only LD_PRELOAD shim standing in for an Open MPI of another release series (there is
 * one Open MPI on this machine): MPI_Get_library_version reports TOPORR_TEST_OMPI_VERSION
 * (e.g. "Open MPI v5.0.3, package: stand-in"); everything else is the real library. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

int PMPI_Get_library_version(char* version, int* resultlen) {
  const char* v = getenv("TOPORR_TEST_OMPI_VERSION");
  if (v == NULL) v = "Open MPI v5.0.3, package: stand-in";
  strncpy(version, v, MPI_MAX_LIBRARY_VERSION_STRING - 1);
  version[MPI_MAX_LIBRARY_VERSION_STRING - 1] = '\0';
  *resultlen = (int)strlen(version);
  return MPI_SUCCESS;
}

int MPI_Get_library_version(char* version, int* resultlen) {
  return PMPI_Get_library_version(version, resultlen);
}

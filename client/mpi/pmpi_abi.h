// What libtoporr.so exports for libtoporr_pmpi.so (not part of the stable C API: these may
// change with any release). The PMPI layer is a thin shared library over libtoporr.so
// rather than a second copy of it, so a program that links libtoporr.so and runs under
// LD_PRELOAD=libtoporr_pmpi.so has one toporr (one protobuf registration, one cache, one
// configuration). Each function returns what the MPI call it replaces would return.
#ifndef TOPORR_CLIENT_MPI_PMPI_ABI_H_
#define TOPORR_CLIENT_MPI_PMPI_ABI_H_

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

// Decision caches alive on communicators (for leak tests).
int toporr_debug_live_caches(void);
// Nonzero when the process-default configuration disables toporr (TOPORR_DISABLE).
int toporr_pmpi_disabled(void);
int toporr_pmpi_cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                            int reorder, MPI_Comm* comm_cart);
int toporr_pmpi_graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                             int reorder, MPI_Comm* comm_graph);
int toporr_pmpi_dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                           const int sourceweights[], int outdegree,
                                           const int destinations[], const int destweights[],
                                           MPI_Info info, int reorder, MPI_Comm* comm_dist_graph);
int toporr_pmpi_dist_graph_create(MPI_Comm comm_old, int n, const int sources[],
                                  const int degrees[], const int destinations[],
                                  const int weights[], MPI_Info info, int reorder,
                                  MPI_Comm* comm_dist_graph);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // TOPORR_CLIENT_MPI_PMPI_ABI_H_

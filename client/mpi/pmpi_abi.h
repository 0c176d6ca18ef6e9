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

// The PMPI layer's threshold: collectives of fewer bytes go straight to the MPI library;
// -1 when toporr is disabled (everything goes there).
long long toporr_pmpi_min_bytes(void);
int toporr_pmpi_allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                          MPI_Op op, MPI_Comm comm);
int toporr_pmpi_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int toporr_pmpi_reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                       MPI_Op op, int root, MPI_Comm comm);
int toporr_pmpi_bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
// One of toporr's algorithms run directly on `comm` (no selection, no reordering), for tests
// and benchmarks: `algorithm` is a toporr_algorithm value (TOPORR_ALG_RING, ...); radix for
// k-nomial, segment_bytes for the segmented ring. MPI_ERR_ARG for an algorithm toporr does
// not carry for that collective.
int toporr_coll_allreduce(int algorithm, const void* sendbuf, void* recvbuf, int count,
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, long long segment_bytes);
// Allgather on `comm` with block k placed at position[k] (null: at k), see coll/allgather.h.
int toporr_coll_allgather(int algorithm, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                          void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                          const int* position);
int toporr_coll_bcast(int algorithm, void* buffer, int count, MPI_Datatype datatype, int root,
                      MPI_Comm comm, int radix);
// Decision caches alive on communicators (for leak tests).
int toporr_debug_live_caches(void);
// Nonzero when the process-default configuration disables toporr (TOPORR_DISABLE).
int toporr_pmpi_disabled(void);
int toporr_pmpi_cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                            int reorder, MPI_Comm* comm_cart);
int toporr_pmpi_cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[],
                         int* newrank);
int toporr_pmpi_graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                             int reorder, MPI_Comm* comm_graph);
int toporr_pmpi_graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[],
                          int* newrank);
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

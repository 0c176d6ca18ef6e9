/* The boundary between mca_topo_toporr's two halves: topo_toporr.c, the Open MPI component and
 * module (C, against Open MPI's internal headers), and topo_toporr_bridge.cc, toporr's
 * topology functions (client/mpi/topology.h). The C half passes the topo framework's base
 * constructor and map function as callbacks with an opaque context; toporr calls a
 * constructor exactly once per call, on the old communicator or its reordered copy. */
#ifndef TOPORR_CLIENT_MPI_OPENMPI_COMPONENT_TOPO_TOPORR_H_
#define TOPORR_CLIENT_MPI_OPENMPI_COMPONENT_TOPO_TOPORR_H_

#include <mpi.h>

#include "client/mpi/openmpi_component/component.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The MPI library's constructor of the call's topology on `comm` with `reorder`. */
typedef int (*toporr_mca_construct_fn)(void* context, MPI_Comm comm, int reorder);
/* The same for a dist graph given by adjacency lists, which move with the process. */
typedef int (*toporr_mca_construct_adjacent_fn)(void* context, MPI_Comm comm, int indegree,
                                                const int sources[], const int sourceweights[],
                                                int outdegree, const int destinations[],
                                                const int destweights[], int reorder);
/* The MPI library's map function on the call's arguments. */
typedef int (*toporr_mca_map_fn)(void* context, int* newrank);

/* toporr's MPI_Cart_create, MPI_Graph_create, MPI_Dist_graph_create(_adjacent) and the map
 * functions (client/mpi/topology.h) with `own` as the library's constructor: with reorder
 * == 0, toporr disabled or not configured, exactly `own` on the caller's arguments. MPI error
 * codes. */
int toporr_mca_cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                           int reorder, toporr_mca_construct_fn own, void* context);
int toporr_mca_cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[],
                        int* newrank, toporr_mca_map_fn own, void* context);
int toporr_mca_graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                            int reorder, toporr_mca_construct_fn own, void* context);
int toporr_mca_graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[],
                         int* newrank, toporr_mca_map_fn own, void* context);
int toporr_mca_dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                                 const int destinations[], const int weights[], int reorder,
                                 toporr_mca_construct_fn own, void* context);
int toporr_mca_dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                          const int sourceweights[], int outdegree,
                                          const int destinations[], const int destweights[],
                                          int reorder, toporr_mca_construct_adjacent_fn own,
                                          void* context);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TOPORR_CLIENT_MPI_OPENMPI_COMPONENT_TOPO_TOPORR_H_ */

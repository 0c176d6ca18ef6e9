// The MPI topology constructors with `reorder` honoured by toporr's graph embedding
// (Library::GraphOrder). Each returns what the MPI call returns (an MPI error code). With
// reorder == 0 or the library disabled they are exactly the MPI library's own call (PMPI_*,
// arguments untouched). Otherwise: the process graph is gathered on rank 0, embedded on the
// fabric + node costs, the communicator reordered with MPI_Comm_split, and the MPI library's
// constructor run on it with reorder = 0 — so graph vertex i is new rank i, and for
// dist-graph-adjacent each new rank receives the neighbour lists given for its rank.
// Edge weights scale bytes: unweighted edges (and weight 1) count kBytesPerEdgeUnit
// (client/graph_plan.h); MPI_Cart_create's graph is CartGraph's, so `toporrctl plan --cart`
// gives the same order.
#ifndef TOPORR_CLIENT_MPI_TOPOLOGY_H_
#define TOPORR_CLIENT_MPI_TOPOLOGY_H_

#include <mpi.h>

#include "client/graph_plan.h"
#include "client/mpi/library.h"

namespace toporr::client::mpi {

int CartCreate(Library& library, MPI_Comm comm_old, int ndims, const int dims[],
               const int periods[], int reorder, MPI_Comm* comm_cart);
int GraphCreate(Library& library, MPI_Comm comm_old, int nnodes, const int index[],
                const int edges[], int reorder, MPI_Comm* comm_graph);
int DistGraphCreateAdjacent(Library& library, MPI_Comm comm_old, int indegree, const int sources[],
                            const int sourceweights[], int outdegree, const int destinations[],
                            const int destweights[], MPI_Info info, int reorder,
                            MPI_Comm* comm_dist_graph);
int DistGraphCreate(Library& library, MPI_Comm comm_old, int n, const int sources[],
                    const int degrees[], const int destinations[], const int weights[],
                    MPI_Info info, int reorder, MPI_Comm* comm_dist_graph);

}  // namespace toporr::client::mpi

#endif  // TOPORR_CLIENT_MPI_TOPOLOGY_H_

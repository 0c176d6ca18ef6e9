// The MPI topology constructors with `reorder` honoured by toporr's graph embedding
// (Library::GraphOrder). Each returns what the MPI call returns (an MPI error code). With
// reorder == 0 or the library disabled they are exactly the MPI library's own call (PMPI_*,
// arguments untouched). Otherwise: the process graph is gathered on rank 0, embedded on the
// fabric + node costs, the communicator reordered with MPI_Comm_split, and the MPI library's
// constructor run on it with reorder = 0 — so graph vertex i is new rank i, and for
// dist-graph-adjacent each new rank receives the neighbour lists given for its rank.
// Edge weights scale bytes: unweighted edges (and weight 1) count kBytesPerEdgeUnit
// (client/plan/graph_plan.h); MPI_Cart_create's graph is CartGraph's, so `toporrctl plan --cart`
// gives the same order.
//
// MPI describes MPI_Cart_create and MPI_Graph_create in terms of MPI_Cart_map and
// MPI_Graph_map, and so does toporr: CartMap / GraphMap return the new rank this process has in
// the communicator CartCreate / GraphCreate (reorder = 1) build from the same arguments on the
// same communicator, MPI_UNDEFINED for a process outside a topology smaller than the
// communicator. Both come from one decision per (communicator, arguments), cached on the
// communicator and freed with it: whichever call comes first decides (collective, as the map
// functions are), the other answers from the cache without communicating. Where the
// constructor would be the MPI library's own call (toporr disabled, a topology larger than the
// communicator or of no process, an inter-communicator) so is the map function.
#ifndef TOPORR_CLIENT_MPI_TOPOLOGY_H_
#define TOPORR_CLIENT_MPI_TOPOLOGY_H_

#include <mpi.h>

#include <functional>

#include "client/mpi/library.h"
#include "client/plan/graph_plan.h"

namespace toporr::client::mpi {

// The MPI library's own constructor of the topology a call describes, run on `comm` (comm_old
// or its reordered copy) with `reorder`, writing the caller's output communicator: PMPI_* in
// the PMPI layer, the topo framework's base constructor in Open MPI's topo component. toporr
// runs it exactly once per constructor call.
using TopologyConstructor = std::function<int(MPI_Comm comm, int reorder)>;
// The same for MPI_Dist_graph_create_adjacent, whose neighbour lists move with the process
// that receives them when toporr reorders (weights MPI_UNWEIGHTED or MPI_WEIGHTS_EMPTY as
// given).
struct AdjacentLists {
  int indegree = 0;
  const int* sources = nullptr;
  const int* sourceweights = nullptr;
  int outdegree = 0;
  const int* destinations = nullptr;
  const int* destweights = nullptr;
};
using AdjacentConstructor =
    std::function<int(MPI_Comm comm, const AdjacentLists& lists, int reorder)>;
// The MPI library's own map function (MPI_Cart_map / MPI_Graph_map) on the call's arguments.
using MapFunction = std::function<int(int* newrank)>;

int CartCreate(Library& library, MPI_Comm comm_old, int ndims, const int dims[],
               const int periods[], int reorder, const TopologyConstructor& own);
int CartMap(Library& library, MPI_Comm comm, int ndims, const int dims[], const int periods[],
            int* newrank, const MapFunction& own);
int GraphCreate(Library& library, MPI_Comm comm_old, int nnodes, const int index[],
                const int edges[], int reorder, const TopologyConstructor& own);
int GraphMap(Library& library, MPI_Comm comm, int nnodes, const int index[], const int edges[],
             int* newrank, const MapFunction& own);
int DistGraphCreateAdjacent(Library& library, MPI_Comm comm_old, const AdjacentLists& lists,
                            int reorder, const AdjacentConstructor& own);
int DistGraphCreate(Library& library, MPI_Comm comm_old, int n, const int sources[],
                    const int degrees[], const int destinations[], const int weights[], int reorder,
                    const TopologyConstructor& own);

// The same with the MPI library's PMPI_* constructors and map functions.
int CartCreate(Library& library, MPI_Comm comm_old, int ndims, const int dims[],
               const int periods[], int reorder, MPI_Comm* comm_cart);
int CartMap(Library& library, MPI_Comm comm, int ndims, const int dims[], const int periods[],
            int* newrank);
int GraphCreate(Library& library, MPI_Comm comm_old, int nnodes, const int index[],
                const int edges[], int reorder, MPI_Comm* comm_graph);
int GraphMap(Library& library, MPI_Comm comm, int nnodes, const int index[], const int edges[],
             int* newrank);
int DistGraphCreateAdjacent(Library& library, MPI_Comm comm_old, int indegree, const int sources[],
                            const int sourceweights[], int outdegree, const int destinations[],
                            const int destweights[], MPI_Info info, int reorder,
                            MPI_Comm* comm_dist_graph);
int DistGraphCreate(Library& library, MPI_Comm comm_old, int n, const int sources[],
                    const int degrees[], const int destinations[], const int weights[],
                    MPI_Info info, int reorder, MPI_Comm* comm_dist_graph);

}  // namespace toporr::client::mpi

#endif  // TOPORR_CLIENT_MPI_TOPOLOGY_H_

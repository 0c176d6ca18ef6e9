// mca_topo_toporr's C++ half (topo_toporr.h): the component's toporr (component_library.h)
// running client/mpi/topology.h with the topo framework's base functions as the library's own.
#include <mpi.h>

#include "client/mpi/library.h"
#include "client/mpi/openmpi_component/component_library.h"
#include "client/mpi/openmpi_component/topo_toporr.h"
#include "client/mpi/topology.h"

namespace {

using toporr::client::mpi::AdjacentLists;
using toporr::client::mpi::ComponentLibrary;
using toporr::client::mpi::Library;

// The component's toporr when it may reorder (configured, enabled), else null.
Library* Active() {
  Library* library = ComponentLibrary(TOPORR_MCA_TOPO);
  return library != nullptr && !library->options().disable ? library : nullptr;
}

}  // namespace

extern "C" {

int toporr_mca_cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                           int reorder, toporr_mca_construct_fn own, void* context) {
  Library* library = Active();
  if (library == nullptr) return own(context, comm_old, reorder);
  return toporr::client::mpi::CartCreate(*library, comm_old, ndims, dims, periods, reorder,
                                         [&](MPI_Comm c, int r) { return own(context, c, r); });
}

int toporr_mca_cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[],
                        int* newrank, toporr_mca_map_fn own, void* context) {
  Library* library = Active();
  if (library == nullptr) return own(context, newrank);
  return toporr::client::mpi::CartMap(*library, comm, ndims, dims, periods, newrank,
                                      [&](int* out) { return own(context, out); });
}

int toporr_mca_graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                            int reorder, toporr_mca_construct_fn own, void* context) {
  Library* library = Active();
  if (library == nullptr) return own(context, comm_old, reorder);
  return toporr::client::mpi::GraphCreate(*library, comm_old, nnodes, index, edges, reorder,
                                          [&](MPI_Comm c, int r) { return own(context, c, r); });
}

int toporr_mca_graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[],
                         int* newrank, toporr_mca_map_fn own, void* context) {
  Library* library = Active();
  if (library == nullptr) return own(context, newrank);
  return toporr::client::mpi::GraphMap(*library, comm, nnodes, index, edges, newrank,
                                       [&](int* out) { return own(context, out); });
}

int toporr_mca_dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                                 const int destinations[], const int weights[], int reorder,
                                 toporr_mca_construct_fn own, void* context) {
  Library* library = Active();
  if (library == nullptr) return own(context, comm_old, reorder);
  return toporr::client::mpi::DistGraphCreate(
      *library, comm_old, n, sources, degrees, destinations, weights, reorder,
      [&](MPI_Comm c, int r) { return own(context, c, r); });
}

int toporr_mca_dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                          const int sourceweights[], int outdegree,
                                          const int destinations[], const int destweights[],
                                          int reorder, toporr_mca_construct_adjacent_fn own,
                                          void* context) {
  auto construct = [&](MPI_Comm c, const AdjacentLists& l, int r) {
    return own(context, c, l.indegree, l.sources, l.sourceweights, l.outdegree, l.destinations,
               l.destweights, r);
  };
  const AdjacentLists lists = {indegree,  sources,      sourceweights,
                               outdegree, destinations, destweights};
  Library* library = Active();
  if (library == nullptr) return construct(comm_old, lists, reorder);
  return toporr::client::mpi::DistGraphCreateAdjacent(*library, comm_old, lists, reorder,
                                                      construct);
}

}  // extern "C"

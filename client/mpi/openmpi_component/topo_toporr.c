/* mca_topo_toporr: toporr inside the `topo` framework of Open MPI 4.1 or 5.0 (ompi_series.h). For
 * Cartesian, graph and distributed-graph communicators its module answers the constructors
 * (MPI_Cart_create, MPI_Graph_create, MPI_Dist_graph_create, MPI_Dist_graph_create_adjacent) with
 * `reorder` honoured by toporr's graph embedding (client/mpi/topology.h): the old communicator is
 * reordered and the framework's base constructor builds the topology on it, so graph vertex
 * i is new rank i and each process gets the neighbour lists given for its new rank. With
 * reorder = 0, toporr disabled, or whenever toporr declines, the base constructor runs on the
 * caller's arguments, as topo/basic's module would. Every other function of the module
 * (coordinates, shifts, neighbours, sub-grids) is the framework's base one.
 *
 * MPI_Cart_map and MPI_Graph_map must give each process the rank the constructor with reorder
 * = 1 gives it for the same arguments on the same communicator (client/mpi/topology.h). Open
 * MPI 4.1 asks a topo module for them only on a communicator that already has that topology
 * (its module answers with toporr's decision); on any other communicator Open MPI answers the
 * calling process's rank itself, without any component. So this module reorders
 * MPI_Cart_create only on a Cartesian communicator whose map function is toporr's, and
 * MPI_Graph_create only on such a graph communicator; on every other communicator it builds
 * them in the caller's order, as Open MPI's own map functions answer. The PMPI layer
 * (libtoporr_pmpi.so) answers the map functions itself and reorders on every communicator.
 * Distributed graphs have no map function: they are reordered on every communicator.
 *
 * MCA parameters (ompi_info --param topo toporr --level 9): topo_toporr_priority (50, above
 * treematch's 42 and basic's 0), and toporr's settings that decisions read (topo_toporr_disable,
 * _report, _address, _socket, _tls_ca, _costs, _hostmap, _deadline_ms, _verbose), whose
 * defaults are the process's configuration (defaults, site file, TOPORR_*). */
#include "client/mpi/openmpi_component/topo_toporr.h"

#include <stdbool.h>
#include <stdlib.h>

#include "client/mpi/openmpi_component/component_params.h"
#include "client/mpi/openmpi_component/ompi_series.h"
#include "mpi.h"
#include "ompi/communicator/communicator.h"
#include "ompi/constants.h"
#include "ompi/mca/topo/base/base.h"
#include "ompi/mca/topo/topo.h"

static int priority = 50;
static union toporr_mca_value params[TOPORR_MCA_MAX_SETTINGS];
static bool enabled = false; /* set by init_query */

/* ---- the module: each call's arguments as the base constructor's context ---- */

struct toporr_cart_call {
  mca_topo_base_module_t* topo;
  ompi_communicator_t* comm; /* the map function's communicator */
  int ndims;
  const int* dims;
  const int* periods;
  ompi_communicator_t** out;
};

static int toporr_cart_construct(void* context, MPI_Comm comm, int reorder) {
  struct toporr_cart_call* c = (struct toporr_cart_call*)context;
  return mca_topo_base_cart_create(c->topo, comm, c->ndims, c->dims, c->periods, reorder != 0,
                                   c->out);
}

static int toporr_cart_map(ompi_communicator_t* comm, int ndims, const int* dims,
                           const int* periods, int* newrank);

/* Whether MPI_Cart_map on `comm` is answered by this module (see the file comment). */
static bool toporr_answers_cart_map(const ompi_communicator_t* comm) {
  return OMPI_COMM_IS_CART(comm) && comm->c_topo != NULL &&
         comm->c_topo->topo.cart.cart_map == toporr_cart_map;
}

static int toporr_cart_create(mca_topo_base_module_t* topo, ompi_communicator_t* old_comm,
                              int ndims, const int* dims, const int* periods, bool reorder,
                              ompi_communicator_t** comm_topo) {
  struct toporr_cart_call call = {topo, NULL, ndims, dims, periods, comm_topo};
  return toporr_mca_cart_create(old_comm, ndims, dims, periods,
                                reorder && toporr_answers_cart_map(old_comm), toporr_cart_construct,
                                &call);
}

static int toporr_cart_map_base(void* context, int* newrank) {
  struct toporr_cart_call* c = (struct toporr_cart_call*)context;
  return mca_topo_base_cart_map(c->comm, c->ndims, c->dims, c->periods, newrank);
}

static int toporr_cart_map(ompi_communicator_t* comm, int ndims, const int* dims,
                           const int* periods, int* newrank) {
  struct toporr_cart_call call = {NULL, comm, ndims, dims, periods, NULL};
  return toporr_mca_cart_map(comm, ndims, dims, periods, newrank, toporr_cart_map_base, &call);
}

struct toporr_graph_call {
  mca_topo_base_module_t* topo;
  ompi_communicator_t* comm; /* the map function's communicator */
  int nnodes;
  const int* index;
  const int* edges;
  ompi_communicator_t** out;
};

static int toporr_graph_construct(void* context, MPI_Comm comm, int reorder) {
  struct toporr_graph_call* c = (struct toporr_graph_call*)context;
  return mca_topo_base_graph_create(c->topo, comm, c->nnodes, c->index, c->edges, reorder != 0,
                                    c->out);
}

static int toporr_graph_map(ompi_communicator_t* comm, int nnodes, const int* index,
                            const int* edges, int* newrank);

/* Whether MPI_Graph_map on `comm` is answered by this module (see the file comment). */
static bool toporr_answers_graph_map(const ompi_communicator_t* comm) {
  return OMPI_COMM_IS_GRAPH(comm) && comm->c_topo != NULL &&
         comm->c_topo->topo.graph.graph_map == toporr_graph_map;
}

static int toporr_graph_create(mca_topo_base_module_t* topo, ompi_communicator_t* old_comm,
                               int nnodes, const int* index, const int* edges, bool reorder,
                               ompi_communicator_t** new_comm) {
  struct toporr_graph_call call = {topo, NULL, nnodes, index, edges, new_comm};
  return toporr_mca_graph_create(old_comm, nnodes, index, edges,
                                 reorder && toporr_answers_graph_map(old_comm),
                                 toporr_graph_construct, &call);
}

static int toporr_graph_map_base(void* context, int* newrank) {
  struct toporr_graph_call* c = (struct toporr_graph_call*)context;
  return mca_topo_base_graph_map(c->comm, c->nnodes, c->index, c->edges, newrank);
}

static int toporr_graph_map(ompi_communicator_t* comm, int nnodes, const int* index,
                            const int* edges, int* newrank) {
  struct toporr_graph_call call = {NULL, comm, nnodes, index, edges, NULL};
  return toporr_mca_graph_map(comm, nnodes, index, edges, newrank, toporr_graph_map_base, &call);
}

struct toporr_dist_graph_call {
  mca_topo_base_module_t* topo;
  int n;
  const int* nodes;
  const int* degrees;
  const int* targets;
  const int* weights;
  opal_info_t* info;
  ompi_communicator_t** out;
};

static int toporr_dist_graph_construct(void* context, MPI_Comm comm, int reorder) {
  struct toporr_dist_graph_call* c = (struct toporr_dist_graph_call*)context;
  return mca_topo_base_dist_graph_create(c->topo, comm, c->n, c->nodes, c->degrees, c->targets,
                                         c->weights, c->info, reorder, c->out);
}

static int toporr_dist_graph_create(mca_topo_base_module_t* topo, ompi_communicator_t* old_comm,
                                    int n, const int nodes[], const int degrees[],
                                    const int targets[], const int weights[], opal_info_t* info,
                                    int reorder, ompi_communicator_t** new_comm) {
  struct toporr_dist_graph_call call = {topo, n, nodes, degrees, targets, weights, info, new_comm};
  return toporr_mca_dist_graph_create(old_comm, n, nodes, degrees, targets, weights, reorder,
                                      toporr_dist_graph_construct, &call);
}

struct toporr_adjacent_call {
  mca_topo_base_module_t* topo;
  opal_info_t* info;
  ompi_communicator_t** out;
};

static int toporr_adjacent_construct(void* context, MPI_Comm comm, int indegree,
                                     const int sources[], const int sourceweights[], int outdegree,
                                     const int destinations[], const int destweights[],
                                     int reorder) {
  struct toporr_adjacent_call* c = (struct toporr_adjacent_call*)context;
  return mca_topo_base_dist_graph_create_adjacent(c->topo, comm, indegree, sources, sourceweights,
                                                  outdegree, destinations, destweights, c->info,
                                                  reorder, c->out);
}

static int toporr_dist_graph_create_adjacent(mca_topo_base_module_t* topo,
                                             ompi_communicator_t* old_comm, int indegree,
                                             const int sources[], const int sourceweights[],
                                             int outdegree, const int destinations[],
                                             const int destweights[], opal_info_t* info,
                                             int reorder, ompi_communicator_t** new_comm) {
  struct toporr_adjacent_call call = {topo, info, new_comm};
  return toporr_mca_dist_graph_create_adjacent(old_comm, indegree, sources, sourceweights,
                                               outdegree, destinations, destweights, reorder,
                                               toporr_adjacent_construct, &call);
}

/* ---- the component ---- */

static int toporr_register(void);
static int toporr_init_query(bool enable_progress_threads, bool enable_mpi_threads);
static mca_topo_base_module_t* toporr_comm_query(const ompi_communicator_t* comm,
                                                 int* module_priority, uint32_t type);
#if OMPI_MAJOR_VERSION >= 5
/* Open MPI 5.0's query also names the group of a communicator made from a group (MPI-4
 * sessions), where there is no old communicator to reorder: declined. */
static mca_topo_base_module_t* toporr_query(const ompi_communicator_t* comm,
                                            const ompi_group_t* group, int* module_priority,
                                            uint32_t type) {
  (void)group;
  return comm != NULL ? toporr_comm_query(comm, module_priority, type) : NULL;
}
#endif

mca_topo_base_component_2_2_0_t mca_topo_toporr_component = {
    .topoc_version =
        {
            MCA_TOPO_BASE_VERSION_2_2_0,
            .mca_component_name = "toporr",
            MCA_BASE_MAKE_VERSION(component, OMPI_MAJOR_VERSION, OMPI_MINOR_VERSION,
                                  OMPI_RELEASE_VERSION),
            .mca_register_component_params = toporr_register,
        },
    .topoc_data = {MCA_BASE_METADATA_PARAM_NONE},
    .topoc_init_query = toporr_init_query,
#if OMPI_MAJOR_VERSION >= 5
    .topoc_query = toporr_query,
#else
    .topoc_comm_query = toporr_comm_query,
#endif
};

static int toporr_register(void) {
  if (!toporr_mca_series_matches("mca_topo_toporr")) return OMPI_ERR_NOT_AVAILABLE;
  toporr_mca_register_int(&mca_topo_toporr_component.topoc_version, "priority",
                          "Priority of the toporr topo component (above treematch's 42 and "
                          "basic's 0): toporr's module builds Cartesian, graph and dist-graph "
                          "communicators, reordered when reorder is true",
                          OPAL_INFO_LVL_6, &priority);
  toporr_mca_register_settings(&mca_topo_toporr_component.topoc_version, params,
                               TOPORR_MCA_DECISION_SETTINGS);
  return OMPI_SUCCESS;
}

/* Builds toporr's configuration once per process. A disabled toporr offers no module, so that
 * topo/basic (or treematch) builds every topology; the component itself stays open (its
 * parameters live in it until MPI_Finalize deregisters them). */
static int toporr_init_query(bool enable_progress_threads, bool enable_mpi_threads) {
  enabled = toporr_mca_configure(TOPORR_MCA_TOPO, params) != 0;
  return OMPI_SUCCESS;
}

static mca_topo_base_module_t* toporr_comm_query(const ompi_communicator_t* comm,
                                                 int* module_priority, uint32_t type) {
  if (!enabled || OMPI_COMM_IS_INTER(comm) || priority < 0) return NULL;
  /* Zeroed, as topo/basic's: the framework fills the functions left null with its base ones. */
  mca_topo_base_module_t* module = calloc(1, sizeof(mca_topo_base_module_t));
  if (module == NULL) return NULL;
  OBJ_CONSTRUCT(module, mca_topo_base_module_t);
  module->type = type;
  if (type == OMPI_COMM_CART) {
    module->topo.cart.cart_create = toporr_cart_create;
    module->topo.cart.cart_map = toporr_cart_map;
  } else if (type == OMPI_COMM_GRAPH) {
    module->topo.graph.graph_create = toporr_graph_create;
    module->topo.graph.graph_map = toporr_graph_map;
  } else if (type == OMPI_COMM_DIST_GRAPH) {
    module->topo.dist_graph.dist_graph_create = toporr_dist_graph_create;
    module->topo.dist_graph.dist_graph_create_adjacent = toporr_dist_graph_create_adjacent;
  }
  *module_priority = priority;
  return module;
}

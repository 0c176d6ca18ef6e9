#include "client/mpi/topology.h"

#include <algorithm>
#include <map>
#include <vector>

#include "client/plan/graph_plan.h"
#include "mapping/reorder/graph_reorder.h"

namespace toporr::client::mpi {
namespace {

int64_t EdgeBytes(const int weights[], int k) {
  if (weights == MPI_UNWEIGHTED || weights == nullptr) return kBytesPerEdgeUnit;
  return static_cast<int64_t>(weights[k]) * kBytesPerEdgeUnit;
}

// Gathers (from, to, bytes) triples of every rank on rank 0 (whose graph gets them).
int GatherEdges(MPI_Comm comm, const std::vector<int64_t>& mine, mapping::CommGraph* graph) {
  int rank = 0, size = 1;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  int count = static_cast<int>(mine.size());
  std::vector<int> counts(size), displs(size);
  int rc = PMPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
  if (rc != MPI_SUCCESS) return rc;
  int total = 0;
  for (int r = 0; r < size; ++r) {
    displs[r] = total;
    total += counts[r];
  }
  std::vector<int64_t> all(rank == 0 ? total : 0);
  rc = PMPI_Gatherv(mine.data(), count, MPI_INT64_T, all.data(), counts.data(), displs.data(),
                    MPI_INT64_T, 0, comm);
  if (rc != MPI_SUCCESS || rank != 0) return rc;
  graph->num_ranks = size;
  for (size_t k = 0; k + 2 < all.size(); k += 3) {
    graph->edges.push_back(
        {static_cast<int32_t>(all[k]), static_cast<int32_t>(all[k + 1]), all[k + 2]});
  }
  return MPI_SUCCESS;
}

// The embedding's order, or empty for identity (fallback). Collective.
std::vector<int32_t> OrderFor(Library& library, MPI_Comm comm, const char* label,
                              const mapping::CommGraph* graph) {
  std::vector<int32_t> order;
  library.GraphOrder(comm, label, graph, &order, nullptr);
  return order;
}

bool IsIdentity(const std::vector<int32_t>& order) {
  for (size_t i = 0; i < order.size(); ++i) {
    if (order[i] != static_cast<int32_t>(i)) return false;
  }
  return true;
}

// Orders decided for MPI_Cart_create / MPI_Cart_map and MPI_Graph_create / MPI_Graph_map,
// cached on the communicator they were decided on (freed with it; a duplicate starts empty)
// and keyed by the call's arguments, so that a constructor and the map function given the
// same arguments on the same communicator answer alike, whichever runs first.
using TopologyKey = std::vector<int>;
using TopologyCache = std::map<TopologyKey, std::vector<int32_t>>;
enum TopologyKind { kCart = 1, kGraph = 2 };

int DeleteTopologyCache(MPI_Comm, int, void* value, void*) {
  delete static_cast<TopologyCache*>(value);
  return MPI_SUCCESS;
}

int TopologyKeyval() {
  static const int keyval = [] {
    int k = MPI_KEYVAL_INVALID;
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, DeleteTopologyCache, &k, nullptr);
    return k;
  }();
  return keyval;
}

TopologyCache* CacheOf(MPI_Comm comm) {
  TopologyCache* cache = nullptr;
  int found = 0;
  PMPI_Comm_get_attr(comm, TopologyKeyval(), &cache, &found);
  if (found) return cache;
  cache = new TopologyCache;
  PMPI_Comm_set_attr(comm, TopologyKeyval(), cache);
  return cache;
}

// The order for `key` on `comm`: cached, or decided now by the graph embedding of the graph
// `build` fills on rank 0 (collective over `comm`; every rank holds the same cache, since
// the constructors and map functions are collective with the same arguments everywhere).
template <typename Build>
std::vector<int32_t> DecidedOrder(Library& library, MPI_Comm comm, const TopologyKey& key,
                                  const char* label, Build build) {
  TopologyCache* cache = CacheOf(comm);
  if (auto it = cache->find(key); it != cache->end()) return it->second;
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  mapping::CommGraph graph;
  if (rank == 0) build(&graph);
  std::vector<int32_t> order = OrderFor(library, comm, label, &graph);
  if (IsIdentity(order)) order.clear();
  (*cache)[key] = order;
  return order;
}

// The new rank of this process under `order` (empty: identity) in a topology of `nodes`
// processes, MPI_UNDEFINED for a process outside it.
int NewRank(MPI_Comm comm, const std::vector<int32_t>& order, int nodes) {
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  int position = rank;
  for (size_t i = 0; i < order.size(); ++i) {
    if (order[i] == rank) position = static_cast<int>(i);
  }
  return position < nodes ? position : MPI_UNDEFINED;
}

// Runs `create(comm)` on `comm_old` reordered by `order` (or on comm_old for identity). When
// the reordered communicator cannot be built, the MPI library's constructor runs on comm_old
// and `key`'s cached order becomes identity, so that the map functions keep answering as the
// constructor did.
template <typename Create>
int OnReordered(MPI_Comm comm_old, const TopologyKey& key, const std::vector<int32_t>& order,
                Create create) {
  if (order.empty() || IsIdentity(order)) return create(comm_old);
  MPI_Comm reordered = MPI_COMM_NULL;
  if (CommInOrder(comm_old, order, &reordered) != MPI_SUCCESS) {
    if (!key.empty()) (*CacheOf(comm_old))[key].clear();
    return create(comm_old);
  }
  int rc = create(reordered);
  PMPI_Comm_free(&reordered);
  return rc;
}

// True when toporr decides the order of a topology of `nodes` processes on `comm` (an
// intra-communicator of at least that many processes, toporr enabled); otherwise the MPI
// library's own call runs, and reports any error in the arguments.
bool Reorderable(Library& library, MPI_Comm comm, int64_t nodes) {
  if (library.options().disable || comm == MPI_COMM_NULL || nodes <= 0) return false;
  int inter = 0, size = 0;
  if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter) return false;
  PMPI_Comm_size(comm, &size);
  return nodes <= size;
}

// The grid's process count, or 0 when the arguments describe none (ndims <= 0, a dimension
// below 1): the MPI library then answers.
int64_t CartNodes(int ndims, const int dims[]) {
  int64_t nodes = ndims > 0 ? 1 : 0;
  for (int i = 0; i < ndims && nodes > 0; ++i) {
    nodes = dims[i] > 0 ? nodes * dims[i] : 0;
  }
  return nodes;
}

TopologyKey CartKey(int ndims, const int dims[], const int periods[]) {
  TopologyKey key = {kCart, ndims};
  key.insert(key.end(), dims, dims + ndims);
  for (int i = 0; i < ndims; ++i) key.push_back(periods[i] != 0);
  return key;
}

// The Cartesian grid's order on `comm` (Reorderable checked). Collective on a miss.
std::vector<int32_t> CartOrder(Library& library, MPI_Comm comm, int ndims, const int dims[],
                               const int periods[], const TopologyKey& key) {
  return DecidedOrder(library, comm, key, "cart_create", [&](mapping::CommGraph* graph) {
    int size = 0;
    PMPI_Comm_size(comm, &size);
    std::vector<int> dv(dims, dims + ndims);
    std::vector<bool> pv;
    for (int i = 0; i < ndims; ++i) pv.push_back(periods[i] != 0);
    absl::StatusOr<mapping::CommGraph> g = CartGraph(dv, pv, size);
    if (g.ok()) *graph = *std::move(g);
    graph->num_ranks = size;
  });
}

TopologyKey GraphKey(int nnodes, const int index[], const int edges[]) {
  TopologyKey key = {kGraph, nnodes};
  key.insert(key.end(), index, index + nnodes);
  key.insert(key.end(), edges, edges + std::max(0, index[nnodes - 1]));
  return key;
}

// The process graph's order on `comm` (Reorderable checked). Collective on a miss.
std::vector<int32_t> GraphOrderOf(Library& library, MPI_Comm comm, int nnodes, const int index[],
                                  const int edges[], const TopologyKey& key) {
  return DecidedOrder(library, comm, key, "graph_create", [&](mapping::CommGraph* graph) {
    PMPI_Comm_size(comm, &graph->num_ranks);
    for (int v = 0; v < nnodes; ++v) {
      for (int k = v == 0 ? 0 : index[v - 1]; k < index[v]; ++k) {
        if (edges[k] >= 0 && edges[k] < nnodes) {
          graph->edges.push_back({v, edges[k], kBytesPerEdgeUnit});
        }
      }
    }
  });
}

}  // namespace

int CartCreate(Library& library, MPI_Comm comm_old, int ndims, const int dims[],
               const int periods[], int reorder, const TopologyConstructor& own) {
  if (!reorder || !Reorderable(library, comm_old, CartNodes(ndims, dims))) {
    return own(comm_old, reorder);
  }
  const TopologyKey key = CartKey(ndims, dims, periods);
  std::vector<int32_t> order = CartOrder(library, comm_old, ndims, dims, periods, key);
  return OnReordered(comm_old, key, order, [&](MPI_Comm c) { return own(c, 0); });
}

int CartMap(Library& library, MPI_Comm comm, int ndims, const int dims[], const int periods[],
            int* newrank, const MapFunction& own) {
  const int64_t nodes = CartNodes(ndims, dims);
  if (newrank == nullptr || !Reorderable(library, comm, nodes)) return own(newrank);
  const TopologyKey key = CartKey(ndims, dims, periods);
  *newrank =
      NewRank(comm, CartOrder(library, comm, ndims, dims, periods, key), static_cast<int>(nodes));
  return MPI_SUCCESS;
}

int GraphCreate(Library& library, MPI_Comm comm_old, int nnodes, const int index[],
                const int edges[], int reorder, const TopologyConstructor& own) {
  if (!reorder || !Reorderable(library, comm_old, nnodes)) return own(comm_old, reorder);
  const TopologyKey key = GraphKey(nnodes, index, edges);
  std::vector<int32_t> order = GraphOrderOf(library, comm_old, nnodes, index, edges, key);
  return OnReordered(comm_old, key, order, [&](MPI_Comm c) { return own(c, 0); });
}

int GraphMap(Library& library, MPI_Comm comm, int nnodes, const int index[], const int edges[],
             int* newrank, const MapFunction& own) {
  if (newrank == nullptr || !Reorderable(library, comm, nnodes)) return own(newrank);
  const TopologyKey key = GraphKey(nnodes, index, edges);
  *newrank = NewRank(comm, GraphOrderOf(library, comm, nnodes, index, edges, key), nnodes);
  return MPI_SUCCESS;
}

int DistGraphCreate(Library& library, MPI_Comm comm_old, int n, const int sources[],
                    const int degrees[], const int destinations[], const int weights[], int reorder,
                    const TopologyConstructor& own) {
  if (!reorder || library.options().disable) return own(comm_old, reorder);
  int size = 0;
  PMPI_Comm_size(comm_old, &size);
  std::vector<int64_t> mine;
  for (int i = 0, k = 0; i < n; ++i) {
    for (int d = 0; d < degrees[i]; ++d, ++k) {
      if (sources[i] < 0 || sources[i] >= size || destinations[k] < 0 || destinations[k] >= size) {
        continue;  // the MPI library reports it below
      }
      mine.insert(mine.end(), {sources[i], destinations[k], EdgeBytes(weights, k)});
    }
  }
  mapping::CommGraph graph;
  if (GatherEdges(comm_old, mine, &graph) != MPI_SUCCESS) return own(comm_old, reorder);
  std::vector<int32_t> order = OrderFor(library, comm_old, "dist_graph_create", &graph);
  // Edges name vertices, not the process giving them: the same arguments describe the same
  // graph on the reordered communicator, whose rank i is vertex i.
  return OnReordered(comm_old, {}, order, [&](MPI_Comm c) { return own(c, 0); });
}

int DistGraphCreateAdjacent(Library& library, MPI_Comm comm_old, const AdjacentLists& lists,
                            int reorder, const AdjacentConstructor& own) {
  if (!reorder || library.options().disable) return own(comm_old, lists, reorder);
  int size = 0, rank = 0;
  PMPI_Comm_size(comm_old, &size);
  PMPI_Comm_rank(comm_old, &rank);
  std::vector<int64_t> mine;
  for (int k = 0; k < lists.outdegree; ++k) {
    if (lists.destinations[k] >= 0 && lists.destinations[k] < size) {
      mine.insert(mine.end(), {rank, lists.destinations[k], EdgeBytes(lists.destweights, k)});
    }
  }
  mapping::CommGraph graph;
  std::vector<int32_t> order;
  if (GatherEdges(comm_old, mine, &graph) == MPI_SUCCESS) {
    order = OrderFor(library, comm_old, "dist_graph_create_adjacent", &graph);
  }
  if (order.empty() || IsIdentity(order)) return own(comm_old, lists, 0);
  // Vertex v's lists were given by old rank v; the process that becomes new rank v (old rank
  // order[v]) needs them. So old rank `rank` sends its lists to old rank order[rank] and
  // receives those of vertex new_rank from old rank new_rank.
  int new_rank = 0;
  for (int i = 0; i < size; ++i) {
    if (order[i] == rank) new_rank = i;
  }
  const bool src_w = lists.sourceweights != MPI_UNWEIGHTED;
  const bool dst_w = lists.destweights != MPI_UNWEIGHTED;
  std::vector<int> send = {lists.indegree, lists.outdegree, src_w, dst_w};
  send.insert(send.end(), lists.sources, lists.sources + lists.indegree);
  if (src_w && lists.indegree > 0) {
    send.insert(send.end(), lists.sourceweights, lists.sourceweights + lists.indegree);
  }
  send.insert(send.end(), lists.destinations, lists.destinations + lists.outdegree);
  if (dst_w && lists.outdegree > 0) {
    send.insert(send.end(), lists.destweights, lists.destweights + lists.outdegree);
  }
  MPI_Comm work = MPI_COMM_NULL;
  PMPI_Comm_dup(comm_old, &work);
  int send_count = static_cast<int>(send.size()), recv_count = 0;
  PMPI_Sendrecv(&send_count, 1, MPI_INT, order[rank], 0, &recv_count, 1, MPI_INT, new_rank, 0, work,
                MPI_STATUS_IGNORE);
  std::vector<int> recv(recv_count);
  PMPI_Sendrecv(send.data(), send_count, MPI_INT, order[rank], 1, recv.data(), recv_count, MPI_INT,
                new_rank, 1, work, MPI_STATUS_IGNORE);
  PMPI_Comm_free(&work);
  AdjacentLists moved;
  moved.indegree = recv[0];
  moved.outdegree = recv[1];
  const bool rsw = recv[2] != 0, rdw = recv[3] != 0;
  const int* p = recv.data() + 4;
  moved.sources = p;
  p += moved.indegree;
  moved.sourceweights = rsw ? (moved.indegree > 0 ? p : MPI_WEIGHTS_EMPTY) : MPI_UNWEIGHTED;
  if (rsw) p += moved.indegree;
  moved.destinations = p;
  p += moved.outdegree;
  moved.destweights = rdw ? (moved.outdegree > 0 ? p : MPI_WEIGHTS_EMPTY) : MPI_UNWEIGHTED;
  return OnReordered(comm_old, {}, order, [&](MPI_Comm c) { return own(c, moved, 0); });
}

// ---- with the MPI library's PMPI_* functions ----

int CartCreate(Library& library, MPI_Comm comm_old, int ndims, const int dims[],
               const int periods[], int reorder, MPI_Comm* comm_cart) {
  return CartCreate(library, comm_old, ndims, dims, periods, reorder, [&](MPI_Comm c, int r) {
    return PMPI_Cart_create(c, ndims, dims, periods, r, comm_cart);
  });
}

int CartMap(Library& library, MPI_Comm comm, int ndims, const int dims[], const int periods[],
            int* newrank) {
  return CartMap(library, comm, ndims, dims, periods, newrank,
                 [&](int* out) { return PMPI_Cart_map(comm, ndims, dims, periods, out); });
}

int GraphCreate(Library& library, MPI_Comm comm_old, int nnodes, const int index[],
                const int edges[], int reorder, MPI_Comm* comm_graph) {
  return GraphCreate(library, comm_old, nnodes, index, edges, reorder, [&](MPI_Comm c, int r) {
    return PMPI_Graph_create(c, nnodes, index, edges, r, comm_graph);
  });
}

int GraphMap(Library& library, MPI_Comm comm, int nnodes, const int index[], const int edges[],
             int* newrank) {
  return GraphMap(library, comm, nnodes, index, edges, newrank,
                  [&](int* out) { return PMPI_Graph_map(comm, nnodes, index, edges, out); });
}

int DistGraphCreate(Library& library, MPI_Comm comm_old, int n, const int sources[],
                    const int degrees[], const int destinations[], const int weights[],
                    MPI_Info info, int reorder, MPI_Comm* comm_dist_graph) {
  return DistGraphCreate(library, comm_old, n, sources, degrees, destinations, weights, reorder,
                         [&](MPI_Comm c, int r) {
                           return PMPI_Dist_graph_create(c, n, sources, degrees, destinations,
                                                         weights, info, r, comm_dist_graph);
                         });
}

int DistGraphCreateAdjacent(Library& library, MPI_Comm comm_old, int indegree, const int sources[],
                            const int sourceweights[], int outdegree, const int destinations[],
                            const int destweights[], MPI_Info info, int reorder,
                            MPI_Comm* comm_dist_graph) {
  const AdjacentLists lists = {indegree,  sources,      sourceweights,
                               outdegree, destinations, destweights};
  return DistGraphCreateAdjacent(
      library, comm_old, lists, reorder, [&](MPI_Comm c, const AdjacentLists& l, int r) {
        return PMPI_Dist_graph_create_adjacent(c, l.indegree, l.sources, l.sourceweights,
                                               l.outdegree, l.destinations, l.destweights, info, r,
                                               comm_dist_graph);
      });
}

}  // namespace toporr::client::mpi

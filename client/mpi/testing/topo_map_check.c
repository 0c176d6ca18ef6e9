/* An unchanged MPI program (no toporr header) for the PMPI layer's topology functions; run by
 * client/mpi/testing/mpi_test.py with and without LD_PRELOAD=libtoporr_pmpi.so.
 *
 *   topo_map_check [full] [map] [graphmap] [cartwork]
 *   full      (first) the checks below leave out topologies smaller than a communicator
 *             without topology: Open MPI answers MPI_Cart_map / MPI_Graph_map there with the
 *             caller's rank, never MPI_UNDEFINED, with or without any topo component
 *   map       MPI_Cart_map returns, on every process, the rank MPI_Cart_create (reorder = 1)
 *             gives it for the same arguments on the same communicator (MPI_UNDEFINED where
 *             the constructor returns MPI_COMM_NULL): 1 to 5 dimensions (MPI_Dims_create),
 *             periods all, none and mixed, map called after the constructor (on the
 *             communicator) and before it (on a fresh duplicate), on MPI_COMM_WORLD,
 *             MPI_COMM_SELF and a 2-D Cartesian communicator built with reorder = 0 (whose
 *             map function Open MPI asks its topo component for), and a grid of all processes
 *             but the last
 *   graphmap  the same for MPI_Graph_map and MPI_Graph_create: a ring over all processes and
 *             one over all but the last, on MPI_COMM_WORLD and on a graph communicator
 *   cartwork  what mpi4py's Cartesian test does, on grids built with reorder = 1 (1, 3 and
 *             5 dimensions) and reorder = 0 (2): coordinates, MPI_Cart_rank and
 *             MPI_Cart_shift agree (a halo exchange too), every MPI_Cart_sub has the parent's
 *             other dimensions and coordinates, MPI_Comm_dup keeps the topology and copies a
 *             user attribute, and MPI_Allreduce, MPI_Bcast, MPI_Reduce and MPI_Allgather on
 *             the grid, each sub-grid and each duplicate give the values computed from the
 *             members' MPI_COMM_WORLD ranks
 * Output from MPI_COMM_WORLD rank 0:
 *   ORDER cart-map - 0 <world rank of grid rank 0> ...  (the 2-D periodic grid of `map`)
 *   ORDER cart-map-on-grid - 0 ...  (the same grid mapped on the Cartesian communicator)
 *   CHECK <map|graphmap|cartwork> ok|FAILED <what>
 * A process that fails a check names it on stderr. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kMaxDims = 5, kLong = 3000 };

static int world_rank, world_size;
static int full_only = 0; /* `full` */

/* The rank `comm` (a grid, or MPI_COMM_NULL) gives this process, MPI_UNDEFINED for none. */
static int RankIn(MPI_Comm comm) {
  int rank = MPI_UNDEFINED;
  if (comm != MPI_COMM_NULL) MPI_Comm_rank(comm, &rank);
  return rank;
}

static int Expect(int ok, const char* what, int a, int b) {
  if (!ok) fprintf(stderr, "world rank %d: %s: %d != %d\n", world_rank, what, a, b);
  return ok;
}

static void Check(const char* name, int ok, const char* what) {
  int all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (world_rank == 0) {
    printf("CHECK %s %s %s\n", name, all ? "ok" : "FAILED", what);
    fflush(stdout);
  }
}

/* The constructors (MPI_Cart_create, MPI_Graph_create) and map functions (MPI_Cart_map,
 * MPI_Graph_map) share their shapes: (comm, ndims|nnodes, dims|index, periods|edges, ...). */
typedef int (*CreateFn)(MPI_Comm, int, const int[], const int[], int, MPI_Comm*);
typedef int (*MapFn)(MPI_Comm, int, const int[], const int[], int*);

/* One topology: map after create on `comm`, map before create on a fresh duplicate (the map
 * function decides first, the constructor follows it). */
static int Agrees(MPI_Comm comm, CreateFn create, MapFn map, const char* what, int n, const int a[],
                  const int b[]) {
  int ok = 1;
  MPI_Comm dup;
  MPI_Comm_dup(comm, &dup);
  for (int map_first = 0; map_first <= 1; ++map_first) {
    MPI_Comm on = map_first ? dup : comm, topo;
    int mapped = -2;
    if (map_first) map(on, n, a, b, &mapped);
    create(on, n, a, b, 1, &topo);
    if (!map_first) map(on, n, a, b, &mapped);
    ok &= Expect(mapped == RankIn(topo), what, mapped, RankIn(topo));
    if (topo != MPI_COMM_NULL) MPI_Comm_free(&topo);
  }
  MPI_Comm_free(&dup);
  return ok;
}

static int CartAgrees(MPI_Comm comm, int ndims, const int dims[], const int periods[]) {
  return Agrees(comm, MPI_Cart_create, MPI_Cart_map, "MPI_Cart_map", ndims, dims, periods);
}

/* `on`: MPI_COMM_WORLD or a communicator of all processes in MPI_COMM_WORLD's order. */
static void PrintOrder(MPI_Comm on, const char* name) {
  int dims[2] = {0, 0}, periods[2] = {1, 1}, mapped = 0;
  MPI_Dims_create(world_size, 2, dims);
  MPI_Cart_map(on, 2, dims, periods, &mapped);
  int* at = malloc(sizeof(int) * world_size);
  MPI_Gather(&mapped, 1, MPI_INT, at, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (world_rank == 0) {
    int* order = calloc(world_size, sizeof(int));
    for (int r = 0; r < world_size; ++r) order[at[r]] = r;
    printf("ORDER %s - 0", name);
    for (int i = 0; i < world_size; ++i) printf(" %d", order[i]);
    printf("\n");
    free(order);
  }
  free(at);
}

static void Map(void) {
  MPI_Comm comms[2] = {MPI_COMM_WORLD, MPI_COMM_SELF};
  int ok = 1;
  for (int c = 0; c < 2; ++c) {
    int size;
    MPI_Comm_size(comms[c], &size);
    for (int ndims = 1; ndims <= kMaxDims; ++ndims) {
      int dims[kMaxDims] = {0}, periods[kMaxDims];
      MPI_Dims_create(size, ndims, dims);
      /* periods all true, all false, mixed, in turn */
      for (int i = 0; i < ndims; ++i) periods[i] = ndims % 3 == 0 ? 0 : ndims % 3 == 1 || i % 2;
      ok &= CartAgrees(comms[c], ndims, dims, periods);
    }
    if (size > 1 && !full_only) { /* a grid smaller than the communicator */
      int dims[1] = {size - 1}, periods[1] = {0};
      ok &= CartAgrees(comms[c], 1, dims, periods);
    }
  }
  PrintOrder(MPI_COMM_WORLD, "cart-map");
  /* A Cartesian communicator in MPI_COMM_WORLD's order (reorder = 0). */
  int dims[2] = {0, 0}, periods[2] = {1, 1};
  MPI_Dims_create(world_size, 2, dims);
  MPI_Comm grid;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
  ok &= CartAgrees(grid, 2, dims, periods);
  periods[1] = 0;
  ok &= CartAgrees(grid, 2, dims, periods);
  periods[1] = 1;
  PrintOrder(grid, "cart-map-on-grid");
  MPI_Comm_free(&grid);
  Check("map", ok, "cart_map==cart_create");
}

/* mpi4py's testGraphMap graph over the first n processes (n >= 1): a ring, vertex v's
 * neighbours v-1 and v+1 (mod n), in that order. */
static int GraphAgrees(MPI_Comm comm, int n) {
  int* index = malloc(sizeof(int) * n);
  int* edges = malloc(sizeof(int) * 2 * n);
  for (int v = 0, e = 0; v < n; ++v) {
    edges[e++] = (v - 1 + n) % n;
    edges[e++] = (v + 1) % n;
    index[v] = e;
  }
  int ok = Agrees(comm, MPI_Graph_create, MPI_Graph_map, "MPI_Graph_map", n, index, edges);
  free(index);
  free(edges);
  return ok;
}

static void GraphMap(void) {
  int ok = GraphAgrees(MPI_COMM_WORLD, world_size);
  if (world_size > 1 && !full_only) ok &= GraphAgrees(MPI_COMM_WORLD, world_size - 1);
  /* A graph communicator in MPI_COMM_WORLD's order (reorder = 0): a ring of all processes. */
  int* index = malloc(sizeof(int) * world_size);
  int* edges = malloc(sizeof(int) * 2 * world_size);
  for (int v = 0; v < world_size; ++v) {
    edges[2 * v] = (v + 1) % world_size;
    edges[2 * v + 1] = (v + world_size - 1) % world_size;
    index[v] = 2 * v + 2;
  }
  MPI_Comm graph;
  MPI_Graph_create(MPI_COMM_WORLD, world_size, index, edges, 0, &graph);
  ok &= GraphAgrees(graph, world_size);
  MPI_Comm_free(&graph);
  free(index);
  free(edges);
  Check("graphmap", ok, "graph_map==graph_create");
}

/* ---- cartwork ---- */

/* The MPI_COMM_WORLD rank of each rank of `comm`. */
static int* WorldRanks(MPI_Comm comm, int size) {
  MPI_Group group, world;
  MPI_Comm_group(comm, &group);
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int* ranks = malloc(sizeof(int) * size);
  int* world_of = malloc(sizeof(int) * size);
  for (int i = 0; i < size; ++i) ranks[i] = i;
  MPI_Group_translate_ranks(group, size, ranks, world, world_of);
  MPI_Group_free(&group);
  MPI_Group_free(&world);
  free(ranks);
  return world_of;
}

/* Collectives on `comm` (allreduce of one and of kLong elements, bcast and reduce of kLong
 * at the last root, allgather of one), checked against the values its members' world ranks
 * give. */
static int Collectives(MPI_Comm comm, const char* where) {
  int rank, size, ok = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int* world_of = WorldRanks(comm, size);
  long long sum = 0;
  for (int i = 0; i < size; ++i) sum += world_of[i];
  double* x = malloc(sizeof(double) * kLong);
  double* y = malloc(sizeof(double) * kLong);
  for (int n = 1; n <= kLong; n += kLong - 1) {
    for (int i = 0; i < n; ++i) x[i] = world_rank + i;
    MPI_Allreduce(x, y, n, MPI_DOUBLE, MPI_SUM, comm);
    for (int i = 0; i < n; ++i) ok &= Expect(y[i] == sum + (double)size * i, where, (int)y[i], i);
  }
  /* the last rank as root: a root toporr's reordered communicator has to translate */
  const int root = size - 1;
  for (int i = 0; i < kLong; ++i) y[i] = rank == root ? world_rank * 10000.0 + i : -1;
  MPI_Bcast(y, kLong, MPI_DOUBLE, root, comm);
  for (int i = 0; i < kLong; ++i) {
    ok &= Expect(y[i] == world_of[root] * 10000.0 + i, where, (int)y[i], root);
  }
  MPI_Reduce(x, y, kLong, MPI_DOUBLE, MPI_SUM, root, comm);
  for (int i = 0; rank == root && i < kLong; ++i) {
    ok &= Expect(y[i] == sum + (double)size * i, where, (int)y[i], root);
  }
  int* all = malloc(sizeof(int) * size);
  MPI_Allgather(&world_rank, 1, MPI_INT, all, 1, MPI_INT, comm);
  for (int i = 0; i < size; ++i) ok &= Expect(all[i] == world_of[i], where, all[i], world_of[i]);
  free(all);
  free(x);
  free(y);
  free(world_of);
  return ok;
}

static int copies = 0;

static int CountingCopy(MPI_Comm comm, int keyval, void* extra, void* in, void* out, int* flag) {
  (void)comm, (void)keyval, (void)extra;
  ++copies;
  *(void**)out = in;
  *flag = 1;
  return MPI_SUCCESS;
}

/* The topology of `cart` (ndims dimensions) as seen through `dup`: the same. */
static int SameTopology(MPI_Comm cart, MPI_Comm dup, int ndims) {
  int kind = -1, d = -1, ok = 1;
  MPI_Topo_test(dup, &kind);
  MPI_Cartdim_get(dup, &d);
  ok &= Expect(kind == MPI_CART && d == ndims, "dup topology", kind, d);
  int dims[2][kMaxDims], periods[2][kMaxDims], coords[2][kMaxDims];
  MPI_Cart_get(cart, ndims, dims[0], periods[0], coords[0]);
  MPI_Cart_get(dup, ndims, dims[1], periods[1], coords[1]);
  for (int i = 0; i < ndims; ++i) {
    ok &= Expect(
        dims[0][i] == dims[1][i] && periods[0][i] == periods[1][i] && coords[0][i] == coords[1][i],
        "dup dims/periods/coords", i, ndims);
  }
  ok &= Expect(RankIn(cart) == RankIn(dup), "dup rank", RankIn(cart), RankIn(dup));
  return ok;
}

static int Grid(int ndims, int reorder, int keyval) {
  int dims[kMaxDims] = {0}, periods[kMaxDims], ok = 1;
  MPI_Dims_create(world_size, ndims, dims);
  for (int i = 0; i < ndims; ++i) periods[i] = 1;
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, reorder, &cart);
  int rank, coords[kMaxDims], back = -1;
  MPI_Comm_rank(cart, &rank);
  MPI_Cart_coords(cart, rank, ndims, coords);
  MPI_Cart_rank(cart, coords, &back);
  ok &= Expect(back == rank, "MPI_Cart_rank(MPI_Cart_coords)", back, rank);
  for (int i = 0; i < ndims; ++i) {
    for (int d = -1; d <= 1; d += 2) {
      int c[kMaxDims], neighbour = -1, source = -1, dest = -1, got = -1;
      memcpy(c, coords, sizeof(c));
      c[i] = (c[i] + d + dims[i]) % dims[i];
      MPI_Cart_rank(cart, c, &neighbour);
      MPI_Cart_shift(cart, i, d, &source, &dest);
      ok &= Expect(dest == neighbour, "MPI_Cart_shift dest", dest, neighbour);
      MPI_Sendrecv(&rank, 1, MPI_INT, dest, 3, &got, 1, MPI_INT, source, 3, cart,
                   MPI_STATUS_IGNORE);
      ok &= Expect(got == source, "halo exchange", got, source);
    }
  }
  ok &= Collectives(cart, "collectives on the grid");
  for (int i = 0; ndims > 1 && i < ndims; ++i) {
    int remain[kMaxDims], sub_dims[kMaxDims], sub_periods[kMaxDims], sub_coords[kMaxDims];
    for (int k = 0; k < ndims; ++k) remain[k] = k != i;
    MPI_Comm sub;
    MPI_Cart_sub(cart, remain, &sub);
    int sub_ndims = -1;
    MPI_Cartdim_get(sub, &sub_ndims);
    ok &= Expect(sub_ndims == ndims - 1, "MPI_Cart_sub dimensions", sub_ndims, ndims - 1);
    MPI_Cart_get(sub, ndims - 1, sub_dims, sub_periods, sub_coords);
    for (int k = 0, j = 0; k < ndims; ++k) {
      if (k == i) continue;
      ok &= Expect(sub_dims[j] == dims[k] && sub_coords[j] == coords[k], "MPI_Cart_sub grid",
                   sub_coords[j], coords[k]);
      ++j;
    }
    ok &= Collectives(sub, "collectives on a sub-grid");
    MPI_Comm_free(&sub);
  }
  static int value = 42;
  copies = 0;
  MPI_Comm_set_attr(cart, keyval, &value);
  MPI_Comm dup;
  MPI_Comm_dup(cart, &dup);
  void* got = NULL;
  int found = 0;
  MPI_Comm_get_attr(dup, keyval, &got, &found);
  ok &= Expect(found && got == &value && copies == 1, "attribute copied by MPI_Comm_dup", found,
               copies);
  ok &= SameTopology(cart, dup, ndims);
  ok &= Collectives(dup, "collectives on a duplicate");
  MPI_Comm_free(&dup);
  MPI_Comm_free(&cart);
  return ok;
}

static void CartWork(void) {
  int keyval = MPI_KEYVAL_INVALID, ok = 1;
  MPI_Comm_create_keyval(CountingCopy, MPI_COMM_NULL_DELETE_FN, &keyval, NULL);
  for (int ndims = 1; ndims <= kMaxDims; ndims += 2) ok &= Grid(ndims, 1, keyval);
  ok &= Grid(2, 0, keyval);
  MPI_Comm_free_keyval(&keyval);
  Check("cartwork", ok, "shift+sub+dup+attributes+collectives");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  static const struct {
    const char* name;
    void (*run)(void);
  } kChecks[] = {{"map", Map}, {"graphmap", GraphMap}, {"cartwork", CartWork}};
  for (int i = 1; i < argc; ++i) {
    int known = 0;
    if (i == 1 && strcmp(argv[i], "full") == 0) {
      full_only = 1;
      continue;
    }
    for (size_t k = 0; k < sizeof(kChecks) / sizeof(kChecks[0]); ++k) {
      if (strcmp(argv[i], kChecks[k].name) == 0) {
        kChecks[k].run();
        known = 1;
      }
    }
    if (!known) {
      if (world_rank == 0) fprintf(stderr, "topo_map_check: unknown check %s\n", argv[i]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  MPI_Finalize();
  return 0;
}

/* Checks libtoporr inside a real MPI job; run by client/mpi/testing/mpi_test.py.
 *
 *   toporr_check [SPEC...]
 * SPEC is one of
 *   COLL:ALG:BYTES:ROOT  toporr_comm_reorder (e.g. allreduce:ring:1048576:0); the new
 *                        communicator's order is printed and an allreduce on it checked
 *   cart                 MPI_Cart_create(2-D, reorder=1): coords/shift consistency
 *   graph                MPI_Graph_create(ring + chords, reorder=1)
 *   dist                 MPI_Dist_graph_create_adjacent(reorder=1): neighbours and
 *                        MPI_Neighbor_allgather give each rank exactly its own
 *   distgen              MPI_Dist_graph_create(reorder=1), the same graph given by rank 0
 *   leak                 100 reorders of freshly duplicated parents, all freed: no cache
 *                        stays alive and communicator handles are reused
 *   hosts                each rank's gethostname(), printed by rank 0 in rank order:
 *                        HOSTS <host of rank 0> <host of rank 1> ...
 *   pause:PATH           rank 0 creates PATH.waiting and waits (at most 120 s) until
 *                        PATH.go exists; then every rank goes on (a test acts in between)
 * ROOT "mixed" gives every rank a different root (rank % 2): ranks disagree.
 * Output lines (from the process that is rank 0 of the new communicator):
 *   ORDER <spec> <source> <cached> <old rank of new rank 0> <...of new rank 1> ...
 *   CHECK <spec> ok|FAILED <what>
 * The topology constructors go through whatever MPI_Cart_create etc. the program resolves:
 * the MPI library's, or libtoporr_pmpi.so's under LD_PRELOAD. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/mpi/pmpi_abi.h"
#include "client/toporr.h"

static int world_rank, world_size;

static const char* kCollectives[] = {"allreduce", "bcast", "allgather", "gather", "reduce"};
static const char* kAlgorithms[] = {
    "auto",  "ring",     "segmented_ring",    "recursive_doubling",     "rabenseifner",
    "bruck", "binomial", "binary_tree",       "split_binary_tree",      "knomial",
    "chain", "pipeline", "scatter_allgather", "scatter_allgather_ring", "linear"};

static int Lookup(const char* name, const char** names, int n) {
  for (int i = 0; i < n; ++i) {
    if (strcmp(name, names[i]) == 0) return i;
  }
  return -1;
}

/* Prints the order of `comm` (old = world rank) from its rank 0, and whether an allreduce
 * of the world ranks on it sums correctly everywhere. */
static void Report(const char* spec, MPI_Comm comm, const char* source, int cached) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int* order = malloc(sizeof(int) * size);
  MPI_Gather(&world_rank, 1, MPI_INT, order, 1, MPI_INT, 0, comm);
  long long mine = world_rank, sum = 0;
  MPI_Allreduce(&mine, &sum, 1, MPI_LONG_LONG, MPI_SUM, comm);
  int ok = sum == (long long)size * (size - 1) / 2, all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
  if (rank == 0) {
    char line[65536];
    int len = snprintf(line, sizeof(line), "ORDER %s %s %d", spec, source, cached);
    for (int i = 0; i < size && len < (int)sizeof(line) - 16; ++i) {
      len += snprintf(line + len, sizeof(line) - len, " %d", order[i]);
    }
    printf("%s\nCHECK %s %s allreduce\n", line, spec, all_ok ? "ok" : "FAILED");
    fflush(stdout);
  }
  free(order);
}

static void CheckResult(const char* spec, MPI_Comm comm, int ok, const char* what) {
  int all_ok = 0, rank;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) {
    printf("CHECK %s %s %s\n", spec, all_ok ? "ok" : "FAILED", what);
    fflush(stdout);
  }
}

static void Reorder(const char* spec) {
  char buf[256];
  snprintf(buf, sizeof(buf), "%s", spec);
  char* coll = strtok(buf, ":");
  char* alg = strtok(NULL, ":");
  char* bytes = strtok(NULL, ":");
  char* root = strtok(NULL, ":");
  int c = coll ? Lookup(coll, kCollectives, 5) : -1;
  int a = alg ? Lookup(alg, kAlgorithms, 15) : -1;
  if (c < 0 || a < 0 || !bytes || !root) {
    if (world_rank == 0) fprintf(stderr, "toporr_check: bad spec %s\n", spec);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Comm comm;
  toporr_decision d;
  int r = strcmp(root, "mixed") == 0 ? world_rank % 2 : atoi(root);
  int rc = toporr_comm_reorder(NULL, MPI_COMM_WORLD, (toporr_collective)c, (toporr_algorithm)a,
                               (size_t)atoll(bytes), r, &comm, &d);
  if (rc != TOPORR_SUCCESS) {
    fprintf(stderr, "toporr_check: toporr_comm_reorder: %s\n", toporr_strerror(rc));
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  Report(spec, comm, d.source, d.cached);
  MPI_Comm_free(&comm);
}

static void Cart(void) {
  int dims[2] = {0, 0}, periods[2] = {1, 0};
  MPI_Dims_create(world_size, 2, dims);
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &cart);
  Report("cart", cart, "-", 0);
  int rank, coords[2], back = -1;
  MPI_Comm_rank(cart, &rank);
  MPI_Cart_coords(cart, rank, 2, coords);
  MPI_Cart_rank(cart, coords, &back);
  int src, dst, got = -1;
  MPI_Cart_shift(cart, 0, 1, &src, &dst);
  MPI_Sendrecv(&rank, 1, MPI_INT, dst, 7, &got, 1, MPI_INT, src, 7, cart, MPI_STATUS_IGNORE);
  int want_coords[2] = {(coords[0] - 1 + dims[0]) % dims[0], coords[1]}, want = -1;
  MPI_Cart_rank(cart, want_coords, &want);
  CheckResult("cart", cart, back == rank && got == src && src == want, "coords+shift");
  MPI_Comm_free(&cart);
}

/* Vertex v: out-edges to v+1 and v+3, in-edges from v-1 and v-3 (mod n). */
static void Neighbors(int v, int n, int* in, int* out) {
  in[0] = (v - 1 + n) % n;
  in[1] = (v - 3 + 3 * n) % n;
  out[0] = (v + 1) % n;
  out[1] = (v + 3) % n;
}

static void CheckDist(const char* spec, MPI_Comm g) {
  int rank, n, indeg, outdeg, weighted;
  MPI_Comm_rank(g, &rank);
  MPI_Comm_size(g, &n);
  int in[2], out[2], got_in[2] = {-1, -1}, got_out[2] = {-1, -1}, w1[2], w2[2];
  Neighbors(rank, n, in, out);
  MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &weighted);
  int ok = indeg == 2 && outdeg == 2;
  if (ok) {
    MPI_Dist_graph_neighbors(g, 2, got_in, w1, 2, got_out, w2);
    /* distgen gives no neighbour order guarantee: compare as sets there */
    if (strcmp(spec, "dist") == 0) {
      ok = got_in[0] == in[0] && got_in[1] == in[1] && got_out[0] == out[0] && got_out[1] == out[1];
    } else {
      ok = ((got_in[0] == in[0] && got_in[1] == in[1]) ||
            (got_in[0] == in[1] && got_in[1] == in[0])) &&
           ((got_out[0] == out[0] && got_out[1] == out[1]) ||
            (got_out[0] == out[1] && got_out[1] == out[0]));
    }
    int from[2] = {-1, -1};
    MPI_Neighbor_allgather(&rank, 1, MPI_INT, from, 1, MPI_INT, g);
    ok = ok && from[0] == got_in[0] && from[1] == got_in[1];
  }
  CheckResult(spec, g, ok, "neighbors+neighbor_allgather");
}

static void Dist(void) {
  int in[2], out[2];
  Neighbors(world_rank, world_size, in, out);
  MPI_Comm g;
  if (world_size < 4) return;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, in, MPI_UNWEIGHTED, 2, out, MPI_UNWEIGHTED,
                                 MPI_INFO_NULL, 1, &g);
  Report("dist", g, "-", 0);
  CheckDist("dist", g);
  MPI_Comm_free(&g);
}

static void DistGeneral(void) {
  if (world_size < 4) return;
  int n = world_rank == 0 ? world_size : 0;
  int* sources = malloc(sizeof(int) * (world_size + 1));
  int* degrees = malloc(sizeof(int) * (world_size + 1));
  int* dests = malloc(sizeof(int) * (2 * world_size + 1));
  for (int v = 0; v < n; ++v) {
    int in[2], out[2];
    Neighbors(v, world_size, in, out);
    sources[v] = v;
    degrees[v] = 2;
    dests[2 * v] = out[0];
    dests[2 * v + 1] = out[1];
  }
  MPI_Comm g;
  MPI_Dist_graph_create(MPI_COMM_WORLD, n, sources, degrees, dests, MPI_UNWEIGHTED, MPI_INFO_NULL,
                        1, &g);
  Report("distgen", g, "-", 0);
  CheckDist("distgen", g);
  MPI_Comm_free(&g);
  free(sources);
  free(degrees);
  free(dests);
}

static void Graph(void) {
  int n = world_size;
  int* index = malloc(sizeof(int) * n);
  int* edges = malloc(sizeof(int) * 2 * n);
  for (int v = 0; v < n; ++v) {
    index[v] = 2 * (v + 1);
    edges[2 * v] = (v + 1) % n;
    edges[2 * v + 1] = (v - 1 + n) % n;
  }
  MPI_Comm g;
  MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 1, &g);
  Report("graph", g, "-", 0);
  int rank, count = 0;
  MPI_Comm_rank(g, &rank);
  MPI_Graph_neighbors_count(g, rank, &count);
  int nb[2] = {-1, -1};
  if (count == 2) MPI_Graph_neighbors(g, rank, 2, nb);
  CheckResult("graph", g, count == 2 && nb[0] == (rank + 1) % n && nb[1] == (rank - 1 + n) % n,
              "neighbors");
  MPI_Comm_free(&g);
}

static void Leak(void) {
  /* Handles of freed communicators are reused: the 100 results span a few handle values (the
   * communicators one decision holds at once); a communicator leaked per call would spread
   * them over 100. */
  int live_before = toporr_debug_live_caches(), ok = 1;
  long long lo = 0, hi = 0;
  for (int i = 0; i < 100; ++i) {
    MPI_Comm parent, comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &parent);
    ok &= toporr_comm_reorder(NULL, parent, TOPORR_ALLREDUCE, TOPORR_ALG_AUTO, 1 << 20, 0, &comm,
                              NULL) == TOPORR_SUCCESS;
    /* the low 26 bits: the object index of an MPICH handle, the index itself in Open MPI */
    long long handle = (long long)(MPI_Comm_c2f(comm) & 0x3ffffff);
    if (i == 0 || handle < lo) lo = handle;
    if (i == 0 || handle > hi) hi = handle;
    MPI_Comm_free(&comm);
    MPI_Comm_free(&parent);
  }
  ok &= toporr_debug_live_caches() == live_before && hi - lo <= 16;
  if (!ok) {
    fprintf(stderr, "leak: caches %d -> %d, handles %lld .. %lld\n", live_before,
            toporr_debug_live_caches(), lo, hi);
  }
  CheckResult("leak", MPI_COMM_WORLD, ok, "caches+handles");
}

static void Hosts(void) {
  char name[MPI_MAX_PROCESSOR_NAME] = {0};
  gethostname(name, sizeof(name) - 1);
  char* all = malloc((size_t)world_size * sizeof(name));
  MPI_Gather(name, sizeof(name), MPI_CHAR, all, sizeof(name), MPI_CHAR, 0, MPI_COMM_WORLD);
  if (world_rank == 0) {
    printf("HOSTS");
    for (int r = 0; r < world_size; ++r) printf(" %s", all + (size_t)r * sizeof(name));
    printf("\n");
    fflush(stdout);
  }
  free(all);
}

static void Pause(const char* path) {
  if (world_rank == 0) {
    char waiting[4096], go[4096];
    snprintf(waiting, sizeof(waiting), "%s.waiting", path);
    snprintf(go, sizeof(go), "%s.go", path);
    FILE* f = fopen(waiting, "w");
    if (f) fclose(f);
    for (int i = 0; i < 12000 && access(go, F_OK) != 0; ++i) usleep(10000);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "cart") == 0) {
      Cart();
    } else if (strcmp(argv[i], "graph") == 0) {
      Graph();
    } else if (strcmp(argv[i], "dist") == 0) {
      Dist();
    } else if (strcmp(argv[i], "leak") == 0) {
      Leak();
    } else if (strcmp(argv[i], "distgen") == 0) {
      DistGeneral();
    } else if (strcmp(argv[i], "hosts") == 0) {
      Hosts();
    } else if (strncmp(argv[i], "pause:", 6) == 0) {
      Pause(argv[i] + 6);
    } else {
      Reorder(argv[i]);
    }
  }
  MPI_Finalize();
  return 0;
}

/* libtoporr: topology-aware MPI communicators from toporrd's fabric costs.
 *
 * The stable C API of toporr (C, C++, and Fortran through ISO_C_BINDING). Every function is
 * collective over its communicator argument, like the MPI call it stands for, and returns a
 * toporr_error code. Nothing here fails an MPI job: when the costs cannot be had (daemon
 * absent, too slow, a host missing from the fabric, mixed snapshots, a bad reply...) the
 * functions return TOPORR_SUCCESS with a communicator in identity order (a duplicate of the
 * input, or what the MPI library itself returns), and rank 0 prints one warning naming the
 * cause. Only bad arguments (a NULL output pointer, an unknown collective) are errors.
 *
 * Configuration: a toporr_options struct (toporr_options_init: defaults, then the site file
 * /etc/toporr/client.conf or $TOPORR_CONFIG, then the TOPORR_* environment variables, see
 * client/config/client_options.h and toporr(7)), or NULL for the process default taken from them
 * on first use.
 *
 *   toporr_context ctx = NULL;                 // or toporr_context_create(&opts, &ctx)
 *   MPI_Comm ring;
 *   toporr_comm_reorder(ctx, MPI_COMM_WORLD, TOPORR_ALLREDUCE, TOPORR_ALG_RING,
 *                       1 << 20, 0, &ring, NULL);
 *   MPI_Allreduce(..., ring);                  // ring rank order follows the fabric
 *   MPI_Comm_free(&ring);
 */
#ifndef TOPORR_CLIENT_TOPORR_H_
#define TOPORR_CLIENT_TOPORR_H_

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TOPORR_VERSION_MAJOR 0
#define TOPORR_VERSION_MINOR 2
#define TOPORR_VERSION_PATCH 0
/* (major << 16) | (minor << 8) | patch, for #if comparisons. */
#define TOPORR_VERSION \
  ((TOPORR_VERSION_MAJOR << 16) | (TOPORR_VERSION_MINOR << 8) | TOPORR_VERSION_PATCH)

/* The library's version as "major.minor.patch" (may differ from the header's). */
const char* toporr_version(void);

/* Error codes. Stable values. */
enum toporr_error {
  TOPORR_SUCCESS = 0,     /* done (possibly in identity order: see toporr_decision) */
  TOPORR_ERR_ARG = 1,     /* a NULL output pointer, an unknown enum value, a bad size */
  TOPORR_ERR_MPI = 2,     /* the MPI library failed a call toporr cannot avoid (e.g. the
                             input communicator is invalid); *newcomm is MPI_COMM_NULL */
  TOPORR_ERR_NOMEM = 3,   /* out of memory */
  TOPORR_ERR_INTERNAL = 4 /* a bug in toporr; please report it */
};
/* A static English description of `code` ("unknown error code" for others). */
const char* toporr_strerror(int code);

/* Collectives: the patterns the mapping engine models (mapping/schedules/pattern.h). */
typedef enum {
  TOPORR_ALLREDUCE = 0,
  TOPORR_BCAST = 1,
  TOPORR_ALLGATHER = 2,
  TOPORR_GATHER = 3,
  TOPORR_REDUCE = 4
} toporr_collective;

/* Algorithms, Open MPI's coll/tuned numbering in the comments. TOPORR_ALG_AUTO: the
 * algorithm and order predicted fastest for this fabric and size. */
typedef enum {
  TOPORR_ALG_AUTO = 0,
  TOPORR_ALG_RING = 1,                    /* allreduce 4, allgather ring */
  TOPORR_ALG_SEGMENTED_RING = 2,          /* allreduce 5 */
  TOPORR_ALG_RECURSIVE_DOUBLING = 3,      /* allreduce 3, allgather */
  TOPORR_ALG_RABENSEIFNER = 4,            /* allreduce 6 */
  TOPORR_ALG_BRUCK = 5,                   /* allgather */
  TOPORR_ALG_BINOMIAL = 6,                /* bcast 6, gather, reduce */
  TOPORR_ALG_BINARY_TREE = 7,             /* bcast 5 */
  TOPORR_ALG_SPLIT_BINARY_TREE = 8,       /* bcast 4 */
  TOPORR_ALG_KNOMIAL = 9,                 /* bcast 7 (radix in toporr_options.radix) */
  TOPORR_ALG_CHAIN = 10,                  /* bcast 2 */
  TOPORR_ALG_PIPELINE = 11,               /* bcast 3 */
  TOPORR_ALG_SCATTER_ALLGATHER = 12,      /* bcast 8 */
  TOPORR_ALG_SCATTER_ALLGATHER_RING = 13, /* bcast 9 */
  TOPORR_ALG_LINEAR = 14,                 /* bcast 1 */
  TOPORR_ALG_SWING = 15,                  /* allreduce, Swing latency-optimal (NSDI'24) */
  TOPORR_ALG_SWING_BANDWIDTH = 16,        /* allreduce, Swing bandwidth-optimal */
  TOPORR_ALG_BINE = 17                    /* bcast, Bine tree (SC'25) */
} toporr_algorithm;

/* Options. Initialise with toporr_options_init, then change fields; strings are copied by
 * toporr_context_create and may be freed afterwards. NULL or "" strings mean "not set". */
typedef struct toporr_options {
  const char* socket;       /* toporrd's Unix socket; default /run/toporr/toporrd.sock
                               (TOPORR_SOCKET) */
  const char* address;      /* HOST:PORT of toporrd's TCP listener; wins over socket
                               (TOPORR_ADDRESS) */
  const char* costs;        /* a cost file from `toporrctl export --format costs`; wins over the
                               daemon: no request is made (TOPORR_COSTS) */
  int deadline_ms;          /* deadline of each daemon request; default 2000 (TOPORR_DEADLINE_MS) */
  int disable;              /* nonzero: never reorder (TOPORR_DISABLE) */
  int verbose;              /* 0 quiet, 1 a line per decision on rank 0 (TOPORR_VERBOSE) */
  const char* report;       /* rank 0 appends one JSON line per decision (TOPORR_REPORT) */
  const char* hostmap;      /* line i names the host of MPI_COMM_WORLD rank i (TOPORR_HOSTMAP) */
  int radix;                /* k-nomial radix, 2..8; default 4 */
  int compress_above_hosts; /* jobs of more hosts exchange costs in leaf-group form, O(n +
                               groups^2) per process instead of n^2; default 2048
                               (TOPORR_COMPRESS_ABOVE) */
} toporr_options;

/* Defaults, then every TOPORR_* variable that is set. Malformed values keep the default and
 * are reported once (on rank 0) at the first decision. */
void toporr_options_init(toporr_options* options);

/* A configured library instance. Opaque. NULL wherever a context is taken means the
 * process default (toporr_options_init's result, created on first use). */
typedef struct toporr_context_s* toporr_context;
int toporr_context_create(const toporr_options* options, toporr_context* context);
int toporr_context_free(toporr_context* context); /* sets *context to NULL */

/* What a call decided, on every rank. */
typedef struct toporr_decision {
  int reordered;              /* 1: the order differs from the input's */
  int fallback;               /* 1: identity because of fallback_reason */
  int cached;                 /* 1: answered from the communicator's cache (no request) */
  long long snapshot_id;      /* 0 when unknown */
  double predicted_before_ns; /* < 0 when not predicted */
  double predicted_after_ns;
  char source[16];    /* "daemon", "file", "local" (one host) or "fallback" */
  char algorithm[32]; /* the algorithm (or embedder) the order was computed for */
  char fallback_reason[256];
} toporr_decision;

/* Reorders `comm` for a collective: *newcomm has the same processes, new rank i being the
 * process the mapping engine put at position i for `algorithm` with `bytes` per call
 * (allreduce/bcast/reduce: the whole buffer; allgather/gather: per rank) and `root` (a rank
 * of `comm`). Decisions are cached on `comm` per (collective, algorithm, root, power-of-two
 * size class): a repeated call makes no daemon request. The caller frees *newcomm.
 * `decision` may be NULL. */
int toporr_comm_reorder(toporr_context context, MPI_Comm comm, toporr_collective collective,
                        toporr_algorithm algorithm, size_t bytes, int root, MPI_Comm* newcomm,
                        toporr_decision* decision);

/* Reorders `comm` for a program's own traffic: *newcomm has the same processes in the order
 * toporr's graph embedding plans for the traffic profile at `profile_path`, written by an
 * earlier run of the same size with TOPORR_PROFILE (the file `toporrctl plan --traffic`
 * reads; its rank i is comm's rank i, normally MPI_COMM_WORLD's). Rank 0 reads the file; on
 * any failure (unreadable, malformed, another number of ranks, no costs) *newcomm is a
 * duplicate of `comm` in its own order and decision->fallback says why. For codes that can
 * run their work on a communicator they are given instead of MPI_COMM_WORLD. Collective
 * over `comm`; the caller frees *newcomm. `decision` may be NULL. */
int toporr_comm_reorder_traffic(toporr_context context, MPI_Comm comm, const char* profile_path,
                                MPI_Comm* newcomm, toporr_decision* decision);

/* MPI topology constructors whose `reorder` is honoured by toporr's graph embedding on the
 * fabric and node costs (edge weights, where given, scale the bytes of an edge; unweighted
 * edges count as one unit of 4 KiB). Same arguments and semantics as the MPI functions;
 * with reorder == 0 (or TOPORR_DISABLE) they are the MPI library's own call. After a
 * reordered dist-graph creation every process reports, through MPI_Dist_graph_neighbors,
 * exactly the neighbours given for its new rank. */
int toporr_cart_create(toporr_context context, MPI_Comm comm_old, int ndims, const int dims[],
                       const int periods[], int reorder, MPI_Comm* comm_cart);
int toporr_graph_create(toporr_context context, MPI_Comm comm_old, int nnodes, const int index[],
                        const int edges[], int reorder, MPI_Comm* comm_graph);
int toporr_dist_graph_create_adjacent(toporr_context context, MPI_Comm comm_old, int indegree,
                                      const int sources[], const int sourceweights[], int outdegree,
                                      const int destinations[], const int destweights[],
                                      MPI_Info info, int reorder, MPI_Comm* comm_dist_graph);
int toporr_dist_graph_create(toporr_context context, MPI_Comm comm_old, int n, const int sources[],
                             const int degrees[], const int destinations[], const int weights[],
                             MPI_Info info, int reorder, MPI_Comm* comm_dist_graph);

/* toporr's own collectives (client/mpi/coll/): the algorithm runs on a communicator
 * reordered for it, both chosen by the mapping engine's prediction among toporr's
 * algorithms (TOPORR_ALG_AUTO; or `algorithm`, or the TOPORR_ALGORITHM variable, forces
 * one), cached per (communicator, size class). Allreduce: ring, recursive doubling,
 * Rabenseifner; bcast: binomial, binary tree, k-nomial, scatter-allgather(-ring). The MPI
 * library's own call runs instead for non-commutative ops, inter-communicators, count 0,
 * and on any fallback (daemon absent, ...). With TOPORR_ALG_AUTO the candidates include the
 * multi-level (leader) version over the fabric's levels, chosen when predicted strictly
 * faster; TOPORR_ALGORITHM=multilevel forces it (TOPORR_REPORT lists the levels and every
 * candidate's predicted time). Same arguments and semantics as MPI_Allreduce /
 * MPI_Bcast (MPI_IN_PLACE, any datatype); they return MPI error codes, like the calls they
 * replace, and are collective over `comm`. */
int toporr_allreduce(toporr_context context, const void* sendbuf, void* recvbuf, int count,
                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, toporr_algorithm algorithm);
int toporr_bcast(toporr_context context, void* buffer, int count, MPI_Datatype datatype, int root,
                 MPI_Comm comm, toporr_algorithm algorithm);
/* Allgather: ring or recursive doubling; blocks land in `comm`'s rank order whatever order
 * the algorithm ran in. */
int toporr_allgather(toporr_context context, const void* sendbuf, int sendcount,
                     MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                     MPI_Comm comm, toporr_algorithm algorithm);
/* Gather: the multi-level version (leaders per host, leaf switch, ... as the fabric's costs
 * nest them) when it is predicted faster than the flat gather, else the MPI library's own
 * MPI_Gather; blocks land in `comm`'s rank order. Same arguments and semantics as
 * MPI_Gather. */
int toporr_gather(toporr_context context, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                  void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  toporr_algorithm algorithm);

/* Fortran (ISO_C_BINDING) entry points taking Fortran communicator handles; see
 * client/toporr_f.f90 for the interface module. */
int toporr_comm_reorder_f(MPI_Fint comm, int collective, int algorithm, int64_t bytes, int root,
                          MPI_Fint* newcomm);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TOPORR_CLIENT_TOPORR_H_ */

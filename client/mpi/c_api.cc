// client/toporr.h over Library (library.h) and the topology constructors (topology.h).
#include <cstdio>
#include <cstring>
#include <new>
#include <string>

#include "client/mpi/coll/allgather.h"
#include "client/mpi/coll/allreduce.h"
#include "client/mpi/coll/bcast.h"
#include "client/mpi/collective_api.h"
#include "client/mpi/library.h"
#include "client/mpi/pmpi_abi.h"
#include "client/mpi/topology.h"
#include "client/toporr.h"
#include "mapping/schedules/algorithms.h"

struct toporr_context_s {
  toporr::client::mpi::Library library;
  int radix = 4;
};

namespace {

using toporr::client::ClientOptions;
using toporr::client::Decision;
using toporr::client::mpi::Library;
namespace mapping = toporr::mapping;

Library& LibraryOf(toporr_context context) {
  return context != nullptr ? context->library : Library::Default();
}

std::string Text(const char* s) { return s == nullptr ? std::string() : std::string(s); }

// The public enums' values are the registry's (mapping/schedules/algorithms.h); its test
// checks toporr.h and toporr_f.f90 against it.
bool CollectiveOf(toporr_collective c, mapping::Collective* out) {
  const mapping::CollectiveInfo* row = mapping::CollectiveOfCValue(static_cast<int>(c));
  if (row == nullptr) return false;
  *out = row->collective;
  return true;
}

bool AlgorithmOf(toporr_algorithm a, std::optional<mapping::Algorithm>* out) {
  if (a == TOPORR_ALG_AUTO) {
    *out = std::nullopt;
    return true;
  }
  const mapping::AlgorithmInfo* row = mapping::AlgorithmOfCValue(static_cast<int>(a));
  if (row == nullptr) return false;
  *out = row->algorithm;
  return true;
}

void Fill(const Decision& d, int size, toporr_decision* out) {
  if (out == nullptr) return;
  std::memset(out, 0, sizeof(*out));
  out->fallback = d.source == "fallback";
  out->cached = d.cached;
  for (int i = 0; i < static_cast<int>(d.new_order.size()) && i < size; ++i) {
    if (d.new_order[i] != i) out->reordered = 1;
  }
  out->snapshot_id = d.snapshot_id;
  out->predicted_before_ns = d.predicted_before_ns;
  out->predicted_after_ns = d.predicted_after_ns;
  std::snprintf(out->source, sizeof(out->source), "%s", d.source.c_str());
  std::snprintf(out->algorithm, sizeof(out->algorithm), "%s", d.chosen_algorithm.c_str());
  std::snprintf(out->fallback_reason, sizeof(out->fallback_reason), "%s",
                d.fallback_reason.c_str());
}

int FromMpi(int rc) { return rc == MPI_SUCCESS ? TOPORR_SUCCESS : TOPORR_ERR_MPI; }

// Runs `reorder` (an MPI error code, the decision in its argument) and reports its decision
// in *decision (may be null) as the C API's error code; out of memory is TOPORR_ERR_NOMEM.
template <typename Reorder>
int Reordered(MPI_Comm comm, toporr_decision* decision, Reorder&& reorder) {
  Decision d;
  try {
    const int rc = reorder(&d);
    int size = 0;
    PMPI_Comm_size(comm, &size);
    Fill(d, size, decision);
    return FromMpi(rc);
  } catch (const std::bad_alloc&) {
    return TOPORR_ERR_NOMEM;
  }
}

}  // namespace

extern "C" {

const char* toporr_version(void) { return "0.2.0"; }

const char* toporr_strerror(int code) {
  switch (code) {
    case TOPORR_SUCCESS:
      return "success";
    case TOPORR_ERR_ARG:
      return "invalid argument";
    case TOPORR_ERR_MPI:
      return "the MPI library failed a call";
    case TOPORR_ERR_NOMEM:
      return "out of memory";
    case TOPORR_ERR_INTERNAL:
      return "internal error in toporr";
  }
  return "unknown error code";
}

void toporr_options_init(toporr_options* options) {
  if (options == nullptr) return;
  static const ClientOptions defaults;
  options->socket = defaults.socket.c_str();
  options->address = nullptr;
  options->costs = nullptr;
  options->deadline_ms = defaults.deadline_ms;
  options->disable = 0;
  options->verbose = 0;
  options->report = nullptr;
  options->hostmap = nullptr;
  options->radix = 4;
  // The site configuration and the TOPORR_* variables, read once per process; the strings
  // live as long as the process.
  const ClientOptions& site = toporr::client::ProcessClientOptions().options;
  auto text = [](const std::string& v) { return v.empty() ? nullptr : v.c_str(); };
  options->socket = site.socket.c_str();
  options->address = text(site.address);
  options->costs = text(site.costs_path);
  options->report = text(site.report_path);
  options->hostmap = text(site.hostmap_path);
  options->deadline_ms = site.deadline_ms;
  options->compress_above_hosts = site.compress_above_hosts;
  options->disable = site.disable;
  options->verbose = site.verbose;
}

int toporr_context_create(const toporr_options* options, toporr_context* context) {
  if (context == nullptr) return TOPORR_ERR_ARG;
  toporr_options o;
  if (options == nullptr) {
    toporr_options_init(&o);
    options = &o;
  }
  if (options->deadline_ms <= 0 || options->radix < 2 || options->radix > 8 ||
      options->compress_above_hosts < 0) {
    return TOPORR_ERR_ARG;
  }
  // How to reach the daemon over TCP (TLS files, server name, plaintext permission) and the
  // PMPI layer's thresholds are not in toporr_options: they come from the site
  // configuration and the environment.
  ClientOptions c = toporr::client::ProcessClientOptions().options;
  if (options->socket != nullptr && *options->socket != '\0') c.socket = options->socket;
  c.address = Text(options->address);
  c.costs_path = Text(options->costs);
  c.deadline_ms = options->deadline_ms;
  c.disable = options->disable != 0;
  c.verbose = options->verbose;
  c.report_path = Text(options->report);
  c.hostmap_path = Text(options->hostmap);
  c.compress_above_hosts = options->compress_above_hosts;
  *context = new (std::nothrow) toporr_context_s{Library(std::move(c)), options->radix};
  return *context == nullptr ? TOPORR_ERR_NOMEM : TOPORR_SUCCESS;
}

int toporr_context_free(toporr_context* context) {
  if (context == nullptr) return TOPORR_ERR_ARG;
  delete *context;
  *context = nullptr;
  return TOPORR_SUCCESS;
}

int toporr_comm_reorder(toporr_context context, MPI_Comm comm, toporr_collective collective,
                        toporr_algorithm algorithm, size_t bytes, int root, MPI_Comm* newcomm,
                        toporr_decision* decision) {
  if (newcomm == nullptr) return TOPORR_ERR_ARG;
  *newcomm = MPI_COMM_NULL;
  toporr::client::mpi::ReorderRequest request;
  if (!CollectiveOf(collective, &request.collective) ||
      !AlgorithmOf(algorithm, &request.algorithm)) {
    return TOPORR_ERR_ARG;
  }
  request.bytes = static_cast<int64_t>(bytes);
  request.root = root;
  request.radix = context != nullptr ? context->radix : 4;
  return Reordered(comm, decision, [&](Decision* d) {
    return LibraryOf(context).CommReorder(comm, request, newcomm, d);
  });
}

int toporr_comm_reorder_traffic(toporr_context context, MPI_Comm comm, const char* profile_path,
                                MPI_Comm* newcomm, toporr_decision* decision) {
  if (newcomm == nullptr) return TOPORR_ERR_ARG;
  *newcomm = MPI_COMM_NULL;
  return Reordered(comm, decision, [&](Decision* d) {
    return LibraryOf(context).TrafficReorder(comm, profile_path, newcomm, d);
  });
}

int toporr_allreduce(toporr_context context, const void* sendbuf, void* recvbuf, int count,
                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, toporr_algorithm algorithm) {
  std::optional<mapping::Algorithm> a;
  if (!AlgorithmOf(algorithm, &a)) return MPI_ERR_ARG;
  return toporr::client::mpi::Allreduce(LibraryOf(context), sendbuf, recvbuf, count, datatype, op,
                                        comm, a);
}

int toporr_bcast(toporr_context context, void* buffer, int count, MPI_Datatype datatype, int root,
                 MPI_Comm comm, toporr_algorithm algorithm) {
  std::optional<mapping::Algorithm> a;
  if (!AlgorithmOf(algorithm, &a)) return MPI_ERR_ARG;
  return toporr::client::mpi::Bcast(LibraryOf(context), buffer, count, datatype, root, comm, a,
                                    context != nullptr ? context->radix : 4);
}

int toporr_allgather(toporr_context context, const void* sendbuf, int sendcount,
                     MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                     MPI_Comm comm, toporr_algorithm algorithm) {
  std::optional<mapping::Algorithm> a;
  if (!AlgorithmOf(algorithm, &a)) return MPI_ERR_ARG;
  return toporr::client::mpi::Allgather(LibraryOf(context), sendbuf, sendcount, sendtype, recvbuf,
                                        recvcount, recvtype, comm, a);
}

int toporr_gather(toporr_context context, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                  void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  toporr_algorithm algorithm) {
  std::optional<mapping::Algorithm> a;
  if (!AlgorithmOf(algorithm, &a)) return MPI_ERR_ARG;
  return toporr::client::mpi::Gather(LibraryOf(context), sendbuf, sendcount, sendtype, recvbuf,
                                     recvcount, recvtype, root, comm, a);
}

int toporr_comm_reorder_f(MPI_Fint comm, int collective, int algorithm, int64_t bytes, int root,
                          MPI_Fint* newcomm) {
  if (newcomm == nullptr || bytes < 0) return TOPORR_ERR_ARG;
  MPI_Comm c = MPI_COMM_NULL;
  int rc = toporr_comm_reorder(
      nullptr, MPI_Comm_f2c(comm), static_cast<toporr_collective>(collective),
      static_cast<toporr_algorithm>(algorithm), static_cast<size_t>(bytes), root, &c, nullptr);
  *newcomm = MPI_Comm_c2f(c);
  return rc;
}

int toporr_cart_create(toporr_context context, MPI_Comm comm_old, int ndims, const int dims[],
                       const int periods[], int reorder, MPI_Comm* comm_cart) {
  if (comm_cart == nullptr || ndims < 0) return TOPORR_ERR_ARG;
  return FromMpi(toporr::client::mpi::CartCreate(LibraryOf(context), comm_old, ndims, dims, periods,
                                                 reorder, comm_cart));
}

int toporr_graph_create(toporr_context context, MPI_Comm comm_old, int nnodes, const int index[],
                        const int edges[], int reorder, MPI_Comm* comm_graph) {
  if (comm_graph == nullptr || nnodes < 0) return TOPORR_ERR_ARG;
  return FromMpi(toporr::client::mpi::GraphCreate(LibraryOf(context), comm_old, nnodes, index,
                                                  edges, reorder, comm_graph));
}

int toporr_dist_graph_create_adjacent(toporr_context context, MPI_Comm comm_old, int indegree,
                                      const int sources[], const int sourceweights[], int outdegree,
                                      const int destinations[], const int destweights[],
                                      MPI_Info info, int reorder, MPI_Comm* comm_dist_graph) {
  if (comm_dist_graph == nullptr || indegree < 0 || outdegree < 0) return TOPORR_ERR_ARG;
  return FromMpi(toporr::client::mpi::DistGraphCreateAdjacent(
      LibraryOf(context), comm_old, indegree, sources, sourceweights, outdegree, destinations,
      destweights, info, reorder, comm_dist_graph));
}

int toporr_dist_graph_create(toporr_context context, MPI_Comm comm_old, int n, const int sources[],
                             const int degrees[], const int destinations[], const int weights[],
                             MPI_Info info, int reorder, MPI_Comm* comm_dist_graph) {
  if (comm_dist_graph == nullptr || n < 0) return TOPORR_ERR_ARG;
  return FromMpi(toporr::client::mpi::DistGraphCreate(LibraryOf(context), comm_old, n, sources,
                                                      degrees, destinations, weights, info, reorder,
                                                      comm_dist_graph));
}

}  // extern "C"

// ---- for libtoporr_pmpi.so (pmpi_abi.h) ----
extern "C" {

int toporr_debug_live_caches(void) { return toporr::client::mpi::LiveCaches(); }

int toporr_coll_allreduce(int algorithm, const void* sendbuf, void* recvbuf, int count,
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                          long long segment_bytes) {
  namespace coll = toporr::client::mpi::coll;
  switch (algorithm) {
    case TOPORR_ALG_RING:
      return coll::AllreduceRing(sendbuf, recvbuf, count, datatype, op, comm);
    case TOPORR_ALG_SEGMENTED_RING:
      return coll::AllreduceSegmentedRing(sendbuf, recvbuf, count, datatype, op, comm,
                                          segment_bytes);
    case TOPORR_ALG_RECURSIVE_DOUBLING:
      return coll::AllreduceRecursiveDoubling(sendbuf, recvbuf, count, datatype, op, comm);
    case TOPORR_ALG_RABENSEIFNER:
      return coll::AllreduceRabenseifner(sendbuf, recvbuf, count, datatype, op, comm);
    case TOPORR_ALG_SWING:
      return coll::AllreduceSwing(sendbuf, recvbuf, count, datatype, op, comm);
    case TOPORR_ALG_SWING_BANDWIDTH:
      return coll::AllreduceSwingBandwidth(sendbuf, recvbuf, count, datatype, op, comm);
  }
  return MPI_ERR_ARG;
}

int toporr_coll_bcast(int algorithm, void* buffer, int count, MPI_Datatype datatype, int root,
                      MPI_Comm comm, int radix) {
  namespace coll = toporr::client::mpi::coll;
  switch (algorithm) {
    case TOPORR_ALG_BINOMIAL:
      return coll::BcastBinomial(buffer, count, datatype, root, comm);
    case TOPORR_ALG_BINARY_TREE:
      return coll::BcastBinaryTree(buffer, count, datatype, root, comm);
    case TOPORR_ALG_KNOMIAL:
      return coll::BcastKnomial(buffer, count, datatype, root, comm, radix);
    case TOPORR_ALG_SCATTER_ALLGATHER:
      return coll::BcastScatterAllgather(buffer, count, datatype, root, comm);
    case TOPORR_ALG_SCATTER_ALLGATHER_RING:
      return coll::BcastScatterAllgatherRing(buffer, count, datatype, root, comm);
    case TOPORR_ALG_BINE:
      return coll::BcastBine(buffer, count, datatype, root, comm);
  }
  return MPI_ERR_ARG;
}

int toporr_coll_allgather(int algorithm, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                          void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                          const int* position) {
  namespace coll = toporr::client::mpi::coll;
  switch (algorithm) {
    case TOPORR_ALG_RING:
      return coll::AllgatherRing(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                                 position);
    case TOPORR_ALG_RECURSIVE_DOUBLING:
      return coll::AllgatherRecursiveDoubling(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                              recvtype, comm, position);
  }
  return MPI_ERR_ARG;
}

int toporr_pmpi_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return toporr::client::mpi::Allgather(Library::Default(), sendbuf, sendcount, sendtype, recvbuf,
                                        recvcount, recvtype, comm, std::nullopt);
}

long long toporr_pmpi_min_bytes(void) {
  return Library::Default().options().disable ? -1 : Library::Default().options().min_bytes;
}

int toporr_pmpi_allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                          MPI_Op op, MPI_Comm comm) {
  return toporr::client::mpi::Allreduce(Library::Default(), sendbuf, recvbuf, count, datatype, op,
                                        comm, std::nullopt);
}

int toporr_pmpi_reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                       MPI_Op op, int root, MPI_Comm comm) {
  return toporr::client::mpi::Reduce(Library::Default(), sendbuf, recvbuf, count, datatype, op,
                                     root, comm);
}

int toporr_pmpi_bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  return toporr::client::mpi::Bcast(Library::Default(), buffer, count, datatype, root, comm,
                                    std::nullopt, 4);
}

int toporr_pmpi_iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                           MPI_Op op, MPI_Comm comm, int persistent, MPI_Info info,
                           MPI_Request* request) {
  return toporr::client::mpi::Iallreduce(Library::Default(), sendbuf, recvbuf, count, datatype, op,
                                         comm,
                                         toporr::client::mpi::Start::Of(persistent, info, request));
}

int toporr_pmpi_iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm, int persistent,
                           MPI_Info info, MPI_Request* request) {
  return toporr::client::mpi::Iallgather(Library::Default(), sendbuf, sendcount, sendtype, recvbuf,
                                         recvcount, recvtype, comm,
                                         toporr::client::mpi::Start::Of(persistent, info, request));
}

int toporr_pmpi_ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, int root, MPI_Comm comm, int persistent, MPI_Info info,
                        MPI_Request* request) {
  return toporr::client::mpi::Ireduce(Library::Default(), sendbuf, recvbuf, count, datatype, op,
                                      root, comm,
                                      toporr::client::mpi::Start::Of(persistent, info, request));
}

int toporr_pmpi_ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                       int persistent, MPI_Info info, MPI_Request* request) {
  return toporr::client::mpi::Ibcast(Library::Default(), buffer, count, datatype, root, comm,
                                     toporr::client::mpi::Start::Of(persistent, info, request));
}

int toporr_pmpi_disabled(void) { return Library::Default().options().disable ? 1 : 0; }

int toporr_pmpi_cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                            int reorder, MPI_Comm* comm_cart) {
  return toporr::client::mpi::CartCreate(Library::Default(), comm_old, ndims, dims, periods,
                                         reorder, comm_cart);
}

int toporr_pmpi_cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[],
                         int* newrank) {
  return toporr::client::mpi::CartMap(Library::Default(), comm, ndims, dims, periods, newrank);
}

int toporr_pmpi_graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                             int reorder, MPI_Comm* comm_graph) {
  return toporr::client::mpi::GraphCreate(Library::Default(), comm_old, nnodes, index, edges,
                                          reorder, comm_graph);
}

int toporr_pmpi_graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[],
                          int* newrank) {
  return toporr::client::mpi::GraphMap(Library::Default(), comm, nnodes, index, edges, newrank);
}

int toporr_pmpi_dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                           const int sourceweights[], int outdegree,
                                           const int destinations[], const int destweights[],
                                           MPI_Info info, int reorder, MPI_Comm* comm_dist_graph) {
  return toporr::client::mpi::DistGraphCreateAdjacent(
      Library::Default(), comm_old, indegree, sources, sourceweights, outdegree, destinations,
      destweights, info, reorder, comm_dist_graph);
}

int toporr_pmpi_dist_graph_create(MPI_Comm comm_old, int n, const int sources[],
                                  const int degrees[], const int destinations[],
                                  const int weights[], MPI_Info info, int reorder,
                                  MPI_Comm* comm_dist_graph) {
  return toporr::client::mpi::DistGraphCreate(Library::Default(), comm_old, n, sources, degrees,
                                              destinations, weights, info, reorder,
                                              comm_dist_graph);
}

}  // extern "C"

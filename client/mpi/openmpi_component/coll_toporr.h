/* The boundary between mca_coll_toporr's two halves: coll_toporr.c, the Open MPI component
 * and module (written against Open MPI's internal headers, which are C only), and
 * coll_toporr_bridge.cc, toporr's decision engine and collectives (collective_api.h).
 * Only <mpi.h> types cross it; in Open MPI, MPI_Comm, MPI_Datatype and MPI_Op are the
 * pointers coll.h's function types take, so the function types below are coll.h's own. */
#ifndef TOPORR_CLIENT_MPI_OPENMPI_COMPONENT_COLL_TOPORR_H_
#define TOPORR_CLIENT_MPI_OPENMPI_COMPONENT_COLL_TOPORR_H_

#include <mpi.h>
#include <stdint.h>

#include "client/mpi/library_starts.h"
#include "client/mpi/openmpi_component/component.h"

#ifdef __cplusplus
extern "C" {
#endif

/* coll.h's module type of the series mpi.h is (ompi_series.h): the same struct, renamed by
 * its interface version. */
#if OMPI_MAJOR_VERSION >= 5
#define TOPORR_MCA_COLL_MODULE mca_coll_base_module_2_4_0_t
#else
#define TOPORR_MCA_COLL_MODULE mca_coll_base_module_2_3_0_t
#endif
struct TOPORR_MCA_COLL_MODULE;

typedef int (*toporr_mca_allreduce_fn)(const void* sendbuf, void* recvbuf, int count,
                                       MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                                       struct TOPORR_MCA_COLL_MODULE* module);
typedef int (*toporr_mca_bcast_fn)(void* buffer, int count, MPI_Datatype type, int root,
                                   MPI_Comm comm, struct TOPORR_MCA_COLL_MODULE* module);
typedef int (*toporr_mca_reduce_fn)(const void* sendbuf, void* recvbuf, int count,
                                    MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm,
                                    struct TOPORR_MCA_COLL_MODULE* module);
typedef int (*toporr_mca_allgather_fn)(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                       void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                       MPI_Comm comm, struct TOPORR_MCA_COLL_MODULE* module);

/* The nonblocking forms (an MPI_Request* is coll.h's ompi_request_t**) and the persistent
 * ones (an MPI_Info is its struct ompi_info_t*). */
typedef int (*toporr_mca_iallreduce_fn)(const void* sendbuf, void* recvbuf, int count,
                                        MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                                        MPI_Request* request,
                                        struct TOPORR_MCA_COLL_MODULE* module);
typedef int (*toporr_mca_ibcast_fn)(void* buffer, int count, MPI_Datatype type, int root,
                                    MPI_Comm comm, MPI_Request* request,
                                    struct TOPORR_MCA_COLL_MODULE* module);
typedef int (*toporr_mca_ireduce_fn)(const void* sendbuf, void* recvbuf, int count,
                                     MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm,
                                     MPI_Request* request, struct TOPORR_MCA_COLL_MODULE* module);
typedef int (*toporr_mca_iallgather_fn)(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                        void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                        MPI_Comm comm, MPI_Request* request,
                                        struct TOPORR_MCA_COLL_MODULE* module);
typedef int (*toporr_mca_allreduce_init_fn)(const void* sendbuf, void* recvbuf, int count,
                                            MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                                            MPI_Info info, MPI_Request* request,
                                            struct TOPORR_MCA_COLL_MODULE* module);
typedef int (*toporr_mca_bcast_init_fn)(void* buffer, int count, MPI_Datatype type, int root,
                                        MPI_Comm comm, MPI_Info info, MPI_Request* request,
                                        struct TOPORR_MCA_COLL_MODULE* module);
typedef int (*toporr_mca_reduce_init_fn)(const void* sendbuf, void* recvbuf, int count,
                                         MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm,
                                         MPI_Info info, MPI_Request* request,
                                         struct TOPORR_MCA_COLL_MODULE* module);
typedef int (*toporr_mca_allgather_init_fn)(const void* sendbuf, int sendcount,
                                            MPI_Datatype sendtype, void* recvbuf, int recvcount,
                                            MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                            MPI_Request* request,
                                            struct TOPORR_MCA_COLL_MODULE* module);

/* What would have run on one communicator without toporr: each collective's function and
 * module as the communicator held them when toporr's module was enabled (the four blocking
 * ones non-null; a nonblocking or persistent one may be null where no module provides it). */
struct toporr_mca_previous {
  toporr_mca_allreduce_fn allreduce;
  struct TOPORR_MCA_COLL_MODULE* allreduce_module;
  toporr_mca_bcast_fn bcast;
  struct TOPORR_MCA_COLL_MODULE* bcast_module;
  toporr_mca_reduce_fn reduce;
  struct TOPORR_MCA_COLL_MODULE* reduce_module;
  toporr_mca_allgather_fn allgather;
  struct TOPORR_MCA_COLL_MODULE* allgather_module;
  toporr_mca_iallreduce_fn iallreduce;
  struct TOPORR_MCA_COLL_MODULE* iallreduce_module;
  toporr_mca_ibcast_fn ibcast;
  struct TOPORR_MCA_COLL_MODULE* ibcast_module;
  toporr_mca_ireduce_fn ireduce;
  struct TOPORR_MCA_COLL_MODULE* ireduce_module;
  toporr_mca_iallgather_fn iallgather;
  struct TOPORR_MCA_COLL_MODULE* iallgather_module;
  toporr_mca_allreduce_init_fn allreduce_init;
  struct TOPORR_MCA_COLL_MODULE* allreduce_init_module;
  toporr_mca_bcast_init_fn bcast_init;
  struct TOPORR_MCA_COLL_MODULE* bcast_init_module;
  toporr_mca_reduce_init_fn reduce_init;
  struct TOPORR_MCA_COLL_MODULE* reduce_init_module;
  toporr_mca_allgather_init_fn allgather_init;
  struct TOPORR_MCA_COLL_MODULE* allgather_init_module;
};

/* The collectives of toporr's module, for an intra-communicator: toporr's path (decision,
 * argument check, run-time check) for a call of at least min_bytes (per-rank block for
 * allgather), else, and wherever toporr declines, and for toporr's own steps (a call made
 * while toporr runs on this thread), the previous module's. MPI error codes. */
int toporr_mca_allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                         MPI_Op op, MPI_Comm comm, const struct toporr_mca_previous* previous);
int toporr_mca_bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
                     const struct toporr_mca_previous* previous);
int toporr_mca_reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                      int root, MPI_Comm comm, const struct toporr_mca_previous* previous);
int toporr_mca_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                         int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                         const struct toporr_mca_previous* previous);

/* The nonblocking (persistent = 0) and persistent (persistent = 1, with `info`) forms, as
 * collective_api.h's Iallreduce etc.: toporr's path for a call of at least min_bytes,
 * starting the library's call on toporr's communicator through `starts` (library_starts.h:
 * each communicator's own module function, below Open MPI's API), else (and where
 * toporr declines) the previous module's; MPI_ERR_UNSUPPORTED_OPERATION where no previous
 * module provides the call. */
int toporr_mca_iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                          MPI_Op op, MPI_Comm comm, int persistent, MPI_Info info,
                          MPI_Request* request, const struct toporr_mca_previous* previous,
                          const struct toporr_library_starts* starts);
int toporr_mca_ibcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
                      int persistent, MPI_Info info, MPI_Request* request,
                      const struct toporr_mca_previous* previous,
                      const struct toporr_library_starts* starts);
int toporr_mca_ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                       int root, MPI_Comm comm, int persistent, MPI_Info info, MPI_Request* request,
                       const struct toporr_mca_previous* previous,
                       const struct toporr_library_starts* starts);
int toporr_mca_iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm, int persistent,
                          MPI_Info info, MPI_Request* request,
                          const struct toporr_mca_previous* previous,
                          const struct toporr_library_starts* starts);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TOPORR_CLIENT_MPI_OPENMPI_COMPONENT_COLL_TOPORR_H_ */

/* The MPI library's nonblocking and persistent calls as toporr starts them on a communicator
 * of its own (the decision's, the leaf-sorted one), each filling its last argument: a C
 * struct, so that an MPI library's collective component (C) hands its own to libtoporr
 * (collective_api.h Start::starts).
 *
 * Without them toporr calls the MPI API (PMPI_I*, the persistent inits). A caller that runs
 * inside that API (a collective component) passes calls from below it: the API does its own
 * work once on the request it returns to the application (Open MPI retains the call's user
 * op and derived datatypes on it, and a second retain on the same request makes its
 * completion recurse without end). Every member is set; each returns an MPI error code. */
#ifndef TOPORR_CLIENT_MPI_LIBRARY_STARTS_H_
#define TOPORR_CLIENT_MPI_LIBRARY_STARTS_H_

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

struct toporr_library_starts {
  int (*iallreduce)(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                    MPI_Comm comm, MPI_Request* request);
  int (*ibcast)(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
                MPI_Request* request);
  int (*ireduce)(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                 int root, MPI_Comm comm, MPI_Request* request);
  int (*iallgatherv)(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                     MPI_Comm comm, MPI_Request* request);
  int (*allreduce_init)(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                        MPI_Comm comm, MPI_Info info, MPI_Request* request);
  int (*bcast_init)(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
                    MPI_Info info, MPI_Request* request);
  int (*reduce_init)(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                     int root, MPI_Comm comm, MPI_Info info, MPI_Request* request);
  int (*allgatherv_init)(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                         MPI_Comm comm, MPI_Info info, MPI_Request* request);
};

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TOPORR_CLIENT_MPI_LIBRARY_STARTS_H_ */

// The persistent collectives of the MPI library a copy of libtoporr is built against:
// TOPORR_PERSISTENT(Allreduce) names PMPI_Allreduce_init (MPI-4, and Open MPI 5.0, which has
// them while its MPI_VERSION is 3) or Open MPI 4.1's
// PMPIX_Allreduce_init (its "pcollreq" extension, exported by libmpi and declared here because
// its mpi-ext.h pulls in Open MPI's internal include tree); undefined where the library has
// none. TOPORR_PERSISTENT_PUBLIC(Allreduce) names the public entry point the PMPI layer
// defines (MPI_Allreduce_init or MPIX_Allreduce_init).
#ifndef TOPORR_CLIENT_MPI_PERSISTENT_ABI_H_
#define TOPORR_CLIENT_MPI_PERSISTENT_ABI_H_

#include <mpi.h>

#if MPI_VERSION >= 4 || (defined(OPEN_MPI) && OMPI_MAJOR_VERSION >= 5)
#define TOPORR_PERSISTENT(name) PMPI_##name##_init
#define TOPORR_PERSISTENT_PUBLIC(name) MPI_##name##_init
#elif defined(OPEN_MPI) && OMPI_MAJOR_VERSION == 4
#define TOPORR_PERSISTENT(name) PMPIX_##name##_init
#define TOPORR_PERSISTENT_PUBLIC(name) MPIX_##name##_init
#ifdef __cplusplus
extern "C" {
#endif
int PMPIX_Allreduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request);
int PMPIX_Bcast_init(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                     MPI_Info info, MPI_Request* request);
int PMPIX_Reduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                      MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request* request);
int PMPIX_Allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                         int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                         MPI_Request* request);
int PMPIX_Allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                          const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                          MPI_Comm comm, MPI_Info info, MPI_Request* request);
int MPIX_Allreduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request);
int MPIX_Bcast_init(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                    MPI_Info info, MPI_Request* request);
int MPIX_Reduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request* request);
int MPIX_Allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                        MPI_Request* request);
#ifdef __cplusplus
}  // extern "C"
#endif
#endif

#endif  // TOPORR_CLIENT_MPI_PERSISTENT_ABI_H_

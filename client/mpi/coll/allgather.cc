#include "client/mpi/coll/allgather.h"

#include <cstdint>
#include <vector>

#include "client/mpi/coll/steps.h"
#include "mapping/schedules/collective_shapes.h"

namespace toporr::client::mpi::coll {
namespace {

// Puts this rank's own block in place (unless MPI_IN_PLACE) and returns block positions.
int OwnBlock(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, int rank, int p, const int* position,
             std::vector<int>* pos) {
  pos->resize(p);
  for (int k = 0; k < p; ++k) (*pos)[k] = position != nullptr ? position[k] : k;
  if (sendbuf == MPI_IN_PLACE) return MPI_SUCCESS;
  const Elements e(recvtype);
  void* mine = e.At(recvbuf, static_cast<int64_t>((*pos)[rank]) * recvcount);
  if (sendcount == 0 && recvcount == 0) return MPI_SUCCESS;
  return PMPI_Sendrecv(sendbuf, sendcount, sendtype, 0, kTag, mine, recvcount, recvtype, 0, kTag,
                       MPI_COMM_SELF, MPI_STATUS_IGNORE);
}

}  // namespace

int AllgatherRing(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, const int* position) {
  int p = 1, r = 0;
  PMPI_Comm_size(comm, &p);
  PMPI_Comm_rank(comm, &r);
  std::vector<int> pos;
  RETURN_IF_MPI_ERROR(
      OwnBlock(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, r, p, position, &pos));
  if (p == 1 || recvcount == 0) return MPI_SUCCESS;
  const Elements e(recvtype);
  auto block = [&](int k) { return e.At(recvbuf, static_cast<int64_t>(pos[k]) * recvcount); };
  const int right = (r + 1) % p, left = (r - 1 + p) % p;
  for (int t = 0; t < p - 1; ++t) {
    const int sb = ((r - t) % p + p) % p, rb = ((r - t - 1) % p + p) % p;
    RETURN_IF_MPI_ERROR(PMPI_Sendrecv(block(sb), recvcount, recvtype, right, kTag, block(rb),
                                      recvcount, recvtype, left, kTag, comm, MPI_STATUS_IGNORE));
  }
  return MPI_SUCCESS;
}

int AllgatherRecursiveDoubling(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                               void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                               const int* position) {
  int p = 1, r = 0;
  PMPI_Comm_size(comm, &p);
  PMPI_Comm_rank(comm, &r);
  if (mapping::FloorPowerOfTwo(p) != p) {
    return AllgatherRing(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                         position);
  }
  std::vector<int> pos;
  RETURN_IF_MPI_ERROR(
      OwnBlock(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, r, p, position, &pos));
  if (p == 1 || recvcount == 0) return MPI_SUCCESS;
  // One block as a unit, so that a group of blocks is an indexed type over their positions.
  MPI_Datatype block = MPI_DATATYPE_NULL;
  RETURN_IF_MPI_ERROR(PMPI_Type_contiguous(recvcount, recvtype, &block));
  auto group_type = [&](int first, int n, MPI_Datatype* out) {
    MPI_Datatype indexed = MPI_DATATYPE_NULL;
    int rc = PMPI_Type_create_indexed_block(n, 1, pos.data() + first, block, &indexed);
    if (rc == MPI_SUCCESS) rc = PMPI_Type_commit(&indexed);
    *out = indexed;
    return rc;
  };
  int rc = MPI_SUCCESS;
  for (int mask = 1; mask < p && rc == MPI_SUCCESS; mask *= 2) {
    const int partner = r ^ mask;
    const int mine = r & ~(mask - 1), theirs = partner & ~(mask - 1);
    MPI_Datatype send_type = MPI_DATATYPE_NULL, recv_type = MPI_DATATYPE_NULL;
    rc = group_type(mine, mask, &send_type);
    if (rc == MPI_SUCCESS) rc = group_type(theirs, mask, &recv_type);
    if (rc == MPI_SUCCESS) {
      rc = PMPI_Sendrecv(recvbuf, 1, send_type, partner, kTag, recvbuf, 1, recv_type, partner, kTag,
                         comm, MPI_STATUS_IGNORE);
    }
    if (send_type != MPI_DATATYPE_NULL) PMPI_Type_free(&send_type);
    if (recv_type != MPI_DATATYPE_NULL) PMPI_Type_free(&recv_type);
  }
  PMPI_Type_free(&block);
  return rc;
}

}  // namespace toporr::client::mpi::coll

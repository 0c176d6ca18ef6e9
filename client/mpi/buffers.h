// Whether toporr may take over a collective, given the memory its buffers live in: toporr's
// collectives read, copy and reduce buffers on the CPU, so every rank's buffers must be host
// memory (client/memory/device_memory.h). A call on GPU or managed memory goes to the MPI library
// untouched (no decision, nothing in TOPORR_REPORT), on every rank of the communicator.
//
// Ranks must agree, since a rank that hands the call to the MPI library while another runs
// toporr's version would deadlock. The cost, per communicator `comm`:
//   - the first call that reaches HostBuffers on `comm` (collective, as every caller's
//     preceding conditions are the same on all ranks) agrees on whether any rank has a GPU
//     runtime loaded: one MPI_Allreduce of one int, remembered on `comm` (an attribute);
//   - later calls, when no rank had a runtime then and this process still has none: no
//     communication (one cached look-up, client/memory/device_memory.h, and the attribute);
//   - otherwise, every call: one MPI_Allreduce of one int (all ranks' buffers host memory?);
//     a GPU-aware MPI library that loads the CUDA driver at MPI_Init puts every job there.
// Contract: a process that loads a GPU runtime after the first such call on `comm` must do so
// where every other rank of `comm` loads one too (SPMD codes do: each rank initialises CUDA at
// the same point). Where only some ranks of a communicator load a runtime, they must load it
// before the communicator's first collective of at least TOPORR_MIN_BYTES (or the job sets
// TOPORR_DISABLE=1).
// Thread-safety: as MPI's own calls on `comm` (one thread per communicator at a time).
#ifndef TOPORR_CLIENT_MPI_BUFFERS_H_
#define TOPORR_CLIENT_MPI_BUFFERS_H_

#include <mpi.h>

#include <initializer_list>

namespace toporr::client::mpi {

// Collective over `comm` (an intra-communicator), see above. True when every rank's
// `buffers` are host memory; null pointers and MPI_IN_PLACE are skipped (pass null for a
// buffer the call does not use on this rank, e.g. a reduce's receive buffer off the root).
// False, on every rank, when any rank has one in GPU or managed memory.
bool HostBuffers(MPI_Comm comm, std::initializer_list<const void*> buffers);

}  // namespace toporr::client::mpi

#endif  // TOPORR_CLIENT_MPI_BUFFERS_H_

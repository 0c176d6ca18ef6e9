// The guards of pmpi.cc's C interceptors, for the Fortran interceptors (pmpi_fortran.cc) of
// the same library: a Fortran call toporr takes over is tested, counted, timed and marked
// exactly as the C call would be. Internal to libtoporr_pmpi.so (the version script keeps
// these names local).
#ifndef TOPORR_CLIENT_MPI_PMPI_GUARDS_H_
#define TOPORR_CLIENT_MPI_PMPI_GUARDS_H_

#include <mpi.h>

namespace toporr::pmpi {

// A call-back and its argument: returns what the MPI call it stands for returns.
struct Call {
  int (*run)(void* arg);
  void* arg;
};

// `run()` (a lambda returning an int) as a Call; valid while `run` lives.
template <typename Run>
Call CallOf(Run& run) {
  return Call{[](void* r) { return (*static_cast<Run*>(r))(); }, &run};
}

// True when a collective of `count` elements of `datatype` (the per-rank block for
// allgather) is toporr's: at least TOPORR_MIN_BYTES, toporr enabled, and not called from
// inside a topology function run through toporr.
bool Large(int count, MPI_Datatype datatype);

// Runs `call` (a toporr_pmpi_* collective of pmpi_abi.h) as the C interceptors run theirs:
// counted for TOPORR_PROFILE as `collective` (TOPORR_PROFILE_ALLREDUCE, ...) of `count`
// elements of `datatype` on `comm`, and timed as a call that may wait.
int Collective(int collective, MPI_Comm comm, long long count, MPI_Datatype datatype, Call call);

// Runs `call` (a toporr_pmpi_* topology function) marked as inside a topology function: the
// MPI collectives of its decision go straight to the MPI library.
int Topology(Call call);

template <typename Run>
int Collective(int collective, MPI_Comm comm, long long count, MPI_Datatype datatype, Run run) {
  return Collective(collective, comm, count, datatype, CallOf(run));
}

template <typename Run>
int Topology(Run run) {
  return Topology(CallOf(run));
}

}  // namespace toporr::pmpi

#endif  // TOPORR_CLIENT_MPI_PMPI_GUARDS_H_

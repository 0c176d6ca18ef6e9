/* LD_PRELOAD shim for MPICH 4.0 (ch4:ucx) jobs on the virtual cluster.
 *
 * Finalize: MPICH 4.0's MPI_Finalize closes its UCX endpoints with ucp_disconnect_nb (a
 * flushing close: the peer must acknowledge) and then waits in a PMI barrier that does not
 * progress UCX. Over UCX's TCP transport, a rank still waiting for its acknowledgements then
 * waits on a peer that sits in the barrier: the job hangs after its last MPI call (MPICH
 * removed that barrier in 4.2: pmodels/mpich pull request 6596). Between namespace hosts MPICH
 * has only TCP, so the hang shows in one run of a few. This shim answers that close at once as
 * done (a NULL request: completed in place) and leaves the endpoint to ucp_worker_destroy,
 * which releases every endpoint of the worker after the barrier. By then the job has completed
 * all its MPI requests (MPI requires it before MPI_Finalize); nothing else in the job changes.
 *
 * Waiting: MPICH waits for messages by polling UCX without ever yielding the CPU; with more
 * ranks than cores (16 ranks on a 2-core machine) every rank burns its time slice while the
 * rank that could make progress waits for one, and a message step costs scheduler slices
 * instead of network time. A poll that found nothing yields the CPU, as Open MPI's
 * mpi_yield_when_idle does for its jobs on the cluster. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>
#include <ucp/api/ucp.h>

ucs_status_ptr_t ucp_disconnect_nb(ucp_ep_h ep) {
  (void)ep;
  return NULL;
}

unsigned ucp_worker_progress(ucp_worker_h worker) {
  static unsigned (*real)(ucp_worker_h);
  if (real == NULL) real = (unsigned (*)(ucp_worker_h))dlsym(RTLD_NEXT, "ucp_worker_progress");
  unsigned events = real(worker);
  if (events == 0) sched_yield();
  return events;
}

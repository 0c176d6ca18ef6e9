/* mca_coll_toporr: toporr inside the `coll` framework of Open MPI 4.1 or 5.0 (ompi_series.h). On
 * every intra-communicator its module provides MPI_Allreduce, MPI_Bcast, MPI_Reduce and
 * MPI_Allgather, and their nonblocking and persistent forms, through toporr (coll_toporr.h);
 * every other collective stays with the modules Open MPI would have chosen without it, and so
 * does every call toporr declines or passes on: at module_enable the module keeps the
 * communicator's current function and module for each collective it provides (retaining those
 * modules until it is disabled) and calls them. No LD_PRELOAD: PMPI tools still see the
 * application's calls, which reach this module through the library.
 *
 * MCA parameters (ompi_info --param coll toporr --level 9): coll_toporr_priority (40, above
 * tuned's 30 and han's 0, so that it is the module of its four collectives), and one per
 * toporr setting of client/config/client_options.h (coll_toporr_min_bytes, _disable, _verify,
 * _report, ...). Their defaults are the process's configuration (defaults, site file,
 * TOPORR_*), so a parameter set through Open MPI (--mca, OMPI_MCA_*, mca-params.conf) wins
 * over TOPORR_* and the site file, and an unset one changes nothing. coll_toporr_disable=1 (or
 * TOPORR_DISABLE=1) makes the component decline every communicator. */
#include "client/mpi/openmpi_component/coll_toporr.h"

#include <stdbool.h>
#include <stddef.h>

#include "client/mpi/openmpi_component/component_params.h"
#include "client/mpi/openmpi_component/ompi_series.h"
#include "mpi.h"
#include "ompi/communicator/communicator.h"
#include "ompi/constants.h"
#include "ompi/mca/coll/base/base.h"
#include "ompi/mca/coll/coll.h"

typedef struct {
  mca_coll_base_module_t super;
  struct toporr_mca_previous previous;
} mca_coll_toporr_module_t;

static void toporr_module_construct(mca_coll_toporr_module_t* module);
static void toporr_module_destruct(mca_coll_toporr_module_t* module);
static OBJ_CLASS_INSTANCE(mca_coll_toporr_module_t, mca_coll_base_module_t, toporr_module_construct,
                          toporr_module_destruct);

static int priority = 40;
static union toporr_mca_value params[TOPORR_MCA_MAX_SETTINGS];

/* ---- the module ---- */

static int toporr_allreduce(const void* sbuf, void* rbuf, int count, struct ompi_datatype_t* dtype,
                            struct ompi_op_t* op, struct ompi_communicator_t* comm,
                            mca_coll_base_module_t* module) {
  return toporr_mca_allreduce(sbuf, rbuf, count, dtype, op, comm,
                              &((mca_coll_toporr_module_t*)module)->previous);
}

static int toporr_bcast(void* buf, int count, struct ompi_datatype_t* dtype, int root,
                        struct ompi_communicator_t* comm, mca_coll_base_module_t* module) {
  return toporr_mca_bcast(buf, count, dtype, root, comm,
                          &((mca_coll_toporr_module_t*)module)->previous);
}

static int toporr_reduce(const void* sbuf, void* rbuf, int count, struct ompi_datatype_t* dtype,
                         struct ompi_op_t* op, int root, struct ompi_communicator_t* comm,
                         mca_coll_base_module_t* module) {
  return toporr_mca_reduce(sbuf, rbuf, count, dtype, op, root, comm,
                           &((mca_coll_toporr_module_t*)module)->previous);
}

static int toporr_allgather(const void* sbuf, int scount, struct ompi_datatype_t* sdtype,
                            void* rbuf, int rcount, struct ompi_datatype_t* rdtype,
                            struct ompi_communicator_t* comm, mca_coll_base_module_t* module) {
  return toporr_mca_allgather(sbuf, scount, sdtype, rbuf, rcount, rdtype, comm,
                              &((mca_coll_toporr_module_t*)module)->previous);
}

/* The nonblocking and persistent slots. toporr starts the library's call on its own
 * communicators through each communicator's module function (library_starts.h), not the MPI
 * API. */
#define TOPORR_MODULE_START(comm, fn, ...)                                          \
  ((comm)->c_coll->coll_##fn != NULL                                                \
       ? (comm)->c_coll->coll_##fn(__VA_ARGS__, (comm)->c_coll->coll_##fn##_module) \
       : MPI_ERR_UNSUPPORTED_OPERATION)

static int start_iallreduce(const void* sbuf, void* rbuf, int count, MPI_Datatype dtype, MPI_Op op,
                            MPI_Comm comm, MPI_Request* request) {
  return TOPORR_MODULE_START(comm, iallreduce, sbuf, rbuf, count, dtype, op, comm, request);
}

static int start_ibcast(void* buf, int count, MPI_Datatype dtype, int root, MPI_Comm comm,
                        MPI_Request* request) {
  return TOPORR_MODULE_START(comm, ibcast, buf, count, dtype, root, comm, request);
}

static int start_ireduce(const void* sbuf, void* rbuf, int count, MPI_Datatype dtype, MPI_Op op,
                         int root, MPI_Comm comm, MPI_Request* request) {
  return TOPORR_MODULE_START(comm, ireduce, sbuf, rbuf, count, dtype, op, root, comm, request);
}

static int start_iallgatherv(const void* sbuf, int scount, MPI_Datatype sdtype, void* rbuf,
                             const int rcounts[], const int displs[], MPI_Datatype rdtype,
                             MPI_Comm comm, MPI_Request* request) {
  return TOPORR_MODULE_START(comm, iallgatherv, sbuf, scount, sdtype, rbuf, rcounts, displs, rdtype,
                             comm, request);
}

static int start_allreduce_init(const void* sbuf, void* rbuf, int count, MPI_Datatype dtype,
                                MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return TOPORR_MODULE_START(comm, allreduce_init, sbuf, rbuf, count, dtype, op, comm, info,
                             request);
}

static int start_bcast_init(void* buf, int count, MPI_Datatype dtype, int root, MPI_Comm comm,
                            MPI_Info info, MPI_Request* request) {
  return TOPORR_MODULE_START(comm, bcast_init, buf, count, dtype, root, comm, info, request);
}

static int start_reduce_init(const void* sbuf, void* rbuf, int count, MPI_Datatype dtype, MPI_Op op,
                             int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return TOPORR_MODULE_START(comm, reduce_init, sbuf, rbuf, count, dtype, op, root, comm, info,
                             request);
}

static int start_allgatherv_init(const void* sbuf, int scount, MPI_Datatype sdtype, void* rbuf,
                                 const int rcounts[], const int displs[], MPI_Datatype rdtype,
                                 MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return TOPORR_MODULE_START(comm, allgatherv_init, sbuf, scount, sdtype, rbuf, rcounts, displs,
                             rdtype, comm, info, request);
}

static const struct toporr_library_starts starts = {
    .iallreduce = start_iallreduce,
    .ibcast = start_ibcast,
    .ireduce = start_ireduce,
    .iallgatherv = start_iallgatherv,
    .allreduce_init = start_allreduce_init,
    .bcast_init = start_bcast_init,
    .reduce_init = start_reduce_init,
    .allgatherv_init = start_allgatherv_init,
};

#define TOPORR_PREVIOUS(module) (&((mca_coll_toporr_module_t*)(module))->previous)

static int toporr_iallreduce(const void* sbuf, void* rbuf, int count, struct ompi_datatype_t* dtype,
                             struct ompi_op_t* op, struct ompi_communicator_t* comm,
                             ompi_request_t** request, mca_coll_base_module_t* module) {
  return toporr_mca_iallreduce(sbuf, rbuf, count, dtype, op, comm, 0, MPI_INFO_NULL, request,
                               TOPORR_PREVIOUS(module), &starts);
}

static int toporr_ibcast(void* buf, int count, struct ompi_datatype_t* dtype, int root,
                         struct ompi_communicator_t* comm, ompi_request_t** request,
                         mca_coll_base_module_t* module) {
  return toporr_mca_ibcast(buf, count, dtype, root, comm, 0, MPI_INFO_NULL, request,
                           TOPORR_PREVIOUS(module), &starts);
}

static int toporr_ireduce(const void* sbuf, void* rbuf, int count, struct ompi_datatype_t* dtype,
                          struct ompi_op_t* op, int root, struct ompi_communicator_t* comm,
                          ompi_request_t** request, mca_coll_base_module_t* module) {
  return toporr_mca_ireduce(sbuf, rbuf, count, dtype, op, root, comm, 0, MPI_INFO_NULL, request,
                            TOPORR_PREVIOUS(module), &starts);
}

static int toporr_iallgather(const void* sbuf, int scount, struct ompi_datatype_t* sdtype,
                             void* rbuf, int rcount, struct ompi_datatype_t* rdtype,
                             struct ompi_communicator_t* comm, ompi_request_t** request,
                             mca_coll_base_module_t* module) {
  return toporr_mca_iallgather(sbuf, scount, sdtype, rbuf, rcount, rdtype, comm, 0, MPI_INFO_NULL,
                               request, TOPORR_PREVIOUS(module), &starts);
}

static int toporr_allreduce_init(const void* sbuf, void* rbuf, int count,
                                 struct ompi_datatype_t* dtype, struct ompi_op_t* op,
                                 struct ompi_communicator_t* comm, struct ompi_info_t* info,
                                 ompi_request_t** request, mca_coll_base_module_t* module) {
  return toporr_mca_iallreduce(sbuf, rbuf, count, dtype, op, comm, 1, info, request,
                               TOPORR_PREVIOUS(module), &starts);
}

static int toporr_bcast_init(void* buf, int count, struct ompi_datatype_t* dtype, int root,
                             struct ompi_communicator_t* comm, struct ompi_info_t* info,
                             ompi_request_t** request, mca_coll_base_module_t* module) {
  return toporr_mca_ibcast(buf, count, dtype, root, comm, 1, info, request, TOPORR_PREVIOUS(module),
                           &starts);
}

static int toporr_reduce_init(const void* sbuf, void* rbuf, int count,
                              struct ompi_datatype_t* dtype, struct ompi_op_t* op, int root,
                              struct ompi_communicator_t* comm, struct ompi_info_t* info,
                              ompi_request_t** request, mca_coll_base_module_t* module) {
  return toporr_mca_ireduce(sbuf, rbuf, count, dtype, op, root, comm, 1, info, request,
                            TOPORR_PREVIOUS(module), &starts);
}

static int toporr_allgather_init(const void* sbuf, int scount, struct ompi_datatype_t* sdtype,
                                 void* rbuf, int rcount, struct ompi_datatype_t* rdtype,
                                 struct ompi_communicator_t* comm, struct ompi_info_t* info,
                                 ompi_request_t** request, mca_coll_base_module_t* module) {
  return toporr_mca_iallgather(sbuf, scount, sdtype, rbuf, rcount, rdtype, comm, 1, info, request,
                               TOPORR_PREVIOUS(module), &starts);
}

/* Releases the kept modules (each retained once at enable). */
static void toporr_forget_previous(struct toporr_mca_previous* p) {
  mca_coll_base_module_t* kept[] = {
      p->allreduce_module,  p->bcast_module,       p->reduce_module,
      p->allgather_module,  p->iallreduce_module,  p->ibcast_module,
      p->ireduce_module,    p->iallgather_module,  p->allreduce_init_module,
      p->bcast_init_module, p->reduce_init_module, p->allgather_init_module};
  for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); ++i) {
    if (kept[i] != NULL) OBJ_RELEASE(kept[i]);
  }
  p->allreduce = NULL;
  p->allreduce_module = NULL;
  p->bcast = NULL;
  p->bcast_module = NULL;
  p->reduce = NULL;
  p->reduce_module = NULL;
  p->allgather = NULL;
  p->allgather_module = NULL;
  p->iallreduce = NULL;
  p->iallreduce_module = NULL;
  p->ibcast = NULL;
  p->ibcast_module = NULL;
  p->ireduce = NULL;
  p->ireduce_module = NULL;
  p->iallgather = NULL;
  p->iallgather_module = NULL;
  p->allreduce_init = NULL;
  p->allreduce_init_module = NULL;
  p->bcast_init = NULL;
  p->bcast_init_module = NULL;
  p->reduce_init = NULL;
  p->reduce_init_module = NULL;
  p->allgather_init = NULL;
  p->allgather_init_module = NULL;
}

/* Keeps comm's current function and module for `fn`, retaining the module (none where the
 * communicator has no module for it). */
#define TOPORR_KEEP(module, comm, fn)                                                       \
  do {                                                                                      \
    (module)->previous.fn = (comm)->c_coll->coll_##fn;                                      \
    (module)->previous.fn##_module = (comm)->c_coll->coll_##fn##_module;                    \
    if ((module)->previous.fn##_module != NULL) OBJ_RETAIN((module)->previous.fn##_module); \
  } while (0)

/* Called with the communicator's table as the lower-priority modules left it: what toporr
 * replaces is what it falls back to. Declines a communicator lacking one of the four. */
static int toporr_module_enable(mca_coll_base_module_t* base, struct ompi_communicator_t* comm) {
  mca_coll_toporr_module_t* module = (mca_coll_toporr_module_t*)base;
  const mca_coll_base_comm_coll_t* c = comm->c_coll;
  if (c->coll_allreduce == NULL || c->coll_allreduce_module == NULL || c->coll_bcast == NULL ||
      c->coll_bcast_module == NULL || c->coll_reduce == NULL || c->coll_reduce_module == NULL ||
      c->coll_allgather == NULL || c->coll_allgather_module == NULL) {
    opal_output_verbose(1, ompi_coll_base_framework.framework_output,
                        "coll:toporr: communicator %s has no module for one of allreduce, "
                        "bcast, reduce, allgather: declining",
                        comm->c_name);
    return OMPI_ERROR;
  }
  TOPORR_KEEP(module, comm, allreduce);
  TOPORR_KEEP(module, comm, bcast);
  TOPORR_KEEP(module, comm, reduce);
  TOPORR_KEEP(module, comm, allgather);
  TOPORR_KEEP(module, comm, iallreduce);
  TOPORR_KEEP(module, comm, ibcast);
  TOPORR_KEEP(module, comm, ireduce);
  TOPORR_KEEP(module, comm, iallgather);
  TOPORR_KEEP(module, comm, allreduce_init);
  TOPORR_KEEP(module, comm, bcast_init);
  TOPORR_KEEP(module, comm, reduce_init);
  TOPORR_KEEP(module, comm, allgather_init);
  return OMPI_SUCCESS;
}

static int toporr_module_disable(mca_coll_base_module_t* base, struct ompi_communicator_t* comm) {
  toporr_forget_previous(&((mca_coll_toporr_module_t*)base)->previous);
  return OMPI_SUCCESS;
}

static void toporr_module_construct(mca_coll_toporr_module_t* module) {
  module->previous.allreduce_module = NULL;
  module->previous.bcast_module = NULL;
  module->previous.reduce_module = NULL;
  module->previous.allgather_module = NULL;
  module->previous.iallreduce_module = NULL;
  module->previous.ibcast_module = NULL;
  module->previous.ireduce_module = NULL;
  module->previous.iallgather_module = NULL;
  module->previous.allreduce_init_module = NULL;
  module->previous.bcast_init_module = NULL;
  module->previous.reduce_init_module = NULL;
  module->previous.allgather_init_module = NULL;
  toporr_forget_previous(&module->previous);
}

static void toporr_module_destruct(mca_coll_toporr_module_t* module) {
  toporr_forget_previous(&module->previous);
}

/* ---- the component ---- */

static int toporr_register(void);
static int toporr_init_query(bool enable_progress_threads, bool enable_mpi_threads);
static mca_coll_base_module_t* toporr_comm_query(struct ompi_communicator_t* comm,
                                                 int* module_priority);

TOPORR_OMPI_COLL_COMPONENT_T mca_coll_toporr_component = {
    .collm_version =
        {
            TOPORR_OMPI_COLL_VERSION,
            .mca_component_name = "toporr",
            MCA_BASE_MAKE_VERSION(component, OMPI_MAJOR_VERSION, OMPI_MINOR_VERSION,
                                  OMPI_RELEASE_VERSION),
            .mca_register_component_params = toporr_register,
        },
    .collm_data = {MCA_BASE_METADATA_PARAM_NONE},
    .collm_init_query = toporr_init_query,
    .collm_comm_query = toporr_comm_query,
};

static int toporr_register(void) {
  if (!toporr_mca_series_matches("mca_coll_toporr")) return OMPI_ERR_NOT_AVAILABLE;
  toporr_mca_register_int(&mca_coll_toporr_component.collm_version, "priority",
                          "Priority of the toporr coll component (above tuned's 30 and han's: "
                          "toporr's module provides allreduce, bcast, reduce and allgather)",
                          OPAL_INFO_LVL_6, &priority);
  toporr_mca_register_settings(&mca_coll_toporr_component.collm_version, params,
                               TOPORR_MCA_COLLECTIVE_SETTINGS | TOPORR_MCA_DECISION_SETTINGS);
  return OMPI_SUCCESS;
}

/* Builds toporr's configuration once per process (MPI_Init); a disabled toporr makes the
 * component unavailable. */
static int toporr_init_query(bool enable_progress_threads, bool enable_mpi_threads) {
  return toporr_mca_configure(TOPORR_MCA_COLL, params) ? OMPI_SUCCESS : OMPI_ERR_NOT_AVAILABLE;
}

static mca_coll_base_module_t* toporr_comm_query(struct ompi_communicator_t* comm,
                                                 int* module_priority) {
  if (OMPI_COMM_IS_INTER(comm) || priority < 0) return NULL;
  mca_coll_toporr_module_t* module = OBJ_NEW(mca_coll_toporr_module_t);
  if (module == NULL) return NULL;
  *module_priority = priority;
  module->super.coll_module_enable = toporr_module_enable;
  module->super.coll_module_disable = toporr_module_disable;
  module->super.coll_allreduce = toporr_allreduce;
  module->super.coll_bcast = toporr_bcast;
  module->super.coll_reduce = toporr_reduce;
  module->super.coll_allgather = toporr_allgather;
  module->super.coll_iallreduce = toporr_iallreduce;
  module->super.coll_ibcast = toporr_ibcast;
  module->super.coll_ireduce = toporr_ireduce;
  module->super.coll_iallgather = toporr_iallgather;
  module->super.coll_allreduce_init = toporr_allreduce_init;
  module->super.coll_bcast_init = toporr_bcast_init;
  module->super.coll_reduce_init = toporr_reduce_init;
  module->super.coll_allgather_init = toporr_allgather_init;
  return &module->super;
}

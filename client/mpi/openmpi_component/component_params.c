#include "client/mpi/openmpi_component/component_params.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/mpi/openmpi_component/ompi_series.h"
#include "mpi.h"
#include "opal/mca/base/mca_base_var.h"

static void toporr_register_var(const mca_base_component_t* component, const char* name,
                                const char* help, mca_base_var_type_t type,
                                mca_base_var_info_lvl_t level, void* storage) {
  (void)mca_base_component_var_register(component, name, help, type, NULL, 0, 0, level,
                                        MCA_BASE_VAR_SCOPE_READONLY, storage);
}

int toporr_mca_series_matches(const char* component) {
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  int length = 0, major = -1, minor = -1;
  if (PMPI_Get_library_version(version, &length) != MPI_SUCCESS) return 1; /* Open MPI checks */
  if (sscanf(version, "Open MPI v%d.%d", &major, &minor) == 2 && major == OMPI_MAJOR_VERSION &&
      minor == OMPI_MINOR_VERSION) {
    return 1;
  }
  const char* rank = getenv("OMPI_COMM_WORLD_RANK");
  if (rank == NULL || strcmp(rank, "0") == 0) {
    const size_t line = strcspn(version, ",\n");
    fprintf(stderr,
            "toporr: error: %s is built for Open MPI %d.%d, this process runs %.*s: the "
            "component is not used\n",
            component, OMPI_MAJOR_VERSION, OMPI_MINOR_VERSION, (int)line, version);
    fflush(stderr);
  }
  return 0;
}

void toporr_mca_register_int(const mca_base_component_t* component, const char* name,
                             const char* help, int level, int* storage) {
  toporr_register_var(component, name, help, MCA_BASE_VAR_TYPE_INT, (mca_base_var_info_lvl_t)level,
                      storage);
}

static void toporr_register_decision_settings(const mca_base_component_t* c,
                                              struct toporr_mca_params* params) {
  toporr_register_var(c, "disable",
                      "Never reorder or take over a call: the component declines every "
                      "communicator (TOPORR_DISABLE)",
                      MCA_BASE_VAR_TYPE_BOOL, OPAL_INFO_LVL_4, &params->disable);
  toporr_register_var(c, "deadline_ms",
                      "Deadline of each daemon request in ms, 1..600000 "
                      "(TOPORR_DEADLINE_MS)",
                      MCA_BASE_VAR_TYPE_INT, OPAL_INFO_LVL_5, &params->deadline_ms);
  toporr_register_var(c, "verbose",
                      "0 quiet (one warning per cause per job), 1 or more a line per "
                      "decision and per run-time check on rank 0 (TOPORR_VERBOSE)",
                      MCA_BASE_VAR_TYPE_INT, OPAL_INFO_LVL_5, &params->verbose);
  struct {
    const char* name;
    const char* help;
    char** storage;
  } strings[] = {
      {"report", "File to which rank 0 appends one JSON line per decision (TOPORR_REPORT)",
       &params->report},
      {"address", "HOST:PORT of the daemon's TCP listener; wins over socket (TOPORR_ADDRESS)",
       &params->address},
      {"socket", "The daemon's Unix socket (TOPORR_SOCKET)", &params->socket},
      {"tls_ca", "PEM CA file: TLS to address (TOPORR_TLS_CA)", &params->tls_ca},
      {"costs", "A TOPORRC1/C2 cost file; wins over the daemon (TOPORR_COSTS)", &params->costs},
      {"hostmap", "File whose line i names the host of MPI_COMM_WORLD rank i (TOPORR_HOSTMAP)",
       &params->hostmap},
  };
  for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); ++i) {
    toporr_register_var(c, strings[i].name, strings[i].help, MCA_BASE_VAR_TYPE_STRING,
                        OPAL_INFO_LVL_5, strings[i].storage);
  }
}

static void toporr_register_collective_settings(const mca_base_component_t* c,
                                                struct toporr_mca_params* params) {
  toporr_register_var(c, "min_bytes",
                      "toporr takes over allreduce, bcast, reduce of at least this many bytes "
                      "(allgather: per-rank block); smaller calls go to the module Open MPI "
                      "would have used (TOPORR_MIN_BYTES)",
                      MCA_BASE_VAR_TYPE_INT64_T, OPAL_INFO_LVL_5, &params->min_bytes);
  toporr_register_var(c, "verify",
                      "Time the first calls of each decision of toporr's "
                      "collectives against the library's own call and keep the faster "
                      "(TOPORR_VERIFY)",
                      MCA_BASE_VAR_TYPE_BOOL, OPAL_INFO_LVL_5, &params->verify);
  toporr_register_var(c, "verify_calls", "Measured calls of each path, 1..50 (TOPORR_VERIFY_CALLS)",
                      MCA_BASE_VAR_TYPE_INT, OPAL_INFO_LVL_6, &params->verify_calls);
  toporr_register_var(c, "check_arguments",
                      "Check that every rank passed the same arguments "
                      "before toporr runs its own path (TOPORR_CHECK_ARGUMENTS)",
                      MCA_BASE_VAR_TYPE_BOOL, OPAL_INFO_LVL_6, &params->check_arguments);
  toporr_register_var(c, "reproducible",
                      "Reductions always by the library's own call, bitwise "
                      "as without toporr (TOPORR_REPRODUCIBLE)",
                      MCA_BASE_VAR_TYPE_BOOL, OPAL_INFO_LVL_5, &params->reproducible);
  toporr_register_var(c, "algorithm",
                      "Force toporr's collectives to one algorithm, or multilevel "
                      "(TOPORR_ALGORITHM)",
                      MCA_BASE_VAR_TYPE_STRING, OPAL_INFO_LVL_5, &params->algorithm);
}

void toporr_mca_register_settings(const mca_base_component_t* component,
                                  struct toporr_mca_params* params, int which) {
  toporr_mca_defaults(params);
  if (which & TOPORR_MCA_COLLECTIVE_SETTINGS) {
    toporr_register_collective_settings(component, params);
  }
  if (which & TOPORR_MCA_DECISION_SETTINGS) toporr_register_decision_settings(component, params);
}

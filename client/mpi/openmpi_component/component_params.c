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

void toporr_mca_register_settings(const mca_base_component_t* component,
                                  union toporr_mca_value* values, int which) {
  toporr_mca_defaults(values);
  int count = 0;
  const struct toporr_mca_setting* settings = toporr_mca_settings(&count);
  const int order[] = {TOPORR_MCA_COLLECTIVE_SETTINGS, TOPORR_MCA_DECISION_SETTINGS};
  for (size_t g = 0; g < sizeof(order) / sizeof(order[0]); ++g) {
    if ((which & order[g]) == 0) continue;
    for (int i = 0; i < count; ++i) {
      const struct toporr_mca_setting* s = &settings[i];
      if ((s->groups & order[g]) == 0) continue;
      mca_base_var_type_t type = MCA_BASE_VAR_TYPE_STRING;
      void* storage = &values[i].s;
      switch (s->type) {
        case TOPORR_MCA_BOOL:
          type = MCA_BASE_VAR_TYPE_BOOL;
          storage = &values[i].b;
          break;
        case TOPORR_MCA_INT:
          type = MCA_BASE_VAR_TYPE_INT;
          storage = &values[i].i;
          break;
        case TOPORR_MCA_INT64:
          type = MCA_BASE_VAR_TYPE_INT64_T;
          storage = &values[i].l;
          break;
        default:
          break;
      }
      toporr_register_var(component, s->name, s->help, type,
                          (mca_base_var_info_lvl_t)(OPAL_INFO_LVL_1 + s->level - 1), storage);
    }
  }
}

/* Registration of toporr's settings as a component's MCA parameters (C: Open MPI's MCA
 * headers are C only). Include after ompi_series.h. */
#ifndef TOPORR_CLIENT_MPI_OPENMPI_COMPONENT_COMPONENT_PARAMS_H_
#define TOPORR_CLIENT_MPI_OPENMPI_COMPONENT_COMPONENT_PARAMS_H_

#include "client/mpi/openmpi_component/component.h"
#include "opal/mca/base/base.h"

/* Fills values with toporr_mca_defaults and registers the settings of the groups `which` (a
 * mask of toporr_mca_group) as `component`'s parameters <framework>_<component>_<key>, each
 * storing into its values[i], with the table's help naming its TOPORR_* variable. The
 * collective settings are registered before the decision settings. */
void toporr_mca_register_settings(const mca_base_component_t* component,
                                  union toporr_mca_value* values, int which);

/* Whether the Open MPI running this process (MPI_Get_library_version) is the series these
 * components were built for (ompi_series.h). If not, prints one line naming `component` and
 * both versions (from MPI_COMM_WORLD rank 0 under mpirun, or from a process outside a job, such
 * as ompi_info) and returns 0: the component's register function then fails, and Open MPI
 * leaves the component out, silently (OMPI_ERR_NOT_AVAILABLE), before any of its structures
 * is used. */
int toporr_mca_series_matches(const char* component);

/* Registers one more int parameter (e.g. the component's priority). */
void toporr_mca_register_int(const mca_base_component_t* component, const char* name,
                             const char* help, int level, int* storage);

#endif /* TOPORR_CLIENT_MPI_OPENMPI_COMPONENT_COMPONENT_PARAMS_H_ */

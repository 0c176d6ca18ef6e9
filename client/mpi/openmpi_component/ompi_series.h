/* Included first by each component source: Open MPI's configuration header (which its headers
 * require before any other) and the check that these headers are of a series whose coll and
 * topo frameworks the components are written for: Open MPI 4.1 (coll component 2.0.0, module
 * 2.3.0; topo 2.2.0) or 5.0 (coll 2.4.0; topo 2.2.0). One build serves the one series of the
 * headers it was compiled against: another series fails the build here, and a component
 * built for one series that another Open MPI finds is refused by Open MPI's own check of the
 * component's framework version (and by toporr_mca_series_matches). */
#ifndef TOPORR_CLIENT_MPI_OPENMPI_COMPONENT_OMPI_SERIES_H_
#define TOPORR_CLIENT_MPI_OPENMPI_COMPONENT_OMPI_SERIES_H_

/* clang-format off */
#include "ompi_config.h"
#include "ompi/version.h"
#if OMPI_MAJOR_VERSION == 4 && OMPI_MINOR_VERSION == 1
#define TOPORR_OMPI_COLL_COMPONENT_T mca_coll_base_component_2_0_0_t
#define TOPORR_OMPI_COLL_VERSION MCA_COLL_BASE_VERSION_2_0_0
#elif OMPI_MAJOR_VERSION == 5 && OMPI_MINOR_VERSION == 0
#define TOPORR_OMPI_COLL_COMPONENT_T mca_coll_base_component_2_4_0_t
#define TOPORR_OMPI_COLL_VERSION MCA_COLL_BASE_VERSION_2_4_0
#else
#error "toporr's Open MPI components are written for the coll and topo frameworks of Open MPI 4.1 and 5.0; these Open MPI headers are another series: build against Open MPI 4.1 or 5.0"
#endif
/* clang-format on */

#endif /* TOPORR_CLIENT_MPI_OPENMPI_COMPONENT_OMPI_SERIES_H_ */

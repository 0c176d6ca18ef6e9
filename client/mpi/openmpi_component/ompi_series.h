/* Included first by each component source: Open MPI's configuration header (which its headers
 * require before any other) and the check that these headers are Open MPI 4.1's, whose coll
 * (component 2.0.0, module 2.3.0) and topo (2.2.0) frameworks the components are written
 * for. Another series fails the build here; a component built for 4.1 that another Open MPI
 * finds is refused by Open MPI's own check of the component's framework version. */
#ifndef TOPORR_CLIENT_MPI_OPENMPI_COMPONENT_OMPI_SERIES_H_
#define TOPORR_CLIENT_MPI_OPENMPI_COMPONENT_OMPI_SERIES_H_

/* clang-format off */
#include "ompi_config.h"
#include "ompi/version.h"
#if OMPI_MAJOR_VERSION != 4 || OMPI_MINOR_VERSION != 1
#error "toporr's Open MPI components are written for Open MPI 4.1's coll and topo frameworks; these Open MPI headers are another series: build against Open MPI 4.1"
#endif
/* clang-format on */

#endif /* TOPORR_CLIENT_MPI_OPENMPI_COMPONENT_OMPI_SERIES_H_ */

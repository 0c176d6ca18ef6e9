// The C++ side of component.h: the component's toporr, for its bridge.
#ifndef TOPORR_CLIENT_MPI_OPENMPI_COMPONENT_COMPONENT_LIBRARY_H_
#define TOPORR_CLIENT_MPI_OPENMPI_COMPONENT_COMPONENT_LIBRARY_H_

#include "client/mpi/library.h"

namespace toporr::client::mpi {

// The toporr toporr_mca_configure built for `component` (toporr_mca_component), or null before
// it ran (Open MPI queries a component only after its init_query, which configures). Never
// destroyed, as communicators may still hold toporr's caches while the process exits.
Library* ComponentLibrary(int component);

}  // namespace toporr::client::mpi

#endif  // TOPORR_CLIENT_MPI_OPENMPI_COMPONENT_COMPONENT_LIBRARY_H_

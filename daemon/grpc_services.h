// gRPC adapters over FabricState: each method validates the request, calls plain
// functions returning absl::Status(Or), and converts. No parsing, storage or cost logic
// lives here. The services: topology_service.h (`Topology`), admin_service.h (`Admin`, and
// the form the read server offers it in); what they share, the wire form of snapshots
// included: service_common.h.
#ifndef TOPORR_DAEMON_GRPC_SERVICES_H_
#define TOPORR_DAEMON_GRPC_SERVICES_H_

#include "daemon/admin_service.h"
#include "daemon/service_common.h"
#include "daemon/topology_service.h"

#endif  // TOPORR_DAEMON_GRPC_SERVICES_H_

// The invariants of a Fabric value that every layer may rely on: node GUIDs unique, ports in
// strictly ascending order, derived fields (Port::link, Node::host) agreeing with the tables
// they are derived from (links, hosts), no link from a port to itself, host names unique
// and printable (no blanks), node descriptions printable UTF-8 (common/printable.h),
// anonymous endpoints in range and listed once. db/ checks them before storing a fabric, so
// that loading it back rebuilds exactly what was ingested.
// Thread-safety: pure function.
#ifndef TOPORR_FABRIC_VALIDATE_H_
#define TOPORR_FABRIC_VALIDATE_H_

#include "absl/status/status.h"
#include "fabric/fabric.h"

namespace toporr::fabric {

// OK, or kInvalidArgument naming the first broken invariant ("node 3 (0x...) names host 2,
// which does not list it among its CAs").
absl::Status ValidateFabric(const Fabric& f);

}  // namespace toporr::fabric

#endif  // TOPORR_FABRIC_VALIDATE_H_

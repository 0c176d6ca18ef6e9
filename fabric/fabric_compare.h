// Order-independent comparison of fabrics and forwarding tables, for tests that check two
// sources describe the same subnet (live discovery vs. the tools' dumps, a writer's output
// read back). Testonly.
//
// Each function returns human-readable differences (at most `max_differences`, the last one
// saying how many more there were); empty means equal.
#ifndef TOPORR_FABRIC_FABRIC_COMPARE_H_
#define TOPORR_FABRIC_FABRIC_COMPARE_H_

#include <string>
#include <vector>

#include "fabric/fabric.h"
#include "fabric/forwarding_tables.h"

namespace toporr::fabric {

// Nodes are matched by GUID (node order is ignored) and must agree on type, description,
// vendor/device/system image ids, num_ports, LID, LMC, enhanced port 0 and their cabled ports
// (number, ext number, GUID, LID, LMC). Links are compared as a multiset of
// (GUID, port, GUID, port, width, speed, data rate) with the ends in a canonical order, so
// link order and which end is `a` do not matter. Hosts are compared by name and CA GUIDs.
std::vector<std::string> FabricDifferences(const Fabric& want, const Fabric& got,
                                           size_t max_differences = 20);

// Switches are matched by GUID and must agree on LID, description and every assigned entry
// (trailing unassigned LIDs do not count). LID owners (lid_port_guid) must agree on every
// LID that some switch of `want` has an assigned entry for and `want` names an owner of.
std::vector<std::string> ForwardingTablesDifferences(const ForwardingTables& want,
                                                     const ForwardingTables& got,
                                                     size_t max_differences = 20);

}  // namespace toporr::fabric

#endif  // TOPORR_FABRIC_FABRIC_COMPARE_H_

// What the two halves of DiffFabrics (fabric_diff.h) share: fabric_diff.cc compares nodes,
// links and hosts, fabric_diff_routes.cc the forwarding tables. Internal to
// fabric/:fabric_diff.
#ifndef TOPORR_FABRIC_FABRIC_DIFF_INTERNAL_H_
#define TOPORR_FABRIC_FABRIC_DIFF_INTERNAL_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "fabric/fabric.h"
#include "fabric/fabric_diff.h"
#include "fabric/forwarding_tables.h"

namespace toporr::fabric::diff_internal {

// Every cabled port of a host's CAs with the switch it leads to (switch_guid 0 when the
// peer is not a switch), ascending by (CA GUID, port).
struct Attachment {
  uint64_t ca_guid = 0;
  int ca_port = 0;
  uint64_t switch_guid = 0;
  int switch_port = 0;
};

std::vector<Attachment> AttachmentsOf(const Fabric& f, const Host& h);

// Fills the route part of `d` (routes_compared and everything below it in FabricDiff) from
// the tables of A and B. `stable` lists the hosts present in both and not moved, as (host
// index in A, host index in B): the sources and destinations of the host-pair count.
void DiffRoutes(const Fabric& a, const ForwardingTables& ra, const Fabric& b,
                const ForwardingTables& rb, const std::vector<std::pair<int, int>>& stable,
                const DiffOptions& options, FabricDiff* d);

}  // namespace toporr::fabric::diff_internal

#endif  // TOPORR_FABRIC_FABRIC_DIFF_INTERNAL_H_

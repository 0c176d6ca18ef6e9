// Emitters for the two text formats toporr ingests from InfiniBand fabrics, so that a fabric
// discovered live (collectors/live_discovery.h) can be saved and fed to the same ingest path
// as a dump taken with the real tools.
//
//   * FormatIbnetdiscover writes the plain `ibnetdiscover` topology file layout (rdma-core
//     infiniband-diags): per node `vendid=`/`devid=`/`sysimgguid=`/`<type>guid=` lines, a
//     `Switch`/`Ca`/`Rt` header and one line per cabled port, each link printed from both
//     ends. Contract: ParseIbnetdiscover(FormatIbnetdiscover(f)) reproduces f's nodes (same
//     order, type, GUIDs, ids, descriptions, num_ports, LID/LMC, enhanced port 0, cabled ports
//     with port GUID, LID, LMC and `[ext N]` number) and its links (same ends, width, speed,
//     data rate; links come back in the order their first end appears when walking nodes in
//     order and ports ascending). What the format cannot carry is dropped: hosts (derive them
//     again with AssignHosts), ports without a link, and a CA/router with no cabled port (the
//     parser refuses such a record as truncated, so it is left out). Switch ports are printed
//     without a port GUID, as ibnetdiscover does: the parser gives them the switch GUID.
//     Aggregation nodes are written as `Ca` records (the parser detects them again from the
//     description). Widths are written `1x`..`12x` (`??` unknown), speeds `SDR`..`XDR`,
//     `FDR10` (`???` unknown).
//
//   * FormatDumpFts writes the `dump_fts` unicast layout, one block per switch table in
//     `tables` order, addressed by LID instead of a directed-route path (`Unicast lids
//     [0x0-0x<top>] of switch Lid <lid> guid 0x<guid> ('<desc>'):`), entries for assigned
//     LIDs only, each naming the LID's owner as `(<Channel Adapter|Switch|Router> portguid
//     0x<guid>: '<desc>')` when known (tables.lid_port_guid() first, else the port of
//     `fabric` whose LID range holds it), and `<n> valid lids dumped`. Contract:
//     ParseForwardingTables(FormatDumpFts(t, f)) has the same switches in the same order with
//     the same GUID, LID, description and assigned entries, and names the owner of every
//     assigned LID whose owner `t` or `f` knows. Multicast tables are not written.
//
// Both functions are pure and thread-compatible; output is deterministic (same input, same
// bytes), so it can be hashed to detect an unchanged fabric.
#ifndef TOPORR_COLLECTORS_IBNETDISCOVER_WRITER_H_
#define TOPORR_COLLECTORS_IBNETDISCOVER_WRITER_H_

#include <string>

#include "collectors/forwarding_tables.h"
#include "fabric/fabric.h"

namespace toporr::collectors {

std::string FormatIbnetdiscover(const fabric::Fabric& fabric);

std::string FormatDumpFts(const fabric::ForwardingTables& tables, const fabric::Fabric& fabric);

}  // namespace toporr::collectors

#endif  // TOPORR_COLLECTORS_IBNETDISCOVER_WRITER_H_

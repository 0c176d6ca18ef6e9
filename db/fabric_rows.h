// A fabric snapshot as rows of the tables in db/schema.h: nodes, ports, links, hosts,
// host_cas, anonymous_endpoints, forwarding_tables and forwarding_lid_owners, each keyed by
// snapshot_id and an index that keeps the order of the in-memory vectors. Store writes and
// reads them inside its own transactions; this file only (de)serialises.
// Thread-safety: as the Connection and statements passed in (one thread at a time).
#ifndef TOPORR_DB_FABRIC_ROWS_H_
#define TOPORR_DB_FABRIC_ROWS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "db/sqlite.h"
#include "fabric/fabric.h"
#include "fabric/forwarding_tables.h"

namespace toporr::db {

// The INSERT statements of a snapshot's fabric rows, prepared once per connection.
struct FabricRowStatements {
  Statement node, port, link, host, host_ca, anonymous, forwarding_table, lid_owners;
};

absl::StatusOr<std::unique_ptr<FabricRowStatements>> PrepareFabricRowStatements(Connection& db);

// Writes `fabric` (which must pass fabric::ValidateFabric) and, when not null, `tables` as
// the rows of snapshot `id`. Calls `checkpoint` with "after_nodes", "after_ports",
// "after_links" and "after_hosts" once each group is written (Store's crash points).
absl::Status WriteFabricRows(FabricRowStatements& st, int64_t id, const fabric::Fabric& fabric,
                             const fabric::ForwardingTables* tables,
                             const std::function<void(const char*)>& checkpoint);

// The fabric of snapshot `snapshot_id`, exactly as written (derived fields and the index
// rebuilt). kNotFound when there is no such snapshot; kDataLoss ("<db path>: snapshot N:
// <what>") for rows WriteFabricRows cannot have written.
absl::StatusOr<fabric::Fabric> ReadFabricRows(Connection& db, int64_t snapshot_id);

// The forwarding tables of snapshot `snapshot_id`, nullopt when it has none. kNotFound and
// kDataLoss as ReadFabricRows.
absl::StatusOr<std::optional<fabric::ForwardingTables>> ReadForwardingTableRows(
    Connection& db, int64_t snapshot_id);

}  // namespace toporr::db

#endif  // TOPORR_DB_FABRIC_ROWS_H_
